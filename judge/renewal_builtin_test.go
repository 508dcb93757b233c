package judge_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// The renewal and re-entry built-ins (extend, watchdog, reenter) join the
// table of builtin_test.go here, so that their rows and checks live with
// the feature.
func init() {
	builtinCases["token-extend-pause"] = builtinCase{must: []finding{overlap("c1", "c2"), kind(model.KindLostUpdate, "c1", "c2")}, resource: model.No,
		check: func(t *testing.T, o *judge.Outcome) {
			// The renewal before the pause succeeded; none failed: C1 wrote
			// before its watchdog ran again.
			ok, failed := extends(o.Result.History, "c1")
			if ok != 1 || failed != 0 {
				t.Errorf("c1's extends: %d renewed, %d failed; want 1, 0", ok, failed)
			}
		}}
	builtinCases["token-extend-renewed"] = builtinCase{resource: model.Yes,
		check: func(t *testing.T, o *judge.Outcome) {
			// 24 s of work renewed every 4 s: five renewals, all granted.
			if ok, failed := extends(o.Result.History, "c1"); ok < 5 || failed != 0 {
				t.Errorf("c1's extends: %d renewed, %d failed; want at least 5, 0", ok, failed)
			}
		}}
	builtinCases["watchdog-gc-pause"] = builtinCase{must: []finding{overlap("c1", "c2")}, mustNot: []finding{kind(model.KindLostUpdate, "c1", "c2")},
		resource: model.Yes,
		check: func(t *testing.T, o *judge.Outcome) {
			// The renewal after the pause fails and C1 stops writing.
			if ok, failed := extends(o.Result.History, "c1"); ok != 1 || failed != 1 {
				t.Errorf("c1's extends: %d renewed, %d failed; want 1, 1", ok, failed)
			}
			for _, e := range o.Result.History.Events {
				if e.Proc == 0 && (e.Kind == sim.KindResourceWrite || e.Kind == sim.KindReleaseInvoke) {
					t.Errorf("c1 went on after its failed renewal: %v at %v", e.Kind, e.At)
				}
			}
		}}
	builtinCases["watchdog-stalled-holder"] = builtinCase{resource: model.Yes,
		check: func(t *testing.T, o *judge.Outcome) {
			// The watchdog renews every 10 s for the whole 600 s.
			if ok, failed := extends(o.Result.History, "c1"); ok < 59 || failed != 0 {
				t.Errorf("c1's extends: %d renewed, %d failed; want about 60, 0", ok, failed)
			}
		}}
	builtinCases["token-scope-retry"] = builtinCase{resource: model.Yes,
		check: func(t *testing.T, o *judge.Outcome) {
			// With a kept token the retry re-takes the key within 3 s; with
			// a fresh token per try C1 waits out its own lock (8 s TTL).
			if at := firstHold(o.Result.History); at > sim.Time(3*time.Second) {
				t.Errorf("token_scope acquire: c1 held from %v, want before 3s", at)
			}
			s, err := scenarios.Lookup("token-scope-retry")
			if err != nil {
				t.Fatal(err)
			}
			s.Params.TokenScope = "try"
			tr, err := judge.Run(s, "", model.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if at := firstHold(tr.Result.History); at < sim.Time(8*time.Second) {
				t.Errorf("token_scope try: c1 held from %v, want after its own key expired at 8s", at)
			}
		}}
	builtinCases["reentrant-watchdog"] = builtinCase{resource: model.Yes,
		check: func(t *testing.T, o *judge.Outcome) {
			h := o.Result.History
			re, held := 0, 0
			for _, e := range h.Events {
				switch {
				case e.Kind == sim.KindReenter && e.Held:
					re++
				case e.Kind == sim.KindLockReturn && e.Held:
					held++
				}
			}
			if held != 9 || re != 18 {
				t.Errorf("%d holds and %d re-entries, want 9 and 18", held, re)
			}
		}}
}

// extends counts a process's renewals that succeeded and that failed.
func extends(h sim.History, proc string) (ok, failed int) {
	for _, e := range h.Events {
		if e.Kind != sim.KindExtendReturn || h.Procs[e.Proc] != proc {
			continue
		}
		if e.Held && e.Err == "" {
			ok++
		} else {
			failed++
		}
	}
	return ok, failed
}

// What the lease built-ins' narratives tell the reader to try next.
func TestLeaseBuiltinsTryNext(t *testing.T) {
	for _, c := range []struct{ scenario, algo, verdict string }{
		{"token-extend-renewed", "set-nx-px-token", model.VerdictUnsafe},
		{"watchdog-stalled-holder", "set-nx-px-token", model.VerdictUnsafe},
		{"reentrant-watchdog", "token-extend", model.VerdictSafe},
	} {
		s, err := scenarios.Lookup(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		o, err := judge.Run(s, c.algo, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict.Verdict != c.verdict {
			t.Errorf("%s --algo %s: %s, want %s", c.scenario, c.algo, o.Verdict.Verdict, c.verdict)
		}
	}
}

// A re-entrant algorithm file (examples/hash-reentrant.yaml: HINCRBY on the
// {owner} field, an extend script) with reenter: 2 never lets a second
// process in under fault class none, and its watchdog's renewals are in the
// history.
func TestReentrantAlgoFileUnderNone(t *testing.T) {
	algo := loadExample(t, "hash-reentrant.yaml")
	for seed := uint64(1); seed <= 20; seed++ {
		o := runBuiltinWith(t, "reentrant-watchdog", seed, algo)
		if o.Verdict.Verdict != model.VerdictSafe {
			t.Fatalf("seed %d: %s: %+v", seed, o.Verdict.Verdict, o.Verdict.Violations)
		}
		if ok, failed := extends(o.Result.History, "c1"); ok == 0 || failed != 0 {
			t.Fatalf("seed %d: c1's renewals: %d ok, %d failed", seed, ok, failed)
		}
	}
}

func loadExample(t *testing.T, name string) locks.Algorithm {
	t.Helper()
	a, err := algofile.LoadFile(filepath.Join("..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runBuiltinWith runs built-in scenario name with seed (0: its own)
// against algo, a lock that need not be registered (an algorithm file).
func runBuiltinWith(t *testing.T, name string, seed uint64, algo locks.Algorithm) *judge.Outcome {
	t.Helper()
	s, err := scenarios.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if seed != 0 {
		s.Seed = seed
	}
	p, err := s.PrepareWith(algo)
	if err != nil {
		t.Fatal(err)
	}
	o, err := judge.Prepared(s, p, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// firstHold is when the run's first held Acquire returned; forever if none.
func firstHold(h sim.History) sim.Time {
	for _, e := range h.Events {
		if e.Kind == sim.KindLockReturn && e.Held {
			return e.At
		}
	}
	return sim.Time(1 << 62)
}
