package golibs_test

import (
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/simtest"
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
//
// It measures two ways: one stream of runs, and one stream per processor
// at once (as explore's workers run). They differ for a library run alone:
// its goroutines hand over to each other at every command, and with a
// processor idle each hand-off wakes another thread; with every processor
// busy, none does. A file run's process is a coroutine, which hands over
// with no thread either way.
func TestCostRealVsFile(t *testing.T) {
	if os.Getenv("LOCKSIM_GOLIBS_COST") == "" {
		t.Skip("a measurement: set LOCKSIM_GOLIBS_COST=1")
	}
	const scenario = "token-pause"
	s, err := scenarios.Lookup(scenario)
	if err != nil {
		t.Fatal(err)
	}
	file, err := algofile.LoadFile("../redsync.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, streams := range []int{1, runtime.GOMAXPROCS(0)} {
		real, alg, ratio, lo, hi := costRounds(t, s, file, streams)
		t.Logf("%s, %d stream(s) at once, %d alternating rounds of %d runs each: real redsync %s a run, redsync.yaml %s (medians); median ratio %.2f× (rounds from %.2f× to %.2f×)",
			scenario, streams, costRoundsN, costBatch, real.Round(time.Microsecond), alg.Round(time.Microsecond), ratio, lo, hi)
	}
}

const costBatch, costRoundsN = 100, 61

// costRounds runs costRoundsN rounds of a real batch then a file batch,
// each of costBatch runs on every one of streams goroutines at once, and
// returns the medians of a run's time (a batch's wall time over its runs
// per stream) and of the rounds' ratios, and the lowest and highest ratio.
func costRounds(t *testing.T, s *scenarios.Scenario, file locks.Algorithm, streams int) (real, alg time.Duration, ratio, lo, hi float64) {
	var reals, algs []time.Duration
	var ratios []float64
	parallel := func(f func()) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for range streams {
			wg.Go(f)
		}
		wg.Wait()
		return time.Since(start) / costBatch
	}
	for range costRoundsN {
		r := parallel(func() {
			synctest.Test(t, func(t *testing.T) {
				for range costBatch {
					if _, err := golock.RunInBubble(redsyncLock(1), s); err != nil {
						t.Error(err)
						return
					}
				}
			})
		})
		a := parallel(func() {
			for range costBatch {
				p, err := s.PrepareWith(file)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := judge.Prepared(s, p, model.Options{}); err != nil {
					t.Error(err)
					return
				}
			}
		})
		if t.Failed() {
			t.FailNow()
		}
		reals, algs, ratios = append(reals, r), append(algs, a), append(ratios, float64(r)/float64(a))
	}
	slices.Sort(reals)
	slices.Sort(algs)
	slices.Sort(ratios)
	m := costRoundsN / 2
	return reals[m], algs[m], ratios[m], ratios[0], ratios[costRoundsN-1]
}

// TestCheckRate is the rate of golock.Check's search over real redsync
// (one pool) under pause and under net, a measurement, not a check: 2,000
// runs of each class, none stopping the search (the lock is quiet:
// its errors are no client error, and client-error is the one verdict
// asked for), timed on the wall clock; with the lease's Extend, so that
// the search renews it, and without. It runs with LOCKSIM_GOLIBS_COST=1:
//
//	LOCKSIM_GOLIBS_COST=1 go test -run TestCheckRate -v .
func TestCheckRate(t *testing.T) {
	if os.Getenv("LOCKSIM_GOLIBS_COST") == "" {
		t.Skip("a measurement: set LOCKSIM_GOLIBS_COST=1")
	}
	const runs = 2000
	for _, renewed := range []bool{true, false} {
		for _, class := range []string{"pause", "net"} {
			start := time.Now()
			f, err := golock.Explore(t, quiet(redsyncLock(1), renewed), golock.Faults(class),
				golock.With(simtest.Runs(runs)), golock.With(simtest.FailOn("client-error")), golock.With(simtest.SaveTo("")))
			took := time.Since(start)
			if f != nil {
				t.Fatalf("%s: the search stopped at run %d: %s", class, f.Run, f.Message)
			}
			t.Logf("redsync, one pool, Extend offered %v, under %s: %d runs in %s: %.0f runs/s (%v)", renewed, class, runs,
				took.Round(time.Millisecond), runs/took.Seconds(), err)
		}
	}
}
