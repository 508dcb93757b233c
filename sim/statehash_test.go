package sim

import (
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
)

// keyedPoint is one trigger point with the state key there.
type keyedPoint struct {
	at   Time
	proc int
	pt   Point
	key  StateKey
	past StateKey
	hist StateKey
}

// keyedRun runs cfg recording the state key at every point.
func keyedRun(t *testing.T, cfg Config) (*Result, []keyedPoint) {
	t.Helper()
	var pts []keyedPoint
	cfg.OnState = func(pt Point, proc int, k StateKeys) {
		pts = append(pts, keyedPoint{proc: proc, pt: pt, key: k.State, past: k.Summary, hist: k.History})
	}
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res, pts
}

// Reading the state (the nodes' keys at now above all) must not change the
// run: the same digest with the key on and off, faults and all.
func TestStateKeyLeavesTheRunAlone(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		cfg := standardConfig(seed)
		cfg.Faults = []Fault{
			{Kind: fault.Pause, Proc: 0, On: Trigger{Point: PointAcquired, Proc: 0, N: 3}, Dur: 2 * time.Second},
			{Kind: fault.Crash, Proc: 1, On: Trigger{Point: PointReply, Proc: 1, N: 5}, Dur: 30 * time.Millisecond},
			{Kind: fault.ClientJump, Proc: 2, On: Trigger{Point: PointSend, Proc: 2, N: 4}, Dur: 500 * time.Millisecond},
		}
		plain, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		want := plain.History.Digest()
		keyed, pts := keyedRun(t, cfg)
		if got := keyed.History.Digest(); got != want {
			t.Fatalf("seed %d: digest %s with the state key, %s without", seed, got, want)
		}
		if len(pts) < 100 {
			t.Fatalf("seed %d: only %d points", seed, len(pts))
		}
		_, again := keyedRun(t, cfg)
		for i := range pts {
			if pts[i].key != again[i].key || pts[i].key == Unknown {
				t.Fatalf("seed %d: point %d: key %x, then %x", seed, i, pts[i].key, again[i].key)
			}
		}
	}
}

// Two runs that differ only in when a waiter that never got the lock
// crashed reach the same state once it is dead (its failed tries left
// nothing on the node); a run where it was paused instead does not.
func TestStateKeyFoldsWhatLeftNoTrace(t *testing.T) {
	base := func(f Fault) Config {
		cfg := standardConfig(1)
		cfg.Procs = cfg.Procs[:2]
		cfg.Procs[0].Work = 300 * time.Millisecond // c2 retries all that time
		cfg.Network.Request = Latency{Min: time.Millisecond, Max: time.Millisecond}
		cfg.Network.Reply = cfg.Network.Request
		cfg.Faults = []Fault{f}
		return cfg
	}
	crashAt := func(n int) Fault {
		return Fault{Kind: fault.Crash, Proc: 1, On: Trigger{Point: PointSend, Proc: 1, N: n}}
	}
	_, a := keyedRun(t, base(crashAt(3)))
	_, b := keyedRun(t, base(crashAt(5)))
	_, c := keyedRun(t, base(Fault{Kind: fault.Pause, Proc: 1, On: Trigger{Point: PointSend, Proc: 1, N: 3}, Dur: time.Hour}))
	last := func(pts []keyedPoint) StateKey { return pts[len(pts)-1].key }
	if last(a) != last(b) {
		t.Fatalf("a waiter crashed at its 3rd or its 5th send: the last points differ (%x, %x)", last(a), last(b))
	}
	// The pasts remember when it crashed, the summary too (a checker may
	// still cut a span there).
	if a[len(a)-1].past == b[len(b)-1].past {
		t.Fatal("a waiter crashed at its 3rd or its 5th send: the same summary of the past")
	}
	if a[len(a)-1].hist == b[len(b)-1].hist {
		t.Fatal("a waiter crashed at its 3rd or its 5th send: the same history key")
	}
	if last(a) == last(c) {
		t.Fatalf("a crashed waiter and a paused one: the same key %x", last(a))
	}
	if a[0].key == last(a) {
		t.Fatal("the first and the last point have the same key")
	}
}

// A run shifted in time (its process starts later) has the same state keys
// and summaries, point for point: they hold times relative to now.
func TestStateKeyIsRelativeToNow(t *testing.T) {
	at := func(start time.Duration, drift int64) []keyedPoint {
		cfg := standardConfig(1)
		cfg.Procs = cfg.Procs[:1]
		cfg.Procs[0].Start = start
		cfg.Procs[0].Clock.DriftPPM = drift
		cfg.Network.Request = Latency{Min: time.Millisecond, Max: time.Millisecond}
		cfg.Network.Reply = cfg.Network.Request
		_, pts := keyedRun(t, cfg)
		return pts
	}
	a, b := at(0, 0), at(7*time.Millisecond, 0)
	if len(a) != len(b) || len(a) < 20 {
		t.Fatalf("%d and %d points", len(a), len(b))
	}
	for i := range a {
		if a[i].key != b[i].key || a[i].past != b[i].past {
			t.Fatalf("point %d (%v of c%d): keys %x %x, shifted %x %x", i, a[i].pt, a[i].proc+1, a[i].key, a[i].past, b[i].key, b[i].past)
		}
		if a[i].hist == b[i].hist {
			t.Fatalf("point %d: the same history key, 7 ms apart", i)
		}
	}
	// A drifting clock rounds by the absolute time: no shift is the same.
	c, d := at(0, 50), at(7*time.Millisecond, 50)
	if c[0].key == d[0].key {
		t.Fatal("a drifting clock: the same key 7 ms apart")
	}
}

// Result.HistoryKey tells histories apart exactly as Digest does: runs with
// equal digests (the same config twice) have equal keys, and different
// digests different keys; a run without OnState has none.
func TestHistoryKeyAsDigest(t *testing.T) {
	byDigest := map[string]StateKey{}
	byKey := map[StateKey]string{}
	for seed := uint64(1); seed <= 12; seed++ {
		for _, pause := range []time.Duration{0, 2 * time.Second, 2*time.Second + time.Millisecond} {
			cfg := standardConfig(seed)
			if pause > 0 {
				cfg.Faults = []Fault{{Kind: fault.Pause, Proc: 0, On: Trigger{Point: PointAcquired, Proc: 0, N: 2}, Dur: pause}}
			}
			plain, err := Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if plain.HistoryKey != Unknown {
				t.Fatalf("seed %d: a run without OnState has history key %x", seed, plain.HistoryKey)
			}
			for range 2 {
				res, _ := keyedRun(t, cfg)
				d, k := res.History.Digest(), res.HistoryKey
				if k == Unknown {
					t.Fatalf("seed %d: no history key", seed)
				}
				if was, ok := byDigest[d]; ok && was != k {
					t.Fatalf("seed %d, pause %s: digest %s has keys %x and %x", seed, pause, d, was, k)
				}
				if was, ok := byKey[k]; ok && was != d {
					t.Fatalf("seed %d, pause %s: key %x has digests %s and %s", seed, pause, k, was, d)
				}
				byDigest[d], byKey[k] = k, d
			}
		}
	}
	if len(byDigest) < 30 {
		t.Fatalf("only %d distinct histories of 36 configs: the test tells too few apart", len(byDigest))
	}
}

// A process's pending command is summed once, and summed again when it
// changes (setArgs): a stale sum would make two states with different
// commands pending equal, and prove would prune one for the other. A
// request takes its sender's sum, or sums its own list alike.
func TestArgsSumFollowsSetArgs(t *testing.T) {
	r := &runner{cfg: &Config{}}
	p := &process{r: r, spec: &ProcSpec{}, live: true, want: effCommand}
	p.setArgs([]string{"SET", "lock", "a", "NX"})
	first := p.stateSum(stateSum{})
	if again := p.stateSum(stateSum{}); again != first {
		t.Fatalf("the same pending command sums %x, then %x", first, again)
	}
	p.setArgs([]string{"SET", "lock", "b", "NX"})
	if other := p.stateSum(stateSum{}); other == first {
		t.Fatalf("another pending command sums as the first: %x", other)
	}
	p.setArgs([]string{"SET", "lock", "a", "NX"})
	if back := p.stateSum(stateSum{}); back != first {
		t.Fatalf("the first command again sums %x, not %x", back, first)
	}
	q := &request{args: p.args}
	if got, want := q.argSum.of(q.args), p.argSum.s; got != want {
		t.Fatalf("a request sums its list as %x, its sender as %x", got, want)
	}
	if whole := (stateSum{}.args([]string{"SET", "lock", "aN", "X"})); whole == p.argSum.s {
		t.Fatal("argument lists that join to the same text sum alike")
	}
}
