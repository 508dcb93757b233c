package model

import (
	"slices"
	"time"

	"github.com/locksim/locksim/sim"
)

// Legitimate leases. Liveness is judged against the leases that may
// legitimately keep others out, and no others:
//
//   - a hold (Acquire returned held), until its Release is called, or for one
//     lifetime after its holder crashed or stopped or a failed extend ended
//     it (abandonedLeases);
//   - a release lost on the network (a command of it got no reply, or its
//     process died or the run ended inside it), for one lifetime from the
//     Release call: a TTL lock is built to outlive a lost release;
//   - a write of the lock key whose writer cannot know the outcome: its reply
//     was lost or timed out, it crashed or stopped before Acquire returned
//     (the last write of that Acquire on each node), or a later command of
//     the same failed try on that node got no reply (its clean-up may not
//     have run); each for one lifetime from the write, or until its version
//     is seen gone (deleted, overwritten, lost in a restart), whichever is
//     first;
//   - an extend that renewed the lease, for one lifetime from its return,
//     or that may have (no answer, or an error), from its call
//     (renewal.go).
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
	at      sim.Time // when it was invoked
	to      int      // event index of the return; -1 if none
	end     callEnd
	// lost is each command result of this call that carried an error
	// (timeout: request or reply lost, too slow, node down), in history
	// order. Usually none.
	lost []nodeEvent
	// lastWrite is, per node it wrote, its latest write (index in writes).
	lastWrite []nodeEvent
}

// nodeEvent is an index (of an event, or of a write) and the node it
// concerns.
type nodeEvent struct{ node, idx int }

// Outcomes of a write's command, as its client saw them.
const (
	resultNone  uint8 = iota // no result (yet): the client crashed, or waits for ever
	resultReply              // the reply arrived
	resultLost               // the client timed out: request or reply lost, or too slow
)

// keyWrite is a command that began a new version of the watched key on its
// node (versions.go): the version, and the lease it may be, is its
// process's, whatever the value holds.
type keyWrite struct {
	idx, proc, node int
	req             uint64
	call            int // index in calls of the writer's call when it ran; -1
	result          uint8
	next            int // event index of the same call's next write on the node; -1
	// gone is when a later command (or a restart) on the node first saw
	// the key absent or in another version: the version this write left
	// keeps nobody out from then on. forever while it was never seen gone.
	gone sim.Time
}

// callIndex is the history's Lock and Release calls, and the key's writes,
// found in one pass.
type callIndex struct {
	calls  []call
	writes []keyWrite
}

func indexCalls(t *trace) *callIndex {
	ci := &callIndex{calls: make([]call, 0, 2*len(t.holds))} // a guess: an acquire and a release a hold
	procs := len(t.wants)
	cur := make([]int, procs)     // per process: its open call, or -1
	pending := make([]int, procs) // per process: its write awaiting a result, or -1
	type result struct {
		req uint64
		how uint8
	}
	lastResult := make([]result, procs) // a result may come before its command runs (too slow)
	for p := range cur {
		cur[p], pending[p] = -1, -1
	}
	last := make([]sim.KeyState, t.nodes) // the key on each node after its last command
	version := make([]int, t.nodes)       // the write that left the node's current version, or -1
	for n := range version {
		version[n] = -1
	}
	// seen notes that node n's key is now k: the current version's write is
	// gone if k is not its version.
	seen := func(n int, k sim.KeyState, at sim.Time) {
		if v := version[n]; v >= 0 && (!k.Exists || beginsVersion(last[n], k)) {
			ci.writes[v].gone, version[n] = at, -1
		}
	}
	closeCall := func(p, i int, how callEnd) {
		if c := cur[p]; c >= 0 {
			ci.calls[c].to, ci.calls[c].end = i, how
			cur[p] = -1
		}
	}
	for i := range t.h.Events {
		e := &t.h.Events[i]
		p := e.Proc
		inRange := p >= 0 && p < procs
		switch e.Kind {
		case sim.KindCommand:
			if e.Node < 0 || e.Node >= t.nodes {
				continue
			}
			prev := last[e.Node]
			seen(e.Node, e.Key, e.At)
			last[e.Node] = e.Key
			if !beginsVersion(prev, e.Key) {
				continue
			}
			w := keyWrite{idx: i, proc: p, node: e.Node, req: e.Req, call: -1, next: -1, gone: forever}
			k := len(ci.writes)
			version[e.Node] = k
			if inRange {
				if r := lastResult[p]; r.req == e.Req && r.how != resultNone {
					w.result = r.how
				} else {
					pending[p] = k
				}
				if w.call = cur[p]; w.call >= 0 {
					c := &ci.calls[w.call]
					if j := slices.IndexFunc(c.lastWrite, func(x nodeEvent) bool { return x.node == e.Node }); j >= 0 {
						ci.writes[c.lastWrite[j].idx].next = i
						c.lastWrite[j].idx = k
					} else {
						c.lastWrite = append(c.lastWrite, nodeEvent{e.Node, k})
					}
				}
			}
			ci.writes = append(ci.writes, w)
		case sim.KindCommandResult:
			if !inRange {
				continue
			}
			how := resultReply
			if e.Err != "" {
				how = resultLost
				if cur[p] >= 0 {
					c := &ci.calls[cur[p]]
					c.lost = append(c.lost, nodeEvent{e.Node, i})
				}
			}
			lastResult[p] = result{e.Req, how}
			if k := pending[p]; k >= 0 && ci.writes[k].req == e.Req {
				ci.writes[k].result, pending[p] = how, -1
			}
		case sim.KindLockInvoke, sim.KindReleaseInvoke:
			if inRange {
				closeCall(p, i, callDied) // a call never closed: treat it as abandoned
				ci.calls = append(ci.calls, call{proc: p, acquire: e.Kind == sim.KindLockInvoke, at: e.At, to: -1})
				cur[p] = len(ci.calls) - 1
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
			if inRange && e.Fault.EndsLife() {
				closeCall(p, i, callDied)
			}
			if e.Fault.LosesData() && e.Node >= 0 && e.Node < t.nodes {
				// The node lost the key (the event's Key is zero): the next
				// write there is a new version even if it writes the old
				// value. A node that persisted the key keeps it (Key).
				seen(e.Node, e.Key, e.At)
				last[e.Node] = e.Key
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
	// Whatever excuses it, a version keeps nobody out once it is gone.
	whole := span{at, min(at+life, max(w.gone, at))}
	if w.proc < 0 {
		return whole // no process of the run wrote it: not the algorithm's doing
	}
	if w.result != resultReply {
		return whole // the reply was lost, timed out, or never came
	}
	if w.call < 0 || !ci.calls[w.call].acquire {
		return span{} // a release or a holder's own write: its own doing
	}
	c := &ci.calls[w.call]
	// Acquire may retry inside one call, so the call's end speaks only for
	// its last try's write on each node.
	if w.next < 0 {
		switch c.end {
		case callHeld:
			// The try that took the lock: it is taken from the write on,
			// and the hold covers it once Acquire returns.
			return span{at, t.h.Events[c.to].At}
		case callDied:
			// The process died inside Acquire after its last write there:
			// that may be the lock it was about to hold.
			return whole
		}
	}
	// A failed try forgives nothing, unless its own clean-up on this node
	// got no reply: a command of the same call there, after the write and
	// before the call's next write there, within the write's lifetime. (The
	// checker cannot tell tries apart inside one call, nor a clean-up from
	// another command; this may forgive more than the clean-up, never less:
	// a try that failed on a lost reply is forgiven too.)
	next := w.next
	if next < 0 {
		next = len(t.h.Events)
	}
	for _, l := range c.lost {
		if l.node == w.node && l.idx > w.idx && l.idx < next && t.h.Events[l.idx].At < whole.to {
			return whole
		}
	}
	return span{}
}

// legitimateLeases is the spans, beyond the holds and abandoned holds, in
// which the lock may legitimately be taken: lost releases and unknowable
// writes, each for one lifetime. It walks the history again (indexCalls).
func legitimateLeases(t *trace, ttl time.Duration) []span {
	ci := indexCalls(t)
	var out []span
	life := sim.Time(ttl)
	for i := range ci.calls {
		c := &ci.calls[i]
		if !c.acquire && (c.end != callReturned || len(c.lost) > 0) {
			out = append(out, span{c.at, c.at + life})
		}
	}
	for k := range ci.writes {
		out = append(out, ci.writeLease(t, k, life))
	}
	return append(out, renewalLeases(t, life)...)
}
