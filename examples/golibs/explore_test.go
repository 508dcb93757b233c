package golibs_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/simtest"
)

// exploreVerdicts are golock.Check's searches over each library, one
// fault class each (one node, TTLs drawn from 0.5 to 4 s, work below the
// TTL): as the READMEs use them, with no renewal (the Lease has no Extend),
// and renewed (redsyncLock's and bsmLock's Extend: the search renews the
// lease, holds it past the TTL and aims faults at the renewals). "unsafe"
// means the search must find an overlap or lost update; "" means it must
// find none in its runs and every run must end (no run cut at a cap: the
// run lengths budget go-redis's own timeouts and retries); "-" is not
// searched.
var exploreVerdicts = []struct {
	class              string
	runs               int
	redsync, redislock string
	renewed            string // both libraries, with Extend
	why                string
}{
	{"none", 500, "", "", "", "one atomic SET NX with an expiry on one node, a compare-and-delete release, " +
		"work below the TTL (renewed: a renewal every tenth to half of the TTL covers the hold past it): " +
		"nobody can hold a key someone else holds"},
	{"crash", 500, "", "", "", "a crashed holder's key expires (its renewal ends with it); the lock's state is on the node only"},
	{"pause", 500, "unsafe", "unsafe", "unsafe", "a holder paused past its expiry writes after the next holder " +
		"took the expired key; neither library fences"},
	{"net", 2000, "", "", "unsafe", "a lost or late SET reply: redsync releases after a failed try and refuses a lock " +
		"whose validity (expiry − elapsed − 1%) is gone; redislock gives a lock only on a reply " +
		"read before its context's deadline, now + TTL; a reply later than TTL − work would be " +
		"unsafe for redislock, which checks no validity, and the class's latencies stay below it. " +
		"Renewed: an Extend whose reply is lost waits out go-redis's 5 s read timeout (the caller's context " +
		"does not bound the read: ContextTimeoutEnabled is off), past every TTL drawn; the holder, told " +
		"nothing until the Extend returns, works on after its key lapsed and the next client took it: " +
		"outside a TTL lock's assumptions (TestRenewedLeaseUnderLossIsOutside)"},
	{"restart", 500, "unsafe", "unsafe", "-", "a node restarts without persistence and forgets the key"},
	{"failover", 500, "unsafe", "unsafe", "-", "a replica promoted before the key reached it"},
}

func TestExploreVerdicts(t *testing.T) {
	for _, v := range exploreVerdicts {
		for _, c := range []struct {
			name string
			lock golock.NewLock
			want string
		}{{"redsync", withoutExtend(redsyncLock(1)), v.redsync}, {"redislock", withoutExtend(bsmLock), v.redislock},
			{"redsync renewed", redsyncLock(1), v.renewed}, {"redislock renewed", bsmLock, v.renewed}} {
			if c.want == "-" {
				continue
			}
			f, err := golock.Explore(t, c.lock, golock.Faults(v.class), golock.With(simtest.Runs(v.runs)), golock.With(simtest.SaveTo("")))
			if err != nil {
				t.Errorf("%s under %s: %v", c.name, v.class, err)
				continue
			}
			got := ""
			if f != nil {
				got = f.Verdict
				t.Logf("%s under %s: %s at run %d: %s", c.name, v.class, got, f.Run, f.Outcome.Verdict)
			}
			if got != c.want {
				t.Errorf("%s under %s: found %q, want %q (%s)", c.name, v.class, got, c.want, v.why)
			}
		}
	}
}

// TestExploreFindsRedsyncPauseOverlap is the figure in the README: explore
// over real redsync (one pool, as its README uses it: no renewal) under
// pause finds the overlap within 2,000 runs and shrinks it, in seconds.
func TestExploreFindsRedsyncPauseOverlap(t *testing.T) {
	start := time.Now()
	readme := withoutExtend(redsyncLock(1)) // the README's lock, which renews nothing
	f, err := golock.Explore(t, readme, golock.Faults("pause"), golock.With(simtest.Runs(2000)), golock.With(simtest.SaveTo(t.TempDir())))
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || f.Verdict != "unsafe" {
		t.Fatalf("no overlap in 2,000 runs: %+v", f)
	}
	// The counterexample file names golock.Replay, and replays through
	// Run to the same history.
	data, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "golock.Replay(t, newLock, ") || strings.Contains(string(data), "simtest.Replay") ||
		!strings.Contains(f.Message, "golock.Replay(t, newLock, ") {
		t.Errorf("the counterexample does not name golock.Replay:\n%s", data)
	}
	o, err := golock.Run(t, readme, f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if o.Verdict.Verdict != "unsafe" || o.Digest != f.Outcome.Digest {
		t.Errorf("%s replays %s (digest %.12s), the search saw unsafe (%.12s)", f.Path, o.Verdict.Verdict, o.Digest, f.Outcome.Digest)
	}
	// Replay with a verdict list that leaves unsafe out passes and hands
	// back the outcome.
	if o := golock.Replay(t, readme, f.Path, "stuck"); o == nil || o.Verdict.Verdict != "unsafe" {
		t.Errorf("golock.Replay: %+v", o)
	}
	t.Logf("unsafe at run %d, shrunk to %d client(s) and %d fault(s), in %s (wall clock)",
		f.Run, len(f.Outcome.Scenario.Clients), len(f.Outcome.Scenario.Faults), time.Since(start).Round(time.Millisecond))
}

// golock.Check answers inside the lock's assumptions: the README's redsync
// is a correct TTL lock, so Check passes under pauses and logs where it
// breaks outside them; Explore, the one search of any violation, finds
// the overlap of a pause past the TTL in the same runs.
func TestCheckAnswersInsideAndOutside(t *testing.T) {
	readme := withoutExtend(redsyncLock(1))
	f, err := golock.Explore(t, readme, golock.Faults("pause"), golock.With(simtest.Runs(300)), golock.With(simtest.SaveTo("")))
	if err != nil || f == nil || f.Verdict != "unsafe" {
		t.Fatalf("Explore (any violation): %+v %v, want the overlap past the TTL", f, err)
	}
	t.Run("check", func(t *testing.T) {
		if !golock.Check(t, readme, golock.Faults("pause"), golock.With(simtest.Runs(300)), golock.With(simtest.SaveTo(""))) {
			t.Error("Check failed redsync inside its assumptions")
		}
	})
}

// A renewed lease on a network that loses replies: a renewal whose reply is
// lost is known to have failed only when go-redis stops waiting for it (its
// read timeouts and retries, 40 s), long after any TTL drawn, and the
// holder works on meanwhile. That is outside a TTL lock's assumptions, not
// a bug of the library's, so Check passes inside and the outside answer's
// breaking point is the renewal's lost reply.
func TestRenewedLeaseUnderLossIsOutside(t *testing.T) {
	for _, c := range []struct {
		name string
		lock golock.NewLock
	}{{"redsync", redsyncLock(1)}, {"redislock", bsmLock}} {
		f, a, err := golock.Answer(t, c.lock, golock.Faults("net"), golock.With(simtest.Runs(2000)), golock.With(simtest.SaveTo("")))
		if err != nil || f != nil {
			t.Errorf("%s: inside %+v, %v; want no violation inside", c.name, f, err)
			continue
		}
		if a.Inside == nil || a.Inside.Search.Runs != 2000 || a.Breaking == nil || a.Breaking.Assumption != scenarios.AssumeRenewal {
			t.Errorf("%s: inside %+v, breaking point %+v; want 2000 runs inside and a renewal's lost reply outside", c.name, a.Inside, a.Breaking)
			continue
		}
		t.Logf("%s: %s", c.name, a.Breaking.Words)
	}
}
