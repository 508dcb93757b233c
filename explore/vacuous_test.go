package explore

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// mustRun searches with o, failing the test on any error.
func mustRun(t *testing.T, o Options) *Result {
	t.Helper()
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// vacuousWhen makes, for the test's length, each search run whose index
// satisfies f vacuous (its one planned fault fired and touched nothing) and
// every other run's fault act: what the engine records, set by hand, so the
// counting is tested apart from the engine's classing of faults.
func vacuousWhen(t *testing.T, f func(i int) bool) {
	t.Helper()
	afterRun = func(i int, res *sim.Result) {
		res.Faults = []sim.FaultUse{{Fired: true, Acted: !f(i), Why: "node2 never served this lock"}}
	}
	t.Cleanup(func() { afterRun = nil })
}

// A search counts its vacuous runs, by index, the same whatever the
// workers, and its report says how many.
func TestSearchCountsVacuousRuns(t *testing.T) {
	vacuousWhen(t, func(i int) bool { return i%3 == 0 })
	for _, w := range []int{1, 3} {
		r := mustRun(t, Options{Algorithm: "set-nx-px-token", Classes: classes(t, "crash"), Seed: 1, Runs: 30, Workers: w})
		sr := r.Search
		if sr.Found != nil {
			t.Fatalf("workers %d: found %s; want nothing (set-nx-px-token is safe under crash)", w, sr.Found.Verdict)
		}
		want := []int{0, 3, 6, 9, 12, 15, 18, 21, 24, 27}
		if sr.Vacuous != 10 || !slices.Equal(sr.VacuousAt, want) {
			t.Errorf("workers %d: %d vacuous runs %v, want 10: %v", w, sr.Vacuous, sr.VacuousAt, want)
		}
		rep, err := r.Report("", false)
		if err != nil {
			t.Fatal(err)
		}
		if rep.VacuousRuns != 10 || rep.VacuousAt != nil {
			t.Errorf("workers %d: report vacuous_runs %d at %v, want 10 and no list (not a shard)", w, rep.VacuousRuns, rep.VacuousAt)
		}
	}
}

// Without any vacuous run the JSON still says so: vacuous_runs is 0, not
// missing, as incomplete_runs. Runs with no fault to inject are never
// vacuous (a crash run may be: a crash of a client that had finished).
func TestReportSaysNoVacuousRuns(t *testing.T) {
	r := mustRun(t, Options{Algorithm: "set-nx-px-token", Classes: classes(t, "none"), Seed: 1, Runs: 3, Workers: 1})
	rep, _ := r.Report("", false)
	data, _ := json.Marshal(rep)
	if !strings.Contains(string(data), `"vacuous_runs":0`) || strings.Contains(string(data), "vacuous_at") {
		t.Errorf("JSON %s", data)
	}
}

// A search that met nothing says safe: verdict is a stable field, present
// whatever was found.
func TestReportOfNothingFoundSaysSafe(t *testing.T) {
	r := mustRun(t, Options{Algorithm: "set-nx-px-token", Classes: classes(t, "none"), Seed: 1, Runs: 3, Workers: 1})
	rep, _ := r.Report("", false)
	data, _ := json.Marshal(rep)
	if rep.Found || !strings.Contains(string(data), `"verdict":"safe"`) {
		t.Errorf("found %v, JSON %s: want found false and verdict safe", rep.Found, data)
	}
}

// Runs past the one that stopped the search are not counted, whichever
// worker ran them.
func TestVacuousRunsPastTheStopAreNotCounted(t *testing.T) {
	vacuousWhen(t, func(int) bool { return true })
	for _, w := range []int{1, 3} {
		e, err := New(Options{Algorithm: "set-nx-px-token", Classes: classes(t, "pause"), Seed: 1, Runs: 200, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		sr, err := e.Search(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if sr.Found == nil || sr.Stop <= 0 {
			t.Fatalf("workers %d: found %+v stop %d; want unsafe after some runs", w, sr.Found, sr.Stop)
		}
		if sr.Vacuous != sr.Stop+1 || sr.Vacuous != sr.Runs || sr.VacuousAt[len(sr.VacuousAt)-1] != sr.Stop {
			t.Errorf("workers %d: %d vacuous runs, last %d; want runs 0 to the stop, %d", w, sr.Vacuous, sr.VacuousAt[len(sr.VacuousAt)-1], sr.Stop)
		}
	}
}

// Shards merge their vacuous runs by index, up to the merged stop.
func TestMergeCountsVacuousRunsBelowTheStop(t *testing.T) {
	stop := 5
	lines := []Report{
		{Algorithm: "a", Seed: 1, RunsLimit: 10, Shard: "0/2", VacuousRuns: 3, VacuousAt: []int{0, 2, 8}},
		{Algorithm: "a", Seed: 1, RunsLimit: 10, Shard: "1/2", VacuousRuns: 2, VacuousAt: []int{1, 5}, StoppedAt: &stop, Found: true,
			Verdict: model.VerdictUnsafe, SafetyBroken: model.BrokeOverlap, FirstFoundAfterRuns: ptr(6),
			Verdicts: map[string]VerdictReport{model.VerdictUnsafe: {FirstRun: 5, SafetyBroken: model.BrokeOverlap}}},
	}
	m, err := Merge(lines)
	if err != nil {
		t.Fatal(err)
	}
	if m.VacuousRuns != 4 || m.VacuousAt != nil {
		t.Errorf("merged: vacuous_runs %d at %v, want 4 (runs 0, 1, 2 and 5, not 8) and no list", m.VacuousRuns, m.VacuousAt)
	}
	if m.SafetyBroken != model.BrokeOverlap || m.Verdicts[model.VerdictUnsafe].SafetyBroken != model.BrokeOverlap {
		t.Errorf("merged: safety_broken %q, verdicts %+v; want the winning shard's", m.SafetyBroken, m.Verdicts)
	}
}

// An explore report says which safety its first unsafe run broke, and
// the shrunk run's beside it: fenced-token under pause loses an update at
// run 11 and shrinks to a run where only the lock overlaps (the matrix's
// cells say the same: matrix.TestSummariesSayWhichSafetyBroke).
func TestReportSaysWhichSafetyBroke(t *testing.T) {
	r := mustRun(t, Options{Algorithm: "fenced-token", Classes: classes(t, "pause"), Seed: 1, Runs: 100, Workers: 1, ShrinkTries: 300, DrawTTL: true})
	rep, err := r.Report("", false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.SafetyBroken != model.BrokeLostUpdate || rep.Verdicts[model.VerdictUnsafe].SafetyBroken != model.BrokeLostUpdate ||
		rep.Shrunk.SafetyBroken != model.BrokeOverlap {
		t.Errorf("explore report: safety_broken %q, shrunk %+v, verdicts %+v", rep.SafetyBroken, rep.Shrunk, rep.Verdicts)
	}
}
