package sim

import (
	"math/rand/v2"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim/node"
)

// send puts the process's command on the network. Latencies and losses are
// drawn now, so the client's outcome time is known at once: the reply time,
// or the deadline when the request or reply is lost or too slow.
func (r *runner) send(p *process) *request {
	nw := &r.cfg.Network
	r.reqID++
	q, ref := r.mem.request()
	*q = request{id: r.reqID, proc: p.id, inc: p.home().inc, node: p.node, args: p.args, argSum: p.argSum, sent: r.now, ref: ref}
	if nw.Timeout > 0 {
		q.deadline = r.now + Time(nw.Timeout)
	}
	pop := parks(p.args)
	lostReq := nw.LossRequest > 0 && p.net.Float64() < nw.LossRequest
	lostReply := nw.LossReply > 0 && p.net.Float64() < nw.LossReply
	arrive := r.now + Time(latency(p.net, nw.Request))
	replyAt := arrive + Time(latency(p.net, nw.Reply))
	// A planned loss (faultapply.go) after the draws, which stay the same.
	if h := p.home(); h.lose.kind != 0 {
		lostReq = lostReq || h.lose.kind == fault.LoseRequest
		lostReply = lostReply || h.lose.kind == fault.LoseReply
		if h.lose.timeout > 0 {
			q.deadline = r.now + Time(h.lose.timeout)
		}
		r.lossSent(h.lose.fault)
		h.lose = lossPlan{}
	}
	if pop {
		q.deadline, q.replyLat = popDeadline(q.args, q.deadline), replyAt-arrive
	}
	if !lostReq {
		r.q.push(event{at: arrive, kind: evArrive, req: q.ref})
	}
	at := replyAt
	switch {
	case lostReq:
		q.why = "timeout: request lost"
	case lostReply:
		q.why = "timeout: reply lost"
	case q.deadline > 0 && replyAt > q.deadline:
		q.why = "timeout: reply too slow"
	}
	if q.why != "" {
		r.unanswered++
		if q.deadline == 0 {
			return q // no timeout: the client waits for ever
		}
		at = q.deadline
	}
	e := p.ev(at, evReply)
	e.req = q.ref
	r.q.push(e)
	return q
}

func latency(rng *rand.Rand, l Latency) time.Duration {
	if l.Max <= l.Min {
		return l.Min
	}
	return l.Min + time.Duration(rng.Int64N(int64(l.Max-l.Min)+1))
}

// arrive runs the command on its node at the node's own clock.
func (r *runner) arrive(q *request) {
	n := &r.nodes[q.node]
	n.served++
	if r.now < n.downUntil {
		q.dropped = true
		return
	}
	q.ran = true
	if n.g != nil {
		q.gen = n.g.gen
	}
	nodeNow := n.clock.at(r.now)
	if q.lib != nil && (len(n.subs) > 0 || subCommand(q.args) != "") && r.libPubSub(q.node, q) {
		n.n.Observe(nodeNow.Std()) // the engine ran it: no command on the node
		r.stats.Commands++
		r.recordCommand(q)
		return
	}
	if parks(q.args) {
		r.stats.Commands++
		if r.startPop(q.node, q, nodeNow) {
			r.recordCommand(q)
		}
		return
	}
	if isWait(q.args) {
		q.reply, q.block = r.wait(q.node, q)
		n.n.Observe(nodeNow.Std()) // WAIT runs no command on the node (a no-op with no watched key)
	} else {
		q.reply = n.n.Exec(q.proc, nodeNow.Std(), q.args)
		if n.g != nil {
			r.replicate(q.node, q, nodeNow)
		}
	}
	r.stats.Commands++
	r.recordCommand(q)
	if len(r.messages) > 0 {
		r.answerMessages() // a PUBLISH reached waiters (pubsub.go)
	}
	if len(r.closing) > 0 {
		r.closeGone() // a PUBLISH found subscriptions gone (pubsubconn.go)
	}
	if len(n.parked) > 0 {
		r.wakePops(q.node, nodeNow)
	}
}

// recordCommand records q's command as it ran on its node, now.
func (r *runner) recordCommand(q *request) {
	n := &r.nodes[q.node]
	// The sender may have crashed since it sent: keep its incarnation.
	ev := r.hist.slot()
	*ev = Event{Kind: KindCommand, Proc: q.proc, Node: q.node, Incarnation: q.inc, Req: q.id, Args: q.args, Reply: q.reply, Sent: q.sent}
	if r.cfg.WatchKey != "" {
		ev.Key = n.n.Watched() // the node's last event was this command (or Observe)
	}
	r.recordFor(ev, q.countArgs(), q)
}

// countArgs is what q's argument list counts in the history (argsBytes),
// reckoned once for both of its events.
func (q *request) countArgs() int {
	if q.argBytes == 0 { // a list of one or more arguments counts more
		q.argBytes = argsBytes(q.args)
	}
	return q.argBytes
}

// deliver hands the reply, or the timeout, to the waiting process.
func (r *runner) deliver(p *process, q *request) {
	if q.answered {
		return // a blocking pop's deadline after its reply
	}
	if q.lib != nil && !q.parked && q.block == 0 {
		r.libDeliver(p, q) // a blocking pop or WAIT comes back below
		return
	}
	if q.parked {
		if q.why == "" && (q.deadline == 0 || r.now < q.deadline) {
			// Its reply time has come; it waits on its node for the pop.
			q.waiting = true
			r.later(p, q, q.deadline)
			return
		}
		r.unpark(q) // the client gives up and closes the connection
		if q.why == "" {
			q.why = "timeout: reply too slow"
		}
	}
	if q.dropped && q.why == "" {
		// The node was down: no reply will come, the client waits out its
		// deadline.
		q.why = "timeout: node down"
		r.unanswered++
		r.later(p, q, q.deadline)
		return
	}
	if q.why == "" && q.ran {
		if g := r.nodes[q.node].g; g != nil && g.gen != q.gen {
			// Its primary was lost in a failover: the connection with it.
			q.why, q.block = "timeout: connection lost in failover", 0
			r.unanswered++
			r.nodes[q.node].served++ // the failover took this reply
			r.later(p, q, q.deadline)
			return
		}
		if q.block != 0 {
			// WAIT blocks: the reply leaves when it unblocks.
			at := r.now + q.block
			if q.block < 0 || q.deadline > 0 && at > q.deadline {
				q.why, at = "timeout: reply too slow", q.deadline
				r.unanswered++
			}
			q.block = 0
			r.later(p, q, at)
			return
		}
	}
	if q.lib != nil {
		r.libDeliver(p, q)
		return
	}
	// The result repeats the command and its send time: a lost request has
	// no KindCommand event to pair with.
	res := r.hist.slot()
	*res = Event{Kind: KindCommandResult, Proc: p.id, Node: q.node, Req: q.id, Args: q.args, Sent: q.sent}
	q.answered = true
	if q.why != "" {
		p.reply, p.err = Reply{}, ErrTimeout
		p.observeReply()
		res.Err = q.why
		r.recordFor(res, q.countArgs(), q)
		r.resume(p)
		return
	}
	p.reply, p.err = q.reply, nil
	if q.reply.Kind == node.Error {
		p.err = &RedisError{Msg: q.reply.Str}
	}
	p.observeReply()
	res.Reply = q.reply
	r.recordFor(res, q.countArgs(), q)
	r.trigger(PointReply, p, q.args[0])
	if p.live {
		r.resume(p)
	}
}

// later delivers q to p at at instead of now; at 0 (no deadline) the client
// waits for ever.
func (r *runner) later(p *process, q *request, at Time) {
	if at == 0 {
		return
	}
	e := p.ev(at, evReply)
	e.req = q.ref
	r.q.push(e)
}
