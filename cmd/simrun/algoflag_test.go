package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// explore --algo-file finds the example file's bug, writes a counterexample
// that loads, and the replay line it prints replays it with the same verdict.
func TestExploreAlgoFile(t *testing.T) {
	dir := t.TempDir()
	file := "../../examples/setnx-getset.yaml"
	code, out, errOut := simrun("explore", "--algo-file", file, "--faults", "pause", "--verdict", "unsafe", "--out", dir)
	if code != exitViolation {
		t.Fatalf("exit %d, want %d (stderr %q)", code, exitViolation, errOut)
	}
	path := filepath.Join(dir, "counterexample.yaml")
	replay := "simrun run " + path + " --algo-file " + file
	if !strings.Contains(out, "explore    setnx-getset-file under pause") || !strings.Contains(out, "replay     "+replay+"\n") {
		t.Errorf("summary:\n%s\nwant the file's algorithm and the line %q", out, replay)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#   simrun run THIS-FILE --algo-file " + file, "algorithm: " + standIn,
		"Found by: simrun explore --algo-file " + file + " --faults pause --seed 1"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("counterexample lacks %q:\n%s", want, data)
		}
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.txt"))
	if !strings.Contains(string(report), replay) {
		t.Errorf("report.txt lacks %q", replay)
	}
	args := strings.Fields(replay)[1:]
	code, out, errOut = simrun(append(args, "--json")...)
	var j struct{ Verdict, Algorithm string }
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v: %v (stderr %q)", args, err, errOut)
	}
	if code != exitViolation || j.Verdict != "unsafe" || j.Algorithm != "setnx-getset-file" {
		t.Errorf("replay: exit %d, %+v", code, j)
	}
}

// Bad input: one line on stderr, exit 2.
func TestExploreAlgoFileErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--algo", "redlock", "--algo-file", "x.yaml"},
			"simrun explore: --algo and --algo-file are mutually exclusive: give one"},
		{[]string{"explore"}, "simrun explore: --algo: required"},
		{[]string{"explore", "--algo-file", "nope.yaml"}, "simrun explore: algorithm file nope.yaml: no such file or directory"},
		{[]string{"explore", "--algo-file", "../../examples/php-eval.yaml", "--shard", "0/2"},
			"simrun explore: --shard: not with --algo-file"},
		{[]string{"explore", "--algo-file", "../../examples/php-eval.yaml", "--faults", "gc"}, "simrun explore: --faults:"},
	} {
		code, out, errOut := simrun(c.args...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", c.args, code, out, errOut, c.want)
		}
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"examples/php-eval.yaml": "examples/php-eval.yaml",
		"my lock.yaml":           "'my lock.yaml'",
		"it's.yaml":              `'it'\''s.yaml'`,
		"":                       "''",
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
