package engine

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// memWire is a Wire over in-process nodes driven by the wall clock: the
// real-time engine tested without a server (realtime/realredis's tests use one).
type memWire struct {
	mu       sync.Mutex
	nodes    []*node.Node
	t0       time.Time
	conns    int
	restarts []int
	parts    Parts
	jumped   []time.Duration // per node: its clock's steps (parts.Clocks)
}

func newMemWire(n int) *memWire {
	w := &memWire{t0: time.Now(), jumped: make([]time.Duration, n)}
	for i := range n {
		w.nodes = append(w.nodes, node.New(int64(i)))
	}
	return w
}

func (w *memWire) Dial(n int) (Conn, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.conns++
	return &memConn{w: w, node: n, id: w.conns}, nil
}

func (w *memWire) Restart(n int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.nodes[n].Flush()
	w.restarts = append(w.restarts, n)
	return nil
}

func (w *memWire) Parts() Parts { return w.parts }

func (w *memWire) ReadKey(n int, key string) (sim.KeyState, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.nodes[n].Key(sim.Epoch.Add(time.Since(w.t0)+w.jumped[n]), key), nil
}

func (w *memWire) Failover(int, string) (int, sim.KeyState, error) {
	return 0, sim.KeyState{}, errors.New("memWire has no replicas")
}

func (w *memWire) JumpClock(n int, by time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.jumped[n] += by
	return nil
}

type memConn struct {
	w        *memWire
	node, id int
}

func (c *memConn) Close() error { return nil }
func (c *memConn) Exec(args []string, key string) (sim.Reply, sim.KeyState, error) {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	now := sim.Epoch.Add(time.Since(c.w.t0) + c.w.jumped[c.node])
	n := c.w.nodes[c.node]
	r := n.Exec(c.id, now, args)
	var ks sim.KeyState
	if key != "" {
		ks = n.Key(now, key)
	}
	return r, ks, nil
}

func realConfig() sim.Config {
	cfg := standardConfig(3)
	cfg.Duration = 2 * time.Second
	for i := range cfg.Procs {
		cfg.Procs[i].Iterations = 3
	}
	return cfg
}

func TestRunRecordsTheWorkload(t *testing.T) {
	res, err := Run(realConfig(), newMemWire(1))
	if err != nil {
		t.Fatal(err)
	}
	if res.Cut != "" {
		t.Fatalf("cut: %s", res.Cut)
	}
	if res.Stats.Acquired != 9 {
		t.Errorf("acquired %d, want 9 (3 processes × 3 rounds)", res.Stats.Acquired)
	}
	var last sim.Time
	writes := 0
	for _, e := range res.History.Events {
		if e.At < last {
			t.Fatalf("history out of order at %v", e)
		}
		last = e.At
		if e.Kind == sim.KindResourceWrite {
			writes++
		}
	}
	if writes != 9 || len(eventsOf(res.History, sim.KindProcEnd)) != 3 {
		t.Errorf("writes %d, proc ends %d", writes, len(eventsOf(res.History, sim.KindProcEnd)))
	}
	// A token lock with a 1 s TTL and 5 ms of work never double-holds: the
	// counter ends at 9.
	if got := eventsOf(res.History, sim.KindResourceWrite)[writes-1].Value; got != 9 {
		t.Errorf("counter ends at %d, want 9", got)
	}
}

func TestRunFaults(t *testing.T) {
	cfg := realConfig()
	cfg.Procs = cfg.Procs[:2]
	cfg.Faults = []sim.Fault{
		// c1 pauses 300 ms once it holds the lock, then crashes for good at
		// 1 s; c2's clock jumps; the node restarts at 30 ms.
		{Kind: fault.Pause, Proc: 0, Dur: 300 * time.Millisecond, On: sim.Trigger{Point: sim.PointAcquired, Proc: 0, N: 1}},
		{Kind: fault.ClientJump, Proc: 1, At: 10 * time.Millisecond, Dur: time.Hour},
		{Kind: fault.NodeRestart, Node: 0, At: 30 * time.Millisecond, Dur: 10 * time.Millisecond},
		{Kind: fault.Crash, Proc: 0, At: 100 * time.Millisecond},
	}
	var jumpSeen time.Time
	cfg.NewLocker = func(i int) sim.Locker {
		if i == 1 {
			return scriptLock{acquire: func(p sim.Proc) (sim.Lease, error) {
				p.Sleep(50 * time.Millisecond)
				jumpSeen = p.Now()
				return sim.Lease{}, nil
			}}
		}
		return tokenLock{ttl: time.Second}
	}
	w := newMemWire(1)
	start := time.Now()
	res, err := Run(cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	faults := eventsOf(res.History, sim.KindFault)
	var kinds []string
	for _, f := range faults {
		kinds = append(kinds, f.Fault.String())
	}
	if got := strings.Join(kinds, ","); got != "pause,proc-clock-jump,node-restart,crash" {
		t.Errorf("faults %s", got)
	}
	if faults[3].At < sim.Time(100*time.Millisecond) || faults[3].At > sim.Time(200*time.Millisecond) {
		t.Errorf("crash at %v, want about 100ms", time.Duration(faults[3].At))
	}
	// c1 crashed while paused in its critical section: it never wrote.
	for _, e := range eventsOf(res.History, sim.KindResourceWrite) {
		if e.Proc == 0 {
			t.Errorf("c1 wrote after it crashed: %v", e)
		}
	}
	if jumpSeen.Sub(sim.Epoch) < time.Hour {
		t.Errorf("c2's clock read %v after its jump of 1h", jumpSeen)
	}
	if len(w.restarts) != 1 {
		t.Errorf("restarts %v", w.restarts)
	}
	if el := time.Since(start); el > cfg.Duration+time.Second {
		t.Errorf("the run took %v, more than its duration %v", el, cfg.Duration)
	}
}

func TestRunLostAndDown(t *testing.T) {
	cfg := realConfig()
	cfg.Procs = cfg.Procs[:1]
	cfg.Network.LossReply = 1
	cfg.Network.Timeout = 20 * time.Millisecond
	var got []error
	cfg.NewLocker = func(int) sim.Locker {
		return scriptLock{acquire: func(p sim.Proc) (sim.Lease, error) {
			_, err := p.Do(0, "SET", "k", "v")
			got = append(got, err)
			return sim.Lease{}, nil
		}}
	}
	res, err := Run(cfg, newMemWire(1))
	if err != nil {
		t.Fatal(err)
	}
	cmds, results := eventsOf(res.History, sim.KindCommand), eventsOf(res.History, sim.KindCommandResult)
	if len(cmds) != 3 || len(results) != 3 {
		t.Fatalf("commands %d, results %d; want 3 of each (the reply is lost, the command runs)", len(cmds), len(results))
	}
	for i, r := range results {
		if r.Err != "timeout: reply lost" || got[i] != sim.ErrTimeout {
			t.Errorf("result %d: %q, %v", i, r.Err, got[i])
		}
		if d := time.Duration(r.At - r.Sent); d < cfg.Network.Timeout {
			t.Errorf("result %d after %v, before the timeout", i, d)
		}
	}
}

func TestRunEndsAtDuration(t *testing.T) {
	cfg := realConfig()
	cfg.Duration = 200 * time.Millisecond
	cfg.Network.Timeout = 0
	cfg.Network.LossRequest = 1 // every client waits for ever
	start := time.Now()
	res, err := Run(cfg, newMemWire(1))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Cut, "duration limit") || res.End != sim.Time(cfg.Duration) {
		t.Errorf("cut %q end %v", res.Cut, res.End)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("took %v", el)
	}
}

// A chosen loss takes the process's next command only: lose-reply runs it
// and drops the reply, lose-request never sends it; the client waits the
// fault's Dur, and the command after it goes through.
func TestRunChosenLoss(t *testing.T) {
	for _, kind := range []fault.Kind{fault.LoseReply, fault.LoseRequest} {
		cfg := realConfig()
		cfg.Procs = cfg.Procs[:1]
		cfg.Procs[0].Iterations = 1
		cfg.Network.Timeout = time.Second
		cfg.Faults = []sim.Fault{{Kind: kind, Proc: 0, Dur: 30 * time.Millisecond, On: sim.Trigger{Proc: 0, Point: sim.PointSend, N: 1}}}
		var got []error
		cfg.NewLocker = func(int) sim.Locker {
			return scriptLock{acquire: func(p sim.Proc) (sim.Lease, error) {
				for _, v := range []string{"a", "b"} {
					_, err := p.Do(0, "SET", "k", v)
					got = append(got, err)
				}
				return sim.Lease{}, nil
			}}
		}
		w := newMemWire(1)
		res, err := Run(cfg, w)
		if err != nil {
			t.Fatal(err)
		}
		ran, results := eventsOf(res.History, sim.KindCommand), eventsOf(res.History, sim.KindCommandResult)
		wantRan, why := 2, "timeout: reply lost"
		if kind == fault.LoseRequest {
			wantRan, why = 1, "timeout: request lost"
		}
		if len(ran) != wantRan || len(results) != 2 || len(got) != 2 {
			t.Fatalf("%s: %d ran, %d results, %d replies; want %d, 2, 2", kind, len(ran), len(results), len(got), wantRan)
		}
		if results[0].Err != why || got[0] != sim.ErrTimeout || got[1] != nil {
			t.Errorf("%s: first %q %v, second %v", kind, results[0].Err, got[0], got[1])
		}
		if d := time.Duration(results[0].At - results[0].Sent); d < 30*time.Millisecond || d > 500*time.Millisecond {
			t.Errorf("%s: the client waited %v, want the fault's 30ms", kind, d)
		}
		if v := w.nodes[0].Key(sim.Epoch.Add(time.Hour), "k").Value; v != "b" {
			t.Errorf("%s: k = %q after the run, want b", kind, v)
		}
	}
}

// A node clock jump on a wire that steps its servers' clocks: the key's TTL
// runs out at the jump, by the node's clock; a wire that cannot refuses it.
func TestRunNodeClockJump(t *testing.T) {
	cfg := realConfig()
	cfg.Procs = cfg.Procs[:1]
	cfg.Procs[0].Iterations = 1
	cfg.Faults = []sim.Fault{{Kind: fault.NodeJump, Node: 0, Dur: 10 * time.Second, On: sim.Trigger{Proc: 0, Point: sim.PointReply, N: 1}}}
	var replies []sim.Reply
	cfg.NewLocker = func(int) sim.Locker {
		return scriptLock{acquire: func(p sim.Proc) (sim.Lease, error) {
			p.Do(0, "SET", "k", "v", "PX", "5000")
			p.Sleep(20 * time.Millisecond) // the jump's I/O runs beside the process
			r, _ := p.Do(0, "GET", "k")
			replies = append(replies, r)
			return sim.Lease{}, nil
		}}
	}
	if _, err := Run(cfg, newMemWire(1)); err == nil || !strings.Contains(err.Error(), "faults[0]: a node clock jump") {
		t.Fatalf("a wire without clocks: %v", err)
	}
	w := newMemWire(1)
	w.parts.Clocks = true
	res, err := Run(cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	if len(replies) != 1 || replies[0].Kind != node.Nil {
		t.Errorf("GET after the jump: %+v, want nil (expired)", replies)
	}
	if w.jumped[0] != 10*time.Second {
		t.Errorf("the wire's clock moved %v", w.jumped[0])
	}
	if fs := eventsOf(res.History, sim.KindFault); len(fs) != 1 || fs[0].Fault != fault.NodeJump || fs[0].Node != 0 {
		t.Errorf("fault events %+v", fs)
	}
}

func TestCheckRefusesNodeClocks(t *testing.T) {
	cfg := realConfig()
	cfg.Faults = []sim.Fault{{Kind: fault.NodeJump, Node: 0, At: time.Millisecond, Dur: time.Second}}
	if _, err := Run(cfg, newMemWire(1)); err == nil || !strings.Contains(err.Error(), "faults[0]: a node clock jump") {
		t.Errorf("node jump: %v", err)
	}
	cfg = realConfig()
	cfg.Nodes[0].Clock.DriftPPM = 5
	if err := Check(&cfg); err == nil || !strings.HasPrefix(err.Error(), "nodes[0].clock") {
		t.Errorf("node drift: %v", err)
	}
	cfg = realConfig()
	cfg.Procs[0].Clock.Offset = time.Hour // a client's clock is the client's own: fine
	if err := Check(&cfg); err != nil {
		t.Error(err)
	}
}

// realOneSet is a real-time run of one process that sends one SET at
// start, with the faults given.
func realOneSet(start time.Duration, faults ...sim.Fault) sim.Config {
	cfg := realConfig()
	cfg.Procs = cfg.Procs[:1]
	cfg.Procs[0].Start = start
	cfg.Procs[0].Iterations = 1
	cfg.Faults = faults
	cfg.NewLocker = func(int) sim.Locker {
		return scriptLock{acquire: func(p sim.Proc) (sim.Lease, error) {
			p.Do(0, "SET", "k", "v")
			return sim.Lease{}, nil
		}}
	}
	return cfg
}

func TestRunNodeDown(t *testing.T) {
	cfg := realOneSet(20*time.Millisecond, sim.Fault{Kind: fault.NodeRestart, Node: 0, At: 0, Dur: 200 * time.Millisecond})
	res, err := Run(cfg, newMemWire(1))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(eventsOf(res.History, sim.KindCommand)); n != 0 {
		t.Errorf("%d commands ran on a node that was down", n)
	}
	rs := eventsOf(res.History, sim.KindCommandResult)
	if len(rs) != 1 || rs[0].Err != "timeout: node down" {
		t.Errorf("results %+v", rs)
	}
}

// flakyWire's first connection breaks on its first command: the process
// must dial again rather than keep a broken connection.
type flakyWire struct {
	*memWire
	dials int
}

func (w *flakyWire) Dial(n int) (Conn, error) {
	w.dials++
	c, _ := w.memWire.Dial(n)
	return &flakyConn{Conn: c, used: w.dials > 1}, nil
}

type flakyConn struct {
	Conn
	used bool
}

func (c *flakyConn) Exec(args []string, key string) (sim.Reply, sim.KeyState, error) {
	if !c.used {
		c.used = true
		return sim.Reply{}, sim.KeyState{}, errConnClosed
	}
	return c.Conn.Exec(args, key)
}

func TestRunRedialsABrokenConnection(t *testing.T) {
	cfg := realConfig()
	cfg.Procs = cfg.Procs[:1]
	cfg.Procs[0].Iterations = 1
	var errs []error
	cfg.NewLocker = func(int) sim.Locker {
		return scriptLock{acquire: func(p sim.Proc) (sim.Lease, error) {
			for range 3 {
				_, err := p.Do(0, "SET", "k", "v")
				errs = append(errs, err)
			}
			return sim.Lease{}, nil
		}}
	}
	w := &flakyWire{memWire: newMemWire(1)}
	if _, err := Run(cfg, w); err != nil {
		t.Fatal(err)
	}
	// 1st: broken (a timeout for the client), 2nd and 3rd on a fresh one.
	if len(errs) != 3 || errs[0] != sim.ErrTimeout || errs[1] != nil || errs[2] != nil || w.dials != 2 {
		t.Errorf("errors %v, dials %d", errs, w.dials)
	}
}

// realRenewConfig is renewConfig in wall-clock time: c1 works 1.2 s with a
// 400 ms lease renewed every 150 ms; c2 starts at 100 ms.
func realRenewConfig(mod func(*sim.Config)) sim.Config {
	cfg := renewConfig(func(c *sim.Config) {
		c.Duration = 3 * time.Second
		c.Procs[0].Work, c.Procs[0].RenewEvery = 1200*time.Millisecond, 150*time.Millisecond
		c.NewLocker = func(int) sim.Locker { return extendLock{tokenLock{ttl: 400 * time.Millisecond}} }
	})
	if mod != nil {
		mod(&cfg)
	}
	return cfg
}

// The real-time watchdog is a goroutine renewing in wall-clock time: it
// keeps c1's lease through work three times its TTL, and c2 gets the lock
// only after c1 released it; no renewal begins after the release.
func TestRunWatchdogKeepsLeaseAlive(t *testing.T) {
	res, err := Run(realRenewConfig(nil), newMemWire(1))
	if err != nil {
		t.Fatal(err)
	}
	h := res.History
	ext := eventsOf(h, sim.KindExtendReturn)
	if len(ext) < 5 {
		t.Fatalf("%d renewals in 1.2 s every 150 ms, want at least 5", len(ext))
	}
	for _, e := range ext {
		if !e.Held {
			t.Fatalf("a renewal failed at %v: %+v", e.At, e)
		}
	}
	rel, held := eventsOf(h, sim.KindReleaseInvoke), eventsOf(h, sim.KindLockReturn)
	var c2 *sim.Event
	for i := range held {
		if held[i].Proc == 1 && held[i].Held {
			c2 = &held[i]
		}
	}
	if len(rel) != 2 || c2 == nil || c2.At < rel[0].At {
		t.Fatalf("c2 got the lock before c1 released it: holds %+v, releases %+v", held, rel)
	}
	for _, e := range eventsOf(h, sim.KindExtendInvoke) {
		if e.At > rel[0].At {
			t.Fatalf("a renewal began at %v after the release at %v", e.At, rel[0].At)
		}
	}
}

// A pause longer than the lease stops the watchdog with its process: the
// key expires, c2 takes it, c1's next renewal fails and c1 neither writes
// nor releases. A crash ends the watchdog: nothing of c1's after it.
func TestRunWatchdogPausedAndCrashed(t *testing.T) {
	res, err := Run(realRenewConfig(func(c *sim.Config) {
		c.Faults = []sim.Fault{{Kind: fault.Pause, Proc: 0, Dur: 700 * time.Millisecond, On: sim.Trigger{Point: sim.PointAcquired, Proc: 0, N: 1}}}
	}), newMemWire(1))
	if err != nil {
		t.Fatal(err)
	}
	h := res.History
	if ext := eventsOf(h, sim.KindExtendReturn); len(ext) != 1 || ext[0].Held || ext[0].At < sim.Time(700*time.Millisecond) {
		t.Fatalf("want one failed renewal after the pause, got %+v", ext)
	}
	for _, e := range h.Events {
		if (e.Kind == sim.KindResourceWrite || e.Kind == sim.KindReleaseInvoke) && e.Proc == 0 {
			t.Fatalf("c1 went on after it learned it lost the lock: %+v", e)
		}
	}

	res, err = Run(realRenewConfig(func(c *sim.Config) {
		c.Faults = []sim.Fault{{Kind: fault.Crash, Proc: 0, At: 500 * time.Millisecond}}
	}), newMemWire(1))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range res.History.Events {
		if e.Kind == sim.KindExtendReturn {
			n++
		}
		if (e.Kind == sim.KindExtendInvoke || e.Kind == sim.KindCommand && e.Proc == 0) && e.At > sim.Time(500*time.Millisecond) {
			t.Fatalf("c1 acted after its crash: %+v", e)
		}
	}
	if n < 2 {
		t.Fatalf("%d renewals before the crash, want at least 2", n)
	}
}
