package simtest

import (
	"errors"
	"strings"
	"testing"

	"github.com/locksim/locksim/internal/locktest"
	"github.com/locksim/locksim/sim"
)

// A lock whose runs never end is not passed: every run is cut at its
// duration with nothing found, and Check fails the test saying so.
func TestCheckFailsOnIncompleteRuns(t *testing.T) {
	inner := builtin(t, "set-nx-px-token")
	lock := func(p Params) sim.Locker { return locktest.NeverReturns(inner(p)) }
	rec := &Recorder{TB: t}
	if Check(rec, lock, Faults("none"), Runs(5)) || !rec.Failed() {
		t.Fatal("Check passed a lock whose every run was cut")
	}
	for _, want := range []string{"incomplete, not a pass", "5 runs of 5 ended at a cap with nothing found (first: run 0, duration limit"} {
		if !strings.Contains(rec.Message(), want) {
			t.Errorf("message lacks %q:\n%s", want, rec.Message())
		}
	}
	if _, err := Explore(lock, Faults("none"), Runs(5), SaveTo("")); !errors.Is(err, ErrIncomplete) {
		t.Errorf("Explore: %v, want ErrIncomplete", err)
	}
}
