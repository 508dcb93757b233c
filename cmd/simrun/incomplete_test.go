package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cutScenario is a scenario whose run stops at its event cap long before its
// clients are done, with the expectation given.
func cutScenario(t *testing.T, expect string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "cut.yaml")
	body := "name: cut\nalgorithm: set-nx-px-token\nseed: 1\nduration: 1h\nmax_events: 200\n" +
		"clients:\n  - {name: c1, iterations: 1000, work: 1ms}\n  - {name: c2, iterations: 1000, work: 1ms}\n"
	if expect != "" {
		body += "expect: " + expect + "\n"
	}
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// A run cut at a cap that found nothing is incomplete, exit 3: never a pass.
func TestIncompleteRunIsNotAPass(t *testing.T) {
	code, out, errOut := simrun("run", cutScenario(t, ""), "--json")
	if code != exitIncomplete {
		t.Fatalf("exit %d, want %d (stderr %q)", code, exitIncomplete, errOut)
	}
	var j struct{ Verdict, Cut string }
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.Verdict != "incomplete" || !strings.Contains(j.Cut, "event limit 200") {
		t.Errorf("verdict %q, cut %q; want incomplete, cut by the event limit", j.Verdict, j.Cut)
	}
	code, out, _ = simrun("run", cutScenario(t, ""))
	if code != exitIncomplete || !strings.Contains(out, "verdict    INCOMPLETE") {
		t.Errorf("text: exit %d, want %d and INCOMPLETE:\n%s", code, exitIncomplete, out)
	}
}

// A contradicted expect: is said on stderr; --strict makes it exit 1.
func TestExpectContradictedStrict(t *testing.T) {
	f := cutScenario(t, "unsafe")
	code, _, errOut := simrun("run", f)
	if code != exitIncomplete {
		t.Errorf("without --strict: exit %d, want %d", code, exitIncomplete)
	}
	want := "simrun run: cut: verdict incomplete contradicts expect: unsafe\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	code, _, errOut = simrun("run", f, "--strict")
	if code != exitViolation || errOut != want {
		t.Errorf("--strict: exit %d, stderr %q; want %d, %q", code, errOut, exitViolation, want)
	}
	// An expectation that holds says nothing and keeps the verdict's status.
	code, _, errOut = simrun("run", cutScenario(t, "incomplete"), "--strict")
	if code != exitIncomplete || errOut != "" {
		t.Errorf("expect met: exit %d, stderr %q; want %d, nothing", code, errOut, exitIncomplete)
	}
	code, _, errOut = simrun("run", "del-race", "--strict")
	if code != exitViolation || errOut != "" {
		t.Errorf("del-race (expects unsafe): exit %d, stderr %q", code, errOut)
	}
}
