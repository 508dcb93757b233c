package node

import (
	"strconv"
	"strings"
	"time"
)

// Replication support: the engine (sim/replication.go) feeds a primary's
// write stream to its replicas, which are Nodes like any other. A node only
// says what a command wrote; the stream, its lag and failover are the
// engine's.

// Capture turns write capture on or off: while it is on, Effects after an
// Exec is what that command sends down the replication stream.
func (n *Node) Capture(on bool) {
	n.capture = on
	n.effects, n.effArgs = n.effects[:0], n.effArgs[:0]
}

// Effects is the replication stream of the last Exec, in order: the command
// itself when it may write (every command miniredis does not mark
// read-only, and the transaction commands, so that a replica queues and
// aborts exactly as its primary did), or, for a script, the write commands
// the script ran (effects replication, Redis's only mode since 7.0). Empty
// for a read. The lists are the node's until the next Exec.
func (n *Node) Effects() [][]string { return n.effects }

// effect appends a copy of args to Effects. The copies are cut from one
// buffer, which the next Exec reuses (a new list for each write was half
// the allocations of the node's own code in a replicated run).
func (n *Node) effect(args []string) {
	start := len(n.effArgs)
	n.effArgs = append(n.effArgs, args...)
	n.effects = append(n.effects, n.effArgs[start:len(n.effArgs):len(n.effArgs)])
}

// replicated says whether command name (upper case) goes down the stream.
func (n *Node) replicated(name string) bool {
	switch name {
	case "WATCH", "UNWATCH":
		return true
	}
	return !n.srv.IsReadOnlyCommand(name)
}

// RunByEngine reports whether the engine, not the node, runs command cmd
// (any case): WAIT, which waits on the replicas, BLPOP and BRPOP, which
// wait for a push, and SUBWAIT, locksim's wait for a message on a channel
// (sim/pubsub.go). A node refuses them or does not know them (Exec, and
// inside scripts as Redis does); a client's own goes to the engine.
func RunByEngine(cmd string) bool {
	return strings.EqualFold(cmd, "WAIT") || strings.EqualFold(cmd, "BLPOP") || strings.EqualFold(cmd, "BRPOP") ||
		strings.EqualFold(cmd, "SUBWAIT")
}

// Disconnect drops every client connection (and its MULTI or WATCH state),
// keeping the data: what clients see when a replica is promoted and they
// connect to it afresh. Under everysec the log records it, so that a replay
// drops the connections where the node did: a MULTI or WATCH the replica
// had applied does not hold the clients' later commands.
func (n *Node) Disconnect() {
	if n.aof.mode == PersistEverysec {
		n.aof.log = append(n.aof.log, aofEntry{conn: aofDisconnect})
	}
	n.disconnect()
}

// WaitArgs checks WAIT's arguments as Redis words its errors; the engine
// runs WAIT itself, since it waits on the replicas. ok is false with the
// error reply when they are wrong, or when conn is inside MULTI (a queued
// WAIT is not simulated).
func (n *Node) WaitArgs(conn int, args []string) (numReplicas, timeoutMs int64, errReply Reply, ok bool) {
	p := n.peer(conn)
	if n.multi[conn] {
		n.spoilTx(conn)
		return 0, 0, errorReply("ERR locksim: WAIT inside MULTI is not simulated"), false
	}
	// miniredis's WAIT checks the arguments and answers 0 when they are
	// right.
	if r := n.dispatch(p, args); r.Kind == Error {
		return 0, 0, r, false
	}
	nr, _ := strconv.Atoi(args[1])
	tm, _ := strconv.Atoi(args[2])
	return int64(nr), int64(tm), Reply{}, true
}

// Apply runs one entry of a primary's stream, cmds in order at the
// primary's node time now, as one event: the watched key is compared before
// the first and after the last, and a new version is conn's, the client
// whose command on the primary wrote the entry.
func (n *Node) Apply(conn int, now time.Time, cmds [][]string) {
	if n.watch.key == "" {
		for _, c := range cmds {
			n.execCapture(conn, now, c)
		}
		return
	}
	before := n.watchBefore(now)
	for _, c := range cmds {
		n.execCapture(conn, now, c)
	}
	n.watchAfter(conn, before)
}
