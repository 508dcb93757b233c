package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/sim/foreign"
)

// The Python lock programs through every front door, each verdict derived
// by hand from the program's code (examples/foreign/python).
func needsPython(t *testing.T) {
	t.Helper()
	if err := foreign.Available(foreign.Python); err != nil {
		t.Skip(err)
	}
}

// needsPrograms skips t when one of the lock programs at paths cannot run
// here (no interpreter, or a Node program's packages not installed),
// saying why.
func needsPrograms(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := foreign.Runnable(p); err != nil {
			t.Skip(err)
		}
	}
}

const pyPrograms = "../../examples/foreign/python/"

// 002's code under client clock skew: its takeover compares the value with
// the client's own clock, so clocks 5 s apart with a 3 s lease let a
// skewed client take a live lock (outside), and int(None) raises inside
// (a waiter GETs a key the holder has just deleted): a client error. Both
// turn up by run 1, and the inside search goes on to its last run, so five
// runs are enough (examples/foreign's 002 table searches each class 100
// runs deep).
func TestForeignExploreSkew(t *testing.T) {
	needsPython(t)
	code, out, errOut := simrun("explore", "--algo-file", pyPrograms+"002-setnx.py", "--faults", "skew", "--runs", "5",
		"-o", filepath.Join(t.TempDir(), "x"), "--json")
	var r struct {
		Inside, Outside struct{ Verdict string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d: %v: %s", code, err, errOut)
	}
	if r.Inside.Verdict != "client-error" || r.Outside.Verdict != "unsafe" {
		t.Errorf("002 under skew: inside %s, outside %s; want client-error (int(None)) and unsafe (clock spread past the lease)", r.Inside.Verdict, r.Outside.Verdict)
	}
	if !strings.Contains(out, "client clocks") {
		t.Errorf("the breaking point does not name the clock spread: %s", out)
	}
}

// redis-py's Lock with timeout=5 under crashes and pauses below the TTL:
// every schedule of two clients with one fault is safe (a crashed holder's
// key expires in 5 s and the waiter, which polls every 0.1 s for ever,
// takes it); a pause of 1.5 TTLs after acquiring lets the other client in:
// unsafe, outside.
func TestForeignProve(t *testing.T) {
	needsPython(t)
	skipUnderRace(t, "a search of hundreds of worker processes")
	code, out, errOut := simrun("prove", "--algo-file", pyPrograms+"redis-py-lock-5s.py", "--clients", "2", "--max-faults", "1",
		"--faults", "crash,long-pause", "-o", filepath.Join(t.TempDir(), "p.yaml"), "--json")
	var r struct {
		Inside struct {
			Verdict string
			Proved  bool
		}
		Outside struct {
			Verdict  string
			Schedule []struct{ Point, Choice string }
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d: %v: %s", code, err, errOut)
	}
	if !r.Inside.Proved || r.Inside.Verdict != "safe" {
		t.Errorf("inside: %+v, want proved safe", r.Inside)
	}
	if r.Outside.Verdict != "unsafe" || len(r.Outside.Schedule) != 1 || r.Outside.Schedule[0].Point != "acquired" {
		t.Errorf("outside: %+v, want unsafe from one pause after acquiring", r.Outside)
	}
}

// Every default (no timeout) against timeout=5: the same runs, and where a
// release's request is lost the default lock's key stays for ever while
// the 5 s one expires: stuck, worse for the new version.
func TestForeignDiff(t *testing.T) {
	needsPython(t)
	code, out, errOut := simrun("diff", "--old", pyPrograms+"redis-py-lock-5s.py", "--new", pyPrograms+"redis-py-lock-defaults.py",
		"--faults", "net", "--runs", "50", "--search", "inside", "-o", filepath.Join(t.TempDir(), "d"), "--json")
	checkWorse(t, code, out, errOut, "safe", "stuck")
}

const nodePrograms = "../../examples/foreign/node/"

// node-redlock 5 on three nodes, two clients of one round each, one crash
// or one pause of 1.5 TTLs anywhere: safe on both sides. A crashed holder's
// keys expire in 10 s; a paused one's too, but the waiter's acquire gives
// up after its ten retries 200 ± 100 ms apart, about 2 s, long before the
// lease it waits on ends, so no schedule of one round lets it in.
func TestForeignProveRedlock(t *testing.T) {
	needsPrograms(t, nodePrograms+"redlock-v5.js")
	skipUnderRace(t, "a search of hundreds of worker processes")
	code, out, errOut := simrun("prove", "--algo-file", nodePrograms+"redlock-v5.js", "--clients", "2", "--rounds", "1",
		"--max-faults", "1", "--max-delays", "0", "--faults", "crash,long-pause", "-o", filepath.Join(t.TempDir(), "p.yaml"), "--json")
	var r struct {
		Inside, Outside struct {
			Verdict   string
			Proved    bool
			Schedules int
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d: %v: %s", code, err, errOut)
	}
	if !r.Inside.Proved || r.Inside.Verdict != "safe" || r.Outside.Verdict != "safe" || r.Outside.Schedules == 0 {
		t.Errorf("inside %+v, outside %+v: want both safe, the outside side searched", r.Inside, r.Outside)
	}
}

// redlock 4 against redlock 5 under net, inside: 5 answers an acquire at a
// quorum and leaves the slower nodes' acquires in flight, which can land
// after its release (stale); 4 waits for every node. Worse for the new one.
func TestForeignDiffRedlock(t *testing.T) {
	needsPrograms(t, nodePrograms+"redlock-v4.js", nodePrograms+"redlock-v5.js")
	skipUnderRace(t, "a search of hundreds of worker processes")
	code, out, errOut := simrun("diff", "--old", nodePrograms+"redlock-v4.js", "--new", nodePrograms+"redlock-v5.js",
		"--faults", "net", "--runs", "5", "--search", "inside", "--shrink-tries", "20", "-o", filepath.Join(t.TempDir(), "d"), "--json")
	checkWorse(t, code, out, errOut, "safe", "stale")
}

// A program that cannot load is bad input: exit 2 and one line naming its
// line, before any run; so is an interpreter that is not there.
func TestForeignBrokenProgram(t *testing.T) {
	needsPython(t)
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.py")
	if err := os.WriteFile(broken, []byte("# locksim: ttl=1s\ndef acquire(:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := simrun("run", "token-pause", "--algo-file", broken)
	if code != exitUsage || !strings.Contains(errOut, "broken.py: line 2: SyntaxError") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
		t.Errorf("exit %d, stderr %q, stdout %.80q: want exit 2 and one line naming line 2", code, errOut, out)
	}
	t.Setenv("LOCKSIM_PYTHON", filepath.Join(dir, "no-python"))
	code, _, errOut = simrun("run", "token-pause", "--algo-file", pyPrograms+"redis-py-lock-5s.py")
	if code != exitUsage || !strings.Contains(errOut, "cannot run") {
		t.Errorf("no interpreter: exit %d, %q: want exit 2 saying it cannot run it", code, errOut)
	}
}

// A Node program whose packages are not installed (no npm ci) is bad input
// too: one line naming the package, before any run, not a client error in
// every process.
func TestForeignMissingPackage(t *testing.T) {
	if err := foreign.Available(foreign.Node); err != nil {
		t.Skip(err)
	}
	prog := filepath.Join(t.TempDir(), "needs.js")
	src := "// locksim: ttl=1s\nconst x = require('locksim-no-such-package');\nmodule.exports = { acquire() {}, release() {} };\n"
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := simrun("run", "token-pause", "--algo-file", prog)
	if code != exitUsage || !strings.Contains(errOut, "cannot find package ") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
		t.Errorf("exit %d, stderr %q, stdout %.80q: want exit 2 and one line naming a missing package", code, errOut, out)
	}
}

// checkWorse checks a diff's JSON: worse inside, old and new verdicts as
// given, at the run and after shrinking.
func checkWorse(t *testing.T, code int, out, errOut, old, nw string) {
	t.Helper()
	var r struct {
		Worse  bool
		Inside struct {
			Worse  bool
			Shrunk struct {
				OldVerdict string `json:"old_verdict"`
				NewVerdict string `json:"new_verdict"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d: %v: %s", code, err, errOut)
	}
	if code != exitViolation || !r.Worse || !r.Inside.Worse || r.Inside.Shrunk.OldVerdict != old || r.Inside.Shrunk.NewVerdict != nw {
		t.Errorf("exit %d, %+v: want exit %d, worse inside, old %s and new %s", code, r, exitViolation, old, nw)
	}
}
