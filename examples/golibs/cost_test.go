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
// alternating batches of 100 runs, the real ones inside one bubble as
// explore runs them. It runs with LOCKSIM_GOLIBS_COST=1:
//
//	LOCKSIM_GOLIBS_COST=1 go test -run TestCostRealVsFile -v .
func TestCostRealVsFile(t *testing.T) {
	if os.Getenv("LOCKSIM_GOLIBS_COST") == "" {
		t.Skip("a measurement: set LOCKSIM_GOLIBS_COST=1")
	}
	const scenario, batch, rounds = "token-pause", 300, 7
	s, err := scenarios.Lookup(scenario)
	if err != nil {
		t.Fatal(err)
	}
	file, err := algofile.LoadFile("../redsync.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var real, alg []time.Duration
	for range rounds {
		start := time.Now()
		synctest.Test(t, func(t *testing.T) {
			for range batch {
				if _, err := golock.RunInBubble(redsyncLock(1), s); err != nil {
					t.Fatal(err)
				}
			}
		})
		real = append(real, time.Since(start)/batch)
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
		alg = append(alg, time.Since(start)/batch)
	}
	slices.Sort(real)
	slices.Sort(alg)
	r, a := real[rounds/2], alg[rounds/2]
	t.Logf("%s, median of %d alternating batches of %d runs: real redsync %s a run, redsync.yaml %s: %.2f×",
		scenario, rounds, batch, r.Round(time.Microsecond), a.Round(time.Microsecond), float64(r)/float64(a))
}
