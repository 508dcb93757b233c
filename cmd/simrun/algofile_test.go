package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeAlgo writes an algorithm file (and its script files) to a temp dir.
func writeAlgo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "algo.yaml")
}

const spinFile = `name: spin
key: k
ttl: 10s
acquire:
  script_file: spin.lua
  keys: ["{key}"]
  success: {equals: 1}
release:
  command: [DEL, "{key}"]
`

// --algo-file replays a scenario against an algorithm file: the examples
// give the built-ins' digests; a runaway script is a client-error finding.
func TestRunAlgoFile(t *testing.T) {
	spin := writeAlgo(t, map[string]string{"algo.yaml": spinFile, "spin.lua": "while true do end\n"})
	cases := []struct {
		args      []string
		code      int
		verdict   string
		algorithm string
		sameAs    string // --algo whose digest this run must have
	}{
		{[]string{"run", "del-race", "--algo-file", "../../examples/set-nx-px-token.yaml", "--json"}, exitOK, "safe", "set-nx-px-token-file", "set-nx-px-token"},
		{[]string{"run", "second-resolution", "--json", "--algo-file", "../../examples/php-eval.yaml"}, exitViolation, "unsafe", "php-eval-file", "php-eval"},
		{[]string{"run", "pause-del-release", "--algo-file", "../../examples/setnx-getset.yaml", "--json"}, exitViolation, "unsafe", "setnx-getset-file", "setnx-getset"},
		{[]string{"run", "del-race", "--algo-file", spin, "--json"}, exitViolation, "client-error", "spin", ""},
	}
	for _, c := range cases {
		code, out, errOut := simrun(c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, errOut)
		}
		var j struct{ Verdict, Algorithm, Digest string }
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("%v: not JSON: %v\n%s", c.args, err, out)
		}
		if j.Verdict != c.verdict || j.Algorithm != c.algorithm {
			t.Errorf("%v: verdict %s, algorithm %s; want %s, %s", c.args, j.Verdict, j.Algorithm, c.verdict, c.algorithm)
		}
		if c.sameAs != "" {
			_, ref, _ := simrun("run", c.args[1], "--algo", c.sameAs, "--json")
			var r struct{ Digest string }
			_ = json.Unmarshal([]byte(ref), &r)
			if r.Digest != j.Digest {
				t.Errorf("%v: digest %s, --algo %s gives %s", c.args, j.Digest, c.sameAs, r.Digest)
			}
		}
	}
}

// Bad input: one line on stderr naming the file and the field, exit 2.
func TestRunAlgoFileErrors(t *testing.T) {
	bad := func(files map[string]string) string { return writeAlgo(t, files) }
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "del-race", "--algo", "php-eval", "--algo-file", "x.yaml"},
			"simrun run: --algo and --algo-file are mutually exclusive: give one"},
		{[]string{"run", "del-race", "--algo-file", "nope.yaml"},
			"simrun run: algorithm file nope.yaml: no such file or directory"},
		{[]string{"run", "del-race", "--algo-file", bad(map[string]string{"algo.yaml": strings.Replace(spinFile, `keys: ["{key}"]`, `keys: ["{kee}"]`, 1), "spin.lua": "return 1"})},
			`algo.yaml: acquire.keys[0]: unknown placeholder "{kee}"`},
		{[]string{"run", "del-race", "--algo-file", bad(map[string]string{"algo.yaml": spinFile, "spin.lua": "local x = 1\nif x then\n  return 1\nelse\n"})},
			"algo.yaml: acquire.script_file: spin.lua:5: syntax error near <eof>"},
		{[]string{"run", "del-race", "--algo-file", bad(map[string]string{"algo.yaml": strings.Replace(spinFile, "[DEL,", "[UNLINKK,", 1), "spin.lua": "return 1"})},
			`algo.yaml: release.command[0]: "UNLINKK" is not a command locksim's Redis (miniredis) runs`},
		{[]string{"run", "del-race", "--algo-file", bad(map[string]string{"algo.yaml": spinFile + "colour: red\n", "spin.lua": "return 1"})},
			`algo.yaml: line 10: unknown field "colour"`},
	}
	for _, c := range cases {
		code, out, errOut := simrun(c.args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d", c.args, code, exitUsage)
		}
		if out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: stdout %q, stderr %q; want one line with %q", c.args, out, errOut, c.want)
		}
	}
}

// explore keeps the file's TTL in the runs and in the shrunk counterexample
// by default; --draw-ttl draws it, and the counterexample says so in how it
// was found.
func TestExploreOwnTTL(t *testing.T) {
	for _, c := range []struct {
		flags   []string
		by      string // what Found by says after the seed
		keepTTL bool
	}{
		{nil, "--seed 1 (run ", true},
		{[]string{"--draw-ttl"}, "--seed 1 --draw-ttl (run ", false},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		args := append([]string{"explore", "--search", "outside", "--algo-file", "../../examples/redsync.yaml", "--faults", "pause",
			"--runs", "200", "--workers", "1", "--out", dir}, c.flags...)
		code, _, errOut := simrun(args...)
		if code != exitViolation {
			t.Fatalf("%v: exit %d: %s", c.flags, code, errOut)
		}
		data, err := os.ReadFile(filepath.Join(dir, "counterexample.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "ttl: 8s") != c.keepTTL || !strings.Contains(string(data), c.by) {
			t.Errorf("%v: the counterexample's ttl is not redsync's 8 s (want %v) or Found by does not say %q:\n%s",
				c.flags, c.keepTTL, c.by, data)
		}
	}
}
