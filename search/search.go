// Package search holds what explore's random search and prove's bounded
// enumeration share: shards of a search space, the checks of the options
// both take (runs, workers, the verdicts that stop a search), the order of
// the failing verdicts, and the error that names a refused option.
package search

import (
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/locksim/locksim/model"
)

// Shard is one of Count interleaved parts of a search space: explore's
// shard k runs the indices i with i mod Count = k; prove's splits its space
// by the first fault the same way.
type Shard struct{ Index, Count int }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard reads "i/n" with 0 ≤ i < n.
func ParseShard(v string) (Shard, error) {
	var s Shard
	if n, err := fmt.Sscanf(v, "%d/%d", &s.Index, &s.Count); err != nil || n != 2 || fmt.Sprintf("%d/%d", s.Index, s.Count) != v {
		return Shard{}, fmt.Errorf("%q: want i/n, such as 0/4", v)
	}
	if err := s.Check(); err != nil {
		return Shard{}, fmt.Errorf("%q: %w", v, err)
	}
	return s, nil
}

// Check refuses a shard outside its count.
func (s Shard) Check() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return errors.New("want 0 ≤ i < n")
	}
	return nil
}

// WorstFirst is every failing verdict, worst first: the verdicts that
// model.Rank puts above incomplete, in falling Rank (a test holds the two
// together).
var WorstFirst = []string{model.VerdictUnsafe, model.VerdictStuck, model.VerdictStale, model.VerdictClientError}

// ValidateVerdicts refuses a verdict that cannot stop a search: explore's
// Options.Verdicts and simrun explore --verdict are checked here, once.
func ValidateVerdicts(vs []string) error {
	for _, v := range vs {
		// A search finds violations: not safe, and not incomplete (a run
		// cut at a cap, which found nothing).
		if !slices.Contains(WorstFirst, v) {
			return fmt.Errorf("%q: want one of unsafe, stuck, stale, client-error", v)
		}
	}
	return nil
}

// ValidateRuns refuses a run-index space that holds no run (explore's
// Options.Runs after its default, the matrix's, and --runs).
func ValidateRuns(n int) error {
	if n < 1 {
		return fmt.Errorf("%d: must be at least 1", n)
	}
	return nil
}

// ValidateWorkers refuses a negative worker count; 0 is one per core
// (the Workers options of explore, the matrix and prove, and --workers).
func ValidateWorkers(n int) error {
	if n < 0 {
		return fmt.Errorf("%d: must be 0 (one per core) or more", n)
	}
	return nil
}

// OptionError is an option a search refused; Option is the options field.
type OptionError struct {
	Option string
	Err    error
}

func (e *OptionError) Error() string { return e.Option + ": " + e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// RunsAndWorkers fills in the defaults (0: defRuns runs, one worker per
// core) and refuses what cannot run, with an OptionError naming Runs or
// Workers.
func RunsAndWorkers(runs, workers *int, defRuns int) error {
	if *runs == 0 {
		*runs = defRuns
	}
	if err := ValidateRuns(*runs); err != nil {
		return &OptionError{"Runs", err}
	}
	if err := ValidateWorkers(*workers); err != nil {
		return &OptionError{"Workers", err}
	}
	if *workers == 0 {
		*workers = runtime.GOMAXPROCS(0)
	}
	return nil
}
