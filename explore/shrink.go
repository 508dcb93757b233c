package explore

import (
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/shrink"
)

// ShrinkStats describe a shrink.
type ShrinkStats struct {
	Elapsed  time.Duration // wall time, for reporting only
	Tries    int           // runs made while shrinking
	Capped   bool          // the tries budget ran out: the smallest found within it
	TimedOut bool          // the wall-clock safety net was hit: may differ on a slower machine
}

// Shrink shrinks run i, whose verdict is verdict, to a smaller scenario with
// the same verdict, within Options.ShrinkTries runs.
//
// The shrinker (package shrink) works on the scenario's structure: it owns
// no global state, so shrinks may run at the same time (the matrix shrinks
// its cells on its workers), and its result depends only on the run, the
// verdict and the budget.
func (e *Explorer) Shrink(i int, verdict string) (*scenarios.Scenario, ShrinkStats) {
	return e.shrink(i, verdict, e.opts.ShrinkTries, e.opts.ShrinkTime)
}

// shrink bounds the work by budget simulated runs, not by time, so the
// result is the same on any machine. safety is a wall-clock net only: past
// it every candidate counts as passing without being run, and the stats say
// it timed out.
func (e *Explorer) shrink(i int, verdict string, budget int, safety time.Duration) (*scenarios.Scenario, ShrinkStats) {
	var stats ShrinkStats
	start := time.Now()
	fails := func(s *scenarios.Scenario) bool {
		if time.Since(start) >= safety {
			stats.TimedOut = true
			return false
		}
		if e.opts.Inside && s.InsideOf(e.algo) != nil {
			return false // an inside find shrinks to an inside run
		}
		v, res, err := e.Verdict(s)
		res.Release()
		return err == nil && v.Verdict == verdict
	}
	// Run i failed so in the search (the same Verdict): it is not run again.
	s, tries, capped := shrink.With(e.Scenario(i), fails, budget, shrink.Options{KeepTTL: !e.opts.DrawTTL})
	stats.Tries, stats.Capped = tries, capped
	stats.Elapsed = time.Since(start)
	return s, stats
}
