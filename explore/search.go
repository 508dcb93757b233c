package explore

// The search: which runs count, where it stops, and the first run of every
// verdict met, the same whatever the workers.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
	"github.com/locksim/locksim/sim"
)

// Counts says whether a run with this verdict is a find: any failing verdict,
// or one of the --verdict kinds when they were given.
func (e *Explorer) Counts(verdict string) bool {
	if len(e.opts.Verdicts) == 0 {
		// A run cut at a cap that found nothing (incomplete) is not a find.
		return slices.Contains(search.WorstFirst, verdict)
	}
	return slices.Contains(e.opts.Verdicts, verdict)
}

// stops says whether a run with this verdict ends the search: unsafe, the
// worst there is, or one of the --verdict kinds when they were given.
func (e *Explorer) stops(verdict string) bool {
	if len(e.opts.Verdicts) == 0 {
		return verdict == model.VerdictUnsafe
	}
	return slices.Contains(e.opts.Verdicts, verdict)
}

// metOrder is every verdict the search records the first run of, by its
// index here: the failing ones, then incomplete. An incomplete run (cut at
// a cap before it found anything) is never a find and never stops the
// search, but it is not a pass either: a search that met one and found
// nothing is incomplete, not safe.
var metOrder = append(slices.Clone(search.WorstFirst), model.VerdictIncomplete)

// afterRun, set by tests only, sees each search run's result before it is
// counted: how a test gives runs what the engine records of them
// (sim.Result.Faults) without a scenario that makes it.
var afterRun func(i int, res *sim.Result)

// Found is the first run of one verdict kind.
type Found struct {
	Index    int
	Verdict  string
	Scenario *scenarios.Scenario
	Cut      string // why the run stopped at a cap, when it did (sim.Result.Cut)
	// Broke is, for an unsafe run, which safety it broke (model.Verdict.Broke).
	Broke string
}

// SearchResult is what Search found.
type SearchResult struct {
	// Found is the worst verdict met that counts (Options.Verdicts), at the
	// first run that had it; nil: no run in the space counted.
	Found *Found
	// Met is the first run of every failing verdict met, worst first,
	// Found's among them, then the first incomplete run; only runs up to
	// Stop are looked at.
	Met []Found
	// Incomplete counts the runs up to Stop that were cut at a cap
	// (events, duration) before they found anything: nothing found covers
	// only their prefixes. The same whatever the workers.
	Incomplete   int
	IncompleteAt []int // their indices, in increasing order
	// Vacuous counts the runs up to Stop whose planned faults all left the
	// lock alone (sim.Result.Vacuous): whatever their verdict, they tested
	// no fault. The same whatever the workers.
	Vacuous   int
	VacuousAt []int // their indices, in increasing order
	// NeverHeld counts the runs up to Stop in which no Acquire returned the
	// lock: they never reached the critical section, so nothing found in
	// them says anything of mutual exclusion. The same whatever the
	// workers. NeverHeldWhy is, for the first of them, the first error an
	// Acquire (or else a command) returned in it, "" for none.
	NeverHeld    int
	NeverHeldAt  []int // their indices, in increasing order
	NeverHeldWhy string
	// Stop is the run index that ended the search (unsafe, or a --verdict
	// kind); -1 when the search ran out of runs.
	Stop int
	// Runs counts this shard's runs in index order up to and including
	// Stop, or all of its runs: the same whatever the workers.
	Runs     int
	Executed int           // runs actually executed (workers may run past Stop)
	Elapsed  time.Duration // wall time, for runs/s only
	ToFirst  time.Duration // wall time until Found's run was seen
	// Interrupted: the context was cancelled; the result describes the
	// runs finished in index order (Runs of them), and Search returned the
	// context's error with it.
	Interrupted bool
	_           struct{} // grows: callers name the fields they set
}

// Search runs this shard's runs on every worker, in increasing index
// order, recording the first run of every verdict kind, until a run that
// stops the search (unsafe, or a --verdict kind) has the lowest index still
// open, or all runs are done. A cancelled context stops it early: it
// returns what the runs finished in index order show, and ctx.Err().
func (e *Explorer) Search(ctx context.Context) (*SearchResult, error) {
	o := e.opts
	start := time.Now() // timing for reporting only
	var (
		next     atomic.Int64
		executed atomic.Int64
		stop     atomic.Int64 // lowest run index that stops the search so far
		worst    atomic.Int64 // search.WorstFirst index of the worst verdict met so far, for progress
		mu       sync.Mutex
		met      = make([]*Found, len(metOrder)) // by index in metOrder
		seenAt   = make([]time.Duration, len(metOrder))
		cutRuns  []int // indices of incomplete runs, some perhaps past the stop
		vacRuns  []int // indices of vacuous runs, some perhaps past the stop
		nohold   []int // indices of runs in which nobody held the lock, some perhaps past the stop
		nowhy    = map[int]string{}
		firstErr error
		errIndex = math.MaxInt
		done     []bool // by m: whether the shard's m-th run finished (for an interrupted search)
	)
	stop.Store(math.MaxInt64)
	worst.Store(int64(len(search.WorstFirst)))
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				m := int(next.Add(1) - 1)
				i := o.Shard.Index + m*o.Shard.Count
				// Indices are claimed in increasing order, so every index
				// below the final stop has been claimed and will finish:
				// the first run of each kind below it is the same whatever
				// the workers.
				if i >= o.Runs || int64(i) > stop.Load() {
					return
				}
				s := e.Scenario(i)
				v, res, err := e.Verdict(s)
				var cut, why string
				vacuous, held := false, true
				if res != nil {
					if afterRun != nil {
						afterRun(i, res)
					}
					cut, vacuous = res.Cut, res.Vacuous()
					held, why = heldIn(res)
				}
				res.Release() // a search keeps nothing of a run but its verdict
				executed.Add(1)
				mu.Lock()
				for len(done) <= m {
					done = append(done, false)
				}
				done[m] = true
				if vacuous && err == nil {
					vacRuns = append(vacRuns, i)
				}
				if !held && err == nil {
					nohold = append(nohold, i)
					nowhy[i] = why
				}
				switch {
				case err != nil:
					if i < errIndex {
						firstErr, errIndex = fmt.Errorf("run %d: %w", i, err), i
					}
					storeMin(&stop, int64(i))
				case v.Verdict != model.VerdictSafe:
					if v.Verdict == model.VerdictIncomplete {
						cutRuns = append(cutRuns, i)
					}
					k := slices.Index(metOrder, v.Verdict)
					if k >= 0 && (met[k] == nil || i < met[k].Index) {
						met[k] = &Found{Index: i, Verdict: v.Verdict, Scenario: s, Cut: cut, Broke: v.Broke()}
						seenAt[k] = time.Since(start)
						if k < len(search.WorstFirst) {
							storeMin(&worst, int64(k))
						}
					}
					if e.stops(v.Verdict) {
						storeMin(&stop, int64(i))
					}
				}
				mu.Unlock()
			}
		}()
	}
	stopProgress := make(chan struct{})
	var pwg sync.WaitGroup
	if o.Progress != nil {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stopProgress:
					return
				case <-tick.C:
					p := Progress{Runs: int(executed.Load()), Elapsed: time.Since(start), Found: stop.Load() != math.MaxInt64}
					if k := int(worst.Load()); k < len(search.WorstFirst) {
						p.Worst = search.WorstFirst[k]
					}
					o.Progress(p)
				}
			}
		}()
	}
	wg.Wait()
	close(stopProgress)
	pwg.Wait()
	last := o.Runs - 1
	r := &SearchResult{Stop: -1, Executed: int(executed.Load()), Elapsed: time.Since(start)}
	if s := stop.Load(); s != math.MaxInt64 {
		last, r.Stop = int(s), int(s)
	}
	ctxErr := ctx.Err()
	if ctxErr != nil {
		// Interrupted: what is known holds for the runs finished in index
		// order, the shard's first `prefix` runs.
		prefix := slices.Index(done, false)
		if prefix < 0 {
			prefix = len(done)
		}
		if end := o.Shard.Index + prefix*o.Shard.Count - 1; end < last {
			last, r.Stop = end, -1
		}
		r.Interrupted = true
	}
	if firstErr != nil && errIndex == r.Stop {
		return nil, firstErr
	}
	for k, f := range met {
		if f == nil || f.Index > last { // past the stop: a worker ran ahead
			continue
		}
		r.Met = append(r.Met, *f)
		if r.Found == nil && e.Counts(f.Verdict) {
			r.Found, r.ToFirst = f, seenAt[k]
		}
	}
	slices.Sort(cutRuns)
	for _, i := range cutRuns {
		if i <= last {
			r.IncompleteAt = append(r.IncompleteAt, i)
		}
	}
	r.Incomplete = len(r.IncompleteAt)
	slices.Sort(vacRuns)
	for _, i := range vacRuns {
		if i <= last {
			r.VacuousAt = append(r.VacuousAt, i)
		}
	}
	r.Vacuous = len(r.VacuousAt)
	slices.Sort(nohold)
	for _, i := range nohold {
		if i <= last {
			r.NeverHeldAt = append(r.NeverHeldAt, i)
		}
	}
	if r.NeverHeld = len(r.NeverHeldAt); r.NeverHeld > 0 {
		r.NeverHeldWhy = nowhy[r.NeverHeldAt[0]]
	}
	r.Runs = shardRuns(o.Shard, last)
	return r, ctxErr
}

// shardRuns counts the shard's indices in [0, last].
func shardRuns(s search.Shard, last int) int {
	if last < s.Index {
		return 0
	}
	return (last-s.Index)/s.Count + 1
}

func storeMin(a *atomic.Int64, v int64) {
	for {
		cur := a.Load()
		if v >= cur || a.CompareAndSwap(cur, v) {
			return
		}
	}
}

// heldIn says whether some Acquire of the run returned the lock, and if
// none did, why: the first error an Acquire returned, else the first a
// command got ("" when nothing failed: every try found the lock taken).
func heldIn(res *sim.Result) (bool, string) {
	var acqErr, cmdErr string
	for i := range res.History.Events {
		e := &res.History.Events[i]
		switch {
		case e.Kind == sim.KindLockReturn && e.Held:
			return true, ""
		case e.Kind == sim.KindLockReturn && e.Err != "" && acqErr == "":
			acqErr = "the first Acquire failed: " + e.Err
		case e.Kind == sim.KindCommandResult && e.Err != "" && cmdErr == "":
			cmdErr = "a command failed: " + e.Err
		}
	}
	if acqErr != "" {
		return false, acqErr
	}
	return false, cmdErr
}
