package sim

import (
	"github.com/locksim/locksim/sim/node"
)

// Pub/sub in simulated time: SUBWAIT channel [channel ...] timeout is
// locksim's command for a client that subscribes to its channels and waits
// for one message, as a Redisson waiter subscribes to its lock's channel
// and waits on a semaphore for the unlock message, at most the lock's TTL.
// Redis has no such command; it stands for SUBSCRIBE, the wait and the
// UNSUBSCRIBE after it, on a connection of the waiter's own.
//
// It parks on its node as a blocking pop does (blocking.go), in the same
// list, until a PUBLISH to one of its channels runs there (from a client
// or inside a script: the node hands it to publish) or its timeout passes
// (a nil reply; 0 waits for ever). The message is its reply,
// ["message", channel, payload], as Redis pushes it, and it travels back
// over the network as any reply: the reply latency drawn when the wait was
// sent delays it (a late message), and a reply lost to the network or to a
// lose-reply fault loses it (the client times out at its deadline, the
// network timeout plus the wait's). PUBLISH answers how many waiters it
// reached. The longest-waiting connection is served first; a PUBLISH
// reaches every waiter on its channel.
//
// A waiter's connection is lost, and with it any message after, when its
// client crashes, its node restarts or fails over since it parked: its
// wait ends, at the PUBLISH or at its timeout, with a lost connection (a
// timeout at the client's deadline). A message published before the wait
// reached its node is not kept for it: only a connection subscribed when
// the message is published gets it.
//
// The wait's command event is recorded when it ends, with the message as
// its reply: messages are in the history, and so in a run's digest.

// subWait says whether a command is SUBWAIT.
func subWait(args []string) bool {
	return len(args) > 0 && node.IsName(args[0], "SUBWAIT")
}

// published is node i's Publish while a command runs there: it takes the
// waiters on channel off the node, each with the message as its reply, to
// be answered once the command has run (answerMessages), and says how many
// there were.
func (r *runner) published(i int, channel, message string) int64 {
	n := &r.nodes[i]
	var reached int64
	for k := 0; k < len(n.parked); {
		q := n.parked[k]
		if !subWait(q.args) || !waitsOn(q.args, channel) {
			k++
			continue
		}
		n.parked = append(n.parked[:k], n.parked[k+1:]...)
		if r.popGone(i, q) {
			r.connectionLost(q)
			continue
		}
		q.reply = Reply{Kind: node.Array, Elems: []Reply{
			{Kind: node.Bulk, Str: "message"}, {Kind: node.Bulk, Str: channel}, {Kind: node.Bulk, Str: message}}}
		r.messages = append(r.messages, q)
		reached++
	}
	if len(n.subs) > 0 {
		reached += r.publishConns(i, channel, message)
	}
	return reached
}

// waitsOn says whether SUBWAIT args name channel.
func waitsOn(args []string, channel string) bool {
	for _, c := range args[1 : len(args)-1] {
		if c == channel {
			return true
		}
	}
	return false
}

// answerMessages ends the waits a command that just ran published to,
// after its own event: each records its command and sends its message.
func (r *runner) answerMessages() {
	for k, q := range r.messages {
		r.messages[k] = nil
		r.finishPop(q, q.reply)
	}
	r.messages = r.messages[:0]
}

// connectionLost ends a parked wait whose connection is gone: its client
// sees a timeout at its deadline.
func (r *runner) connectionLost(q *request) {
	q.parked = false
	if q.why == "" {
		q.why = "timeout: connection lost"
		r.unanswered++
	}
}

// publishing hangs the run's Publish on its nodes: PUBLISH reaches the
// waiters parked there.
func (r *runner) publishing() {
	for i := range r.nodes {
		r.nodes[i].n.Publish = func(channel, message string) int64 { return r.published(i, channel, message) }
	}
}
