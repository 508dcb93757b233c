package reports

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	goldenfile "github.com/locksim/locksim/internal/golden"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// builtin runs a built-in scenario with its own algorithm.
func builtin(t *testing.T, name string) *judge.Outcome { return builtinWith(t, name, "") }

// builtinWith runs a built-in scenario against algorithm algo ("" for its own).
func builtinWith(t *testing.T, name, algo string) *judge.Outcome {
	t.Helper()
	s, err := scenarios.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return execute(t, s, algo, model.Options{})
}

// fromYAML parses a scenario file's text and runs it with its own algorithm.
func fromYAML(t *testing.T, name, text string, opts model.Options) *judge.Outcome {
	t.Helper()
	s, err := scenarios.Parse(name, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return execute(t, s, "", opts)
}

func execute(t *testing.T, s *scenarios.Scenario, algo string, opts model.Options) *judge.Outcome {
	t.Helper()
	o, err := judge.Run(s, algo, opts)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

const ms = sim.Time(time.Millisecond)

// hist builds a hand-made history event by event, in true-time order.
type hist struct {
	h   sim.History
	req uint64
}

func newHist(key string, nodes int, procs ...string) *hist {
	return &hist{h: sim.History{Procs: procs, Nodes: nodes, WatchKey: key}}
}

func (b *hist) proc(at sim.Time, k sim.Kind, p int, f ...func(*sim.Event)) {
	e := sim.Event{At: at, Kind: k, Proc: p, Node: -1}
	for _, fn := range f {
		fn(&e)
	}
	b.h.Events = append(b.h.Events, e)
}

func (b *hist) fault(at sim.Time, fk fault.Kind, p, n int, d time.Duration) {
	b.h.Events = append(b.h.Events, sim.Event{At: at, Kind: sim.KindFault, Fault: fk, Proc: p, Node: n, Dur: d})
}

// ran records a command that ran at at on node n, sent 1ms before, leaving
// the key as key (nil: absent). It returns the request id for its result.
func (b *hist) ran(at sim.Time, p, n int, reply sim.Reply, key *sim.KeyState, args ...string) uint64 {
	b.req++
	k := sim.KeyState{TTL: -1}
	if key != nil {
		k = *key
	}
	b.h.Events = append(b.h.Events, sim.Event{At: at, Kind: sim.KindCommand, Proc: p, Node: n, Req: b.req,
		Args: args, Reply: reply, Sent: at - ms, Key: k})
	return b.req
}

// result records what the client got for request req (err: a timeout).
func (b *hist) result(at sim.Time, p, n int, req uint64, reply sim.Reply, err string) {
	b.h.Events = append(b.h.Events, sim.Event{At: at, Kind: sim.KindCommandResult, Proc: p, Node: n, Req: req,
		Reply: reply, Err: err})
}

// lost is a request that never ran: only its timeout is in the history,
// repeating the command and its send time, as the engine records it.
func (b *hist) lost(at sim.Time, p, n int, err string, args ...string) {
	b.req++
	b.result(at, p, n, b.req, sim.Reply{}, err)
	e := &b.h.Events[len(b.h.Events)-1]
	e.Args, e.Sent = args, at-100*ms
}

func key(v string, ttl time.Duration) *sim.KeyState {
	return &sim.KeyState{Exists: true, Value: v, TTL: ttl}
}

var (
	ok   = sim.Reply{Kind: node.Status, Str: "OK"}
	nilR = sim.Reply{Kind: node.Nil}
	one  = sim.Reply{Kind: node.Int, Int: 1}
	zero = sim.Reply{Kind: node.Int, Int: 0}
	held = func(tok string) func(*sim.Event) { return func(e *sim.Event) { e.Held, e.Token = true, tok } }
	tok  = func(tok string) func(*sim.Event) { return func(e *sim.Event) { e.Token = tok } }
	val  = func(v int64) func(*sim.Event) { return func(e *sim.Event) { e.Value, e.Accepted = v, true } }
	life = func(i int) func(*sim.Event) { return func(e *sim.Event) { e.Incarnation = i } }
)

// outcome wraps a hand-made history as a run of set-nx-px-token with the
// verdict the checkers give it.
func (b *hist) outcome(t *testing.T, name, narrative string, end sim.Time) *judge.Outcome {
	t.Helper()
	algo, err := locks.Lookup("set-nx-px-token")
	if err != nil {
		t.Fatal(err)
	}
	p := &scenarios.Prepared{Algorithm: algo, Params: algo.Defaults}
	return &judge.Outcome{
		Scenario: &scenarios.Scenario{Name: name, Summary: "a hand-made history", Narrative: narrative, Seed: 7},
		Prepared: p,
		Result:   &sim.Result{History: b.h, End: end},
		Verdict:  model.Check(b.h, model.Options{TTL: time.Second}),
		Digest:   b.h.Digest(),
	}
}

// crashHolding: c1 takes the lock (TTL 1s) and crashes holding it with a
// command in flight; it restarts and finds the key still there; after the TTL
// runs out c2 takes the lock.
func crashHolding(t *testing.T) *judge.Outcome {
	b := newHist("lock", 1, "c1", "c2")
	b.proc(0, sim.KindProcStart, 0)
	b.proc(0, sim.KindLockInvoke, 0)
	r := b.ran(1*ms, 0, 0, ok, key("t1", time.Second), "SET", "lock", "t1", "NX", "PX", "1000")
	b.result(2*ms, 0, 0, r, ok, "")
	b.proc(2*ms, sim.KindLockReturn, 0, held("t1"))
	b.proc(2*ms, sim.KindResourceRead, 0)
	b.fault(100*ms, fault.Crash, 0, -1, 500*time.Millisecond)
	b.ran(100*ms+500_000, 0, 0, sim.Reply{Kind: node.Bulk, Str: "t1"}, key("t1", 900*time.Millisecond), "GET", "lock")
	b.proc(600*ms, sim.KindFault, 0, func(e *sim.Event) { e.Fault = fault.Respawn }, life(1))
	b.proc(600*ms, sim.KindProcStart, 0, life(1))
	b.proc(600*ms, sim.KindLockInvoke, 0, life(1))
	r = b.ran(601*ms, 0, 0, nilR, key("t1", 400*time.Millisecond), "SET", "lock", "t9", "NX", "PX", "1000")
	b.result(602*ms, 0, 0, r, nilR, "")
	b.proc(602*ms, sim.KindLockReturn, 0, life(1))
	b.proc(602*ms, sim.KindProcEnd, 0, life(1))
	b.proc(1200*ms, sim.KindProcStart, 1)
	b.proc(1200*ms, sim.KindLockInvoke, 1)
	r = b.ran(1201*ms, 1, 0, ok, key("t2", time.Second), "SET", "lock", "t2", "NX", "PX", "1000")
	b.result(1202*ms, 1, 0, r, ok, "")
	b.proc(1202*ms, sim.KindLockReturn, 1, held("t2"))
	b.proc(1202*ms, sim.KindResourceRead, 1)
	b.proc(1500*ms, sim.KindResourceWrite, 1, val(1))
	b.proc(1500*ms, sim.KindReleaseInvoke, 1, tok("t2"))
	r = b.ran(1501*ms, 1, 0, one, nil, "EVAL", "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", "1", "lock", "t2")
	b.result(1502*ms, 1, 0, r, one, "")
	b.proc(1502*ms, sim.KindReleaseReturn, 1)
	b.proc(1502*ms, sim.KindProcEnd, 1)
	return b.outcome(t, "crash-holding", "c1 crashes holding the lock and restarts; c2 gets it once the TTL runs out.", 1502*ms)
}

// pauseHolding: c1 is paused for 2s while holding (TTL 1s); node0's clock
// jumps 200ms ahead, so the key expires early; c2 takes the lock and c1
// wakes believing it still holds: two holders, a lost update.
func pauseHolding(t *testing.T) *judge.Outcome {
	b := newHist("lock", 1, "c1", "c2")
	b.proc(0, sim.KindProcStart, 0)
	b.proc(0, sim.KindLockInvoke, 0)
	r := b.ran(1*ms, 0, 0, ok, key("t1", time.Second), "SET", "lock", "t1", "NX", "PX", "1000")
	b.result(2*ms, 0, 0, r, ok, "")
	b.proc(2*ms, sim.KindLockReturn, 0, held("t1"))
	b.proc(2*ms, sim.KindResourceRead, 0)
	b.fault(10*ms, fault.Pause, 0, -1, 2*time.Second)
	b.fault(500*ms, fault.NodeJump, -1, 0, 200*time.Millisecond)
	b.proc(1100*ms, sim.KindProcStart, 1)
	b.proc(1100*ms, sim.KindLockInvoke, 1)
	r = b.ran(1101*ms, 1, 0, ok, key("t2", time.Second), "SET", "lock", "t2", "NX", "PX", "1000")
	b.result(1102*ms, 1, 0, r, ok, "")
	b.proc(1102*ms, sim.KindLockReturn, 1, held("t2"))
	b.proc(1102*ms, sim.KindResourceRead, 1)
	b.proc(1602*ms, sim.KindResourceWrite, 1, val(1))
	b.proc(1602*ms, sim.KindReleaseInvoke, 1, tok("t2"))
	r = b.ran(1603*ms, 1, 0, one, nil, "EVAL", "release", "1", "lock", "t2")
	b.result(1604*ms, 1, 0, r, one, "")
	b.proc(1604*ms, sim.KindReleaseReturn, 1)
	b.proc(1604*ms, sim.KindProcEnd, 1)
	b.proc(2010*ms, sim.KindResourceWrite, 0, val(1))
	b.proc(2010*ms, sim.KindReleaseInvoke, 0, tok("t1"))
	r = b.ran(2011*ms, 0, 0, zero, nil, "EVAL", "release", "1", "lock", "t1")
	b.result(2012*ms, 0, 0, r, zero, "")
	b.proc(2012*ms, sim.KindReleaseReturn, 0)
	b.proc(2012*ms, sim.KindProcEnd, 0)
	return b.outcome(t, "pause-holding", "c1 pauses 2s holding a 1s lock; c2 takes it meanwhile.", 2012*ms)
}

// nodeRestart: node0 restarts while c1 holds, losing the key; c2's first
// request is lost, its second reaches the node while it is down; its third
// takes the lock c1 still believes it holds. c1's clock jumps back.
func nodeRestart(t *testing.T) *judge.Outcome {
	b := newHist("lock", 1, "c1", "c2")
	b.proc(0, sim.KindProcStart, 0)
	b.proc(0, sim.KindLockInvoke, 0)
	r := b.ran(1*ms, 0, 0, ok, key("t1", 10*time.Second), "SET", "lock", "t1", "NX", "PX", "10000")
	b.result(2*ms, 0, 0, r, ok, "")
	b.proc(2*ms, sim.KindLockReturn, 0, held("t1"))
	b.proc(2*ms, sim.KindResourceRead, 0)
	b.proc(100*ms, sim.KindProcStart, 1)
	b.proc(100*ms, sim.KindLockInvoke, 1)
	b.fault(200*ms, fault.ClientJump, 0, -1, -50*time.Millisecond)
	b.fault(1000*ms, fault.NodeRestart, -1, 0, 500*time.Millisecond)
	b.lost(1100*ms, 1, 0, "timeout: request lost", "SET", "lock", "t2", "NX", "PX", "10000")
	b.lost(2100*ms, 1, 0, "timeout: node down", "SET", "lock", "t2", "NX", "PX", "10000")
	r = b.ran(2101*ms, 1, 0, ok, key("t2", 10*time.Second), "SET", "lock", "t2", "NX", "PX", "10000")
	b.result(2102*ms, 1, 0, r, ok, "")
	b.proc(2102*ms, sim.KindLockReturn, 1, held("t2"))
	b.proc(2102*ms, sim.KindResourceRead, 1)
	b.proc(2500*ms, sim.KindResourceWrite, 0, val(1))
	b.proc(2500*ms, sim.KindReleaseInvoke, 0, tok("t1"))
	r = b.ran(2501*ms, 0, 0, zero, key("t2", 9700*time.Millisecond), "EVAL", "release", "1", "lock", "t1")
	b.result(2502*ms, 0, 0, r, zero, "")
	b.proc(2502*ms, sim.KindReleaseReturn, 0)
	b.proc(2502*ms, sim.KindProcEnd, 0)
	b.proc(2702*ms, sim.KindResourceWrite, 1, val(1))
	b.proc(2702*ms, sim.KindReleaseInvoke, 1, tok("t2"))
	r = b.ran(2703*ms, 1, 0, one, nil, "EVAL", "release", "1", "lock", "t2")
	b.result(2704*ms, 1, 0, r, one, "")
	b.proc(2704*ms, sim.KindReleaseReturn, 1)
	b.proc(2704*ms, sim.KindProcEnd, 1)
	return b.outcome(t, "node-restart", "node0 restarts and forgets c1's lock; c2 takes it.", 2704*ms)
}
