// Package node is one simulated Redis server: a miniredis instance driven in
// process through its server's Dispatch, with no sockets and no goroutine per
// command. The caller sets the node's clock before every command, so TTL
// expiry and TIME follow simulated node time.
//
// Scripts (EVAL, EVALSHA, SCRIPT) run here rather than in miniredis, on one
// gopher-lua state per node with a deterministic instruction budget; their
// redis.call goes back through the same Dispatch.
package node

import (
	"bufio"
	"bytes"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"

	"github.com/locksim/locksim/internal/resp"
)

// Node is one Redis server. It is not safe for concurrent use.
type Node struct {
	m     *miniredis.Miniredis
	srv   *server.Server
	out   bytes.Buffer
	w     *bufio.Writer
	peers []*server.Peer // one connection per client, made on first use, kept across Reset (disconnect)
	multi []bool         // per connection: inside MULTI, commands are queued
	// connState says a connection has sent WATCH, SELECT, CLIENT or HELLO
	// since the last disconnect: state of miniredis's connection (Ctx, its
	// name, RESP3) that State cannot read.
	connState bool
	seed      int64
	// seeded says miniredis's random source is seeded for this run. Seeding
	// makes a 5 KB source and costs microseconds, a tenth of a search's
	// time, and lock commands never draw from it: it is done before the
	// first command that does (usesRandom).
	seeded bool
	// selected says a connection may have left database 0 (SELECT ran
	// since the connections were last made new): the watched key is read
	// from database 0, and a SET is no longer known to have written it.
	selected bool
	// readBack turns following the watched key off (tests compare the two
	// ways); follows counts the Execs that followed it, for tests. Fields
	// of the node, not of the package: runs on other nodes go on at once.
	readBack bool
	follows  int
	// noPolls turns answerPoll off (tests compare the two ways); polls
	// counts the commands it answered.
	noPolls bool
	polls   int
	owes    int // reads of a polled key that owed miniredis's clock step (pollDB)
	// noReplay turns replaying scripts' known paths off (replay.go; tests
	// compare the two ways); replays counts the scripts replayed.
	noReplay bool
	replays  int
	// accessed is the key whose access time (OBJECT IDLETIME) answerPoll
	// last set, at node time accessedAt, with nothing dispatched since.
	accessed   string
	accessedAt time.Time

	// ScriptBudget is how many Lua VM instructions one script may run before
	// it is stopped with an error reply; zero means DefaultScriptBudget.
	ScriptBudget int64

	now  time.Time          // node time of the command being run
	db0  *miniredis.RedisDB // database 0, read without miniredis's clock step (its DB makes one)
	step clockStep          // miniredis's last clock step (clockstep.go)

	scripts map[string]string // sha1 -> source: what EVALSHA may run
	written int64             // bytes scripts passed to redis.call: MaxScriptWrites
	last    *compiled         // the last script run, remembered in scripts
	lastSrc string            // its source
	vm      *luaVM            // made by the first script, kept by Reset and Flush, dropped when a script spoils it

	// fieldTTLs says a command that can give a hash's fields TTLs of their
	// own ran since Reset (givesFieldTTLs, watch.go).
	fieldTTLs bool

	aof    aof       // what a Restart keeps (persist.go)
	watch  watch     // the watched key (watch.go)
	follow keyFollow // the watched key through the Exec running (watch.go)
	// Replication (replicate.go): while capture is on, effects is the
	// write stream of the last Exec, its lists cut from effArgs.
	capture bool
	effects [][]string
	effArgs []string

	// Publish, set by the engine, takes a PUBLISH of message on channel
	// and returns how many subscribers it reached (pubsub.go). Reset
	// clears it.
	Publish func(channel, message string) int64
}

// New makes a node whose random commands are seeded with seed.
func New(seed int64) *Node {
	m := miniredis.NewMiniRedis()
	// Dial is the only exported way to register miniredis's commands without a
	// listener. The pipe is closed at once and Server.Close waits for its
	// goroutines, so nothing outlives this call.
	if c, err := m.Dial(); err == nil {
		c.Close()
	}
	srv := m.Server()
	srv.Close()
	m.SetTime(time.Unix(0, 0))
	m.ClockTTL(true)
	n := &Node{m: m, srv: srv, seed: seed, db0: m.DB(0)}
	// A one-byte buffer: miniredis writes each reply element with one
	// Fprintf, which then goes straight to out instead of through a copy.
	// dispatch still flushes, for any write of a single byte.
	n.w = bufio.NewWriterSize(&n.out, 1)
	return n
}

// Reset makes the node behave exactly as New(seed) would, keeping only what
// is costly to build and holds nothing a run can see: miniredis's command
// table, the Lua state (whose math.random restarts from the seed on every
// script) and the client connections, put back as new (disconnect). It
// saves about 200 µs per run.
func (n *Node) Reset(seed int64) {
	n.flushAll()
	n.setTime(time.Unix(0, 0))
	n.seed, n.seeded, n.fieldTTLs = seed, false, false
	n.ScriptBudget, n.written = 0, 0
	n.Publish = nil
	n.disconnect()
	n.forgetScripts()
	n.out.Reset()
	n.aof = aof{}
	n.Capture(false)
	n.watch = watch{last: KeyState{TTL: -1}, writer: noWriter}
}

// Exec runs one command from client conn at node time now. With Capture
// on, Effects is then what the command replicates; with a watched key,
// Watched is the key after it.
func (n *Node) Exec(conn int, now time.Time, args []string) Reply {
	if n.watch.key == "" {
		return n.execCapture(conn, now, args)
	}
	before := n.watchBefore(now)
	n.startFollow(before)
	r := n.execCapture(conn, now, args)
	if n.follow.on && n.follow.ran {
		n.settleFollowed(before, conn)
		n.follows++
	} else {
		n.watchAfter(conn, before)
	}
	n.follow.on = false
	return r
}

func (n *Node) execCapture(conn int, now time.Time, args []string) Reply {
	if !n.capture {
		return n.exec(conn, now, args)
	}
	n.effects, n.effArgs = n.effects[:0], n.effArgs[:0]
	r := n.exec(conn, now, args)
	if len(args) > 0 {
		if name := commandName(args[0]); !isScripting(name) && n.replicated(name) {
			n.effect(args)
		}
	}
	return r
}

func (n *Node) exec(conn int, now time.Time, args []string) Reply {
	n.setTime(now)
	if len(args) == 0 {
		return errorReply("ERR empty command")
	}
	if n.aof.mode == PersistEverysec { // always keeps the node as it is (persist.go)
		n.aof.logged(conn, n.now, args)
	}
	p := n.peer(conn)
	name := commandName(args[0])
	if msg := refusal(name, args); msg != "" {
		n.spoilTx(conn)
		return errorReply(msg)
	}
	if isScripting(name) {
		if n.multi[conn] {
			// miniredis would queue its own EVAL; ours cannot join its queue.
			n.spoilTx(conn)
			return errorReply("ERR locksim: " + name + " inside MULTI is not simulated")
		}
		return n.scripting(p, name, args)
	}
	if !n.multi[conn] {
		if r, ok := n.redis7(p, name, args); ok {
			return r
		}
		if r, ok := n.publish(name, args); ok {
			return r
		}
	}
	if !n.multi[conn] {
		if r, ok := n.answerPoll(p, name, args); ok { // a waiter's poll (poll.go)
			if n.follow.on {
				n.followed(args, r)
			}
			return r
		}
	}
	r := n.dispatch(p, args)
	n.track(conn, name, args, r)
	return r
}

// dispatch runs args through miniredis as client p and reads the reply.
func (n *Node) dispatch(p *server.Peer, args []string) Reply { return n.dispatchKnown(p, args, nil) }

// dispatchKnown is dispatch where a bulk reply equal to one of known is
// that string rather than a new copy: a lock script's GET answers the token
// it was given.
func (n *Node) dispatchKnown(p *server.Peer, args, known []string) Reply {
	if !n.seeded && usesRandom(args[0]) {
		n.m.Seed(int(n.seed))
		n.seeded = true
	}
	if IsName(args[0], "SELECT") {
		n.selected = true
	}
	n.accessed = "" // no longer known to have been accessed now (answerPoll)
	if !n.fieldTTLs && givesFieldTTLs(args[0]) {
		n.fieldTTLs = true
	}
	n.payOwed()
	n.srv.Dispatch(p, args)
	n.step = clockStep{} // the command may or may not have stepped
	n.w.Flush()
	r, _, err := resp.ParseReplyKnown(n.out.Bytes(), known)
	n.out.Reset()
	if err != nil {
		r = errorReply("ERR locksim: " + err.Error())
	}
	if n.follow.on {
		n.followed(args, r)
	}
	return r
}

// track follows which connections are inside MULTI, so that script commands,
// which bypass miniredis, are never run where they should be queued.
func (n *Node) track(conn int, name string, args []string, r Reply) {
	switch name {
	case "WATCH", "SELECT", "CLIENT", "HELLO":
		n.connState = true // kept in miniredis's connection, which State cannot read
	}
	switch name {
	case "MULTI":
		if r.Kind == Status {
			n.multi[conn] = true
		}
	case "EXEC", "DISCARD":
		if len(args) == 1 {
			n.multi[conn] = false
		}
	default:
		// Redis aborts a transaction that queued an unknown command;
		// miniredis forgets to.
		if r.Kind == Error && strings.HasPrefix(r.Str, "ERR unknown command") {
			n.spoilTx(conn)
		}
	}
}

// spoilTx makes the open transaction of conn, if any, fail at EXEC, as Redis
// does after a command is refused while queueing. An arity error is the only
// way to set miniredis's flag for that from outside.
func (n *Node) spoilTx(conn int) {
	if n.multi[conn] {
		n.dispatch(n.peers[conn], []string{"MULTI", "locksim"})
	}
}

// disconnect closes every client connection: the next command of each
// client opens a new one. The peers themselves are kept and put back as
// server.NewPeer makes them (new ones for each run were 3% of an explore
// run's allocations): a peer is its writer, which stays, and what commands
// set on it. miniredis keeps a connection's state (DB, MULTI, WATCH) in Ctx
// and makes it afresh when it is nil; of the rest, HELLO is refused
// (Resp3), CLIENT SETNAME names it, the (un)subscribing commands, the only
// ones that hang callbacks on a peer, are refused, and a closed peer (QUIT
// is refused too) is dropped rather than reopened, which only miniredis can
// do.
func (n *Node) disconnect() {
	for i, p := range n.peers {
		if p == nil {
			continue
		}
		if p.Closed() {
			n.peers[i] = nil
			continue
		}
		p.Ctx, p.ClientName, p.Resp3, p.SwitchResp3 = nil, "", false, nil
	}
	clear(n.multi)
	n.connState = false
	n.selected = false // a connection made new is on database 0
}

func (n *Node) peer(conn int) *server.Peer {
	for len(n.peers) <= conn {
		n.peers = append(n.peers, nil)
		n.multi = append(n.multi, false)
	}
	if n.peers[conn] == nil {
		n.peers[conn] = server.NewPeer(n.w)
	}
	return n.peers[conn]
}

// setTime moves the node clock. miniredis reads the host clock when its time
// is zero, so zero means the Unix epoch here.
func (n *Node) setTime(now time.Time) {
	if now.IsZero() {
		now = time.Unix(0, 0)
	}
	n.clockTo(now)
	n.now = now
	n.m.SetTime(now)
}

// Key reports key at node time now: whether it exists, its type, its value
// (drawn for a type other than string: KeyState) and its TTL (-1 when it
// has none). Fresh is false: only the watched key's events say it
// (Watched).
func (n *Node) Key(now time.Time, key string) KeyState {
	if now.IsZero() || !now.Equal(n.now) {
		n.setTime(now)
	}
	n.watch.looked = true
	return n.readKey(key)
}

// Flush loses every key, script and connection: what a restart without
// persistence does. The Lua state stays, as Reset keeps it: nothing a script
// does outlives the script, so a kept state runs the next one exactly as a
// new state would, and making one was 6% of explore's time under node
// restarts.
func (n *Node) Flush() {
	n.flushAll()
	n.disconnect()
	n.forgetScripts()
	n.watch.last, n.watch.writer = KeyState{TTL: -1}, noWriter
}

// usesRandom says whether miniredis's command cmd draws from its random
// source: the commands that call its randIntn or shuffle (miniredis v2.40.0:
// cmd_hash.go, cmd_set.go, cmd_sorted_set.go; RANDOMKEY is refused). A command
// queued in MULTI is seen here when it is queued, before EXEC draws.
func usesRandom(cmd string) bool {
	switch len(cmd) {
	case 4, 10, 11:
		for _, r := range randomCommands {
			if strings.EqualFold(cmd, r) {
				return true
			}
		}
	}
	return false
}

var randomCommands = [...]string{"SPOP", "HRANDFIELD", "SRANDMEMBER", "ZRANDMEMBER"}

func errorReply(msg string) Reply { return Reply{Kind: Error, Str: msg} }

// IsName says whether arg is the command or option name (upper case), in
// any case and of the same length: a fold of another length (the long s,
// the Kelvin sign) is not a name a lock sends. The name as sent is compared
// first: locks send theirs in upper case, and a fold costs more than the
// comparison.
func IsName(arg, name string) bool {
	return len(arg) == len(name) && (arg == name || strings.EqualFold(arg, name))
}
