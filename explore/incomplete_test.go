package explore

import (
	"context"
	"slices"
	"testing"

	"github.com/locksim/locksim/internal/locktest"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// sleepyLock is set-nx-px-token that never returns from Release: every
// run is cut with nothing found.
func sleepyLock(t *testing.T) locks.Algorithm {
	a := unregistered(t, "set-nx-px-token", "sleepy-release")
	inner := a.New
	a.New = func(p locks.Params) sim.Locker { return locktest.NeverReturns(inner(p)) }
	return a
}

// A search whose runs are cut at a cap before they find anything is
// incomplete, not safe: it finds nothing, but counts every cut run, the
// same whatever the workers, and its report says incomplete.
func TestSearchCountsIncompleteRuns(t *testing.T) {
	var first *SearchResult
	for _, w := range []int{1, 3} {
		r := mustRun(t, Options{Lock: sleepyLock(t), Classes: classes(t, "none"), Seed: 1, Runs: 12, Workers: w})
		sr := r.Search
		if sr.Found != nil {
			t.Fatalf("workers %d: found %s at run %d; want nothing", w, sr.Found.Verdict, sr.Found.Index)
		}
		if sr.Incomplete != 12 || !slices.Equal(sr.IncompleteAt, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) {
			t.Fatalf("workers %d: %d incomplete runs %v, want all 12", w, sr.Incomplete, sr.IncompleteAt)
		}
		if len(sr.Met) != 1 || sr.Met[0].Verdict != model.VerdictIncomplete || sr.Met[0].Index != 0 || sr.Met[0].Cut == "" {
			t.Fatalf("workers %d: met %+v, want incomplete at run 0 with its cut", w, sr.Met)
		}
		rep, err := r.Report("", false)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Found || rep.Verdict != model.VerdictIncomplete || rep.IncompleteRuns != 12 || rep.Verdicts[model.VerdictIncomplete].Cut == "" {
			t.Errorf("workers %d: report found=%v verdict %q incomplete_runs %d verdicts %+v", w, rep.Found, rep.Verdict, rep.IncompleteRuns, rep.Verdicts)
		}
		if first == nil {
			first = sr
		} else if sr.Runs != first.Runs || sr.Met[0].Cut != first.Met[0].Cut {
			t.Errorf("workers %d differ from 1: %+v vs %+v", w, sr, first)
		}
	}
}

// Runs past the one that stopped the search are not counted, whichever
// worker ran them: the same incomplete runs, all below the stop, for 1 and
// 3 workers. setnx-del-recover that never returns from Release: every run is cut, and
// a crash still breaks it (an unsafe run that was cut is unsafe).
func TestIncompleteRunsPastTheStopAreNotCounted(t *testing.T) {
	a := unregistered(t, "setnx-del-recover", "sleepy-recover")
	inner := a.New
	a.New = func(p locks.Params) sim.Locker { return locktest.NeverReturns(inner(p)) }
	var want []int
	for _, w := range []int{1, 3} {
		e, err := New(Options{Lock: a, Classes: classes(t, "crash"), Seed: 1, Runs: 2000, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		sr, err := e.Search(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if sr.Stop <= 0 || sr.Found == nil || sr.Found.Verdict != model.VerdictUnsafe {
			t.Fatalf("workers %d: stop %d, found %+v; want unsafe after some runs", w, sr.Stop, sr.Found)
		}
		if sr.Incomplete == 0 || sr.Incomplete != len(sr.IncompleteAt) || sr.IncompleteAt[len(sr.IncompleteAt)-1] > sr.Stop {
			t.Fatalf("workers %d: incomplete %d at %v, stop %d", w, sr.Incomplete, sr.IncompleteAt, sr.Stop)
		}
		if want == nil {
			want = sr.IncompleteAt
		} else if !slices.Equal(sr.IncompleteAt, want) {
			t.Errorf("workers %d: incomplete at %v, 1 worker %v", w, sr.IncompleteAt, want)
		}
	}
}

// Shards merge their incomplete runs by index, up to the merged stop.
func TestMergeCountsIncompleteRunsBelowTheStop(t *testing.T) {
	stop := 5
	lines := []Report{
		{Algorithm: "a", Seed: 1, RunsLimit: 10, Shard: "0/2", IncompleteAt: []int{2, 8}, StoppedAt: nil,
			Verdicts: map[string]VerdictReport{model.VerdictIncomplete: {FirstRun: 2, Cut: "duration limit 1s reached"}}},
		{Algorithm: "a", Seed: 1, RunsLimit: 10, Shard: "1/2", IncompleteAt: []int{3}, StoppedAt: &stop, Found: true,
			Verdict: model.VerdictUnsafe, FirstFoundAfterRuns: ptr(6),
			Verdicts: map[string]VerdictReport{model.VerdictUnsafe: {FirstRun: 5}, model.VerdictIncomplete: {FirstRun: 3}}},
	}
	m, err := Merge(lines)
	if err != nil {
		t.Fatal(err)
	}
	if m.IncompleteRuns != 2 || m.Verdict != model.VerdictUnsafe || m.Verdicts[model.VerdictIncomplete].FirstRun != 2 {
		t.Errorf("merged: incomplete_runs %d (want 2: runs 2 and 3, not 8), verdict %q, verdicts %+v", m.IncompleteRuns, m.Verdict, m.Verdicts)
	}
	lines[1] = Report{Algorithm: "a", Seed: 1, RunsLimit: 10, Shard: "1/2"}
	if m, err = Merge(lines); err != nil {
		t.Fatal(err)
	}
	if m.Found || m.Verdict != model.VerdictIncomplete || m.IncompleteRuns != 2 {
		t.Errorf("merged, nothing found: found=%v verdict %q incomplete_runs %d, want incomplete and 2", m.Found, m.Verdict, m.IncompleteRuns)
	}
}

func ptr(i int) *int { return &i }

// With --verdict, a worse kind met is not counted as found, but the search
// is not called incomplete (or safe) over it either: the top-level verdict
// is the worst met, unsafe, with found false.
func TestIncompleteDoesNotNameASearchThatMetWorse(t *testing.T) {
	lines := []Report{
		{Algorithm: "a", Seed: 1, RunsLimit: 10, Shard: "0/2", IncompleteAt: []int{2},
			Verdicts: map[string]VerdictReport{model.VerdictIncomplete: {FirstRun: 2}, model.VerdictUnsafe: {FirstRun: 4}}},
		{Algorithm: "a", Seed: 1, RunsLimit: 10, Shard: "1/2"},
	}
	m, err := Merge(lines)
	if err != nil {
		t.Fatal(err)
	}
	if m.Verdict != model.VerdictUnsafe || m.Found || m.IncompleteRuns != 1 {
		t.Errorf("merged: verdict %q, found %v (want unsafe, met but not counted), incomplete_runs %d", m.Verdict, m.Found, m.IncompleteRuns)
	}
}
