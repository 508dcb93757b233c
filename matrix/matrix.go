// Package matrix computes the verdict matrix, every lock algorithm under
// every fault class, and keeps it as data: its stable JSON, its Markdown
// table, reading either back strictly and comparing two, which is what
// 'simrun matrix --check' rests on.
//
// Each cell answers twice, with one explore search each and the worst
// verdict's first run shrunk: inside the lock's assumptions (every fault
// drawn keeps within what a TTL lock assumes, explore.Options.Inside: a
// violation is a bug in the lock), and outside them (any fault the class
// draws: the lock's known limits). A class every fault of which breaks
// the assumptions (a node restart for a TTL lock) has no inside runs, and
// its cell says so rather than pass on nothing.
//
// A matrix is a function of its options: the cells are searched and
// shrunk on several workers, but each answer is what explore finds for its
// (algorithm, class, seed, runs, inside), and shrinking is bounded by a
// count of runs, so the same command prints the same bytes on any machine.
package matrix

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/explore/gen"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
)

// Matrix defaults: every cell searches DefaultRuns runs and shrinks
// its worst verdict's first run with at most DefaultShrinkTries simulated
// runs. Both are counts, not times, so the matrix is the same on any
// machine.
const (
	DefaultRuns        = 2000
	DefaultShrinkTries = 10_000
)

// shrinkSafety is the wall-clock shrink bound during a matrix
// shrink. The tries budget ends every shrink long before it; it is there so
// that a pathological case cannot hang, and a shrink that reaches it is
// reported as an error, not as a result that depends on the machine.
const shrinkSafety = 10 * time.Minute

// Options say which matrix to compute.
type Options struct {
	Algorithms []string // rows: registered names; empty: every algorithm, in locks.All order
	Classes    []string // columns: one fault class each; empty: scenarios.FaultClasses
	Seed       uint64
	// Locks, when set, are the rows instead of Algorithms: algorithms that
	// need not be registered (an algorithm file's).
	Locks   []locks.Algorithm
	Runs    int // run-index space of every search (two a cell), [0, Runs); 0: DefaultRuns
	Workers int // cells searched (then shrunk) at once; 0: one per core (GOMAXPROCS)
	// ShrinkTries bounds the simulated runs spent shrinking each failing
	// cell; 0: DefaultShrinkTries; negative: do not shrink.
	ShrinkTries int
	// DrawTTL draws every run's TTL (explore.Options.DrawTTL); by default each
	// cell keeps its lock's own, as explore does.
	DrawTTL bool
	// Progress, if set, is called after each cell is searched and after
	// each is shrunk, from the goroutine that did it.
	Progress func(Progress)
	_        struct{} // grows: callers name the fields they set
}

// Progress counts finished searches, two a cell (one where the cell has
// no inside runs); it is for people, not results.
type Progress struct {
	Searches int // in the matrix
	Searched int // searches that are over
	Failing  int // searches with a failing run
	Shrunk   int // failing searches shrunk
	Elapsed  time.Duration
}

// Cell is one algorithm under one fault class, answered inside the lock's
// assumptions and outside them.
type Cell struct {
	Algorithm string
	Class     string
	// Inside is the search that keeps every fault inside the lock's
	// assumptions (explore.Options.Inside); nil when the class has none
	// (NoInside says why).
	Inside   *Answer
	NoInside string
	// Outside is the search of every fault the class draws, inside the
	// assumptions or past them.
	Outside Answer
	_       struct{} // grows: callers name the fields they set
}

// NoInsideRuns is why a cell has no inside answer: every fault its class
// draws breaks the lock's assumptions (gen.DrawsInside), so an inside
// search would run no fault at all.
const NoInsideRuns = "no inside runs: every fault of this class breaks the lock's assumptions"

// noInside says why a fault class has no runs inside the lock's
// assumptions, or "" when it has: a class that plans no fault (none, skew)
// has them, as does one with a kind the inside generator draws for it.
func noInside(algo locks.Algorithm, class string) string {
	c := scenarios.ClassOf(class)
	if c == nil || len(c.Kinds()) == 0 || gen.DrawsInside(algo, class) {
		return ""
	}
	return NoInsideRuns
}

// Answer is what one search of a cell found.
type Answer struct {
	// Verdict is the worst verdict met (the search stops at the first
	// unsafe run); when none of the search's runs fails, incomplete if one
	// was cut at a cap, else safe.
	Verdict string
	// First is the first run with Verdict, -1 when safe. The outside
	// answer replays with: simrun explore --algo A --faults C --seed S
	// --runs N; the inside one is that search with explore.Options.Inside.
	First int
	// Others are the other verdicts met before the search stopped, worst
	// first, each at its first run (Scenario: that run, not shrunk).
	Others []explore.Found
	// Runs counts the runs searched in index order: up to the first
	// unsafe one, or all.
	Runs int
	// Vacuous counts those of them whose planned faults all left the lock
	// alone (sim.Result.Vacuous).
	Vacuous int
	// Broke is, when Verdict is unsafe, which safety First broke
	// (model.Verdict.Broke); Shrunk.SafetyBroken is the shrunk run's, which
	// may differ (the shrink keeps the verdict only).
	Broke string
	// Shrunk is the size of the shrunk counterexample; nil when the cell is
	// safe or shrinking was off.
	Shrunk *explore.Shrunk
	// ShrinkTries is how many runs shrinking made; Capped says it stopped
	// at the budget, so a smaller counterexample may exist.
	ShrinkTries int
	Capped      bool
	// Counterexample is the shrunk scenario (the run of First when
	// shrinking was off); for incomplete, the run of First as drawn, not
	// shrunk (nothing failed to shrink towards), which replays to the same
	// cut; nil when safe.
	Counterexample *scenarios.Scenario
	// Cut is, when Verdict is incomplete, why run First stopped at a cap
	// (sim.Result.Cut).
	Cut string
	// BreakingPoint is, on a failing outside answer, the smallest fault
	// that breaks the lock, bisected from the shrunk counterexample
	// (explore's breaking point: "unsafe from a pause of 2.97s with 30ms of
	// work, TTL 3s"); "" when the answer is safe, incomplete, not shrunk,
	// or its counterexample lies inside the lock's assumptions.
	BreakingPoint string
	BreakTries    int      // runs the bisection made
	_             struct{} // grows: callers name the fields they set
}

// Matrix is every algorithm under every fault class.
type Matrix struct {
	Seed        uint64
	Runs        int // per cell
	ShrinkTries int // per failing cell; negative: shrinking was off
	Algorithms  []string
	Classes     []string
	Cells       [][]Cell // Cells[a][c] is Algorithms[a] under Classes[c]
	// Timing, for people only: nothing else depends on it.
	Executed   int // runs executed by the searches
	ShrinkRuns int // runs made by all shrinks and breaking-point bisections
	SearchTime time.Duration
	ShrinkTime time.Duration
	_          struct{} // grows: callers name the fields they set
}

// Answers are the cell's answers that were searched: the inside one (when
// the class has inside runs), then the outside one.
func (c *Cell) Answers() []*Answer {
	if c.Inside == nil {
		return []*Answer{&c.Outside}
	}
	return []*Answer{c.Inside, &c.Outside}
}

// Cell returns the cell of an algorithm and a fault class, or nil.
func (m *Matrix) Cell(algo, class string) *Cell {
	for a := range m.Cells {
		for c := range m.Cells[a] {
			if x := &m.Cells[a][c]; x.Algorithm == algo && x.Class == class {
				return x
			}
		}
	}
	return nil
}

// Run searches every cell, several cells at once, each with one worker,
// then shrinks the failing cells, several at once too. Every cell is what
// explore's Explorer.Search reports for its (algorithm, class, seed, runs),
// so the matrix depends on nothing else: not the workers, not the machine.
func Run(ctx context.Context, o Options) (*Matrix, error) {
	rows := o.Locks
	if len(rows) == 0 {
		names := o.Algorithms
		if len(names) == 0 {
			names = locks.Names()
		}
		for _, name := range names {
			a, err := locks.Lookup(name)
			if err != nil {
				return nil, &search.OptionError{Option: "Algorithm", Err: err}
			}
			rows = append(rows, a)
		}
	}
	algos := make([]string, len(rows))
	for i, a := range rows {
		algos[i] = a.Name
	}
	classes := o.Classes
	if len(classes) == 0 {
		classes = scenarios.FaultClasses
	}
	for _, c := range classes {
		if p, err := scenarios.ParseClasses(c); err != nil || len(p) != 1 || p[0] != c {
			if err == nil {
				err = fmt.Errorf("%q: a column is one fault class (valid: %s)", c, strings.Join(scenarios.FaultClasses, ", "))
			}
			return nil, &search.OptionError{Option: "Classes", Err: err}
		}
	}
	if err := search.RunsAndWorkers(&o.Runs, &o.Workers, DefaultRuns); err != nil {
		return nil, err
	}
	if o.ShrinkTries == 0 {
		o.ShrinkTries = DefaultShrinkTries
	}
	m := &Matrix{Seed: o.Seed, Runs: o.Runs, ShrinkTries: o.ShrinkTries,
		Algorithms: append([]string(nil), algos...), Classes: append([]string(nil), classes...)}

	// One explorer per answer, made before anything runs, so that a bad
	// name fails at once.
	type job struct {
		cell *Cell
		ans  *Answer
		e    *explore.Explorer
		sr   *explore.SearchResult
		err  error
	}
	var jobs []*job
	m.Cells = make([][]Cell, len(algos))
	for a, algo := range rows {
		m.Cells[a] = make([]Cell, len(classes))
		for c, class := range classes {
			cell := &m.Cells[a][c]
			*cell = Cell{Algorithm: algo.Name, Class: class, NoInside: noInside(algo, class)}
			if cell.NoInside == "" {
				cell.Inside = &Answer{}
			}
			for _, ans := range cell.Answers() {
				e, err := answerExplorer(algo, class, ans == cell.Inside, o)
				if err != nil {
					return nil, err
				}
				*ans = Answer{Verdict: model.VerdictSafe, First: -1}
				jobs = append(jobs, &job{cell: cell, ans: ans, e: e})
			}
		}
	}

	start := time.Now() // timing for people only
	prog := Progress{Searches: len(jobs)}
	var mu sync.Mutex
	report := func(update func(*Progress)) {
		mu.Lock()
		defer mu.Unlock()
		update(&prog)
		if o.Progress != nil {
			p := prog
			p.Elapsed = time.Since(start)
			o.Progress(p)
		}
	}
	eachOnWorkers(ctx, o.Workers, jobs, func(j *job) {
		j.sr, j.err = j.e.Search(ctx)
		report(func(p *Progress) {
			p.Searched++
			if j.sr != nil && j.sr.Found != nil {
				p.Failing++
			}
		})
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.SearchTime = time.Since(start)
	for _, j := range jobs { // the first error in cell order, whatever finished first
		if j.err != nil {
			return nil, fmt.Errorf("%s: %w", where(j.cell, j.ans), j.err)
		}
		m.Executed += j.sr.Executed
		ans := j.ans
		ans.Runs, ans.Vacuous = j.sr.Runs, j.sr.Vacuous
		if f := j.sr.Found; f != nil {
			ans.Verdict, ans.First, ans.Counterexample, ans.Broke = f.Verdict, f.Index, f.Scenario, f.Broke
		} else if k := slices.IndexFunc(j.sr.Met, isIncomplete); k >= 0 {
			// Nothing failed, but a run was cut before it ended: not safe.
			// Not shrunk (nothing failed), but kept as it was drawn, so that
			// the cell links a run that replays to the same cut.
			f := j.sr.Met[k]
			ans.Verdict, ans.First, ans.Counterexample, ans.Cut = model.VerdictIncomplete, f.Index, f.Scenario, f.Cut
		}
		for _, f := range j.sr.Met {
			if f.Verdict != ans.Verdict {
				ans.Others = append(ans.Others, f)
			}
		}
	}

	// Then the failing answers are shrunk, several at once: a shrink owns
	// no global state, and each answer's is a function of its search alone.
	shrinkStart := time.Now()
	var shrinks []*job
	for _, j := range jobs {
		if j.sr.Found != nil && o.ShrinkTries >= 0 { // shrunk, then (outside) its breaking point measured
			shrinks = append(shrinks, j)
		}
	}
	eachOnWorkers(ctx, o.Workers, shrinks, func(j *job) {
		j.err = shrinkAnswer(j.e, j.ans)
		if j.err == nil && j.ans != j.cell.Inside {
			j.err = breakingPoint(ctx, j.e, j.sr.Found, j.ans)
		}
		report(func(p *Progress) { p.Shrunk++ })
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, j := range shrinks { // the first error in cell order
		if j.err != nil {
			return nil, fmt.Errorf("%s: %w", where(j.cell, j.ans), j.err)
		}
		m.ShrinkRuns += j.ans.ShrinkTries + j.ans.BreakTries
	}
	m.ShrinkTime = time.Since(shrinkStart)
	return m, nil
}

// answerExplorer is the explorer of one answer of a cell: the class alone,
// inside the lock's assumptions or not, searching one run at a time (the
// matrix runs answers side by side), shrinking with the matrix's budget and
// its wall-clock net (see shrinkSafety).
func answerExplorer(algo locks.Algorithm, class string, inside bool, o Options) (*explore.Explorer, error) {
	return explore.New(explore.Options{Lock: algo, Classes: []string{class}, Seed: o.Seed, Runs: o.Runs, Workers: 1,
		DrawTTL: o.DrawTTL, Inside: inside, ShrinkTries: max(o.ShrinkTries, 0), ShrinkTime: shrinkSafety})
}

// eachOnWorkers calls fn on every item, in order of claim, from up to
// workers goroutines at once, and returns when all are done or ctx is
// cancelled (the items not yet claimed are left).
func eachOnWorkers[T any](ctx context.Context, workers int, items []T, fn func(T)) {
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(workers, len(items)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				k := int(next.Add(1) - 1)
				if k >= len(items) {
					return
				}
				fn(items[k])
			}
		}()
	}
	wg.Wait()
}

// where names an answer of a cell in errors: "redlock under pause,
// inside".
func where(c *Cell, a *Answer) string {
	side := "outside"
	if a == c.Inside {
		side = "inside"
	}
	return fmt.Sprintf("%s under %s, %s", c.Algorithm, c.Class, side)
}

func isIncomplete(f explore.Found) bool { return f.Verdict == model.VerdictIncomplete }

// breakingPoint measures a failing outside answer's breaking point from
// its shrunk counterexample (explore.Explorer.BreakingPointOf) and records
// its words in the answer; none when the counterexample lies inside the
// lock's assumptions (the inside answer's finding, not a limit).
func breakingPoint(ctx context.Context, e *explore.Explorer, f *explore.Found, a *Answer) error {
	bp, err := e.BreakingPointOf(ctx, a.Counterexample, f, a.Verdict)
	if err != nil {
		return fmt.Errorf("breaking point: %w", err)
	}
	if bp != nil {
		a.BreakingPoint, a.BreakTries = bp.Words, bp.Tries
	}
	return nil
}

// shrinkAnswer shrinks a failing answer's first run, within the budget and
// the safety net its explorer was made with, and records the result in the
// answer (it writes that answer only).
func shrinkAnswer(e *explore.Explorer, a *Answer) error {
	s, st := e.Shrink(a.First, a.Verdict)
	if st.TimedOut {
		return fmt.Errorf("shrinking run %d took over %s before its budget of %d runs ran out", a.First, shrinkSafety, e.Options().ShrinkTries)
	}
	v, res, err := e.Verdict(s)
	if err != nil {
		return fmt.Errorf("shrunk run: %w", err)
	}
	a.Counterexample, a.ShrinkTries, a.Capped = s, st.Tries, st.Capped
	a.Shrunk = &explore.Shrunk{Processes: len(s.Clients), Faults: len(s.Faults), Events: len(res.History.Events), SafetyBroken: v.Broke()}
	res.Release()
	return nil
}
