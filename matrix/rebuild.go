package matrix

import (
	"context"
	"fmt"
	"slices"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/search"
)

// Rebuild makes the Matrix that j (a matrix read back, such as the
// committed reports/matrix.md) records without searching it again: every
// safe answer is taken as j says it, and every failing answer's first run
// is drawn, run, shrunk with j's budget and (outside) bisected to its
// breaking point, as Run does after its search. What it recomputes must
// agree with j (the first run's verdict, the shrunk size, the breaking
// point): a matrix of another tree, seed or budget is refused, naming the
// first cell that differs. Workers is the only option it reads; the rows
// are j's, registered locks.
//
// Only the safe answers are trusted, which is what a search costs: that
// the committed matrix is this tree's is what its golden test checks.
func Rebuild(ctx context.Context, j JSON, workers int) (*Matrix, error) {
	if err := search.RunsAndWorkers(&j.Runs, &workers, DefaultRuns); err != nil {
		return nil, err
	}
	o := Options{Seed: j.Seed, Runs: j.Runs, ShrinkTries: j.ShrinkTries}
	if o.ShrinkTries == 0 {
		o.ShrinkTries = -1 // a matrix made without shrinking
	}
	m := &Matrix{Seed: j.Seed, Runs: j.Runs, ShrinkTries: o.ShrinkTries,
		Algorithms: slices.Clone(j.Algorithms), Classes: slices.Clone(j.Faults)}
	type job struct {
		cell *Cell
		ans  *Answer
		want *JSONAnswer
		e    *explore.Explorer
		err  error
	}
	var jobs []*job
	m.Cells = make([][]Cell, len(j.Algorithms))
	for a, name := range j.Algorithms {
		algo, err := locks.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("row %s: %w", name, err)
		}
		m.Cells[a] = make([]Cell, len(j.Faults))
		for c, class := range j.Faults {
			jc := j.Cell(name, class)
			if jc == nil {
				return nil, fmt.Errorf("%s under %s: no such cell", name, class)
			}
			cell := &m.Cells[a][c]
			*cell = Cell{Algorithm: name, Class: class, NoInside: jc.NoInside}
			if jc.Inside != nil {
				cell.Inside = &Answer{}
			}
			for i, ans := range cell.Answers() {
				want := jc.Answers()[i]
				*ans = answerOf(*want)
				if ans.First < 0 {
					continue
				}
				e, err := answerExplorer(algo, class, ans == cell.Inside, o)
				if err != nil {
					return nil, err
				}
				jobs = append(jobs, &job{cell: cell, ans: ans, want: want, e: e})
			}
		}
	}
	eachOnWorkers(ctx, workers, jobs, func(jb *job) {
		jb.err = rebuildAnswer(ctx, jb.e, jb.ans, o.ShrinkTries >= 0, jb.ans != jb.cell.Inside)
		if jb.err == nil {
			if got, want := AnswerText(jsonAnswer(*jb.ans)), AnswerText(*jb.want); got != want {
				jb.err = fmt.Errorf("recomputed as %q, recorded as %q", got, want)
			} else if jb.ans.BreakingPoint != jb.want.BreakingPoint {
				jb.err = fmt.Errorf("breaking point recomputed as %q, recorded as %q", jb.ans.BreakingPoint, jb.want.BreakingPoint)
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, jb := range jobs { // the first error in cell order
		if jb.err != nil {
			return nil, fmt.Errorf("%s: %w", where(jb.cell, jb.ans), jb.err)
		}
		m.ShrinkRuns += jb.ans.ShrinkTries + jb.ans.BreakTries
	}
	return m, nil
}

// answerOf is an answer as j records it, before its counterexample is
// recomputed: the other verdicts' runs are known by index only.
func answerOf(j JSONAnswer) Answer {
	a := Answer{Verdict: j.Verdict, First: -1, Runs: j.Runs, Vacuous: j.VacuousRuns, Broke: j.SafetyBroken}
	if j.FirstFailingRun != nil {
		a.First = *j.FirstFailingRun
	}
	for _, o := range j.Others {
		a.Others = append(a.Others, explore.Found{Index: o.FirstRun, Verdict: o.Verdict})
	}
	return a
}

// rebuildAnswer recomputes a failing answer's counterexample: its first
// run drawn and run (it must fail with the answer's verdict), kept as drawn
// when it is cut (incomplete), else shrunk when shrink says so, and an
// outside one's breaking point measured.
func rebuildAnswer(ctx context.Context, e *explore.Explorer, a *Answer, shrink, outside bool) error {
	s := e.Scenario(a.First)
	v, res, err := e.Verdict(s)
	if err != nil {
		return fmt.Errorf("run %d: %w", a.First, err)
	}
	cut := res.Cut
	res.Release()
	if v.Verdict != a.Verdict && !(a.Verdict == model.VerdictIncomplete && cut != "") {
		return fmt.Errorf("run %d is %s, recorded as %s", a.First, v.Verdict, a.Verdict)
	}
	a.Counterexample = s
	if a.Verdict == model.VerdictIncomplete {
		a.Cut = cut
		return nil
	}
	if !shrink {
		return nil
	}
	if err := shrinkAnswer(e, a); err != nil {
		return err
	}
	if outside {
		return breakingPoint(ctx, e, &explore.Found{Index: a.First, Verdict: a.Verdict, Scenario: s}, a)
	}
	return nil
}
