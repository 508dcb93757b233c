package model

import (
	"slices"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

// ms is true time in milliseconds since the run began.
func ms(n int) sim.Time { return sim.Time(n) * sim.Time(time.Millisecond) }

// hist builds a history by hand. Calls may come in any order: build sorts the
// events by time, keeping the written order for ties.
type hist struct{ h sim.History }

const key = "lock"

func newHist(procs ...string) *hist {
	return &hist{sim.History{Procs: procs, Nodes: 1, WatchKey: key}}
}

func (b *hist) add(e sim.Event) *hist {
	b.h.Events = append(b.h.Events, e)
	return b
}

func (b *hist) proc(p int, at sim.Time, k sim.Kind) sim.Event {
	return sim.Event{At: at, Kind: k, Proc: p, Node: -1}
}

// acquire: Acquire called at call, returned held at ret.
func (b *hist) acquire(p int, call, ret sim.Time, fence int64) *hist {
	b.add(b.proc(p, call, sim.KindLockInvoke))
	e := b.proc(p, ret, sim.KindLockReturn)
	e.Held, e.Fence, e.Token = true, fence, "tok-"+b.h.Procs[p]
	return b.add(e)
}

func (b *hist) failAcquire(p int, call, ret sim.Time) *hist {
	b.add(b.proc(p, call, sim.KindLockInvoke))
	return b.add(b.proc(p, ret, sim.KindLockReturn))
}

// invoke: Acquire called, never returned.
func (b *hist) invoke(p int, at sim.Time) *hist { return b.add(b.proc(p, at, sim.KindLockInvoke)) }

func (b *hist) release(p int, call, ret sim.Time) *hist { return b.releaseErr(p, call, ret, "") }

func (b *hist) releaseErr(p int, call, ret sim.Time, err string) *hist {
	e := b.proc(p, call, sim.KindReleaseInvoke)
	e.Token = "tok-" + b.h.Procs[p]
	b.add(e)
	e = b.proc(p, ret, sim.KindReleaseReturn)
	e.Err = err
	return b.add(e)
}

// cs: a critical section that read v at read and wrote v+1 at write.
func (b *hist) cs(p int, read, write sim.Time, v, fence int64, accepted bool) *hist {
	b.readOnly(p, read, v)
	e := b.proc(p, write, sim.KindResourceWrite)
	e.Value, e.Fence, e.Accepted = v+1, fence, accepted
	return b.add(e)
}

func (b *hist) readOnly(p int, at sim.Time, v int64) *hist {
	e := b.proc(p, at, sim.KindResourceRead)
	e.Value = v
	return b.add(e)
}

func (b *hist) fault(p int, at sim.Time, f fault.Kind, d time.Duration) *hist {
	e := b.proc(p, at, sim.KindFault)
	e.Fault, e.Dur = f, d
	return b.add(e)
}

func (b *hist) nodeRestart(n int, at sim.Time) *hist {
	return b.add(sim.Event{At: at, Kind: sim.KindFault, Proc: -1, Node: n, Fault: fault.NodeRestart})
}

func (b *hist) end(p int, at sim.Time, err string) *hist {
	e := b.proc(p, at, sim.KindProcEnd)
	e.Err = err
	return b.add(e)
}

// cmd: p's command ran on node n at at and left the watched key in state k.
func (b *hist) cmd(p, n int, at sim.Time, k sim.KeyState, args ...string) *hist {
	return b.add(sim.Event{At: at, Kind: sim.KindCommand, Proc: p, Node: n, Args: args, Sent: at, Key: k})
}

// tick: an event that only moves the end of the run.
func (b *hist) tick(at sim.Time) *hist {
	return b.add(sim.Event{At: at, Kind: sim.KindProcStart, Proc: -1, Node: -1})
}

func (b *hist) build() sim.History {
	h := b.h
	h.Events = slices.Clone(h.Events)
	slices.SortStableFunc(h.Events, func(x, y sim.Event) int {
		switch {
		case x.At < y.At:
			return -1
		case x.At > y.At:
			return 1
		}
		return 0
	})
	return h
}

func keyVal(v string, ttl time.Duration) sim.KeyState {
	return sim.KeyState{Exists: true, Value: v, TTL: ttl}
}

var noKey = sim.KeyState{TTL: -1}

func kinds(v Verdict) []string {
	var out []string
	for _, x := range v.Violations {
		out = append(out, x.Kind)
	}
	return out
}
