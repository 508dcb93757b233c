package node

import (
	"fmt"
	"time"
)

// Persistence is what a node keeps across a restart: Redis's appendonly and
// appendfsync settings. Whatever it keeps, a restart loses every connection
// (an open MULTI is discarded) and the script cache (Redis does not persist
// scripts loaded with SCRIPT LOAD).
type Persistence uint8

const (
	// PersistNone: no AOF, no RDB. A restart loses every key (Flush).
	PersistNone Persistence = iota
	// PersistEverysec: appendfsync everysec. The AOF is fsynced at every
	// whole second of node time; a restart keeps the commands run before
	// the last fsync point and loses the rest. A command run at node time t
	// survives a restart at node time R iff a whole second s has been
	// reached with t < s <= R. The restart is modelled as the machine's (a
	// power loss): a crash of the redis-server process alone would keep the
	// written but unsynced tail in the OS page cache, as always does. A
	// node clock that jumps backwards fsyncs again only once it passes the
	// highest whole second it had reached. This is everysec's best case: a
	// real server fsyncs about a second after its last fsync, in a thread a
	// slow disk delays, and postpones writes behind a running fsync for up
	// to 2 s, so it can lose up to about 2 s. A loss here is possible on a
	// real server; a keep is not guaranteed there.
	PersistEverysec
	// PersistAlways: appendfsync always. Every command is on disk before
	// its reply is sent: a restart keeps everything.
	PersistAlways
)

var persistNames = [...]string{"none", "aof-everysec", "aof-always"}

func (p Persistence) String() string {
	if int(p) < len(persistNames) {
		return persistNames[p]
	}
	return fmt.Sprintf("persistence(%d)", uint8(p))
}

// PersistenceNames lists the modes as files write them, in number order.
func PersistenceNames() []string { return append([]string(nil), persistNames[:]...) }

// ParsePersistence reads a mode as files write it.
func ParsePersistence(s string) (Persistence, bool) {
	for i, name := range persistNames {
		if s == name {
			return Persistence(i), true
		}
	}
	return 0, false
}

// aof is a node's append-only file. Under everysec it logs every command
// the node runs, reads included, with its connection and node time: a
// restart that lost commands rebuilds the node by replaying the kept prefix
// of the log into a node Reset to the same seed. Replaying reads too makes
// the rebuild exact (the same commands at the same node times from the same
// seed give the same keys, TTLs and random state); Redis logs only the
// writes, and the keys a reload leaves are the same. A restart that lost
// nothing (always, or everysec after a quiet second) keeps the node as it is:
// the replay would rebuild exactly that, at a cost growing with the log, so
// always logs nothing. Keys whose TTL ran out by the restart's node time are
// expired at once after it, as Redis does not serve them after a reload.
type aof struct {
	mode   Persistence
	log    []aofEntry
	synced int   // entries covered by the last fsync (everysec)
	second int64 // highest whole second of node time reached; aofNever before any
}

// aofEntry is one logged command, or a restart (args nil) at node time at,
// or a Disconnect (args nil, conn aofDisconnect).
type aofEntry struct {
	conn int
	at   int64 // node time, Unix nanoseconds
	args []string
}

// aofDisconnect is the conn of a logged Disconnect.
const aofDisconnect = -1

const aofNever = -1 << 63

// SetPersistence sets what the node keeps across Restart. It is called on a
// new or Reset node, before its first command.
func (n *Node) SetPersistence(p Persistence) {
	n.aof = aof{mode: p, second: aofNever}
}

// Persistence is the node's mode.
func (n *Node) Persistence() Persistence { return n.aof.mode }

// unixSecond is the whole second of t, rounded down.
func unixSecond(t time.Time) int64 {
	ns := t.UnixNano()
	s := ns / 1e9
	if ns%1e9 < 0 {
		s--
	}
	return s
}

// fsync is the everysec fsync: when now is in a whole second the node clock
// has not reached before, every command logged so far is on disk.
func (a *aof) fsync(now time.Time) {
	if s := unixSecond(now); s > a.second {
		a.second = s
		a.synced = len(a.log)
	}
}

// logged records a command about to run at node time now.
func (a *aof) logged(conn int, now time.Time, args []string) {
	a.fsync(now)
	a.log = append(a.log, aofEntry{conn: conn, at: now.UnixNano(), args: args})
}

// Restart is a restart of the server at node time now: what the node's
// persistence keeps stays, the rest is lost, and every connection and the
// script cache are gone. Without persistence it is Flush. It returns how
// many logged commands it replayed (the engine bounds their sum).
func (n *Node) Restart(now time.Time) (replayed int) {
	a := n.aof
	if n.watch.key != "" {
		// The reload is a new version when it differs from the one before.
		before, writer := n.watchBefore(now), n.watch.writer
		defer func() { n.settle(before, writer, n.readKey(n.watch.key), n.watch.writer) }()
	}
	if a.mode == PersistNone {
		n.Flush()
		return 0
	}
	keep := len(a.log)
	if a.mode == PersistEverysec {
		a.fsync(now)
		keep = a.synced
	}
	if keep < len(a.log) { // commands were lost: rebuild without them
		replayed = keep
		budget, capture, key, publish := n.ScriptBudget, n.capture, n.watch.key, n.Publish
		n.Reset(n.seed) // mode none, no capture, no Publish: the replay below logs, ships and publishes nothing
		n.ScriptBudget = budget
		defer func() { n.Publish = publish }()
		n.Watch(key) // the replay follows the versions again, with their writers
		for _, e := range a.log[:keep] {
			switch {
			case e.args == nil && e.conn == aofDisconnect:
				n.disconnect()
			case e.args == nil:
				n.restarted(time.Unix(0, e.at))
			default:
				n.Exec(e.conn, time.Unix(0, e.at), e.args)
			}
		}
		n.Capture(capture) // a primary's writes after the restart still go to its replicas
	}
	n.restarted(now)
	if a.mode == PersistEverysec {
		// In place: the lost tail is not needed again, and a full slice
		// expression here would copy the whole log at every restart.
		a.log = append(a.log[:keep], aofEntry{at: now.UnixNano()})
		a.synced = len(a.log)
	}
	n.aof = a
	return replayed
}

// restarted drops what a restart at node time now loses whatever the
// persistence, and counts the TTLs down to now: a replay does the same at
// each restart it passes, so that a node clock that later jumps backwards
// leaves the same TTLs in the rebuilt node as in the live one.
func (n *Node) restarted(now time.Time) {
	n.disconnect()
	n.forgetScripts()
	n.setTime(now)
	n.stepped() // miniredis counts TTLs down on a database access
}
