package sim

import (
	"strings"

	"github.com/locksim/locksim/sim/node"
)

// Pub/sub on a client library's connection (package sim/bubble): SUBSCRIBE,
// PSUBSCRIBE, UNSUBSCRIBE and PUNSUBSCRIBE run in the engine, which keeps
// the connection's subscriptions on its node; each channel or pattern
// answers a frame of its own (["subscribe", channel, count], …), as Redis
// does over RESP2. While the connection has a subscription, PING answers
// ["pong", payload] and any other command the error Redis gives. A PUBLISH
// that runs on the node (from any client, or a script) sends each
// subscription it matches ["message", channel, payload] (["pmessage",
// pattern, channel, payload]) over the network: the subscriber's reply
// latency delays it, the network's reply loss loses it. A message is a
// command result in the history (the subscribing command's arguments, a
// request number of its own): messages are in the digest.
//
// A connection the library closed keeps nothing: the next PUBLISH drops
// its subscriptions. A restart or failover of the node, or a crash of the
// subscriber, loses
// the connection's subscriptions: the next PUBLISH that would reach one
// closes the connection instead (a failover closes it at the message's
// arrival, as for any reply), and the library sees it closed.

// subscription is one channel or pattern a library connection subscribed
// to on a node.
type subscription struct {
	c         LibConn
	proc, inc int
	name      string
	pattern   bool
	since     Time  // when it was made
	gen       int32 // the node's failover generation then
	args      []string
}

// subCommand names the pub/sub command a library sent, "" for another.
func subCommand(args []string) string {
	for _, c := range [...]string{"SUBSCRIBE", "UNSUBSCRIBE", "PSUBSCRIBE", "PUNSUBSCRIBE"} {
		if node.IsName(args[0], c) {
			return c
		}
	}
	return ""
}

// libPubSub runs q, a library's command on node i, when it is pub/sub's
// or its connection is subscribed there: q.reply and q.more are its
// frames. false: the node runs it.
func (r *runner) libPubSub(i int, q *request) bool {
	n := &r.nodes[i]
	cmd := subCommand(q.args)
	if cmd == "" {
		if r.subsOf(i, q.lib) == 0 {
			return false
		}
		name := strings.ToUpper(q.args[0])
		switch {
		case name == "PING" && len(q.args) <= 2:
			payload := ""
			if len(q.args) == 2 {
				payload = q.args[1]
			}
			q.reply = frame("pong", payload)
		case name == "QUIT" || name == "RESET":
			return false // refused by the node
		default:
			q.reply = Reply{Kind: node.Error, Str: "ERR Can't execute '" + strings.ToLower(q.args[0]) +
				"': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"}
		}
		return true
	}
	pattern := cmd[0] == 'P'
	kind := strings.ToLower(cmd)
	if (cmd == "SUBSCRIBE" || cmd == "PSUBSCRIBE") && len(q.args) < 2 {
		q.reply = Reply{Kind: node.Error, Str: "ERR wrong number of arguments for '" + kind + "' command"}
		return true
	}
	var frames []Reply
	names := q.args[1:]
	if len(names) == 0 { // UNSUBSCRIBE with no names: all of them
		for _, s := range n.subs {
			if s.c == q.lib && s.pattern == pattern {
				names = append(names, s.name)
			}
		}
		if len(names) == 0 {
			frames = append(frames, Reply{Kind: node.Array, Elems: []Reply{
				{Kind: node.Bulk, Str: kind}, {Kind: node.Nil}, {Kind: node.Int, Int: int64(r.subsOf(i, q.lib))}}})
		}
	}
	for _, name := range names {
		k := r.findSub(i, q.lib, name, pattern)
		switch {
		case strings.HasSuffix(cmd, "UNSUBSCRIBE") && k >= 0:
			n.subs = append(n.subs[:k], n.subs[k+1:]...)
		case !strings.HasSuffix(cmd, "UNSUBSCRIBE") && k < 0:
			s := subscription{c: q.lib, proc: q.proc, inc: q.inc, name: name, pattern: pattern, since: r.now, args: q.args}
			if n.g != nil {
				s.gen = n.g.gen
			}
			n.subs = append(n.subs, s)
		}
		frames = append(frames, Reply{Kind: node.Array, Elems: []Reply{
			{Kind: node.Bulk, Str: kind}, {Kind: node.Bulk, Str: name}, {Kind: node.Int, Int: int64(r.subsOf(i, q.lib))}}})
	}
	q.reply, q.more = frames[0], frames[1:]
	return true
}

// frame is a RESP2 pub/sub frame of bulk strings.
func frame(parts ...string) Reply {
	elems := make([]Reply, len(parts))
	for k, p := range parts {
		elems[k] = Reply{Kind: node.Bulk, Str: p}
	}
	return Reply{Kind: node.Array, Elems: elems}
}

// subsOf counts c's subscriptions on node i.
func (r *runner) subsOf(i int, c LibConn) int {
	k := 0
	for _, s := range r.nodes[i].subs {
		if s.c == c {
			k++
		}
	}
	return k
}

// findSub is the index of c's subscription to name on node i, or -1.
func (r *runner) findSub(i int, c LibConn, name string, pattern bool) int {
	for k, s := range r.nodes[i].subs {
		if s.c == c && s.name == name && s.pattern == pattern {
			return k
		}
	}
	return -1
}

// subGone says whether a subscription's connection is gone: its client
// crashed, or its node restarted or failed over since it subscribed.
func (r *runner) subGone(i int, s *subscription) bool {
	n := &r.nodes[i]
	p := r.procs[s.proc]
	return p.inc != s.inc || !p.live || n.downUntil > s.since || n.g != nil && n.g.gen != s.gen
}

// publishConns sends a PUBLISH on node i to the library connections
// subscribed to channel: the number reached. A connection whose
// subscription is gone is closed once the command has run.
func (r *runner) publishConns(i int, channel, message string) int64 {
	n := &r.nodes[i]
	var reached int64
	for k := 0; k < len(n.subs); {
		s := &n.subs[k]
		if !s.pattern && s.name != channel || s.pattern && !globMatch(s.name, channel) {
			k++
			continue
		}
		if s.c.Closed() {
			n.subs = append(n.subs[:k], n.subs[k+1:]...) // the library closed it
			continue
		}
		if r.subGone(i, s) {
			r.closing = append(r.closing, s.c)
			n.subs = append(n.subs[:k], n.subs[k+1:]...)
			continue
		}
		reached++
		msg := frame("message", channel, message)
		if s.pattern {
			msg = frame("pmessage", s.name, channel, message)
		}
		r.sendMessage(i, s, msg)
		k++
	}
	return reached
}

// sendMessage puts msg on the network to s's connection, as a reply of a
// request of its own: it comes after the subscriber's reply latency,
// unless the network loses it.
func (r *runner) sendMessage(i int, s *subscription, msg Reply) {
	p := r.procs[s.proc]
	nw := &r.cfg.Network
	if nw.LossReply > 0 && p.net.Float64() < nw.LossReply {
		return
	}
	at := r.now + Time(latency(p.net, nw.Reply))
	r.reqID++
	q, ref := r.mem.request()
	*q = request{id: r.reqID, proc: s.proc, inc: s.inc, node: i, args: s.args, sent: r.now, ran: true, lib: s.c, ref: ref, reply: msg}
	if g := r.nodes[i].g; g != nil {
		q.gen = g.gen
	}
	e := p.ev(at, evReply)
	e.req = ref
	r.q.push(e)
}

// closeGone closes the connections whose subscriptions a PUBLISH found
// gone.
func (r *runner) closeGone() {
	for k, c := range r.closing {
		r.closing[k] = nil
		c.Lost()
	}
	r.closing = r.closing[:0]
}

// globMatch is Redis's glob for PSUBSCRIBE: * any run, ? one byte, [set]
// ([^set] and [a-z] too), \ quotes the next byte.
func globMatch(pat, s string) bool {
	for len(pat) > 0 {
		switch pat[0] {
		case '*':
			for len(pat) > 0 && pat[0] == '*' {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for k := 0; k <= len(s); k++ {
				if globMatch(pat, s[k:]) {
					return true
				}
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
		case '[':
			if len(s) == 0 {
				return false
			}
			end := strings.IndexByte(pat[1:], ']')
			if end < 0 {
				if s[0] != '[' {
					return false
				}
				break
			}
			set := pat[1 : 1+end]
			not := len(set) > 0 && set[0] == '^'
			if not {
				set = set[1:]
			}
			in := false
			for k := 0; k < len(set); k++ {
				if k+2 < len(set) && set[k+1] == '-' {
					if lo, hi := set[k], set[k+2]; lo <= s[0] && s[0] <= hi || hi <= s[0] && s[0] <= lo {
						in = true
					}
					k += 2
				} else if set[k] == s[0] {
					in = true
				}
			}
			if in == not {
				return false
			}
			pat, s = pat[end+2:], s[1:]
			continue
		case '\\':
			if len(pat) > 1 {
				pat = pat[1:]
			}
			fallthrough
		default:
			if len(s) == 0 || pat[0] != s[0] {
				return false
			}
		}
		pat, s = pat[1:], s[1:]
	}
	return len(s) == 0
}
