package model

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

// retries: p fails to acquire every 100ms from from to to.
func (b *hist) retries(p int, from, to sim.Time) *hist {
	for at := from; at+ms(10) <= to; at += ms(100) {
		b.failAcquire(p, at, at+ms(10))
	}
	return b
}

// crashedHolder: c1 takes the lock and crashes holding it at 100ms.
func crashedHolder() *hist {
	return newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).fault(0, ms(100), fault.Crash, 0)
}

func TestStuck(t *testing.T) {
	tests := []struct {
		name     string
		h        sim.History
		ttl      time.Duration
		verdict  string
		from, to sim.Time
	}{
		{
			// The crashed holder's lease explains [100ms, 1.1s); from then on
			// nobody gets the lock for more than 2×TTL.
			name: "ttl: nobody gets the lock for 2×TTL after the lease ran out", ttl: time.Second,
			h:       crashedHolder().retries(1, ms(200), ms(3500)).build(),
			verdict: VerdictStuck, from: ms(1100), to: ms(3410),
		},
		{
			name: "ttl: 2×TTL of trying, but the crashed holder's lease explains the first TTL", ttl: time.Second,
			h:       crashedHolder().retries(1, ms(200), ms(3000)).build(),
			verdict: VerdictSafe,
		},
		{
			// c2 holds and crashes, its lease runs out at 1.1s; c3 takes it
			// and crashes too; c1 waits from 0 to 2.2s: the leases explain it.
			name: "ttl: holders crashing one after another", ttl: time.Second,
			h: newHist("c1", "c2", "c3").acquire(1, ms(0), ms(1), 0).fault(1, ms(100), fault.Crash, 0).
				acquire(2, ms(1100), ms(1101), 0).fault(2, ms(1200), fault.Crash, 0).
				retries(0, ms(0), ms(2200)).acquire(0, ms(2200), ms(2201), 0).release(0, ms(2300), ms(2301)).build(),
			verdict: VerdictSafe,
		},
		{
			// c2 is paused for 2.5s while it waits: it is not trying then.
			name: "ttl: a paused waiter is not trying", ttl: time.Second,
			h: newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).release(0, ms(50), ms(51)).
				invoke(1, ms(100)).fault(1, ms(100), fault.Pause, 2500*time.Millisecond).
				add(sim.Event{At: ms(2610), Kind: sim.KindLockReturn, Proc: 1, Node: -1, Held: true, Token: "tok-c2"}).
				release(1, ms(2700), ms(2701)).build(),
			verdict: VerdictSafe,
		},
		{
			// The same wait without the pause is stuck: the pause, not the
			// wait, is what the check forgives.
			name: "ttl: the same wait unpaused", ttl: time.Second,
			h: newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).release(0, ms(50), ms(51)).
				invoke(1, ms(100)).
				add(sim.Event{At: ms(2610), Kind: sim.KindLockReturn, Proc: 1, Node: -1, Held: true, Token: "tok-c2"}).
				release(1, ms(2700), ms(2701)).build(),
			verdict: VerdictStuck, from: ms(100), to: ms(2610),
		},
		{
			name: "ttl: the lock comes back after the TTL", ttl: time.Second,
			h:       crashedHolder().retries(1, ms(200), ms(1200)).acquire(1, ms(1200), ms(1210), 0).release(1, ms(1300), ms(1310)).build(),
			verdict: VerdictSafe,
		},
		{
			name: "ttl: a live holder keeps it, others wait: contention", ttl: time.Second,
			h:       newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).retries(1, ms(10), ms(5000)).release(0, ms(5000), ms(5001)).build(),
			verdict: VerdictSafe,
		},
		{
			name: "ttl: failing just under 2×TTL", ttl: time.Second,
			h:       crashedHolder().retries(1, ms(200), ms(2100)).acquire(1, ms(2100), ms(2105), 0).build(),
			verdict: VerdictSafe,
		},
		{
			name:    "no ttl: an acquire in flight to the end of the run",
			h:       crashedHolder().invoke(1, ms(200)).tick(ms(5000)).build(),
			verdict: VerdictStuck, from: ms(200), to: ms(5000),
		},
		{
			name:    "no ttl: repeated failures after the holder crashed",
			h:       crashedHolder().retries(1, ms(200), ms(2000)).end(1, ms(2500), "").build(),
			verdict: VerdictStuck, from: ms(200), to: ms(1910),
		},
		{
			name:    "no ttl: the run ends soon after trying began",
			h:       crashedHolder().invoke(1, ms(4900)).tick(ms(5000)).build(),
			verdict: VerdictSafe,
		},
		{
			name:    "no ttl: the lock is acquired again",
			h:       crashedHolder().retries(1, ms(200), ms(3000)).acquire(1, ms(3000), ms(3005), 0).release(1, ms(3010), ms(3011)).tick(ms(5000)).build(),
			verdict: VerdictSafe,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(tc.h, Options{TTL: tc.ttl})
			if v.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s: %+v", v.Verdict, tc.verdict, v.Violations)
			}
			if tc.verdict == VerdictSafe {
				return
			}
			got := v.Violations[0]
			if got.Kind != KindStuck || !slices.Equal(got.Processes, []string{"c2"}) || got.From != tc.from || got.To != tc.to {
				t.Errorf("got %s %v %s..%s, want stuck [c2] %s..%s", got.Kind, got.Processes, since(got.From), since(got.To), since(tc.from), since(tc.to))
			}
		})
	}
}

// leftover: c1 holds from 1ms, its release at 10ms leaves the key in state
// left; c2 tries from 5ms to 3s, and sees the key count down its TTL.
func leftover(left sim.KeyState) *hist {
	b := newHist("c1", "c2").
		cmd(0, 0, ms(1), keyVal("tok-c1", -1), "SET", "lock", "tok-c1", "NX").acquire(0, ms(0), ms(1), 0).
		cmd(0, 0, ms(10), left, "EVAL", "release", "1", "lock", "tok-c1").release(0, ms(10), ms(11))
	for at := ms(5); at < ms(3000); at += ms(100) {
		seen := left
		if left.TTL >= 0 && at > ms(10) {
			seen.TTL -= time.Duration(at - ms(10))
			if seen.TTL <= 0 {
				seen = noKey
			}
		}
		b.cmd(1, 0, at+ms(1), seen, "SET", "lock", "tok-c2", "NX").failAcquire(1, at, at+ms(2))
	}
	return b
}

func TestStale(t *testing.T) {
	tests := []struct {
		name    string
		h       sim.History
		verdict string
		to      sim.Time
	}{
		{name: "the key stays after a successful release", h: leftover(keyVal("tok-c1", -1)).build(), verdict: VerdictStale, to: ms(2907)},
		{name: "the key stays, then someone deletes it", h: leftover(keyVal("tok-c1", -1)).cmd(-1, 0, ms(1500), noKey, "DEL", "lock").build(),
			verdict: VerdictStale, to: ms(1500)},
		{name: "the release deleted the key", h: leftover(noKey).build(), verdict: VerdictSafe},
		{name: "the key expires soon", h: leftover(keyVal("tok-c1", 500*time.Millisecond)).build(), verdict: VerdictSafe},
		{name: "the key is someone else's", h: leftover(keyVal("tok-c3", -1)).build(), verdict: VerdictSafe},
		{name: "the node restarts and loses it", h: leftover(keyVal("tok-c1", -1)).nodeRestart(0, ms(600)).build(), verdict: VerdictSafe},
		{
			name: "nobody waits",
			h: newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).
				cmd(0, 0, ms(10), keyVal("tok-c1", -1), "EVAL", "release", "1", "lock").release(0, ms(10), ms(11)).tick(ms(5000)).build(),
			verdict: VerdictSafe,
		},
		{
			name: "the release failed: not stale",
			h: newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).
				cmd(0, 0, ms(10), keyVal("tok-c1", -1), "EVAL", "release", "1", "lock").releaseErr(0, ms(10), ms(11), "timeout").
				retries(1, ms(20), ms(3000)).build(),
			verdict: VerdictSafe,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(tc.h, Options{TTL: 10 * time.Second})
			if v.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s: %+v", v.Verdict, tc.verdict, v.Violations)
			}
			if tc.verdict == VerdictSafe {
				return
			}
			got := v.Violations[0]
			if got.Kind != KindStale || !slices.Equal(got.Processes, []string{"c1", "c2"}) || got.From != ms(11) || got.To != tc.to {
				t.Errorf("got %s %v %s..%s, want stale [c1 c2] 11ms..%s", got.Kind, got.Processes, since(got.From), since(got.To), since(tc.to))
			}
			if len(got.Witness) == 0 || got.Witness[len(got.Witness)-1].Args[0] != "EVAL" {
				t.Errorf("witness should end with the release's EVAL: %+v", got.Witness)
			}
		})
	}
}

func TestClientError(t *testing.T) {
	bad := Check(newHist("c1").cmd(0, 0, ms(1), noKey, "GET", "lock").end(0, ms(2), "int() argument must be a string, not 'NoneType'").build(), Options{})
	if bad.Verdict != VerdictClientError || len(bad.Violations) != 1 || bad.Violations[0].From != ms(2) ||
		len(bad.Violations[0].Witness) != 2 {
		t.Errorf("client error: %+v", bad)
	}
	good := Check(newHist("c1").cmd(0, 0, ms(1), noKey, "GET", "lock").end(0, ms(2), "").build(), Options{})
	if good.Verdict != VerdictSafe || len(good.Violations) != 0 {
		t.Errorf("clean end: %+v", good)
	}
}

// A key left on one node while another process holds the lock (say, by a
// majority elsewhere) is not what keeps the others waiting.
func TestStaleIgnoresContention(t *testing.T) {
	h := leftover(keyVal("tok-c1", -1))
	h.h.Procs = append(h.h.Procs, "c3")
	h.acquire(2, ms(20), ms(21), 0).release(2, ms(4000), ms(4001))
	v := Check(h.build(), Options{TTL: 10 * time.Second})
	if slices.Contains(kinds(v), KindStale) {
		t.Errorf("got %+v", v.Violations)
	}
}

// c1's release DELs at 10ms; c2's SETNX lands at 10.5ms with the very same
// value (two whole-second timestamps collide) and c2 crashes before it
// returns; c1's release returns at 11ms. The key that stays is c2's, not a
// leftover of c1's release: no stale finding (it is a stuck lock instead).
func TestStaleIgnoresAnotherClientsEqualValue(t *testing.T) {
	b := newHist("c1", "c2", "c3").
		cmd(0, 0, ms(1), keyVal("tok-c1", -1), "SETNX", "lock", "tok-c1").acquire(0, ms(0), ms(1), 0).
		invoke(1, ms(5))
	b.add(b.proc(0, ms(10), sim.KindReleaseInvoke))
	b.cmd(0, 0, ms(10), noKey, "DEL", "lock").
		cmd(1, 0, ms(10)+ms(1)/2, keyVal("tok-c1", -1), "SETNX", "lock", "tok-c1")
	b.add(b.proc(0, ms(11), sim.KindReleaseReturn)).
		fault(1, ms(12), fault.Crash, 0).
		retries(2, ms(20), ms(3000))
	v := Check(b.build(), Options{})
	if slices.Contains(kinds(v), KindStale) {
		t.Fatalf("c2's key was taken for c1's leftover: %+v", v.Violations)
	}
	if !slices.Contains(kinds(v), KindStuck) {
		t.Fatalf("the abandoned key should leave c3 stuck: %+v", v.Violations)
	}
}

// c1's SET ran at 1ms but its reply was lost, so c1 does not know it holds
// the lock; the key blocks everyone, c1 included, until its 1s TTL runs out.
// Waiting 2s in all is the lease at work plus 1s: not stuck. When the key
// outlives its lifetime (no TTL on it) and nobody gets the lock for 2s past
// the lifetime, it is stuck.
func TestStuckForgivesLeasesNobodyKnows(t *testing.T) {
	lostReply := func(until sim.Time) *hist {
		return newHist("c1").
			invoke(0, ms(0)).
			cmd(0, 0, ms(1), keyVal("tok-a", time.Second), "SET", "lock", "tok-a", "NX", "PX", "1000").
			add(sim.Event{At: ms(50), Kind: sim.KindLockReturn, Proc: 0, Node: -1}).
			retries(0, ms(100), until)
	}
	safe := lostReply(ms(2000)).acquire(0, ms(2000), ms(2001), 0).release(0, ms(2100), ms(2101)).build()
	if v := Check(safe, Options{TTL: time.Second}); v.Verdict != VerdictSafe {
		t.Fatalf("a lost reply's lease explains the first second: %s %+v", v.Verdict, v.Violations)
	}
	stuck := lostReply(ms(3500)).build()
	if v := Check(stuck, Options{TTL: time.Second}); v.Verdict != VerdictStuck {
		t.Fatalf("2×TTL past the lease with nobody getting the lock is stuck: %s %+v", v.Verdict, v.Violations)
	}
}

// req: p's command number req ran on node 0 at at, leaving the key k, and
// its result came at res (err "": the reply; else the client's error).
func (b *hist) req(p int, req uint64, at, res sim.Time, k sim.KeyState, err string, args ...string) *hist {
	b.add(sim.Event{At: at, Kind: sim.KindCommand, Proc: p, Node: 0, Req: req, Args: args, Sent: at, Key: k})
	return b.add(sim.Event{At: res, Kind: sim.KindCommandResult, Proc: p, Node: 0, Req: req, Args: args, Sent: at, Err: err})
}

// Whatever excuses a write, its version keeps nobody out once it is gone:
// c1's SET lost its reply (a lease of one TTL), but c2 deleted the key
// 100ms later, so c2's waiting after that is not excused by c1's write.
func TestWriteLeaseEndsWhenItsVersionIsGone(t *testing.T) {
	h := newHist("c1", "c2").
		invoke(0, ms(0)).
		req(0, 1, ms(1), ms(50), keyVal("a", 10*time.Second), "timeout", "SET", "lock", "a", "NX", "PX", "10000").
		add(sim.Event{At: ms(60), Kind: sim.KindLockReturn, Proc: 0, Node: -1}).
		req(1, 2, ms(100), ms(101), noKey, "", "DEL", "lock").
		retries(1, ms(200), ms(25_000)).
		build()
	v := Check(h, Options{TTL: 10 * time.Second})
	if v.Verdict != VerdictStuck || len(v.Violations) == 0 || v.Violations[0].From > ms(200) {
		t.Errorf("want stuck from c2's first retry (the lease ended at the DEL), got %s %+v", v.Verdict, v.Violations)
	}
}

// The stuck violation says how much of its window was the network's
// waiting, as the corpus cases' comments derive it: 57's window is 3.4s, of
// which the lost tries at 1s and 1.3s forgive [1s, 1.6s); 58's lost try
// forgives nothing, and its detail says nothing of the network.
func TestStuckDetailCountsNetworkWait(t *testing.T) {
	for _, c := range []struct{ file, took string }{
		{"57-refused-tries-between-lost-ones", "(3.4s, 600ms of it waiting on tries the network lost, not counted)"},
		{"58-no-retry-after-lost-try", "(3.4s)"},
	} {
		_, h, o, err := loadCorpusCase(filepath.Join("testdata", "corpus", c.file+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		v := Check(h, o)
		if len(v.Violations) != 1 || v.Violations[0].Kind != KindStuck {
			t.Fatalf("%s: violations %+v, want one stuck", c.file, v.Violations)
		}
		if d := v.Violations[0].Detail; !strings.Contains(d, c.took) {
			t.Errorf("%s: detail %q does not say %q", c.file, d, c.took)
		}
	}
}

// The network's waiting runs from a lost try's send to the send of the
// waiter's next command that runs (trace.go, netWait). c1 waits from 0;
// its try 1, sent at 100ms, times out at 150ms without having run. If it
// never runs, the wait ends at try 2's send (400ms); if it was still on
// its way and runs at 200ms, it is the next command that runs and ends the
// wait at its own send: nothing is forgiven.
func TestNetWaitEndsAtNextCommandThatRuns(t *testing.T) {
	for _, c := range []struct {
		name string
		late bool
		want []span
	}{
		{"lost", false, []span{{ms(100), ms(400)}}},
		{"ran late", true, nil},
	} {
		b := newHist("c1").invoke(0, 0).
			add(sim.Event{At: ms(150), Kind: sim.KindCommandResult, Proc: 0, Node: 0, Req: 1, Sent: ms(100), Err: "timeout"})
		if c.late {
			b.add(sim.Event{At: ms(200), Kind: sim.KindCommand, Proc: 0, Node: 0, Req: 1, Sent: ms(100), Key: keyVal("a", time.Second)})
		}
		h := b.req(0, 2, ms(400), ms(401), keyVal("b", time.Second), "").tick(ms(500)).build()
		if got := extract(&h).netWaits[0]; !slices.Equal(got, c.want) {
			t.Errorf("%s: the network's waiting %v, want %v", c.name, got, c.want)
		}
	}
}

// Only a try's loss is the network's waiting: a command c1 lost while it
// was not acquiring (sent at 50ms, before its Acquire at 100ms, as a lost
// release's might be) begins none, though the next command that runs, at
// 400ms, comes inside the want.
func TestNetWaitOnlyFromTries(t *testing.T) {
	h := newHist("c1").
		add(sim.Event{At: ms(80), Kind: sim.KindCommandResult, Proc: 0, Node: 0, Req: 1, Sent: ms(50), Err: "timeout"}).
		invoke(0, ms(100)).
		req(0, 2, ms(400), ms(401), keyVal("b", time.Second), "").tick(ms(500)).build()
	if got := extract(&h).netWaits[0]; len(got) > 0 {
		t.Errorf("the network's waiting %v, want none", got)
	}
}
