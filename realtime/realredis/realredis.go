// Package realredis is the real-time backend's wire to real Redis servers:
// engine.Wire (package realtime/engine) over RESP (internal/resp).
//
//	w, err := realredis.Open("127.0.0.1:6379", 5) // five nodes: databases 0–4 of one server
//	res, err := engine.Run(cfg, w)
//
// Addresses are host:port[/db], comma-separated. Either one address per node,
// or a single address for any number of nodes: node i is then database db+i
// of that server (SELECT), so Redlock's five nodes can be five databases of
// one redis-server. Open flushes every node's database (FLUSHDB): the run
// starts from empty nodes, as a simulated one does. Never point it at data
// you want to keep.
package realredis

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/internal/resp"
	"github.com/locksim/locksim/realtime/engine"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// dialTimeout bounds connecting and each control command.
const dialTimeout = 5 * time.Second

// Node is one node's place: a server and a database on it.
type Node struct {
	Addr string
	DB   int
}

// Wire reaches the nodes of one run.
type Wire struct {
	spec  string
	nodes []Node
	mu    sync.Mutex
	ctl   []*resp.Conn // one control connection per node (FLUSHDB)
	// servers, when locksim started them, are restarted on a node restart.
	servers *Servers
	gens    []atomic.Int64 // per node: how often its server was killed
}

// ParseAddrs maps a --redis value onto n nodes.
func ParseAddrs(spec string, n int) ([]Node, error) {
	var list []Node
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		addr, db := part, 0
		if i := strings.LastIndexByte(part, '/'); i >= 0 {
			d, err := strconv.Atoi(part[i+1:])
			if err != nil || d < 0 {
				return nil, fmt.Errorf("%q: the database after / must be a whole number ≥ 0", part)
			}
			addr, db = part[:i], d
		}
		if _, _, err := net.SplitHostPort(addr); err != nil || addr == "" {
			return nil, fmt.Errorf("%q: want host:port or host:port/db", part)
		}
		list = append(list, Node{Addr: addr, DB: db})
	}
	switch {
	case len(list) == n:
		return list, nil
	case len(list) == 1:
		out := make([]Node, n)
		for i := range out {
			out[i] = Node{Addr: list[0].Addr, DB: list[0].DB + i}
		}
		return out, nil
	}
	noun := "nodes"
	if n == 1 {
		noun = "node"
	}
	return nil, fmt.Errorf("the run has %d %s: give one address (node i is its database db+i) or %d, not %d", n, noun, n, len(list))
}

// Open connects to the nodes for a run of n nodes, checks that each answers,
// and flushes their databases.
func Open(spec string, n int) (*Wire, error) {
	nodes, err := ParseAddrs(spec, n)
	if err != nil {
		return nil, err
	}
	w := &Wire{spec: spec, nodes: nodes}
	for i := range nodes {
		c, err := w.dial(i)
		if err != nil {
			w.Close()
			return nil, err
		}
		w.ctl = append(w.ctl, c)
		if err := w.flush(i); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// Name is the backend as reports show it.
func (w *Wire) Name() string { return "redis " + w.spec }

// Close closes the control connections.
func (w *Wire) Close() {
	for _, c := range w.ctl {
		c.Close()
	}
}

func (w *Wire) dial(i int) (*resp.Conn, error) {
	nd := w.nodes[i]
	if w.servers != nil {
		// Where the node's primary is now: after a failover, the replica
		// Sentinel promoted.
		addr, err := w.servers.primaryAddr(i)
		if err != nil {
			return nil, fmt.Errorf("node %d: %w", i, err)
		}
		nd.Addr = addr
	}
	c, err := resp.Dial(nd.Addr, dialTimeout)
	if err != nil {
		return nil, fmt.Errorf("node %d (%s): %w", i, nd.Addr, err)
	}
	if nd.DB != 0 {
		if err := ok(c.Do("SELECT", strconv.Itoa(nd.DB))); err != nil {
			c.Close()
			return nil, fmt.Errorf("node %d (%s): SELECT %d: %w", i, nd.Addr, nd.DB, err)
		}
	}
	return c, nil
}

func ok(raw []byte, err error) error {
	if err != nil {
		return err
	}
	if len(raw) > 0 && raw[0] == '-' {
		return errors.New(strings.TrimSpace(string(raw[1:])))
	}
	return nil
}

func (w *Wire) flush(i int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := ok(w.ctl[i].Do("FLUSHDB")); err != nil {
		return fmt.Errorf("node %d (%s): FLUSHDB: %w", i, w.nodes[i].Addr, err)
	}
	return nil
}

// Restart restarts node i's server process when locksim started it (every
// key, script and connection goes). Otherwise it cannot restart the process:
// it empties the node's database, and cached scripts stay (SCRIPT FLUSH
// would empty the other nodes' caches on a shared server).
func (w *Wire) Restart(i int) error {
	if w.servers == nil {
		return w.flush(i)
	}
	w.gens[i].Add(1)
	if err := w.servers.restart(i); err != nil {
		return err
	}
	c, err := w.dial(i)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.ctl[i].Close()
	w.ctl[i] = c
	w.mu.Unlock()
	return nil
}

// Parts is what the wire can do: with servers locksim started, restart
// them with their persistence and step their clocks; otherwise only flush.
func (w *Wire) Parts() engine.Parts {
	if w.servers == nil {
		return engine.Parts{}
	}
	return w.servers.Parts()
}

// ReadKey reads key on node i on the control connection, dialling it
// again once if it broke (its server was restarted or failed over).
func (w *Wire) ReadKey(i int, key string) (sim.KeyState, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ks, err := (&conn{c: w.ctl[i]}).key(key)
	if err == nil {
		return ks, nil
	}
	c, derr := w.dial(i)
	if derr != nil {
		return sim.KeyState{}, err
	}
	w.ctl[i].Close()
	w.ctl[i] = c
	return (&conn{c: c}).key(key)
}

// Failover kills node i's primary (servers locksim started, with a
// Sentinel) and returns the replica Sentinel will promote, the one with the
// most of the stream, and key's state there.
func (w *Wire) Failover(i int, key string) (int, sim.KeyState, error) {
	if w.servers == nil {
		return 0, sim.KeyState{}, errors.New("a server locksim did not start cannot be failed over")
	}
	w.gens[i].Add(1)
	if err := w.servers.failover(i); err != nil {
		return 0, sim.KeyState{}, err
	}
	best, bestOff := 0, int64(-1)
	for k := range w.servers.reps[i] {
		info, err := ask(w.servers.replicaAddr(i, k), "INFO", "replication")
		if err != nil {
			continue
		}
		if off := infoInt(info, "slave_repl_offset"); off > bestOff {
			best, bestOff = k, off
		}
	}
	if key == "" {
		return best, sim.KeyState{}, nil
	}
	c, err := resp.Dial(w.servers.replicaAddr(i, best), dialTimeout)
	if err != nil {
		return best, sim.KeyState{}, err
	}
	defer c.Close()
	if w.nodes[i].DB != 0 {
		if err := ok(c.Do("SELECT", strconv.Itoa(w.nodes[i].DB))); err != nil {
			return best, sim.KeyState{}, err
		}
	}
	ks, err := (&conn{c: c}).key(key)
	return best, ks, err
}

// infoInt is field's integer in an INFO reply, -1 when missing.
func infoInt(info, field string) int64 {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}

// JumpClock steps node i's server clock (servers locksim started under
// libfaketime only).
func (w *Wire) JumpClock(i int, by time.Duration) error {
	if w.servers == nil {
		return errors.New("a server locksim did not start keeps its host's clock")
	}
	return w.servers.jumpClock(i, by)
}

// Dial opens a client connection to node i. Commands get no I/O deadline:
// the engine's own timeout decides when the client gives up.
func (w *Wire) Dial(i int) (engine.Conn, error) {
	c, err := w.dial(i)
	if err != nil {
		return nil, err
	}
	c.NoTimeout()
	wc := &wireConn{conn: &conn{c: c}, w: w, node: i}
	if w.gens != nil {
		wc.at = w.gens[i].Load()
	}
	return wc, nil
}

// wireConn is a client connection as the engine sees it.
type wireConn struct {
	*conn
	w    *Wire
	node int
	at   int64 // how often the node's server was killed, at the dial
}

// Stale says whether the server this connection reached was killed since
// (a restart, a failover of servers locksim started).
func (c *wireConn) Stale() bool { return c.w.gens != nil && c.w.gens[c.node].Load() != c.at }

// Exec is the connection's Exec, but WAIT runs on its own and the key is
// read on the control connection: a WAIT inside the MULTI that reads the
// key would not block, and a MULTI … EXEC after it on this connection moves
// the replication offset the client's next WAIT waits for (Redis 7 counts
// the EXEC as the client's latest write). WAIT writes nothing: the key is
// as the command before it left it.
func (c *wireConn) Exec(args []string, key string) (sim.Reply, sim.KeyState, error) {
	if key == "" || !strings.EqualFold(args[0], "WAIT") {
		return c.conn.Exec(args, key)
	}
	r, err := c.conn.do(args...)
	if err != nil {
		return r, sim.KeyState{}, err
	}
	ks, err := c.w.ReadKey(c.node, key)
	return r, ks, err
}

// conn is one process incarnation's connection to a node. A real server
// cannot say who wrote a key, so the connection keeps what it last saw of
// the watched key, and whether that version was its own (Exec says how it
// tells a new version).
type conn struct {
	c    *resp.Conn
	last sim.KeyState // the watched key after this connection's last command
	mine bool         // and that version was written by this connection
	// sent and got are when that command was written and its reply read
	// (the local monotonic clock): the server ran it between the two.
	sent, got time.Time
}

func (c *conn) Close() error { return c.c.Close() }

// transactional commands cannot be queued inside the MULTI that reads the
// watched key with the command.
var transactional = map[string]bool{"MULTI": true, "EXEC": true, "DISCARD": true, "WATCH": true, "UNWATCH": true}

// Exec runs args; with a watched key it sends MULTI, the key's reads
// (keyReads), the command, the reads again, EXEC in one write, so the key
// state is the one the command left, as the simulated node reports it, and
// the one it found.
//
// Fresh: the command began a new version when the key exists after it and,
// just before it, was absent or had another type or content (all read in
// the transaction, exact), or its TTL changed (by more than PTTL's
// rounding) while the version it found was not this connection's own. A
// real server cannot say who wrote it: it is this connection's own when
// this connection wrote the version it last saw, and what it finds now has
// that content with a TTL that only counted down since (by at least the
// local time between that reply and this request, at most the time between
// that request and this reply). Another process's write of the same content
// within that slack is missed; the simulated node, which knows every
// writer, misses none. A transaction command of the lock's own (MULTI,
// EXEC, WATCH) is read around, not within: its before is what this
// connection last saw.
func (c *conn) Exec(args []string, key string) (sim.Reply, sim.KeyState, error) {
	sent := time.Now()
	if key == "" || transactional[strings.ToUpper(args[0])] {
		r, err := c.do(args...)
		if err != nil || key == "" {
			return r, sim.KeyState{}, err
		}
		after, err := c.key(key)
		return r, c.settle(sent, c.countDown(sent), after), err
	}
	queued, before, after, err := c.withKey(key, args)
	switch {
	case err != nil:
		return sim.Reply{}, sim.KeyState{}, err
	case after == nil:
		// EXECABORT: the command was refused before it could run (wrong
		// arity, unknown command): its own error is the reply.
		after, err := c.key(key)
		return queued, c.settle(sent, after, after), err
	}
	return queued, c.settle(sent, keyState(before), keyState(after)), nil
}

// pttlSlack is how far apart two PTTLs of one deadline may read: whole
// milliseconds of a clock read at each.
const pttlSlack = 2 * time.Millisecond

// settle records after, found as before by a command sent at sent, as this
// connection's last look.
func (c *conn) settle(sent time.Time, before, after sim.KeyState) sim.KeyState {
	got := time.Now()
	mine := c.mine && before.Exists && before.Type == c.last.Type && before.Value == c.last.Value &&
		c.countedDown(before.TTL, sent, got)
	after.Fresh = after.Exists && (!before.Exists || before.Type != after.Type || before.Value != after.Value ||
		!mine && ttlChanged(before.TTL, after.TTL))
	c.last, c.mine, c.sent, c.got = after, after.Fresh || mine && after.Exists, sent, got
	return after
}

// countedDown says whether ttl, read by a command sent at sent and answered
// at got, is what the TTL last seen became by counting down alone.
func (c *conn) countedDown(ttl time.Duration, sent, got time.Time) bool {
	if c.last.TTL < 0 || ttl < 0 {
		return c.last.TTL < 0 && ttl < 0
	}
	least, most := sent.Sub(c.got), got.Sub(c.sent)
	return ttl <= c.last.TTL-least+pttlSlack && ttl >= c.last.TTL-most-pttlSlack
}

// countDown is the key last seen as it would be at sent had nothing
// touched it: the before of a command read around rather than within.
func (c *conn) countDown(sent time.Time) sim.KeyState {
	k := c.last
	if k.Exists && k.TTL > 0 {
		if k.TTL -= sent.Sub(c.got); k.TTL <= 0 {
			return sim.KeyState{TTL: -1}
		}
	}
	return k
}

// ttlChanged compares two PTTLs read in one transaction.
func ttlChanged(a, b time.Duration) bool {
	if (a < 0) != (b < 0) {
		return true
	}
	return a-b > pttlSlack || b-a > pttlSlack
}

// keyReads are the reads of the watched key in a transaction: its type and
// PTTL, then its content by each type's read. Those of the other types fail
// with WRONGTYPE, which EXEC answers in place without failing the rest.
func keyReads(b []byte, key string) []byte {
	b = resp.AppendCommand(b, "TYPE", key)
	b = resp.AppendCommand(b, "PTTL", key)
	b = resp.AppendCommand(b, "GET", key)
	b = resp.AppendCommand(b, "HGETALL", key)
	b = resp.AppendCommand(b, "SMEMBERS", key)
	b = resp.AppendCommand(b, "ZRANGE", key, "0", "-1", "WITHSCORES")
	b = resp.AppendCommand(b, "LRANGE", key, "0", "-1")
	return resp.AppendCommand(b, "XRANGE", key, "-", "+")
}

// nReads is how many commands keyReads sends.
const nReads = 8

// withKey sends MULTI, the key's reads, args and the reads again (for a
// bare read, no args and the reads once), EXEC in one write. It returns the
// reply to queueing args and EXEC's replies to the reads before and after
// args; after is nil when EXEC aborted the transaction for args.
func (c *conn) withKey(key string, args []string) (queued sim.Reply, before, after []sim.Reply, err error) {
	n := 2 + nReads // MULTI, the reads, EXEC
	b := resp.AppendCommand(nil, "MULTI")
	if len(args) > 0 {
		b = keyReads(b, key)
		b = resp.AppendCommand(b, args...)
		n += nReads + 1
	}
	b = keyReads(b, key)
	b = resp.AppendCommand(b, "EXEC")
	rs, err := c.pipeline(b, n)
	if err != nil {
		return sim.Reply{}, nil, nil, err
	}
	exec := rs[n-1]
	if len(args) > 0 {
		queued = rs[1+nReads]
		if exec.Kind == node.Error {
			return queued, nil, nil, nil
		}
	}
	if exec.Kind != node.Array || len(exec.Elems) != n-2 {
		return sim.Reply{}, nil, nil, fmt.Errorf("unexpected EXEC reply %v", exec)
	}
	e := exec.Elems
	if len(args) == 0 {
		return sim.Reply{}, nil, e, nil
	}
	return e[nReads], e[:nReads], e[nReads+1:], nil
}

func (c *conn) do(args ...string) (sim.Reply, error) {
	rs, err := c.pipeline(resp.AppendCommand(nil, args...), 1)
	if err != nil {
		return sim.Reply{}, err
	}
	return rs[0], nil
}

// key reads the watched key on its own (not atomic with the command).
func (c *conn) key(key string) (sim.KeyState, error) {
	_, _, after, err := c.withKey(key, nil)
	if err != nil {
		return sim.KeyState{}, err
	}
	return keyState(after), nil
}

// keyState reads the replies to keyReads, drawing the content as the
// simulated node does (node.DrawHash and its siblings).
func keyState(r []sim.Reply) sim.KeyState {
	t, exists := node.ParseKeyType(r[0].Str)
	if !exists {
		return sim.KeyState{TTL: -1}
	}
	ks := sim.KeyState{Exists: true, Type: t, TTL: -1}
	if r[1].Kind == node.Int && r[1].Int > 0 {
		ks.TTL = time.Duration(r[1].Int) * time.Millisecond
	}
	switch t {
	case node.KeyString:
		if r[2].Kind == node.Bulk {
			ks.Value = r[2].Str
		}
	case node.KeyHash:
		ks.Value = node.DrawHash(strs(r[3]))
	case node.KeySet:
		ks.Value = node.DrawSet(strs(r[4]))
	case node.KeyZSet:
		pairs := strs(r[5])
		members := make([]string, 0, len(pairs)/2)
		scores := make([]float64, 0, len(pairs)/2)
		for i := 0; i+1 < len(pairs); i += 2 {
			f, _ := strconv.ParseFloat(pairs[i+1], 64) // Redis writes inf and -inf, which ParseFloat reads
			members, scores = append(members, pairs[i]), append(scores, f)
		}
		ks.Value = node.DrawZSet(members, scores)
	case node.KeyList:
		ks.Value = node.DrawList(strs(r[6]))
	case node.KeyStream:
		var ids []string
		var fields [][]string
		for _, e := range r[7].Elems {
			if len(e.Elems) == 2 {
				ids, fields = append(ids, e.Elems[0].Str), append(fields, strs(e.Elems[1]))
			}
		}
		ks.Value = node.DrawStream(ids, fields)
	}
	return ks
}

// strs is an array reply's strings.
func strs(r sim.Reply) []string {
	out := make([]string, len(r.Elems))
	for i, e := range r.Elems {
		out[i] = e.Str
	}
	return out
}

// pipeline writes b (n commands) and reads n replies.
func (c *conn) pipeline(b []byte, n int) ([]sim.Reply, error) {
	if err := c.c.SendRaw(b); err != nil {
		return nil, err
	}
	out := make([]sim.Reply, n)
	for i := range out {
		raw, err := c.c.Receive()
		if err != nil {
			return nil, err
		}
		r, _, err := resp.ParseReply(raw)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}
