package realtime_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/redistest"
	"github.com/locksim/locksim/realtime"
)

// BenchmarkFirstDoubleHolder is the speed side by side: the same search for
// setnx-getset's pause/DEL-release bug (explore --faults pause --verdict
// unsafe, seed 1), in simulation and against redis-server in wall-clock
// time, in one run. It prints the wall time to the first double holder on
// each side and their ratio:
//
//	go test ./realtime -run '^$' -bench FirstDoubleHolder -benchtime 1x
func BenchmarkFirstDoubleHolder(b *testing.B) {
	addr := redistest.Addr(b)
	for b.Loop() {
		e, err := explore.New(explore.Options{DrawTTL: true, Algorithm: "setnx-getset", Classes: []string{"pause"}, Seed: 1,
			Runs: realtime.MaxRuns, Workers: 1, Verdicts: []string{"unsafe"}})
		if err != nil {
			b.Fatal(err)
		}
		// The simulated search takes milliseconds: the best of five, so
		// the first one's warm-up (node pool, Lua states) does not count.
		var sr *explore.SearchResult
		for range 5 {
			r, err := e.Search(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if r.Found == nil {
				b.Fatal("simulation: no double holder in 200 runs")
			}
			if sr == nil || r.ToFirst < sr.ToFirst {
				sr = r
			}
		}
		rr, err := realtime.Search(context.Background(), e, addr, realtime.MaxRuns)
		if err != nil {
			b.Fatal(err)
		}
		if rr.Found == nil {
			b.Fatalf("redis-server: no double holder in %d runs", rr.Runs)
		}
		ratio := rr.ToFirst.Seconds() / sr.ToFirst.Seconds()
		seq := rr.RunTime.Seconds() / sr.ToFirst.Seconds()
		fmt.Printf("simulation    first double holder at run %d after %v (1 worker, best of 5)\n", sr.Found.Index, sr.ToFirst)
		fmt.Printf("redis-server  first double holder at run %d after %v (%d runs at once; the runs' own time summed: %v)\n",
			rr.Found.Index, rr.ToFirst, rr.Parallel, rr.RunTime)
		fmt.Printf("ratio         real/sim %.0f× (one run at a time: %.0f×)\n", ratio, seq)
		b.ReportMetric(sr.ToFirst.Seconds(), "sim-s")
		b.ReportMetric(rr.ToFirst.Seconds(), "real-s")
		b.ReportMetric(ratio, "ratio")
	}
}
