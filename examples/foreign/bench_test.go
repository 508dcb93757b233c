package foreign_test

import (
	"context"
	"testing"
	"time"

	"github.com/locksim/locksim/explore"
)

// BenchmarkExploreProgram: explore's runs of a lock program (a worker per
// client incarnation) and of its algorithm file, every fault class, inside
// the lock's assumptions, one after the other in each iteration (a side by
// side ratio on a machine whose load drifts); runs/s each and the ratio.
//
//	go test -run '^$' -bench ExploreProgram -benchtime 2x ./examples/foreign
func BenchmarkExploreProgram(b *testing.B) {
	for _, c := range []struct {
		name          string
		program, file string
		runs          int
	}{
		{"python-redis-py-lock", "python/redis-py-lock-5s.py", "../redis-py-lock.yaml", 400},
		{"python-002", "python/002-setnx.py", "python-setnx", 100},
		{"node-redlock-v5", "node/redlock-v5.js", "../redlock.yaml", 40},
		{"php-004", "php/004-set-get.php", "php-set-get", 100},
	} {
		b.Run(c.name, func(b *testing.B) {
			needs(b, c.program)
			prog, file := lockOf(b, c.program), lockOf(b, c.file)
			var took [2]time.Duration
			var done [2]int
			for range b.N {
				for i, l := range []*struct{}{nil, {}} {
					a := prog.Algorithm
					if l != nil {
						a = file.Algorithm
					}
					e, err := explore.New(explore.Options{Lock: a, Seed: 1, Runs: c.runs, Inside: true, Verdicts: []string{"unsafe"}})
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
		})
	}
}
