package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
)

// tooWide lists the lines of out longer than screenWidth columns.
func tooWide(out string) []string {
	var wide []string
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > screenWidth {
			wide = append(wide, l)
		}
	}
	return wide
}

// Every line of 'simrun run NAME' for every built-in, of 'simrun list', of
// the usage and of every command's help fits 100 columns.
func TestFitsTheScreen(t *testing.T) {
	outputs := map[string]string{}
	for _, s := range scenarios.Builtins() {
		_, out, errOut := simrun("run", s.Name)
		if out == "" {
			t.Fatalf("run %s: no output (stderr %q)", s.Name, errOut)
		}
		outputs["run "+s.Name] = out
	}
	// A long token and a Lua script in a witness.
	_, outputs["run del-race --algo set-nx-px-token"], _ = simrun("run", "del-race", "--algo", "set-nx-px-token")
	_, outputs["list"], _ = simrun("list")
	_, outputs["help"], _ = simrun("help")
	for _, c := range commands() {
		_, outputs["help "+c.name], _ = simrun("help", c.name)
		_, outputs[c.name+" --help"], _ = simrun(c.name, "--help")
	}
	for what, out := range outputs {
		for _, l := range tooWide(out) {
			t.Errorf("%s: %d columns: %s", what, utf8.RuneCountInString(l), l)
		}
	}
}

// Help names the command's usage, describes it, writes flags with two
// dashes and lists the algorithms; on stdout, exit 0, either way asked.
func TestHelpRun(t *testing.T) {
	for _, args := range [][]string{{"help", "run"}, {"run", "--help"}, {"run", "del-race", "-h"}} {
		code, out, errOut := simrun(args...)
		if code != exitOK || errOut != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errOut)
		}
		for _, want := range []string{"Usage: simrun run NAME|FILE", "reports the verdict", "--algo NAME",
			"--algo-file FILE", "--seed N", "--trace", "set-nx-px-token", "redlock"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: help lacks %q:\n%s", args, want, out)
			}
		}
		if strings.Contains(out, "\n  -algo") {
			t.Errorf("%v: a flag with one dash:\n%s", args, out)
		}
	}
	for _, name := range locks.Names() {
		_, out, _ := simrun("help", "run")
		if !strings.Contains(out, name) {
			t.Errorf("help run does not list %s", name)
		}
	}
}

// Flag errors and misplaced files: one line in simrun's words, naming the
// flag, exit 2.
func TestFlagAndFileErrors(t *testing.T) {
	dir := t.TempDir()
	_, yaml, _ := simrun("show", "del-race")
	scenario := filepath.Join(dir, "del-race.yaml")
	if err := os.WriteFile(scenario, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	algoFile := filepath.Join("..", "..", "examples", "php-eval.yaml")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "del-race", "--seed", "-1"}, `simrun run: --seed: "-1" is not a whole number ≥ 0`},
		{[]string{"run", "del-race", "--seed", "x"}, `--seed: "x" is not a whole number ≥ 0`},
		{[]string{"run", "del-race", "--json=maybe"}, `--json: "maybe" is not true or false`},
		{[]string{"run", "del-race", "--seed"}, "--seed needs a value"},
		{[]string{"run", "del-race", "--bogus"}, "unknown flag --bogus (valid: --algo, --algo-file,"},
		{[]string{"run", "del-race", "--seed", "1.5"}, `--seed: "1.5" is not a whole number ≥ 0`},
		{[]string{"run", algoFile}, "is an algorithm file, not a scenario: pass it with --algo-file"},
		{[]string{"run", "del-race", "--algo", algoFile}, "for the algorithm file " + algoFile + " use --algo-file"},
		{[]string{"run", "del-race", "--algo-file", scenario}, "is a scenario file, not an algorithm file"},
		{[]string{"explore", "--algo-file", scenario}, "is a scenario file, not an algorithm file"},
	}
	for _, c := range cases {
		code, out, errOut := simrun(c.args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if out != "" || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: stderr %q (stdout %q), want one line containing %q", c.args, errOut, out, c.want)
		}
		if strings.Contains(errOut, "parse error") || strings.Contains(errOut, "flag provided") {
			t.Errorf("%v: the flag package's words: %q", c.args, errOut)
		}
	}
}

// What the text report must say.
func TestRunReportSays(t *testing.T) {
	cases := []struct {
		scenario string
		want     []string
	}{
		{"crash-deadlock", []string{"no live holder", "C3 takes lock.foo with SETNX and crashes"}},
		{"fenced-pause", []string{"the resource refused c1's write", "wrote 1 fence 1: refused", "its write at 45.004s was", "refused (stale fence)"}},
		{"php-eval-stale-unlock", []string{"EVAL [getUnLockScript() (php_eval_unlock.lua)]", "predis-lua"}},
		{"del-race", []string{"redis-setnx-page: SETNX command page", "2011", "lihao21"}},
	}
	for _, c := range cases {
		_, out, _ := simrun("run", c.scenario)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("run %s lacks %q:\n%s", c.scenario, w, out)
			}
		}
		if strings.Contains(out, ".txt") || strings.Contains(out, "-- ") {
			t.Errorf("run %s cites a file name or a script's comment:\n%s", c.scenario, out)
		}
	}
	// Commands sent to a down node are in the trace, though they never ran.
	_, out, _ := simrun("run", "redlock-node-restart", "--trace")
	if strings.Contains(out, "(not recorded)") || !strings.Contains(out, "SET resource_name 995214fe… NX PX 10000 · timeout: node down (never ran)") {
		t.Errorf("--trace does not show the command sent to the down node:\n%s", out)
	}
	_, out, _ = simrun("run", "fenced-pause", "--trace")
	if !strings.Contains(out, "45.004s      c1   wrote 1 fence 1: refused") {
		t.Errorf("--trace does not show the refused write:\n%s", out)
	}
}
