package explore

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// BenchmarkExploreTokenAllFaults is explore's throughput: set-nx-px-token
// under every fault class, one op = one run (generate, simulate, check).
// Counting only client-error, which this lock never has, keeps the search
// from stopping at its first violation.
//
//	go test ./explore -run '^$' -bench ExploreTokenAllFaults
func BenchmarkExploreTokenAllFaults(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			e := explorer(b, Options{Algorithm: "set-nx-px-token", Classes: classes(b, "all"), Seed: 1,
				Runs: b.N, Workers: workers, Verdicts: []string{"client-error"}})
			b.ResetTimer()
			sr, err := e.Search(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if sr.Found != nil {
				b.Fatalf("run %d has a client error", sr.Found.Index)
			}
			b.ReportMetric(float64(sr.Executed)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}

// BenchmarkExploreScaling is BenchmarkExploreTokenAllFaults's search with
// two workers over the same search with one, measured in alternating
// batches of the same 1,000 runs (one op is a batch at each worker count),
// so that both halves of the ratio see the same machine: on a shared
// machine, two benchmarks run one after the other differ by more than the
// ratio does. gc=400 collects as simrun's searches do (cmd/simrun's GC
// tuner raises GOGC to 400 while the live heap is small); gc=100 is Go's
// default, which the other benchmarks here run at.
//
//	go test ./explore -run '^$' -bench ExploreScaling -benchtime 5x
func BenchmarkExploreScaling(b *testing.B) {
	const perBatch = 1000
	for _, gc := range []int{100, 400} {
		b.Run(fmt.Sprintf("gc=%d", gc), func(b *testing.B) {
			defer debug.SetGCPercent(debug.SetGCPercent(gc))
			var elapsed [3]time.Duration // by worker count
			batch := 0
			for b.Loop() {
				batch++
				for _, workers := range []int{1, 2} {
					b.StopTimer()
					e := explorer(b, Options{Algorithm: "set-nx-px-token", Classes: classes(b, "all"), Seed: uint64(batch),
						Runs: perBatch, Workers: workers, Verdicts: []string{"client-error"}})
					b.StartTimer()
					start := time.Now()
					sr, err := e.Search(context.Background())
					elapsed[workers] += time.Since(start)
					if err != nil {
						b.Fatal(err)
					}
					if sr.Found != nil || sr.Executed != perBatch {
						b.Fatalf("batch %d, %d workers: %d runs executed, found %v", batch, workers, sr.Executed, sr.Found)
					}
				}
			}
			runs := float64(batch * perBatch)
			b.ReportMetric(runs/elapsed[1].Seconds(), "runs/s-1w")
			b.ReportMetric(runs/elapsed[2].Seconds(), "runs/s-2w")
			b.ReportMetric(elapsed[1].Seconds()/elapsed[2].Seconds(), "2w/1w")
		})
	}
}

// BenchmarkDocumentedBugs is, for each documented bug, the index of its
// first violating run, the seconds to it from seed 1 (all cores) and the time to shrink it.
// One op is one whole exploration; run it once:
//
//	go test ./explore -run '^$' -bench DocumentedBugs -benchtime 1x
func BenchmarkDocumentedBugs(b *testing.B) {
	for _, c := range documented {
		b.Run(c.algo+"/"+strings.ReplaceAll(c.faults, ",", "+"), func(b *testing.B) {
			var runs, procs, faults int
			var first, shrink time.Duration
			for range b.N {
				// Drawn TTLs, as TestDocumentedBugsFoundAndShrunk and the
				// README's table.
				e := explorer(b, Options{Algorithm: c.algo, Classes: classes(b, c.faults), Seed: 1, Runs: 100_000,
					Verdicts: []string{c.verdict}, DrawTTL: true})
				r, err := e.Run(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if r.Search.Found == nil {
					b.Fatalf("no %s run", c.verdict)
				}
				runs += r.Search.Found.Index // an index, from 0, as everywhere
				first += r.Search.ToFirst
				shrink += r.Shrink.Elapsed
				procs, faults = len(r.Counterexample.Clients), len(r.Counterexample.Faults)
			}
			n := float64(b.N)
			b.ReportMetric(float64(runs)/n, "first-run")
			b.ReportMetric(first.Seconds()/n, "s-to-first")
			b.ReportMetric(shrink.Seconds()/n, "s-shrink")
			b.ReportMetric(float64(procs), "procs")
			b.ReportMetric(float64(faults), "faults")
		})
	}
}
