package sim

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/locksim/locksim/sim/node"
)

// Replication: a node (a Redis address the clients know) may be a primary
// with replicas. Every command the primary runs that may write (node.Effects:
// the command, or a script's write commands) is one entry of its stream;
// each replica applies the entries in order, each after its own lag, at the
// primary's node time of the write. A replica therefore does not expire keys
// by its own clock: its time moves only with the stream, so a key leaves it
// when a later entry shows the primary past the key's expiry, the way a
// primary's DEL of an expired key reaches its replicas. A replica
// acknowledges an entry the moment it applies it (Redis's WAIT asks for the
// acknowledgement at once with REPLCONF GETACK).
//
// A failover (fault.Failover) loses the primary with every entry no replica
// has applied, promotes the replica that applied the most, and points the
// address at it once the detection delay is over; replies the old primary
// had not delivered are lost. The other replicas follow the new primary
// from where they are (PSYNC: they receive what it has and they lack).

// entry is one write of the replication stream.
type entry struct {
	conn int    // the client connection that wrote it
	req  uint64 // the command that wrote it
	at   Time   // the primary's node time when it ran
	cmds [][]string
}

// replica is one replica of a node.
type replica struct {
	lane    int // its lane in the history: History.Nodes + index
	n       *node.Node
	applied int    // stream entries applied
	due     []Time // when entries applied.. will apply
	lastAt  Time   // when the last shipped entry applies: entries stay in order
	epoch   int32  // bumps when the stream is re-shipped: older events are stale
	lag     Latency
	rng     *rand.Rand
}

// group is a node's replication state; nil when it has no replicas.
// Offsets into the stream are absolute: stream[0] is entry base. The
// entries every replica has applied are dropped (trim): no failover or
// WAIT needs them again.
type group struct {
	stream   []entry
	base     int
	replicas []*replica
	gen      int32 // bumps at each failover: a reply of an older primary is lost
	woff     []int // per connection: the stream's length after its last write
	retired  []*node.Node
}

// setupReplication gives every node that asks for them its replicas.
func (r *runner) setupReplication() {
	lane := len(r.nodes)
	for i, ns := range r.cfg.Nodes {
		if ns.Replicas <= 0 {
			continue
		}
		g := &group{}
		r.nodes[i].g = g
		r.nodes[i].n.Capture(true)
		for k := range ns.Replicas {
			seed := mix(r.cfg.Seed^0x7265706c, uint64(i)<<8|uint64(k)+1) // 0x7265706c: "repl"
			rep := &replica{lane: lane, n: takeNode(int64(seed)), lag: ns.ReplicationLag, rng: rand.New(rand.NewPCG(seed, 1))}
			rep.n.Watch(r.cfg.WatchKey)
			if ns.Persistence != PersistNone {
				// A promoted replica is the node from then on: its restarts
				// keep what the node's persistence keeps, everysec's log
				// holding every entry it applied.
				rep.n.SetPersistence(ns.Persistence)
			}
			g.replicas = append(g.replicas, rep)
			lane++
		}
	}
}

// releaseReplication hands every replica and retired primary back to the pool.
func (r *runner) releaseReplication() {
	for _, n := range r.nodes {
		if n.g == nil {
			continue
		}
		for _, rep := range n.g.replicas {
			nodePool.Put(rep.n)
		}
		for _, old := range n.g.retired {
			nodePool.Put(old)
		}
	}
}

// replicate puts what the command just run on node i wrote on its stream.
func (r *runner) replicate(i int, q *request, nodeNow Time) {
	g := r.nodes[i].g
	eff := r.nodes[i].n.Effects()
	if len(eff) == 0 || len(g.replicas) == 0 {
		return // no replica left: nothing will read the stream
	}
	// The node's lists are its own until its next Exec: the entry keeps
	// copies, cut from the run's memory like the commands' own arguments.
	cmds := make([][]string, len(eff))
	for k, c := range eff {
		cmds[k] = r.mem.keep(c)
	}
	g.stream = append(g.stream, entry{conn: q.proc, req: q.id, at: nodeNow, cmds: cmds})
	for len(g.woff) <= q.proc {
		g.woff = append(g.woff, 0)
	}
	g.woff[q.proc] = g.end()
	for _, rep := range g.replicas {
		r.ship(i, rep, g.end()-1)
	}
}

// ship schedules entries from.. of node i's stream on rep.
func (r *runner) ship(i int, rep *replica, from int) {
	g := r.nodes[i].g
	for off := from; off < g.end(); off++ {
		at := max(r.now+Time(latency(rep.rng, rep.lag)), rep.lastAt)
		rep.lastAt = at
		rep.due = append(rep.due, at)
		r.q.push(event{at: at, kind: evReplicate, proc: int32(i), fault: int32(rep.lane), inc: rep.epoch})
	}
}

// applyEntry applies the next entry of node i's stream on the replica in
// lane, unless the event is stale.
func (r *runner) applyEntry(i, lane int, epoch int32) {
	g := r.nodes[i].g
	var rep *replica
	for _, x := range g.replicas {
		if x.lane == lane {
			rep = x
		}
	}
	if rep == nil || rep.epoch != epoch || rep.applied >= g.end() {
		return
	}
	e := &g.stream[rep.applied-g.base]
	rep.applied++
	rep.due = rep.due[1:]
	rep.n.Apply(e.conn, e.at.Std(), e.cmds)
	// The usual single command is recorded as the stream holds it: the
	// stream's own copy (keep's, capacity ending at its length), which
	// nothing writes.
	args := e.cmds[0]
	if len(e.cmds) > 1 {
		args = nil
		for k, c := range e.cmds {
			if k > 0 {
				args = append(args, ";")
			}
			args = append(args, c...)
		}
	}
	ev := Event{Kind: KindReplicate, Proc: -1, Node: lane, Req: e.req, Args: args}
	if r.cfg.WatchKey != "" {
		ev.Key = rep.n.Watched()
	}
	r.record(ev)
	g.trim()
}

// end is the stream's length: the offset after its last entry.
func (g *group) end() int { return g.base + len(g.stream) }

// trimAt is how many entries the stream keeps before it drops those every
// replica has applied (a variable for the test that compares both).
var trimAt = 1024

// trim drops the entries every replica has applied, once there are enough
// of them: a long run keeps only what a failover or a WAIT can still need.
func (g *group) trim() {
	if len(g.stream) < trimAt || len(g.replicas) == 0 {
		return
	}
	done := g.end()
	for _, rep := range g.replicas {
		done = min(done, rep.applied)
	}
	if n := done - g.base; n >= len(g.stream)/2 {
		g.stream = append([]entry(nil), g.stream[n:]...)
		g.base = done
	}
}

// promoted is the index of the replica a failover of g promotes: the one
// that applied the most (the first of those); -1 with no replica.
func (g *group) promoted() int {
	if g == nil || len(g.replicas) == 0 {
		return -1
	}
	best := 0
	for k, rep := range g.replicas {
		if rep.applied > g.replicas[best].applied {
			best = k
		}
	}
	return best
}

// failoverEvent completes the event of failover f before it is recorded: it
// names the promoted lane and, as a restart that reloaded does, the watched
// key as the promoted replica has it: the checkers read the key on from
// there (a key that was replicated lives on; the model's lease versions and
// stale keys). With no replica to promote it records neither.
func failoverEvent(r *runner, f *Fault, ev *Event) {
	n := &r.nodes[f.Node]
	best := n.g.promoted()
	if best < 0 {
		return
	}
	pr := n.g.replicas[best]
	ev.Value = int64(pr.lane)
	if r.cfg.WatchKey != "" {
		if k := pr.n.TakeOver(n.clock.at(r.now).Std(), n.n); k.Exists {
			ev.Key = k
		}
	}
}

// failover loses node i's primary and promotes its most advanced replica;
// the address answers again after detect. With no replica there is nothing
// to promote: the node is only unreachable for detect.
func (r *runner) failover(i int, detect time.Duration) {
	n := &r.nodes[i]
	n.downUntil = max(n.downUntil, r.now+Time(detect))
	g := n.g
	best := g.promoted()
	if best < 0 {
		return
	}
	pr := g.replicas[best]
	g.replicas = slices.Delete(g.replicas, best, best+1)
	g.stream = g.stream[:pr.applied-g.base] // what no replica applied is lost
	for k := range g.woff {
		g.woff[k] = min(g.woff[k], g.end())
	}
	g.retired = append(g.retired, n.n)
	n.n = pr.n
	n.n.Disconnect()
	n.n.Capture(true)
	g.gen++
	for _, rep := range g.replicas {
		rep.epoch++
		rep.due, rep.lastAt = rep.due[:0], r.now
		r.ship(i, rep, rep.applied)
	}
}

// wait runs WAIT numreplicas timeout from q on node i: the reply, and how
// long the command blocks (-1: for ever). The client's last write must
// reach numreplicas replicas; WAIT returns when it has, or at the timeout,
// with how many replicas have it then. A node with no replicas answers 0,
// at once when asked for none, else at the timeout.
func (r *runner) wait(i int, q *request) (Reply, Time) {
	n := &r.nodes[i]
	want, timeoutMs, errReply, ok := n.n.WaitArgs(q.proc, q.args)
	if !ok {
		return errReply, 0
	}
	var acks []Time // when each replica has the client's last write
	if g := n.g; g != nil {
		target := 0
		if q.proc < len(g.woff) {
			target = g.woff[q.proc]
		}
		for _, rep := range g.replicas {
			at := r.now
			if rep.applied < target {
				at = rep.due[target-1-rep.applied]
			}
			acks = append(acks, at)
		}
	}
	slices.Sort(acks)
	ready := Time(-1) // never
	if want == 0 {
		ready = r.now
	} else if int(want) <= len(acks) {
		ready = acks[want-1]
	}
	// A timeout beyond a century is for ever (and would overflow Time).
	if timeoutMs > 0 && timeoutMs < 100*365*24*3600*1000 {
		if limit := r.now + Time(timeoutMs)*Time(time.Millisecond); ready < 0 || ready > limit {
			ready = limit
		}
	}
	count := 0
	for _, at := range acks {
		if ready >= 0 && at <= ready {
			count++
		}
	}
	block := Time(-1)
	if ready >= 0 {
		block = ready - r.now
	}
	return Reply{Kind: node.Int, Int: int64(count)}, block
}

// isWait says whether a command is WAIT.
func isWait(args []string) bool { return len(args) > 0 && node.IsName(args[0], "WAIT") }

// lanes lists, for every replica lane of cfg, the node it replicates.
func (cfg *Config) lanes() []int {
	var out []int
	for i, ns := range cfg.Nodes {
		for range ns.Replicas {
			out = append(out, i)
		}
	}
	return out
}
