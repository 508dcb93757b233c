package golibs_test

import (
	"os"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/locksim/locksim/examples/golibs/golock"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// TestCostRealVsFile is the README's cost figure, a measurement, not a
// check (timings on a shared machine are no pass or fail): real redsync
// on one pool against examples/redsync.yaml on the same scenario, in
// alternating batches of runs, the real ones inside one bubble as explore
// runs them. It is a test, not a benchmark: testing/synctest (Go 1.26)
// has Test(*testing.T, f) and Wait only, no bubble for a *testing.B. The
// figure is the median of each round's ratio, the real batch's time over
// the file batch's run right after it: a shared machine's load drifts
// between rounds, and a ratio of two medians taken from different rounds
// carries that drift. It runs with LOCKSIM_GOLIBS_COST=1:
//
//	LOCKSIM_GOLIBS_COST=1 go test -run TestCostRealVsFile -v .
func TestCostRealVsFile(t *testing.T) {
	if os.Getenv("LOCKSIM_GOLIBS_COST") == "" {
		t.Skip("a measurement: set LOCKSIM_GOLIBS_COST=1")
	}
	const scenario, batch, rounds = "token-pause", 100, 61
	s, err := scenarios.Lookup(scenario)
	if err != nil {
		t.Fatal(err)
	}
	file, err := algofile.LoadFile("../redsync.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var real, alg []time.Duration
	var ratios []float64
	for range rounds {
		start := time.Now()
		synctest.Test(t, func(t *testing.T) {
			for range batch {
				if _, err := golock.RunInBubble(redsyncLock(1), s); err != nil {
					t.Fatal(err)
				}
			}
		})
		r := time.Since(start) / batch
		start = time.Now()
		for range batch {
			p, err := s.PrepareWith(file)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := judge.Prepared(s, p, model.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		a := time.Since(start) / batch
		real, alg, ratios = append(real, r), append(alg, a), append(ratios, float64(r)/float64(a))
	}
	slices.Sort(real)
	slices.Sort(alg)
	slices.Sort(ratios)
	t.Logf("%s, %d alternating rounds of %d runs each: real redsync %s a run, redsync.yaml %s (medians); median ratio %.2f× (rounds from %.2f× to %.2f×)",
		scenario, rounds, batch, real[rounds/2].Round(time.Microsecond), alg[rounds/2].Round(time.Microsecond),
		ratios[rounds/2], ratios[0], ratios[rounds-1])
}
