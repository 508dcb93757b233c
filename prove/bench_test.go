package prove

import (
	"context"
	"testing"
	"time"
)

// prove's performance goals, as benchmarks (figures in the README):
//
//	go test ./prove -run '^$' -bench Prove -benchtime 1x
//
// The first two enumerate a space inside set-nx-px-token's assumptions (pauses
// shorter than the TTL, crashes, clock steps of a client, one reordering),
// so they run it to the end: a proof. With long-pause on the menu the
// search stops at the first overlap instead, in well under a second. The
// php-set-get ones complete their space with the verdict the document's
// code earns there (stuck: nothing worse), redlock's with a proof.
func benchProve(b *testing.B, o Options) { benchProveTo(b, o, "") }

// benchProveTo enumerates o's space whole and fails unless it ends with
// verdict ("": proved).
func benchProveTo(b *testing.B, o Options, verdict string) {
	for range b.N {
		p, err := New(o)
		if err != nil {
			b.Fatal(err)
		}
		// The goal's 10 minute bound: stop there and report how far it got.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		r, err := p.Run(ctx)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		if r.Interrupted {
			b.Logf("stopped after %s: %d schedules, pass %d of %d not complete", r.Elapsed, r.Explored, r.Depth+1, o.MaxFaults+o.MaxDelays)
		} else if verdict == "" && !r.Proved() {
			b.Fatalf("not proved: %+v", r.Found)
		} else if verdict != "" && (r.Found == nil || r.Found.Verdict != verdict || r.Incomplete > 0) {
			b.Fatalf("want %s over the whole space, got %+v (incomplete %d)", verdict, r.Found, r.Incomplete)
		}
		b.ReportMetric(float64(r.Explored), "schedules")
		b.ReportMetric(float64(r.Pruned), "pruned")
		if o.Jumps == JumpsUnread {
			b.ReportMetric(float64(r.Unrun), "unrun")
		}
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

// BenchmarkProve2x2K2Jumps is BenchmarkProve2x2K2 with --jumps unread
// (jumps.go): the same space and proof, fewer runs; side by side with it.
func BenchmarkProve2x2K2Jumps(b *testing.B) {
	benchProve(b, Options{Algorithm: "set-nx-px-token", Clients: 2, Rounds: 2,
		Classes: []string{ClassShortPause, ClassCrash, ClassClientJump}, MaxFaults: 2, MaxDelays: 1, Jumps: JumpsUnread})
}

// BenchmarkProveSmall is a small space for profiling one schedule's cost.
func BenchmarkProveSmall(b *testing.B) {
	benchProve(b, Options{Algorithm: "set-nx-px-token", Clients: 2, Rounds: 2,
		Classes: []string{ClassShortPause, ClassCrash}, MaxFaults: 1, Workers: 1})
}

// BenchmarkProvePhpSetGetCrash and ...Net: php-set-get, K=1, D=1: the whole
// space, past its stuck schedule, to rule out worse.
func BenchmarkProvePhpSetGetCrash(b *testing.B) {
	benchProveTo(b, Options{Algorithm: "php-set-get", Classes: []string{ClassCrash}, MaxFaults: 1, MaxDelays: 1}, "stuck")
}

func BenchmarkProvePhpSetGetNet(b *testing.B) {
	benchProveTo(b, Options{Algorithm: "php-set-get", Classes: []string{ClassNet}, MaxFaults: 1, MaxDelays: 1}, "stuck")
}

// BenchmarkProveRedlockNet: redlock on 5 nodes, lost requests and replies,
// K=1, D=1.
func BenchmarkProveRedlockNet(b *testing.B) {
	benchProve(b, Options{Algorithm: "redlock", Classes: []string{ClassNet}, MaxFaults: 1, MaxDelays: 1})
}
