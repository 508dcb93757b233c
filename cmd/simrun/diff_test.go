package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/mutants"
)

// Bad input: one line naming the flag, exit 2.
func TestDiffErrors(t *testing.T) {
	dir := t.TempDir()
	ref := "../../examples/set-nx-px-token.yaml"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", "--new", ref}, "simrun diff: --old: required"},
		{[]string{"diff", "--old", ref}, "simrun diff: --new: required"},
		{[]string{"diff", "--old", "nosuch", "--new", ref}, `simrun diff: --old: unknown algorithm "nosuch"`},
		{[]string{"diff", "--old", ref, "--new", filepath.Join(dir, "gone.yaml")}, "simrun diff: --new: "},
		{[]string{"diff", "--old", ref, "--new", ref, "--search", "middle"}, `simrun diff: --search: "middle": want both or inside or outside`},
		{[]string{"diff", "--old", ref, "--new", ref, "--runs", "0"}, "simrun diff: --runs: 0: must be at least 1"},
		{[]string{"diff", "--old", ref, "--new", ref, "--faults", "weather"}, "simrun diff: --faults: "},
		{[]string{"diff", "--old", "redlock", "--new", ref}, "simrun diff: --new: redlock runs on several nodes and set-nx-px-token-file on one"},
		{[]string{"diff", ref, ref}, "simrun diff: takes no arguments"},
	} {
		code, out, errOut := simrun(c.args...)
		if code != exitUsage || out != "" || !strings.HasPrefix(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", c.args, code, out, errOut, c.want)
		}
	}
}

// A built-in and its file twin never differ: exit 0, and the runs said.
func TestDiffIdentical(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := simrun("diff", "--old", "set-nx-px-token", "--new", "../../examples/set-nx-px-token.yaml",
		"--faults", "pause,crash", "--runs", "40", "-o", dir)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	for _, want := range []string{"inside     none worse for new in 40 runs of 40", "outside    none worse for new in 40 runs of 40",
		"verdict    none worse for the new version in the runs searched"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %d files with nothing found", len(entries))
	}
}

// A broken release (set-nx-px-token's file with a plain DEL) is found worse: exit 1, the scenario written, and the
// two replay commands it prints give the two verdicts.
func TestDiffFindsAndReplays(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.yaml")
	ms, err := mutants.Mutate("../../examples/set-nx-px-token.yaml")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ms, func(m mutants.Mutant) bool { return m.Operator == "release-no-check" })
	if i < 0 {
		t.Fatal("no release-no-check mutant of set-nx-px-token.yaml")
	}
	if err := os.WriteFile(broken, ms[i].YAML, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	args := []string{"diff", "--old", "set-nx-px-token", "--new", broken, "--faults", "pause", "--runs", "2000",
		"--search", "outside", "-o", out, "--json"}
	code, stdout, errOut := simrun(args...)
	if code != exitViolation || errOut != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, stdout)
	}
	var rep struct {
		Worse   bool             `json:"worse"`
		Inside  *json.RawMessage `json:"inside"`
		Outside struct {
			Worse          bool     `json:"worse"`
			Run            *int     `json:"run"`
			OldVerdict     string   `json:"old_verdict"`
			NewVerdict     string   `json:"new_verdict"`
			Counterexample string   `json:"counterexample"`
			Replay         []string `json:"replay"`
			Shrunk         struct {
				OldVerdict string `json:"old_verdict"`
				NewVerdict string `json:"new_verdict"`
			} `json:"shrunk"`
		} `json:"outside"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	o := rep.Outside
	if !rep.Worse || rep.Inside != nil || !o.Worse || o.Run == nil || o.Counterexample != filepath.Join(out, "worse-outside.yaml") || len(o.Replay) != 2 {
		t.Fatalf("report: %s", stdout)
	}
	wantOld := "simrun run " + o.Counterexample + " --algo set-nx-px-token"
	wantNew := "simrun run " + o.Counterexample + " --algo-file " + broken
	if o.Replay[0] != wantOld || o.Replay[1] != wantNew {
		t.Errorf("replay %q, want %q and %q", o.Replay, wantOld, wantNew)
	}
	for i, line := range o.Replay {
		verdict := []string{o.Shrunk.OldVerdict, o.Shrunk.NewVerdict}[i]
		_, stdout, errOut := simrun(append(strings.Fields(strings.TrimPrefix(line, "simrun ")), "--json")...)
		var run struct {
			Verdict string `json:"verdict"`
		}
		if err := json.Unmarshal([]byte(stdout), &run); err != nil || run.Verdict != verdict {
			t.Errorf("%s: verdict %q (%v, stderr %q), the diff said %s", line, run.Verdict, err, errOut, verdict)
		}
	}
	// Run again into the same folder: refused without --force.
	code, _, errOut = simrun(args...)
	if code != exitUsage || !strings.Contains(errOut, "--out: "+out+" already holds worse-outside.yaml") {
		t.Errorf("second diff into %s: exit %d, stderr %q", out, code, errOut)
	}
}
