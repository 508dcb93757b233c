package matrix

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/racedetect"
	"github.com/locksim/locksim/internal/searchtest"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
)

// TestMain: these tests are searches, run as simrun runs them (internal/searchtest).
func TestMain(m *testing.M) { searchtest.Main(m) }

// A small matrix: failing cells found early and late, a safe cell, one
// multi-node lock.
var smallMatrix = Options{
	Algorithms: []string{"setnx-del-recover", "set-nx-px-token", "redlock"},
	Classes:    []string{"none", "crash", "pause"},
	Seed:       1,
	// Under the race detector, whose bookkeeping grows with every run the
	// test binary makes, 150: run 119 below still fails.
	Runs: raceCut(300, 150),
	// Drawn TTLs: setnx-del-recover fails under crash at run 119 (with
	// its own 3 s TTL, at 345, past the 300 runs).
	DrawTTL: true,
}

// raceCut is all, or under the race detector the cut of it that still
// runs the test's concurrent case; the plain `go test` runs all of it.
func raceCut[T any](all, cut T) T {
	if racedetect.Enabled {
		return cut
	}
	return all
}

func runMatrix(t *testing.T, o Options) *Matrix {
	t.Helper()
	m, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func explorer(t testing.TB, o explore.Options) *explore.Explorer {
	t.Helper()
	e, err := explore.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// smallMatrixOnce is smallMatrix searched once, with one worker, for the
// tests that read it: TestMatrixSameWhateverWorkers compares the other
// worker counts with it, and TestMatrixCellIsExplore (whose cells are so
// the same whatever the workers) compares it with explore.
var smallMatrixOnce = sync.OnceValues(func() (*Matrix, error) {
	o := smallMatrix
	o.Workers = 1
	return Run(context.Background(), o)
})

func smallMatrixOneWorker(t *testing.T) *Matrix {
	t.Helper()
	m, err := smallMatrixOnce()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The same options give the same cells, counterexamples included, whatever
// the number of workers.
func TestMatrixSameWhateverWorkers(t *testing.T) {
	var want *Matrix
	for _, workers := range raceCut([]int{1, 2, 5}, []int{1, 5}) {
		o := smallMatrix
		o.Workers = workers
		var m *Matrix
		if workers == 1 {
			m = smallMatrixOneWorker(t)
		} else {
			m = runMatrix(t, o)
		}
		if want == nil {
			want = m
			continue
		}
		if !reflect.DeepEqual(m.Cells, want.Cells) {
			t.Errorf("%d workers:\n%+v\nwant (1 worker):\n%+v", workers, m.Cells, want.Cells)
		}
	}
	if len(want.Cells) != 3 || len(want.Cells[0]) != 3 {
		t.Fatalf("%d rows", len(want.Cells))
	}
	for a, row := range want.Cells {
		for c, cell := range row {
			if cell.Algorithm != smallMatrix.Algorithms[a] || cell.Class != smallMatrix.Classes[c] {
				t.Errorf("cell [%d][%d] is %s under %s", a, c, cell.Algorithm, cell.Class)
			}
		}
	}
}

// Each answer of a cell is what explore finds for the same algorithm,
// class, seed and runs, inside the lock's assumptions or not: the same
// first failing run and verdict, and, when shrinking stayed within its
// budget, a counterexample as small as explore's. A class with no inside
// runs has no inside answer, and says why.
func TestMatrixCellIsExplore(t *testing.T) {
	m := smallMatrixOneWorker(t)
	inCounterexamples := 0
	for _, row := range m.Cells {
		for _, cell := range row {
			if cell.Inside == nil {
				t.Errorf("%s under %s: no inside answer (%q)", cell.Algorithm, cell.Class, cell.NoInside)
				continue
			}
			for _, inside := range []bool{true, false} {
				ans := &cell.Outside
				if inside {
					ans = cell.Inside
				}
				e := explorer(t, explore.Options{Algorithm: cell.Algorithm, Classes: []string{cell.Class}, Seed: m.Seed, Runs: m.Runs,
					DrawTTL: smallMatrix.DrawTTL, Inside: inside})
				sr, err := e.Search(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case sr.Found == nil && (ans.Verdict != "safe" || ans.First != -1 || ans.Shrunk != nil || ans.Runs != m.Runs):
					t.Errorf("%s under %s, inside %v: explore finds nothing, the matrix %+v", cell.Algorithm, cell.Class, inside, ans)
				case sr.Found != nil && (ans.Verdict != sr.Found.Verdict || ans.First != sr.Found.Index || ans.Runs != sr.Runs):
					t.Errorf("%s under %s, inside %v: explore finds %s at run %d, the matrix %s at %d", cell.Algorithm, cell.Class, inside,
						sr.Found.Verdict, sr.Found.Index, ans.Verdict, ans.First)
				}
				// An inside answer's run and its shrunk counterexample both lie
				// inside the lock's assumptions: what the book shows as a bug
				// in the lock is one.
				if inside && ans.Counterexample != nil {
					for k, s := range []*scenarios.Scenario{e.Scenario(ans.First), ans.Counterexample} {
						if err := s.InsideTTL(); err != nil {
							t.Errorf("%s under %s, inside: %s leaves the assumptions: %v", cell.Algorithm, cell.Class, []string{"the first run", "the counterexample"}[k], err)
						}
					}
					inCounterexamples++
				}
			}
		}
	}
	if inCounterexamples == 0 {
		t.Error("no inside answer failed: the check of their counterexamples checked nothing")
	}
	// One cell shrunk both ways (a whole explore, porcupine included, costs
	// more).
	cell := m.Cell("setnx-del-recover", "crash")
	if cell == nil || cell.Outside.Shrunk == nil || cell.Outside.Capped {
		t.Fatalf("setnx-del-recover under crash: %+v", cell)
	}
	r, err := explorer(t, explore.Options{Algorithm: cell.Algorithm, Classes: []string{cell.Class}, Seed: m.Seed, Runs: m.Runs, DrawTTL: true}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Counterexample.Clients, cell.Outside.Counterexample.Clients) || !reflect.DeepEqual(r.Counterexample.Faults, cell.Outside.Counterexample.Faults) {
		t.Errorf("explore shrinks to %d processes, %d faults; the matrix to %+v", len(r.Counterexample.Clients), len(r.Counterexample.Faults), cell.Outside.Shrunk)
	}
}

// A class whose every fault breaks the lock's assumptions has no inside
// answer: not a search that passes on runs without faults. For
// set-nx-px-token that is failover (it does not WAIT); a node restart is
// inside when the node stays down a whole lease. The classes that have one
// draw faults inside (TestNoInsideIsTheGenerators checks the generator
// agrees).
func TestMatrixNoInsideRuns(t *testing.T) {
	m := runMatrix(t, Options{Algorithms: []string{"set-nx-px-token"}, Seed: 1, Runs: 5, ShrinkTries: -1})
	for _, cell := range m.Cells[0] {
		wantNone := cell.Class == "failover"
		if (cell.Inside == nil) != wantNone || (cell.NoInside != "") != wantNone {
			t.Errorf("%s: inside %+v, no inside %q; want none: %v", cell.Class, cell.Inside, cell.NoInside, wantNone)
		}
	}
	j := m.JSON("")
	for _, class := range []string{"failover"} {
		c := j.Cell("set-nx-px-token", class)
		if c.Inside != nil || c.NoInside != NoInsideRuns || !strings.HasPrefix(CellText(*c), "in: —; out: ") {
			t.Errorf("%s: %+v, text %q", class, c, CellText(*c))
		}
	}
	if n := j.Counts(); n.NoInside != 1 || n.Cells != 8 {
		t.Errorf("counts %+v, want 8 cells, 1 with no inside runs", n)
	}
}

// noInside agrees with the generator: a class it says has no inside runs
// draws no fault when kept inside, and every other class that plans faults
// draws some.
func TestNoInsideIsTheGenerators(t *testing.T) {
	for _, name := range []string{"redlock", "set-nx-px-token", "hash-reentrant-watchdog", "set-nx-px-wait", "setnx-getset"} {
		algo, err := locks.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		noInsideRuns(t, algo)
	}
}

func noInsideRuns(t *testing.T, algo locks.Algorithm) {
	for _, class := range scenarios.FaultClasses {
		e := explorer(t, explore.Options{Algorithm: algo.Name, Classes: []string{class}, Seed: 1, Runs: 50, Inside: true})
		faults := 0
		for i := range 50 {
			faults += len(e.Scenario(i).Faults)
		}
		plans := len(scenarios.ClassOf(class).Kinds()) > 0 && class != scenarios.ClassNet // net loses commands at random, planning none
		switch {
		case noInside(algo, class) != "" && faults > 0:
			t.Errorf("%s %s: no inside runs, yet the inside generator drew %d faults in 50 runs", algo.Name, class, faults)
		case noInside(algo, class) == "" && plans && faults == 0:
			t.Errorf("%s %s: inside runs, yet the inside generator drew no fault in 50 runs", algo.Name, class)
		}
	}
}

// A shrink budget stops shrinking after that many runs, deterministically,
// and what it stopped at still fails the same way.
func TestMatrixShrinkBudget(t *testing.T) {
	o := Options{Algorithms: []string{"setnx-del-recover"}, Classes: []string{"crash"}, Seed: 1, Runs: 300, ShrinkTries: 7, DrawTTL: true}
	a, b := runMatrix(t, o), runMatrix(t, o)
	if !reflect.DeepEqual(a.Cells, b.Cells) {
		t.Fatalf("two shrinks with a budget differ:\n%+v\n%+v", a.Cells, b.Cells)
	}
	cell := a.Cells[0][0].Outside
	if !cell.Capped || cell.ShrinkTries != 7 || cell.Shrunk == nil {
		t.Fatalf("want a capped shrink of 7 runs: %+v", cell)
	}
	e := explorer(t, explore.Options{Algorithm: o.Algorithms[0], Classes: o.Classes, Seed: 1, DrawTTL: true})
	v, _, err := e.Verdict(cell.Counterexample)
	if err != nil || v.Verdict != cell.Verdict {
		t.Errorf("the capped counterexample replays %s (%v), want %s", v.Verdict, err, cell.Verdict)
	}
	full := runMatrix(t, Options{Algorithms: o.Algorithms, Classes: o.Classes, Seed: 1, Runs: 300, DrawTTL: true}).Cells[0][0].Outside
	if full.Capped || full.Shrunk.Processes > cell.Shrunk.Processes || full.Shrunk.Faults > cell.Shrunk.Faults {
		t.Errorf("unbounded shrink %+v (capped %v), capped %+v", full.Shrunk, full.Capped, cell.Shrunk)
	}

	off := runMatrix(t, Options{Algorithms: o.Algorithms, Classes: o.Classes, Seed: 1, Runs: 300, ShrinkTries: -1, DrawTTL: true}).Cells[0][0].Outside
	if off.Shrunk != nil || off.ShrinkTries != 0 || off.First != cell.First || off.Counterexample == nil ||
		!reflect.DeepEqual(off.Counterexample, e.Scenario(off.First)) {
		t.Errorf("without shrinking: %+v", off)
	}
}

func TestMatrixOptionErrors(t *testing.T) {
	for _, c := range []struct {
		o      Options
		option string
	}{
		{Options{Algorithms: []string{"nope"}}, "Algorithm"},
		{Options{Classes: []string{"crash,pause"}}, "Classes"},
		{Options{Classes: []string{"all"}}, "Classes"},
		{Options{Classes: []string{"gc"}}, "Classes"},
		{Options{Runs: -1}, "Runs"},
		{Options{Workers: -1}, "Workers"},
	} {
		_, err := Run(context.Background(), c.o)
		oe, ok := err.(*search.OptionError)
		if !ok || oe.Option != c.option {
			t.Errorf("%+v: %v, want an error about %s", c.o, err, c.option)
		}
	}
}

func TestMatrixStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, smallMatrix); err == nil {
		t.Fatal("a cancelled matrix returned a result")
	}
}
