package simtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks/resolve"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/reports"
	"github.com/locksim/locksim/scenarios"
)

// Replay runs a scenario (a counterexample file Check wrote, any scenario
// file, or a built-in scenario's name such as "pause-del-release") against
// newLocker with every checker, porcupine included, and fails the test
// with t.Errorf and the run's timeline when the verdict is one of FailOn.
// The run is the one Check saw: same scenario, same history. It returns the
// outcome, or nil when the scenario cannot be loaded or run.
//
// Of the options only FailOn (pass the one Check had), Key (for a scenario
// that sets no key) and Name apply. A scenario that sets no TTL gives the
// lock 30s.
func Replay(t testing.TB, newLocker NewLocker, scenario string, opts ...Option) *judge.Outcome {
	t.Helper()
	c, err := newConfig(opts)
	if err != nil {
		t.Errorf("%v", err)
		return nil
	}
	o, err := replay(newLocker, c, scenario)
	if err != nil {
		t.Errorf("simtest.Replay: %v", err)
		return nil
	}
	if c.fails(o.Verdict.Verdict) {
		var b strings.Builder
		fmt.Fprintf(&b, "simtest.Replay: %s is %s on %s:\n\n", c.name, strings.ToUpper(o.Verdict.Verdict), scenario)
		if err := reports.WriteText(&b, o); err != nil {
			fmt.Fprintf(&b, "(no report: %v)", err)
		}
		t.Errorf("%s", b.String())
	} else if msg := strictProblem(o); msg != "" {
		t.Errorf("simtest.Replay: %s on %s: %s", c.name, scenario, msg)
	}
	return o
}

func replay(newLocker NewLocker, c config, scenario string) (*judge.Outcome, error) {
	if newLocker == nil {
		return nil, fmt.Errorf("no NewLocker")
	}
	s, err := scenarios.Resolve(scenario)
	if err != nil {
		return nil, err
	}
	p, err := resolve.Lock{Algorithm: algorithm(newLocker, c)}.Prepare(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", scenario, err)
	}
	o, err := judge.Prepared(s, p, model.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", scenario, err)
	}
	return o, nil
}
