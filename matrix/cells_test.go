package matrix

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/locktest"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

func mustLookup(t *testing.T, name string) locks.Algorithm {
	t.Helper()
	a, err := locks.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A matrix cell's outside answer counts its vacuous runs as explore's
// search of the same cell does; a safe one shows them, a failing one keeps
// them in the JSON only, and they read back from the Markdown. (How a
// search counts them, whatever the workers, is explore's
// TestSearchCountsVacuousRuns.)
func TestMatrixCountsVacuousRuns(t *testing.T) {
	o := Options{Algorithms: []string{"setnx-getset"}, Classes: []string{"crash", "pause"}, Seed: 1, Runs: 40, ShrinkTries: -1}
	m, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, cell := range m.Cells[0] {
		sr, err := explorer(t, explore.Options{Algorithm: cell.Algorithm, Classes: []string{cell.Class}, Seed: o.Seed, Runs: o.Runs}).Search(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if cell.Outside.Vacuous != sr.Vacuous || cell.Outside.Runs != sr.Runs {
			t.Errorf("%s: %d of %d runs vacuous; explore's search: %d of %d", cell.Class, cell.Outside.Vacuous, cell.Outside.Runs, sr.Vacuous, sr.Runs)
		}
	}
	safe, unsafe := m.Cells[0][0].Outside, m.Cells[0][1].Outside
	if safe.Verdict != model.VerdictSafe || safe.Vacuous == 0 || safe.Vacuous >= safe.Runs || safe.Runs != o.Runs {
		t.Fatalf("crash cell %+v; want safe with some, not all, of %d runs vacuous", safe, o.Runs)
	}
	if unsafe.Verdict != model.VerdictUnsafe || unsafe.Vacuous == 0 {
		t.Fatalf("pause cell %s at %d with %d vacuous runs; want unsafe, some runs before it vacuous", unsafe.Verdict, unsafe.First, unsafe.Vacuous)
	}
	j := m.JSON("")
	want := fmt.Sprintf("safe (%d/%d vacuous)", safe.Vacuous, o.Runs)
	if c := j.Cell("setnx-getset", "crash"); c.Outside.VacuousRuns != safe.Vacuous || c.Outside.Runs != o.Runs || AnswerText(c.Outside) != want ||
		!strings.HasSuffix(CellText(*c), "; out: "+want) {
		t.Errorf("JSON cell %+v, text %q, want it to end %q", c, CellText(*c), want)
	}
	// A failing answer keeps its count in the JSON only: its
	// counterexample is the evidence.
	if c := j.Cell("setnx-getset", "pause"); c.Outside.VacuousRuns != unsafe.Vacuous || strings.Contains(AnswerText(c.Outside), "vacuous") {
		t.Errorf("JSON cell %+v, text %q", c, CellText(*c))
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, j); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "; out: "+want+" |") || !strings.Contains(md.String(), "`safe (V/40 vacuous)`: none failed") {
		t.Errorf("markdown:\n%s", md.String())
	}
	back, err := Read("m.md", md.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if c := back.Cell("setnx-getset", "crash"); c.Outside.VacuousRuns != safe.Vacuous || c.Outside.Runs != o.Runs {
		t.Errorf("read back %+v", c)
	}
}

// Without vacuous runs the matrix neither marks a cell nor explains the mark.
func TestMatrixWithoutVacuousRunsSaysNothingOfThem(t *testing.T) {
	m := sample()
	m.Cells = slices.Clone(m.Cells)
	m.Cells[6].Outside.VacuousRuns, m.Cells[6].Outside.Runs = 0, 0
	m.Cells[4].Inside = &JSONAnswer{Verdict: "safe"}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "vacuous") {
		t.Errorf("markdown speaks of vacuous runs:\n%s", md.String())
	}
}

// Every summary of an unsafe search says which safety its first unsafe run
// broke, and the shrunk run's beside it: the shrink keeps the verdict only.
// fenced-token under pause loses an update at run 11 (c2, fence 1, writes
// first; c1, fence 2, read before it and writes over it: the fence is
// checked at the write), and shrinks to a run where only the lock
// overlaps; redlock overlaps only, before and after. (An explore report
// says the same: explore.TestReportSaysWhichSafetyBroke.)
func TestSummariesSayWhichSafetyBroke(t *testing.T) {
	want := map[string][2]string{
		"fenced-token": {model.BrokeLostUpdate, model.BrokeOverlap},
		"redlock":      {model.BrokeOverlap, model.BrokeOverlap},
	}
	// Measured with drawn TTLs, where redlock's first unsafe run overlaps
	// (with its own 10 s TTL it is a lost update: reports/matrix.md).
	m, err := Run(context.Background(), Options{Algorithms: []string{"fenced-token", "redlock"}, Classes: []string{"pause"},
		Seed: 1, Runs: 100, ShrinkTries: 300, DrawTTL: true})
	if err != nil {
		t.Fatal(err)
	}
	j := m.JSON("")
	for algo, broke := range want {
		c := m.Cell(algo, "pause").Outside
		if c.Verdict != model.VerdictUnsafe || c.Broke != broke[0] || c.Shrunk.SafetyBroken != broke[1] {
			t.Errorf("%s under pause: %s, %q, shrunk %q; want unsafe, %q, shrunk %q", algo, c.Verdict, c.Broke, c.Shrunk.SafetyBroken, broke[0], broke[1])
		}
		mc := j.Cell(algo, "pause").Outside
		if mc.SafetyBroken != broke[0] || mc.Shrunk.SafetyBroken != broke[1] || !strings.HasSuffix(AnswerText(mc), "f)* "+broke[0]) {
			t.Errorf("%s: JSON %q, shrunk %q, text %q", algo, mc.SafetyBroken, mc.Shrunk.SafetyBroken, AnswerText(mc))
		}
		// The first run and the shrunk one, replayed with every checker,
		// agree.
		e, err := explore.New(explore.Options{Algorithm: algo, Classes: []string{"pause"}, Seed: 1, Runs: 100, DrawTTL: true})
		if err != nil {
			t.Fatal(err)
		}
		for k, s := range []*scenarios.Scenario{e.Scenario(c.First), c.Counterexample} {
			p, err := s.PrepareWith(mustLookup(t, algo))
			if err != nil {
				t.Fatal(err)
			}
			if _, v, err := judge.Verdict(p, model.Options{}); err != nil || v.Broke() != broke[k] {
				t.Errorf("%s: run %d replays as %q (%v), want %q", algo, k, v.Broke(), err, broke[k])
			}
		}
	}
}

// sleepyLock is set-nx-px-token that never returns from Release: every
// run is cut with nothing found.
func sleepyLock(t *testing.T) locks.Algorithm {
	a := mustLookup(t, "set-nx-px-token")
	a.Name = "sleepy-release"
	inner := a.New
	a.New = func(p locks.Params) sim.Locker { return locktest.NeverReturns(inner(p)) }
	return a
}

// A matrix cell whose runs are all cut, with nothing failed, is
// incomplete at its first cut run, not safe, and is not shrunk: its
// counterexample is that run as drawn, which replays to the same cut.
func TestMatrixCellOfCutRunsIsIncomplete(t *testing.T) {
	lock := sleepyLock(t)
	m, err := Run(context.Background(), Options{Locks: []locks.Algorithm{lock}, Classes: []string{"none"}, Seed: 1, Runs: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range m.Cells[0][0].Answers() {
		if c.Verdict != model.VerdictIncomplete || c.First != 0 || c.Runs != 3 || c.Shrunk != nil || len(c.Others) != 0 || m.ShrinkRuns != 0 {
			t.Errorf("answer %+v, %d shrink runs; want incomplete at run 0, 3 runs, nothing shrunk", c, m.ShrinkRuns)
		}
		inside := c == m.Cells[0][0].Inside
		e := explorer(t, explore.Options{Lock: lock, Classes: []string{"none"}, Seed: 1, Runs: 3, Inside: inside})
		if c.Counterexample == nil || !reflect.DeepEqual(c.Counterexample, e.Scenario(0)) || c.Cut == "" {
			t.Fatalf("inside %v: counterexample %v, cut %q; want run 0 as drawn and its cut", inside, c.Counterexample, c.Cut)
		}
		p, err := c.Counterexample.PrepareWith(lock)
		if err != nil {
			t.Fatal(err)
		}
		res, v, err := judge.Verdict(p, model.Options{})
		if err != nil || v.Verdict != model.VerdictIncomplete || res.Cut != c.Cut {
			t.Errorf("replayed: %s cut %q (%v), want incomplete cut %q", v.Verdict, res.Cut, err, c.Cut)
		}
	}
	if j := m.JSON(""); j.Cells[0].Outside.Cut != m.Cells[0][0].Outside.Cut || j.Cells[0].Inside.Cut != m.Cells[0][0].Inside.Cut {
		t.Errorf("JSON cuts %+v, want the answers'", j.Cells[0])
	}
}
