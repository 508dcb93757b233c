package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
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

// A matrix cell counts its vacuous runs; a safe one shows them, and reads
// back from its Markdown.
func TestMatrixCountsVacuousRuns(t *testing.T) {
	vacuousWhen(t, func(i int) bool { return i%2 == 0 })
	m, err := RunMatrix(context.Background(), MatrixOptions{Algorithms: []string{"set-nx-px-token"}, Classes: []string{"crash", "pause"},
		Seed: 1, Runs: 20, ShrinkTries: -1})
	if err != nil {
		t.Fatal(err)
	}
	safe, unsafe := m.Cells[0][0], m.Cells[0][1]
	if safe.Verdict != model.VerdictSafe || safe.Vacuous != 10 || safe.Runs != 20 {
		t.Fatalf("crash cell %+v; want safe with 10 of 20 runs vacuous", safe)
	}
	if unsafe.Verdict != model.VerdictUnsafe || unsafe.Vacuous != (unsafe.First+2)/2 {
		t.Fatalf("pause cell %s at %d with %d vacuous runs; want unsafe, the even runs up to it vacuous", unsafe.Verdict, unsafe.First, unsafe.Vacuous)
	}
	j := m.JSON("")
	if c := j.Cell("set-nx-px-token", "crash"); c.VacuousRuns != 10 || c.Runs != 20 || MatrixCellText(*c) != "safe (10/20 vacuous)" {
		t.Errorf("JSON cell %+v, text %q", c, MatrixCellText(*c))
	}
	// A failing cell keeps its count in the JSON only: its counterexample
	// is the evidence.
	if c := j.Cell("set-nx-px-token", "pause"); c.VacuousRuns != unsafe.Vacuous || strings.Contains(MatrixCellText(*c), "vacuous") {
		t.Errorf("JSON cell %+v, text %q", c, MatrixCellText(*c))
	}
	var md bytes.Buffer
	if err := WriteMatrixMarkdown(&md, j); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| safe (10/20 vacuous) |") || !strings.Contains(md.String(), "`safe (V/20 vacuous)`: none failed") {
		t.Errorf("markdown:\n%s", md.String())
	}
	back, err := ReadMatrix("m.md", md.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if c := back.Cell("set-nx-px-token", "crash"); c.VacuousRuns != 10 || c.Runs != 20 {
		t.Errorf("read back %+v", c)
	}
}

// Without vacuous runs the matrix neither marks a cell nor explains the mark.
func TestMatrixWithoutVacuousRunsSaysNothingOfThem(t *testing.T) {
	m := sample()
	m.Cells = slices.Clone(m.Cells)
	m.Cells[6].VacuousRuns, m.Cells[6].Runs = 0, 0
	var md bytes.Buffer
	if err := WriteMatrixMarkdown(&md, m); err != nil {
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
// overlaps; redlock overlaps only, before and after.
func TestSummariesSayWhichSafetyBroke(t *testing.T) {
	want := map[string][2]string{
		"fenced-token": {model.BrokeLostUpdate, model.BrokeOverlap},
		"redlock":      {model.BrokeOverlap, model.BrokeOverlap},
	}
	// Measured with drawn TTLs, where redlock's first unsafe run overlaps
	// (with its own 10 s TTL it is a lost update: reports/matrix.md).
	m, err := RunMatrix(context.Background(), MatrixOptions{Algorithms: []string{"fenced-token", "redlock"}, Classes: []string{"pause"},
		Seed: 1, Runs: 100, ShrinkTries: 300, DrawTTL: true})
	if err != nil {
		t.Fatal(err)
	}
	j := m.JSON("")
	for algo, broke := range want {
		c := m.Cell(algo, "pause")
		if c.Verdict != model.VerdictUnsafe || c.Broke != broke[0] || c.Shrunk.SafetyBroken != broke[1] {
			t.Errorf("%s under pause: %s, %q, shrunk %q; want unsafe, %q, shrunk %q", algo, c.Verdict, c.Broke, c.Shrunk.SafetyBroken, broke[0], broke[1])
		}
		mc := j.Cell(algo, "pause")
		if mc.SafetyBroken != broke[0] || mc.Shrunk.SafetyBroken != broke[1] || !strings.HasSuffix(MatrixCellText(*mc), "f)* "+broke[0]) {
			t.Errorf("%s: JSON %q, shrunk %q, text %q", algo, mc.SafetyBroken, mc.Shrunk.SafetyBroken, MatrixCellText(*mc))
		}
		// The first run and the shrunk one, replayed with every checker,
		// agree.
		e, err := New(Options{Algorithm: algo, Classes: classes(t, "pause"), Seed: 1, Runs: 100, DrawTTL: true})
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

func mustLookup(t *testing.T, name string) locks.Algorithm {
	t.Helper()
	a, err := locks.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
