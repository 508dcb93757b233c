package explore

import (
	"context"
	"fmt"
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
				e := explorer(b, Options{Algorithm: c.algo, Classes: classes(b, c.faults), Seed: 1, Runs: 100_000,
					Verdicts: []string{c.verdict}})
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
