package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim/node"
)

// Blocking pops: BLPOP and BRPOP park the client's connection on its node
// in simulated time, as Redis does, until a command on that node pushes to
// one of their lists (the longest-parked connection is served first) or
// their own timeout passes (a nil reply). The node itself refuses them (it
// would block a goroutine); the engine runs them with LPOP and RPOP at the
// moment they can pop.
//
// The client's deadline for a blocking pop is its network timeout plus the
// pop's own timeout (no deadline for timeout 0), as go-redis gives blocking
// commands; a client that times out anyway closes the connection, and the
// node drops the parked pop without popping. So does a crash of the
// client, a restart of the node, and a failover.

// blockingPop says whether a command is BLPOP or BRPOP.
func blockingPop(args []string) bool {
	return len(args) > 0 && (node.IsName(args[0], "BLPOP") || node.IsName(args[0], "BRPOP"))
}

// parks says whether a command parks on its node until something wakes it
// or its timeout ends: a blocking pop, or a SUBWAIT (pubsub.go).
func parks(args []string) bool { return blockingPop(args) || subWait(args) }

// popTimeout is a blocking pop's timeout, or the error reply Redis gives.
func popTimeout(args []string) (time.Duration, *Reply) {
	if len(args) < 3 {
		return 0, &Reply{Kind: node.Error, Str: "ERR wrong number of arguments for '" + strings.ToLower(args[0]) + "' command"}
	}
	s, err := strconv.ParseFloat(args[len(args)-1], 64)
	switch {
	case err != nil || s != s || s > 1e9:
		return 0, &Reply{Kind: node.Error, Str: "ERR timeout is not a float or out of range"}
	case s < 0:
		return 0, &Reply{Kind: node.Error, Str: "ERR timeout is negative"}
	}
	return time.Duration(s * float64(time.Second)), nil
}

// popDeadline is the client's deadline for a blocking pop sent now with
// deadline d (0: none).
func popDeadline(args []string, d Time) Time {
	t, bad := popTimeout(args)
	switch {
	case d == 0 || bad != nil:
		return d
	case t == 0:
		return 0
	}
	return d + Time(t)
}

// startPop runs a blocking pop that has reached node i: it pops at once if
// it can, else it parks. The command's history event is recorded when it
// completes.
func (r *runner) startPop(i int, q *request, nodeNow Time) (done bool) {
	t, bad := popTimeout(q.args)
	if bad != nil {
		q.reply = *bad
		r.nodes[i].n.Observe(nodeNow.Std()) // refused: no command ran
		return true
	}
	if subWait(q.args) {
		r.nodes[i].n.Observe(nodeNow.Std()) // no command runs until a message or the timeout
	} else if reply, ok := r.tryPop(i, q, nodeNow); ok {
		q.reply = reply
		return true
	}
	n := &r.nodes[i]
	q.parked, q.arrived = true, r.now
	n.parked = append(n.parked, q)
	if t > 0 {
		r.q.push(event{at: r.now + Time(t), kind: evUnblock, req: q.ref})
	}
	return false
}

// tryPop pops the first non-empty list of q's keys on node i: the reply
// [key, value], and whether it popped (an error reply counts: WRONGTYPE).
func (r *runner) tryPop(i int, q *request, nodeNow Time) (Reply, bool) {
	n := &r.nodes[i]
	pop := "LPOP"
	if strings.EqualFold(q.args[0], "BRPOP") {
		pop = "RPOP"
	}
	for _, key := range q.args[1 : len(q.args)-1] {
		got := n.n.Exec(q.proc, nodeNow.Std(), []string{pop, key})
		switch got.Kind {
		case node.Nil:
			continue
		case node.Bulk:
			if n.g != nil {
				r.replicate(i, q, nodeNow)
			}
			return Reply{Kind: node.Array, Elems: []Reply{{Kind: node.Bulk, Str: key}, got}}, true
		}
		return got, true
	}
	return Reply{}, false
}

// wakePops serves the pops parked on node i after a command ran there, in
// the order they parked.
func (r *runner) wakePops(i int, nodeNow Time) {
	n := &r.nodes[i]
	for k := 0; k < len(n.parked); {
		q := n.parked[k]
		if subWait(q.args) {
			k++ // a message wakes it (pubsub.go)
			continue
		}
		if r.popGone(i, q) {
			n.parked = append(n.parked[:k], n.parked[k+1:]...)
			q.parked = false
			continue
		}
		if reply, ok := r.tryPop(i, q, nodeNow); ok {
			n.parked = append(n.parked[:k], n.parked[k+1:]...)
			r.finishPop(q, reply)
			continue
		}
		k++
	}
}

// popGone reports a parked pop whose connection is gone: its client
// crashed, or its node restarted or failed over since it parked.
func (r *runner) popGone(i int, q *request) bool {
	n := &r.nodes[i]
	p := r.procs[q.proc]
	return p.inc != q.inc || !p.live || n.downUntil > q.arrived || n.g != nil && n.g.gen != q.gen
}

// popTimedOut ends a parked pop at its own timeout: a nil reply.
func (r *runner) popTimedOut(q *request) {
	if !q.parked {
		return
	}
	i := q.node
	n := &r.nodes[i]
	for k, o := range n.parked {
		if o == q {
			n.parked = append(n.parked[:k], n.parked[k+1:]...)
			break
		}
	}
	if r.popGone(i, q) {
		if subWait(q.args) {
			r.connectionLost(q)
			return
		}
		q.parked = false
		return
	}
	n.n.Observe(n.clock.at(r.now).Std()) // no command runs: the key may only have expired
	r.finishPop(q, Reply{Kind: node.Nil})
}

// finishPop records a parked pop's command with its reply, now, and sends
// the reply: it reaches the client one reply latency later, unless the
// client has given up by then.
func (r *runner) finishPop(q *request, reply Reply) {
	q.parked = false
	q.reply = reply
	r.recordCommand(q)
	p := r.procs[q.proc]
	if !q.waiting {
		// deliver has not run yet: it delays the reply by the wait.
		q.block = r.now - q.arrived
		return
	}
	at := r.now + q.replyLat
	if q.deadline > 0 && at > q.deadline {
		q.why = "timeout: reply too slow" // the deadline's event delivers it
		return
	}
	r.later(p, q, at)
}

// unpark drops a pop the client gave up on: it closed the connection.
func (r *runner) unpark(q *request) {
	if !q.parked {
		return
	}
	n := &r.nodes[q.node]
	for k, o := range n.parked {
		if o == q {
			n.parked = append(n.parked[:k], n.parked[k+1:]...)
			break
		}
	}
	q.parked = false
}
