package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/explore"
)

// A correct TTL lock: safe inside, exit 0; outside, a pause past its TTL,
// written as outside.yaml, which replays unsafe; --fail-on any exits 1.
func TestExploreAnswersTwice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errOut := simrun("explore", "--algo", "set-nx-px-token", "--faults", "pause", "--runs", "100", "--out", dir)
	if code != exitOK {
		t.Fatalf("exit %d, want %d: a correct TTL lock exits by its inside answer (stderr %q)\n%s", code, exitOK, errOut, out)
	}
	outside := filepath.Join(dir, "outside.yaml")
	for _, want := range []string{"\nfound      UNSAFE at run ", // the search explore always ran
		"\nassumes    work + pauses + 2 × round trip + drift below the lease",
		"\ninside     SAFE: nothing found in 100 runs inside the assumptions\n",
		"\noutside    UNSAFE from a pause of ", " with ", ", TTL 30s (run ", "\n           breaks c",
		"\n           wrote " + outside + "; replay simrun run " + outside + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	if code, _, _ := simrun("run", outside); code != exitViolation {
		t.Errorf("replaying outside.yaml: exit %d, want %d", code, exitViolation)
	}
	if _, err := os.Stat(filepath.Join(dir, "inside.yaml")); err == nil {
		t.Error("inside.yaml written for a safe inside answer")
	}
	if code, _, _ := simrun("explore", "--algo", "set-nx-px-token", "--faults", "pause", "--runs", "100", "--out", dir); code != exitUsage {
		t.Errorf("an --out holding outside.yaml: exit %d, want %d", code, exitUsage)
	}
	if code, _, _ := simrun("explore", "--algo", "set-nx-px-token", "--faults", "pause", "--runs", "100", "--out", dir, "--force", "--fail-on", "any"); code != exitViolation {
		t.Errorf("--fail-on any: exit %d, want %d", code, exitViolation)
	}
}

// The JSON carries both answers and the assumptions; a lock broken
// inside its assumptions exits 1 and writes inside.yaml.
func TestExploreAnswersJSON(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := simrun("explore", "--algo", "setnx-del", "--faults", "crash", "--runs", "30", "--json", "--out", dir)
	if code != exitViolation {
		t.Fatalf("exit %d, want %d (stderr %q)", code, exitViolation, errOut)
	}
	var rep explore.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	in, o, a := rep.Inside, rep.Outside, rep.Assumptions
	if a == nil || a.Expiry != "none" || !strings.HasPrefix(a.Words, "no expiry") {
		t.Errorf("assumptions %+v", a)
	}
	if in == nil || in.Verdict != "stuck" || in.FirstRun == nil || in.Counterexample == nil || *in.Counterexample != filepath.Join(dir, "inside.yaml") ||
		in.HeldShare <= 0.5 || in.Untested != "" {
		t.Fatalf("inside %+v", in)
	}
	if code, _, _ := simrun("run", *in.Counterexample); code != exitViolation {
		t.Errorf("replaying inside.yaml: exit %d", code)
	}
	// A crash breaks no assumption of a lock that never expires: the
	// outside search finds the same deadlock, inside, and so no breaking
	// point.
	if o == nil || o.Verdict != "stuck" || o.BreakingPoint != nil {
		t.Errorf("outside %+v", o)
	}
	var j struct{ Inside map[string]any }
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"verdict", "runs", "first_run", "counterexample", "held_share", "never_held_runs"} {
		if _, ok := j.Inside[k]; !ok {
			t.Errorf("no inside.%s in %s", k, out)
		}
	}
}

// Sharding runs one search: both is refused in one line, the inside one
// says so on its line; bad values of the new flags are refused.
func TestExploreAnswersFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--shard", "0/2", "--search", "both"}, "--search"},
		{[]string{"--search", "some"}, "--search"},
		{[]string{"--fail-on", "all"}, "--fail-on"},
		{[]string{"--min-held", "1.5"}, "--min-held"},
		{[]string{"--redis", "127.0.0.1:1", "--search", "inside"}, "--search"},
	} {
		args := append([]string{"explore", "--algo", "set-nx-px-token", "--runs", "10"}, c.args...)
		code, _, errOut := simrun(args...)
		if code != exitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.flag+":") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %s", c.args, code, errOut, c.flag)
		}
	}
	_, out, errOut := simrun("explore", "--algo", "set-nx-px-token", "--faults", "pause", "--runs", "10", "--shard", "1/2", "--search", "inside")
	if !strings.Contains(out, `"search":"inside"`) || !strings.Contains(out, `"found":false`) {
		t.Errorf("an inside shard's line: %s (stderr %q)", out, errOut)
	}
}
