package foreign_test

import (
	"context"
	"testing"
	"time"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/sim/foreign"
)

// BenchmarkExploreProgram: explore's runs of redis-py's Lock itself (a
// Python worker per client incarnation) and of its algorithm file, every
// fault class, inside the lock's assumptions (where neither breaks, so both
// search all their runs), in alternating batches; runs/s each and the
// ratio.
//
//	go test -run '^$' -bench ExploreProgram -benchtime 1x ./examples/foreign
func BenchmarkExploreProgram(b *testing.B) {
	needs(b, foreign.Python)
	prog, file := lockOf(b, "python/redis-py-lock-5s.py"), lockOf(b, "../redis-py-lock.yaml")
	const runs = 400
	var took [2]time.Duration
	var done [2]int
	for range b.N {
		for i, l := range []string{"program", "file"} {
			a := prog.Algorithm
			if l == "file" {
				a = file.Algorithm
			}
			e, err := explore.New(explore.Options{Lock: a, Seed: 1, Runs: runs, Workers: 0, ShrinkTries: 0, Inside: true, Verdicts: []string{"unsafe"}})
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			sr, err := e.Search(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			took[i] += time.Since(start)
			done[i] += sr.Executed
		}
	}
	prs, frs := float64(done[0])/took[0].Seconds(), float64(done[1])/took[1].Seconds()
	b.ReportMetric(prs, "program-runs/s")
	b.ReportMetric(frs, "file-runs/s")
	b.ReportMetric(frs/prs, "file/program")
}
