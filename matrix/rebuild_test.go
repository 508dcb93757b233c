package matrix

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/locksim/locksim/internal/racedetect"
	"github.com/locksim/locksim/scenarios"
)

// A matrix read back from its Markdown rebuilds to the matrix Run made:
// the same text and the same counterexamples, with only the failing
// answers recomputed; a record that the tree does not reproduce is
// refused, naming its cell.
func TestRebuildAgreesWithRun(t *testing.T) {
	ctx := context.Background()
	// Under the race detector 100 runs a search: the failing answers
	// (pause and net, first failing by run 18) are the same, the safe ones
	// search fewer runs; the plain go test searches 300.
	o := Options{Algorithms: []string{"setnx-del-recover", "set-nx-px-wait"}, Classes: []string{"crash", "pause", "net"},
		Seed: 1, Runs: raceCut(300, 100), ShrinkTries: 200, Workers: 2}
	if racedetect.Enabled {
		t.Log("under -race, 100 runs a search; the plain go test searches 300")
	}
	m, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, m.JSON("")); err != nil {
		t.Fatal(err)
	}
	j, err := Read("matrix.md", md.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Rebuild(ctx, j, 2)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WriteMarkdown(&again, r.JSON("")); err != nil {
		t.Fatal(err)
	}
	if again.String() != md.String() {
		t.Errorf("rebuilt matrix prints\n%s\nwant\n%s", again.String(), md.String())
	}
	failing := 0
	for a := range m.Cells {
		for c := range m.Cells[a] {
			want, got := m.Cells[a][c].Answers(), r.Cells[a][c].Answers()
			for i := range want {
				if want[i].Counterexample == nil {
					continue
				}
				failing++
				wy, _ := scenarios.Marshal(want[i].Counterexample)
				gy, err := scenarios.Marshal(got[i].Counterexample)
				if err != nil || !bytes.Equal(wy, gy) || got[i].Cut != want[i].Cut {
					t.Errorf("%s: counterexample differs (err %v, cut %q want %q)", where(&r.Cells[a][c], got[i]), err, got[i].Cut, want[i].Cut)
				}
			}
		}
	}
	if failing < 3 {
		t.Errorf("%d failing answers: the test rebuilds too little", failing)
	}

	// Records the tree does not reproduce.
	tamper := func(change func(j *JSON)) error {
		bad, err := Read("matrix.md", md.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		change(&bad)
		_, err = Rebuild(ctx, bad, 2)
		return err
	}
	cell := func(j *JSON) *JSONAnswer { return &j.Cell("setnx-del-recover", "pause").Outside }
	for name, change := range map[string]func(*JSON){
		"first run": func(j *JSON) { n := *cell(j).FirstFailingRun + 1; cell(j).FirstFailingRun = &n },
		"size":      func(j *JSON) { cell(j).Shrunk.Processes++ },
		"breaking":  func(j *JSON) { cell(j).BreakingPoint = "unsafe from nothing" },
	} {
		err := tamper(change)
		if err == nil || !strings.Contains(err.Error(), "setnx-del-recover under pause, outside") {
			t.Errorf("%s tampered: %v, want an error naming the cell", name, err)
		}
	}
}
