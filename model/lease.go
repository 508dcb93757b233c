package model

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// Legitimate leases. Liveness is judged against the leases that may
// legitimately keep others out, and no others:
//
//   - a hold (Acquire returned held), until its Release is called, or for one
//     lifetime after its holder crashed or stopped (abandonedLeases);
//   - a release lost on the network (a command of it got no reply, or its
//     process died or the run ended inside it), for one lifetime from the
//     Release call: a TTL lock is built to outlive a lost release;
//   - a write of the lock key whose writer cannot know the outcome: its reply
//     was lost or timed out, it crashed or stopped before Acquire returned
//     (the last write of that Acquire on each node), or a later command of
//     the same failed try on that node got no reply (its clean-up may not
//     have run); each for one lifetime from the write.
//
// A write whose writer got its reply and whose try then failed, or that a
// release made, is the algorithm's own doing and forgives nothing: a lock
// whose failing waiters keep writing the key must not renew its own excuse.

// callEnd says how a Lock or Release call ended.
type callEnd uint8

const (
	callOpen     callEnd = iota // still running when the run ended
	callReturned                // returned (for Acquire: without the lock, or with an error)
	callHeld                    // Acquire returned held
	callDied                    // its process crashed or stopped inside it
)

// call is one Acquire or Release, from its invoke to its return or its
// process's death.
type call struct {
	proc    int
	acquire bool
	from    int      // event index of the invoke
	at      sim.Time // when it was invoked
	to      int      // event index of the return; -1 if none
	end     callEnd
	// lostAt is, per node, the last event index of a command result of
	// this call that carried an error (timeout: request or reply lost, too
	// slow, node down); -1 if none.
	lostAt []int
	// lost is every such result, in history order.
	lost []nodeEvent
}

// nodeEvent is an event index and the node it concerns.
type nodeEvent struct{ node, idx int }

func (c *call) lostOn(n int) bool { return n >= 0 && n < len(c.lostAt) && c.lostAt[n] >= 0 }

func (c *call) lostAny() bool {
	for _, i := range c.lostAt {
		if i >= 0 {
			return true
		}
	}
	return false
}

// keyWrite is a command that left a new version of the watched key on its
// node (it appeared or its value changed).
type keyWrite struct {
	idx, proc, node int
	req             uint64
	call            int // index in calls of the writer's call when it ran; -1
}

// calls is the history's Lock and Release calls, and the key's writes, in
// one pass.
type callIndex struct {
	calls  []call
	writes []keyWrite
	// result is each command's outcome by request id: "" for a reply,
	// else the error. Looked up, never ranged over.
	result map[uint64]string
	// byReturn maps a Release's return event index to its call.
	byReturn map[int]int
}

func indexCalls(t *trace) *callIndex {
	ci := &callIndex{result: make(map[uint64]string), byReturn: make(map[int]int)}
	cur := make([]int, len(t.wants)) // per process: its open call, or -1
	for p := range cur {
		cur[p] = -1
	}
	last := make(map[int]sim.KeyState) // by node; looked up, never ranged over
	open := func(p, i int, e *sim.Event, acquire bool) {
		lost := make([]int, t.nodes)
		for n := range lost {
			lost[n] = -1
		}
		ci.calls = append(ci.calls, call{proc: p, acquire: acquire, from: i, at: e.At, to: -1, lostAt: lost})
		cur[p] = len(ci.calls) - 1
	}
	closeCall := func(p, i int, how callEnd) {
		if c := cur[p]; c >= 0 {
			ci.calls[c].to, ci.calls[c].end = i, how
			if !ci.calls[c].acquire && how == callReturned {
				ci.byReturn[i] = c
			}
			cur[p] = -1
		}
	}
	for i := range t.h.Events {
		e := &t.h.Events[i]
		p := e.Proc
		inRange := p >= 0 && p < len(cur)
		switch e.Kind {
		case sim.KindCommand:
			prev := last[e.Node]
			if e.Key.Exists && (!prev.Exists || prev.Value != e.Key.Value) {
				c := -1
				if inRange {
					c = cur[p]
				}
				ci.writes = append(ci.writes, keyWrite{idx: i, proc: p, node: e.Node, req: e.Req, call: c})
			}
			last[e.Node] = e.Key
		case sim.KindCommandResult:
			ci.result[e.Req] = e.Err
			if inRange && e.Err != "" && cur[p] >= 0 && e.Node >= 0 && e.Node < t.nodes {
				c := &ci.calls[cur[p]]
				c.lostAt[e.Node] = i
				c.lost = append(c.lost, nodeEvent{e.Node, i})
			}
		case sim.KindLockInvoke:
			if inRange {
				closeCall(p, i, callDied) // a call never closed: treat it as abandoned
				open(p, i, e, true)
			}
		case sim.KindReleaseInvoke:
			if inRange {
				closeCall(p, i, callDied)
				open(p, i, e, false)
			}
		case sim.KindLockReturn:
			if inRange && cur[p] >= 0 && ci.calls[cur[p]].acquire {
				how := callReturned
				if e.Held && e.Err == "" {
					how = callHeld
				}
				closeCall(p, i, how)
			}
		case sim.KindReleaseReturn:
			if inRange && cur[p] >= 0 && !ci.calls[cur[p]].acquire {
				closeCall(p, i, callReturned)
			}
		case sim.KindFault:
			if inRange && (e.Fault == sim.FaultCrash || e.Fault == sim.FaultRestart) {
				closeCall(p, i, callDied)
			}
			if e.Fault == sim.FaultNodeRestart {
				// The node lost the key: the next write there is a new
				// version even if it writes the old value.
				delete(last, e.Node)
			}
		case sim.KindProcEnd:
			if inRange {
				closeCall(p, i, callDied)
			}
		}
	}
	return ci
}

// writeLease is how long write k may legitimately keep the lock taken: a
// span from the write, or an empty one when it forgives nothing.
func (ci *callIndex) writeLease(t *trace, k int, life sim.Time) span {
	w := ci.writes[k]
	at := t.h.Events[w.idx].At
	whole := span{at, at + life}
	if w.proc < 0 {
		return whole // no process of the run wrote it: not the algorithm's doing
	}
	if err, ok := ci.result[w.req]; !ok || err != "" {
		return whole // the reply was lost, timed out, or never came
	}
	if w.call < 0 || !ci.calls[w.call].acquire {
		return span{} // a release or a holder's own write: its own doing
	}
	c := &ci.calls[w.call]
	// next is the next write of the same Acquire on the same node: the next
	// try's. Acquire may retry inside one call, so a call's end says nothing
	// about its earlier tries.
	next := len(t.h.Events)
	for _, o := range ci.writes[k+1:] {
		if o.call == w.call && o.node == w.node {
			next = o.idx
			break
		}
	}
	last := next == len(t.h.Events)
	switch {
	case last && c.end == callHeld:
		// The try that took the lock: it is taken from the write on, and the
		// hold covers it once Acquire returns.
		return span{at, t.h.Events[c.to].At}
	case last && c.end == callDied:
		// The process died inside Acquire after its last write there: that
		// may be the lock it was about to hold.
		return whole
	}
	// A failed try forgives nothing, unless its own clean-up on this node
	// (a later command of the same try there) got no reply.
	for _, l := range c.lost {
		if l.node == w.node && l.idx > w.idx && l.idx < next {
			return whole
		}
	}
	return span{}
}

// legitimateLeases is the spans, beyond the live holds, in which the lock may
// legitimately be taken: abandoned holds, lost releases and unknowable writes,
// each for one lifetime.
func legitimateLeases(t *trace, ci *callIndex, ttl time.Duration) []span {
	out := abandonedLeases(t, ttl)
	life := sim.Time(ttl)
	for i := range ci.calls {
		c := &ci.calls[i]
		if !c.acquire && (c.end != callReturned || c.lostAny()) {
			out = append(out, span{c.at, c.at + life})
		}
	}
	for k := range ci.writes {
		out = append(out, ci.writeLease(t, k, life))
	}
	return out
}
