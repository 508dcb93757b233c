package explore

// What a search is asked for: the options, their defaults and the checks of
// each, which simrun calls on its flags so that every check is made once.

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/locksim/locksim/locks"
)

// Defaults.
const (
	DefaultRuns        = 10_000
	DefaultShrinkTime  = 30 * time.Second
	DefaultShrinkTries = 20_000
)

// Options say what to search.
type Options struct {
	Algorithm string // a registered algorithm's name, or "" with Lock
	// Lock is an algorithm that need not be registered (an algorithm file's,
	// a team's own Go lock), searched when Algorithm is "". Its Name names
	// the counterexample.
	Lock    locks.Algorithm
	Classes []string // fault classes (scenarios.ParseClasses); empty: all
	Seed    uint64
	// Runs is the size of the run-index space, [0, Runs): the search stops
	// at the first unsafe run (or the first of Verdicts) or after all of
	// them. Shards split it.
	Runs    int
	Workers int   // 0: one per core (GOMAXPROCS)
	Shard   Shard // zero: the whole space
	// Verdicts are the verdicts that count as found; empty: any but safe.
	Verdicts []string
	// ShrinkTries bounds shrinking by a count of simulated runs (shrink.Shrink's
	// budget); 0: DefaultShrinkTries. The result is the same on any machine.
	ShrinkTries int
	// ShrinkTime is a wall-clock safety net only; 0: DefaultShrinkTime. A
	// shrink that hits it is reported as timed out (and may differ on a
	// slower machine).
	ShrinkTime time.Duration
	// ShrinkAll shrinks every verdict met, not only the worst.
	ShrinkAll bool
	// DrawTTL draws each run's TTL from 0.5 to 4 s instead of keeping the
	// lock's own, the default (gen.Options.DrawTTL).
	DrawTTL bool
	// FoundBy is how a counterexample says it was found: what finds the
	// same runs again, such as "simrun explore --algo-file my.yaml --faults
	// pause --seed 1". "" says it for a registered Algorithm (simrun
	// explore --algo ...) or, for a Lock, names the lock, classes and seed.
	FoundBy string
	// Progress, if set, is called about ten times a second from another
	// goroutine while the search runs.
	Progress func(Progress)
	_        struct{} // grows: callers name the fields they set
}

// Shard is one of Count interleaved parts of the run-index space: shard k
// runs the indices i with i mod Count = k.
type Shard struct{ Index, Count int }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard reads "i/n" with 0 ≤ i < n.
func ParseShard(v string) (Shard, error) {
	var s Shard
	if n, err := fmt.Sscanf(v, "%d/%d", &s.Index, &s.Count); err != nil || n != 2 || fmt.Sprintf("%d/%d", s.Index, s.Count) != v {
		return Shard{}, fmt.Errorf("%q: want i/n, such as 0/4", v)
	}
	if err := s.check(); err != nil {
		return Shard{}, fmt.Errorf("%q: %w", v, err)
	}
	return s, nil
}

func (s Shard) check() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return errors.New("want 0 ≤ i < n")
	}
	return nil
}

// CheckVerdicts refuses a verdict that cannot stop a search: Options.Verdicts
// and simrun explore --verdict are checked here, once.
func CheckVerdicts(vs []string) error {
	for _, v := range vs {
		// A search finds violations: not safe, and not incomplete (a run
		// cut at a cap, which found nothing).
		if !slices.Contains(WorstFirst, v) {
			return fmt.Errorf("%q: want one of unsafe, stuck, stale, client-error", v)
		}
	}
	return nil
}

// CheckRuns refuses a run-index space that holds no run (Options.Runs after
// its default, and --runs).
func CheckRuns(n int) error {
	if n < 1 {
		return fmt.Errorf("%d: must be at least 1", n)
	}
	return nil
}

// CheckWorkers refuses a negative worker count; 0 is one per core
// (Options.Workers, MatrixOptions.Workers, --workers).
func CheckWorkers(n int) error {
	if n < 0 {
		return fmt.Errorf("%d: must be 0 (one per core) or more", n)
	}
	return nil
}

// Progress is a snapshot of a running search. Runs counts runs finished in
// any order; it is for people, not for results.
type Progress struct {
	Runs      int
	Elapsed   time.Duration
	Found     bool   // a run that stops the search was seen
	Worst     string // the worst verdict met so far, "" for none
	Shrinking bool   // the search is over; shrinking has begun
}

// OptionError is an option New refused; Option is the Options field.
type OptionError struct {
	Option string
	Err    error
}

func (e *OptionError) Error() string { return e.Option + ": " + e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

func optErr(option string, err error) error { return &OptionError{option, err} }

// runsAndWorkers fills in the defaults (0: defRuns runs, one worker per
// core) and refuses what cannot run.
func runsAndWorkers(runs, workers *int, defRuns int) error {
	if *runs == 0 {
		*runs = defRuns
	}
	if err := CheckRuns(*runs); err != nil {
		return optErr("Runs", err)
	}
	if err := CheckWorkers(*workers); err != nil {
		return optErr("Workers", err)
	}
	if *workers == 0 {
		*workers = runtime.GOMAXPROCS(0)
	}
	return nil
}
