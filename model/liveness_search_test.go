package model_test

// These tests judge whole runs, so they live outside package model: they
// drive the scenario generator and the explorer, which import model.

import (
	"context"
	"flag"
	"os"
	"strconv"
	"testing"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/explore/gen"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"pgregory.net/rapid"
)

// php-set-get's waiters write the key and fail in the expiry second (the
// set-get-deadlock scenario): once its holder crashes nobody acquires again.
// A random search under crash faults must find that stuck run; under the
// old rule, which forgave every new version of the key for a lifetime, it
// found nothing in 20,000 runs.
func TestExploreFindsWriteAndFailDeadlock(t *testing.T) {
	e, err := explore.New(explore.Options{Algorithm: "php-set-get", Classes: []string{scenarios.ClassCrash},
		Seed: 1, Runs: 2000, Verdicts: []string{model.VerdictStuck}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Search(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Found == nil || r.Found.Verdict != model.VerdictStuck {
		t.Fatalf("no stuck run of php-set-get under crash in %d runs", r.Runs)
	}
	// The found run replays stuck with every checker on.
	o, err := judge.Run(r.Found.Scenario, "", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Verdict.Verdict != model.VerdictStuck {
		t.Errorf("run %d replays %s, want stuck", r.Found.Index, o.Verdict.Verdict)
	}
}

// livenessCases is how many runs the liveness property draws: 1,000 by
// default, LOCKSIM_LIVENESS_CASES (say 10000) for the long run.
func livenessCases(t *testing.T) int {
	n := 1000
	if v := os.Getenv("LOCKSIM_LIVENESS_CASES"); v != "" {
		k, err := strconv.Atoi(v)
		if err != nil || k <= 0 {
			t.Fatalf("LOCKSIM_LIVENESS_CASES=%q: want a positive count", v)
		}
		n = k
	}
	return n
}

// set-nx-px-token inside its assumptions (work, pauses, round trips and
// drift below the TTL; no node restart or node clock jump) under crash,
// pause, skew and net faults is never stuck and never stale: every wait is
// explained by a live holder, a crashed holder's lease, a lost release, or a
// write whose writer could not know it took the lock. A false stuck here
// means the legitimate-lease rule forgives too little; a false stale means
// a lost release is blamed on the lock.
func TestTokenLockLiveInsideAssumptions(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 simulated runs")
	}
	f := flag.Lookup("rapid.checks")
	if f == nil {
		t.Fatal("rapid registers no -rapid.checks flag")
	}
	old := f.Value.String()
	if err := f.Value.Set(strconv.Itoa(livenessCases(t))); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
	algo, err := locks.Lookup("set-nx-px-token")
	if err != nil {
		t.Fatal(err)
	}
	g, err := gen.Generator(algo, gen.Options{Inside: true,
		Classes: []string{scenarios.ClassCrash, scenarios.ClassPause, scenarios.ClassSkew, scenarios.ClassNet}})
	if err != nil {
		t.Fatal(err)
	}
	notes := 0
	rapid.Check(t, func(rt *rapid.T) {
		s := g.Draw(rt, "scenario")
		o, err := judge.Run(s, "", model.Options{SkipPorcupine: true})
		if err != nil {
			rt.Fatal(err)
		}
		notes += len(o.Verdict.Notes)
		if v := o.Verdict.Verdict; v == model.VerdictStuck || v == model.VerdictStale {
			data, _ := scenarios.Marshal(s)
			rt.Fatalf("%s inside the assumptions: %+v\n%s", v, o.Verdict.Violations, data)
		}
	})
	t.Logf("%d notes of lost releases", notes)
}
