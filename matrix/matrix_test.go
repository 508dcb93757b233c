package matrix

import (
	"context"
	"reflect"
	"testing"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/racedetect"
	"github.com/locksim/locksim/search"
)

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

// The same options give the same cells, counterexamples included, whatever
// the number of workers.
func TestMatrixSameWhateverWorkers(t *testing.T) {
	var want *Matrix
	for _, workers := range raceCut([]int{1, 2, 5}, []int{1, 5}) {
		o := smallMatrix
		o.Workers = workers
		m := runMatrix(t, o)
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

// A cell is what explore finds for the same algorithm, class, seed and
// runs: the same first failing run and verdict, and, when shrinking stayed
// within its budget, a counterexample as small as explore's.
func TestMatrixCellIsExplore(t *testing.T) {
	m := runMatrix(t, smallMatrix)
	for _, row := range m.Cells {
		for _, cell := range row {
			e := explorer(t, explore.Options{Algorithm: cell.Algorithm, Classes: []string{cell.Class}, Seed: m.Seed, Runs: m.Runs, DrawTTL: smallMatrix.DrawTTL})
			sr, err := e.Search(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case sr.Found == nil && (cell.Verdict != "safe" || cell.First != -1 || cell.Shrunk != nil || cell.Runs != m.Runs):
				t.Errorf("%s under %s: explore finds nothing, the matrix %+v", cell.Algorithm, cell.Class, cell)
			case sr.Found != nil && (cell.Verdict != sr.Found.Verdict || cell.First != sr.Found.Index || cell.Runs != sr.Runs):
				t.Errorf("%s under %s: explore finds %s at run %d, the matrix %s at %d", cell.Algorithm, cell.Class,
					sr.Found.Verdict, sr.Found.Index, cell.Verdict, cell.First)
			}
		}
	}
	// One cell shrunk both ways (a whole explore, porcupine included, costs
	// more).
	cell := m.Cell("setnx-del-recover", "crash")
	if cell == nil || cell.Shrunk == nil || cell.Capped {
		t.Fatalf("setnx-del-recover under crash: %+v", cell)
	}
	r, err := explorer(t, explore.Options{Algorithm: cell.Algorithm, Classes: []string{cell.Class}, Seed: m.Seed, Runs: m.Runs, DrawTTL: true}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Counterexample.Clients, cell.Counterexample.Clients) || !reflect.DeepEqual(r.Counterexample.Faults, cell.Counterexample.Faults) {
		t.Errorf("explore shrinks to %d processes, %d faults; the matrix to %+v", len(r.Counterexample.Clients), len(r.Counterexample.Faults), cell.Shrunk)
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
	cell := a.Cells[0][0]
	if !cell.Capped || cell.ShrinkTries != 7 || cell.Shrunk == nil {
		t.Fatalf("want a capped shrink of 7 runs: %+v", cell)
	}
	e := explorer(t, explore.Options{Algorithm: cell.Algorithm, Classes: []string{cell.Class}, Seed: 1, DrawTTL: true})
	v, _, err := e.Verdict(cell.Counterexample)
	if err != nil || v.Verdict != cell.Verdict {
		t.Errorf("the capped counterexample replays %s (%v), want %s", v.Verdict, err, cell.Verdict)
	}
	full := runMatrix(t, Options{Algorithms: o.Algorithms, Classes: o.Classes, Seed: 1, Runs: 300, DrawTTL: true}).Cells[0][0]
	if full.Capped || full.Shrunk.Processes > cell.Shrunk.Processes || full.Shrunk.Faults > cell.Shrunk.Faults {
		t.Errorf("unbounded shrink %+v (capped %v), capped %+v", full.Shrunk, full.Capped, cell.Shrunk)
	}

	off := runMatrix(t, Options{Algorithms: o.Algorithms, Classes: o.Classes, Seed: 1, Runs: 300, ShrinkTries: -1, DrawTTL: true}).Cells[0][0]
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
