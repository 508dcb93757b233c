package explore

// What a search is asked for: the options and their defaults. The checks of
// each are package search's, shared with prove, which simrun calls on its
// flags so that every check is made once.

import (
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/search"
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
	Workers int          // 0: one per core (GOMAXPROCS)
	Shard   search.Shard // zero: the whole space
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
	// Inside keeps every scenario inside the lock's assumptions
	// (gen.Options.Inside): a violation found is a bug in the lock.
	Inside bool
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

// Progress is a snapshot of a running search. Runs counts runs finished in
// any order; it is for people, not for results.
type Progress struct {
	Runs      int
	Elapsed   time.Duration
	Found     bool   // a run that stops the search was seen
	Worst     string // the worst verdict met so far, "" for none
	Shrinking bool   // the search is over; shrinking has begun
}

func optErr(option string, err error) error { return &search.OptionError{Option: option, Err: err} }
