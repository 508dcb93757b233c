package prove

import (
	"context"
	"testing"
	"time"
)

// The performance goals, as benchmarks (figures in the README):
//
//	go test ./prove -run '^$' -bench Prove -benchtime 1x
//
// The first two enumerate a space inside set-nx-px-token's assumptions (pauses
// shorter than the TTL, crashes, clock steps of a client, one reordering),
// so they run it to the end: a proof. With long-pause on the menu the
// search stops at the first overlap instead, in well under a second.
func benchProve(b *testing.B, o Options) {
	for range b.N {
		p, err := New(o)
		if err != nil {
			b.Fatal(err)
		}
		// The 10 minute bound: stop there and report how far it got.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		r, err := p.Run(ctx)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		if r.Interrupted {
			b.Logf("stopped after %s: %d schedules, pass %d of %d not complete", r.Elapsed, r.Explored, r.Depth+1, o.MaxFaults+o.MaxDelays)
		} else if !r.Proved() {
			b.Fatalf("not proved: %+v", r.Found)
		}
		b.ReportMetric(float64(r.Explored), "schedules")
		b.ReportMetric(float64(r.Pruned), "pruned")
		b.ReportMetric(float64(r.Explored)/r.Elapsed.Seconds(), "schedules/s")
	}
}

// BenchmarkProve3x2K1: 3 clients × 2 rounds, K=1 over the menu inside the
// assumptions, D=1, one worker.
func BenchmarkProve3x2K1(b *testing.B) {
	benchProve(b, Options{Algorithm: "set-nx-px-token", Clients: 3, Rounds: 2,
		Classes: []string{ClassShortPause, ClassCrash, ClassClientJump}, MaxFaults: 1, MaxDelays: 1, Workers: 1})
}

// BenchmarkProve2x2K2: 2 clients × 2 rounds, K=2, D=1, every core.
func BenchmarkProve2x2K2(b *testing.B) {
	benchProve(b, Options{Algorithm: "set-nx-px-token", Clients: 2, Rounds: 2,
		Classes: []string{ClassShortPause, ClassCrash, ClassClientJump}, MaxFaults: 2, MaxDelays: 1})
}

// BenchmarkProveSmall is a small space for profiling one schedule's cost.
func BenchmarkProveSmall(b *testing.B) {
	benchProve(b, Options{Algorithm: "set-nx-px-token", Clients: 2, Rounds: 2,
		Classes: []string{ClassShortPause, ClassCrash}, MaxFaults: 1, Workers: 1})
}
