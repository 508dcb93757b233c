package diff

// The search of one half: the first run, in index order, whose new verdict
// is worse than its old one, the same whatever the workers; then its shrink.

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/shrink"
)

// Result is a whole comparison: one HalfResult per half searched, in the
// order of Options.Halves.
type Result struct {
	Old, New string // the locks' names
	Classes  []string
	Seed     uint64
	Limit    int // each half's run-index space, [0, Limit)
	Workers  int
	Halves   []*HalfResult
	_        struct{} // grows: callers name the fields they set
}

// Worse says whether any half found a run worse for the new lock.
func (r *Result) Worse() bool {
	for _, h := range r.Halves {
		if h.Found != nil {
			return true
		}
	}
	return false
}

// HalfResult is the search of one half.
type HalfResult struct {
	Half string // Inside or Outside
	// Runs counts the runs compared in index order: up to and including
	// Found's, or all of them. The same whatever the workers.
	Runs int
	// Found is the first run whose new verdict is worse; nil: none in Runs.
	Found *Found
	// Better counts the runs up to Found where the new lock did better;
	// Same those where the two verdicts were equal (safe or not).
	Better, Same int
	// Cut counts the runs up to Found cut at a cap on either side (not
	// compared: a cut run found nothing); CutAt is the first, -1 for none.
	Cut, CutAt int
	// Counterexample is Found's scenario shrunk so that it stays worse for
	// the new lock (inside the TTL's assumptions, for the inside half);
	// Old and New are its replays with every checker.
	Counterexample *scenarios.Scenario
	Old, New       *judge.Outcome
	Shrink         ShrinkStats
	// Interrupted: the context was cancelled; Runs counts the runs
	// finished in index order, nothing was shrunk.
	Interrupted bool
	Elapsed     time.Duration // wall time, for runs/s only
}

// Found is the first run worse for the new lock.
type Found struct {
	Index    int
	Pair     Pair
	Scenario *scenarios.Scenario
}

// ShrinkStats describe a shrink.
type ShrinkStats struct {
	Elapsed  time.Duration // wall time, for reporting only
	Tries    int           // candidates tried (each ran both locks)
	Capped   bool          // the tries budget ran out: the smallest found within it
	TimedOut bool          // the wall-clock safety net was hit: may differ on a slower machine
}

// Run searches each half in turn and shrinks what each finds. A cancelled
// context stops it: the halves so far, the last one interrupted, and
// ctx.Err().
func (d *Differ) Run(ctx context.Context) (*Result, error) {
	o := d.opts
	r := &Result{Old: o.Old.Name, New: o.New.Name, Classes: d.classes, Seed: o.Seed, Limit: o.Runs, Workers: o.Workers}
	for _, h := range o.Halves {
		hr, err := d.Search(ctx, h)
		if hr == nil {
			return nil, err
		}
		r.Halves = append(r.Halves, hr)
		if err != nil {
			return r, err
		}
		if hr.Found == nil {
			continue
		}
		shrunk, stats := d.Shrink(h, hr.Found)
		hr.Shrink = stats
		if hr.Counterexample, hr.Old, hr.New, err = d.Finish(shrunk, h, hr.Found); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// run is one index's comparison, as the search records it.
type run struct {
	done bool
	pair Pair
	err  error
}

// Search runs the half's runs on every worker in increasing index order
// until the lowest run worse for the new lock is known, or all are done.
func (d *Differ) Search(ctx context.Context, half string) (*HalfResult, error) {
	o := d.opts
	start := time.Now() // timing for reporting only
	var (
		next  atomic.Int64
		mu    sync.Mutex    // guards what follows
		stop  = math.MaxInt // lowest index found worse (or failed) so far
		runs  = make([]run, o.Runs)
		found = map[int]*scenarios.Scenario{} // worse runs' scenarios, by index (looked up, never ranged)
	)
	stopped := func(i int) bool {
		mu.Lock()
		defer mu.Unlock()
		return i > stop
	}
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				// Indices are claimed in increasing order, so every index
				// below the final stop is claimed and finishes.
				if i >= o.Runs || stopped(i) {
					return
				}
				s := d.Scenario(half, i)
				p, err := d.Compare(s)
				mu.Lock()
				runs[i] = run{done: true, pair: p, err: err}
				if err != nil || p.Worse() {
					if err == nil {
						found[i] = s
					}
					stop = min(stop, i)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	hr := &HalfResult{Half: half, CutAt: -1, Elapsed: time.Since(start), Interrupted: ctx.Err() != nil}
	for i := range runs {
		x := &runs[i]
		if !x.done { // past the stop, or not reached before an interrupt
			break
		}
		hr.Runs++
		switch {
		case x.err != nil:
			return nil, fmt.Errorf("%s run %d: %w", half, i, x.err)
		case x.pair.Worse():
			hr.Found = &Found{Index: i, Pair: x.pair, Scenario: found[i]}
		case x.pair.Cut():
			hr.Cut++
			if hr.CutAt < 0 {
				hr.CutAt = i
			}
		case x.pair.Better():
			hr.Better++
		default:
			hr.Same++
		}
		if hr.Found != nil {
			break
		}
	}
	if hr.Interrupted {
		hr.Found = nil // what was found is not shrunk: the summary says the runs
		return hr, ctx.Err()
	}
	return hr, nil
}

// Shrink makes f's scenario smaller while the new lock still does worse
// on it than the old one (and, for the inside half, while it stays inside
// the TTL's assumptions), within Options.ShrinkTries candidates. The TTL is
// kept: it is the locks' own.
func (d *Differ) Shrink(half string, f *Found) (*scenarios.Scenario, ShrinkStats) {
	var stats ShrinkStats
	start := time.Now()
	worse := func(s *scenarios.Scenario) bool {
		if time.Since(start) >= d.opts.ShrinkTime {
			stats.TimedOut = true
			return false
		}
		if half == Inside && d.Inside(s) != nil {
			return false
		}
		p, err := d.Compare(s)
		return err == nil && p.Worse()
	}
	s, tries, capped := shrink.With(f.Scenario, worse, d.opts.ShrinkTries, shrink.Options{KeepTTL: true})
	stats.Tries, stats.Capped, stats.Elapsed = tries, capped, time.Since(start)
	return s, stats
}

// foundBy is Options.FoundBy, or what it defaults to.
func (d *Differ) foundBy() string {
	if d.opts.FoundBy != "" {
		return d.opts.FoundBy
	}
	return fmt.Sprintf("comparing %s (old) with %s (new) under %s, seed %d",
		d.opts.Old.Name, d.opts.New.Name, strings.Join(d.classes, ","), d.opts.Seed)
}

// Finish names the shrunk scenario, says where it came from, and replays
// it on both locks with every checker.
func (d *Differ) Finish(s *scenarios.Scenario, half string, f *Found) (*scenarios.Scenario, *judge.Outcome, *judge.Outcome, error) {
	c := s.Clone()
	c.Name = fmt.Sprintf("diff-%s-seed%d-run%d", half, d.opts.Seed, f.Index)
	c.Summary = fmt.Sprintf("new %s %s where old %s was %s, %s the TTL's assumptions: run %d of simrun diff --seed %d, shrunk",
		d.opts.New.Name, f.Pair.New.Verdict, d.opts.Old.Name, f.Pair.Old.Verdict, half, f.Index, d.opts.Seed)
	c.Source = "simrun diff"
	c.Expect = ""
	old, nw, err := d.Outcomes(c)
	if err != nil {
		return nil, nil, nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found by: %s (%s run %d: old %s, new %s), then shrunk.\n",
		d.foundBy(), half, f.Index, f.Pair.Old.Verdict, f.Pair.New.Verdict)
	fmt.Fprintf(&b, "Old %s: %s. New %s: %s.\n", d.opts.Old.Name, old.Verdict.Verdict, d.opts.New.Name, nw.Verdict.Verdict)
	for _, v := range nw.Verdict.Violations {
		fmt.Fprintf(&b, "new %s (%s): %s\n", v.Kind, strings.Join(v.Processes, ", "), v.Detail)
	}
	c.Narrative = b.String()
	old.Scenario, nw.Scenario = c, c
	return c, old, nw, nil
}
