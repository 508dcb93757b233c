package search

import (
	"errors"
	"runtime"
	"slices"
	"testing"

	"github.com/locksim/locksim/model"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

func TestParseShard(t *testing.T) {
	for in, ok := range map[string]bool{"0/1": true, "3/4": true, "4/4": false, "-1/2": false, "1/0": false, "1": false, "a/b": false, "01/2": false, "1/2/3": false} {
		if _, err := ParseShard(in); (err == nil) != ok {
			t.Errorf("ParseShard(%q): %v", in, err)
		}
	}
	if s, err := ParseShard("3/4"); err != nil || s != (Shard{3, 4}) || s.String() != "3/4" {
		t.Errorf("ParseShard(3/4) = %v, %v", s, err)
	}
}

// WorstFirst is model.Rank's order of the failing verdicts: every verdict
// ranked above incomplete, each worse than the next.
func TestWorstFirstIsModelRank(t *testing.T) {
	all := []string{model.VerdictUnsafe, model.VerdictStuck, model.VerdictStale, model.VerdictClientError,
		model.VerdictIncomplete, model.VerdictSafe}
	var want []string
	for _, v := range all {
		if model.Rank(v) > model.Rank(model.VerdictIncomplete) {
			want = append(want, v)
		}
	}
	slices.SortFunc(want, func(a, b string) int { return model.Rank(b) - model.Rank(a) })
	if !slices.Equal(WorstFirst, want) {
		t.Errorf("WorstFirst %v, model.Rank orders %v", WorstFirst, want)
	}
}

func TestChecks(t *testing.T) {
	if ValidateVerdicts(WorstFirst) != nil || ValidateVerdicts(nil) != nil {
		t.Error("a failing verdict refused")
	}
	for _, v := range []string{model.VerdictSafe, model.VerdictIncomplete, "Unsafe", ""} {
		if ValidateVerdicts([]string{model.VerdictStuck, v}) == nil {
			t.Errorf("verdict %q accepted", v)
		}
	}
	if ValidateRuns(1) != nil || ValidateRuns(0) == nil || ValidateRuns(-3) == nil {
		t.Error("ValidateRuns: want at least 1")
	}
	if ValidateWorkers(0) != nil || ValidateWorkers(5) != nil || ValidateWorkers(-1) == nil {
		t.Error("ValidateWorkers: want 0 or more")
	}
}

// RunsAndWorkers fills in the defaults and names the option it refuses.
func TestRunsAndWorkers(t *testing.T) {
	runs, workers := 0, 0
	if err := RunsAndWorkers(&runs, &workers, 77); err != nil || runs != 77 || workers != runtime.GOMAXPROCS(0) {
		t.Errorf("defaults: %d runs, %d workers, %v", runs, workers, err)
	}
	runs, workers = 5, 2
	if err := RunsAndWorkers(&runs, &workers, 77); err != nil || runs != 5 || workers != 2 {
		t.Errorf("given: %d runs, %d workers, %v", runs, workers, err)
	}
	for _, c := range []struct {
		runs, workers int
		option        string
	}{{-1, 0, "Runs"}, {3, -1, "Workers"}} {
		var oe *OptionError
		err := RunsAndWorkers(&c.runs, &c.workers, 77)
		if !errors.As(err, &oe) || oe.Option != c.option || oe.Err == nil {
			t.Errorf("%+v: %v, want an error about %s", c, err, c.option)
		}
	}
}
