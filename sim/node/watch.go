package node

import (
	"math"
	"strconv"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// The watched key: a node follows one key across its events, so that what
// it records after each one says whether the event began a new version of
// the key (KeyState.Fresh) and whose it is. Every path that changes the
// node's data passes here: Exec (a command or a script, a replica's applied
// entry, a replayed AOF entry), Apply, Restart, Flush, Reset, TakeOver.

// noWriter is the writer of a key that does not exist.
const noWriter = -1

// watch is the watched key's tracker.
type watch struct {
	key    string
	last   KeyState  // after the node's last event
	at     time.Time // node time of that look
	writer int       // conn whose command wrote the version last holds; noWriter when absent
	// looked says the data was read since (Key) at a time of its own, which
	// counts TTLs down as the last look did not: the next event looks again.
	looked bool
}

// Watch makes key the node's watched key ("" for none); the node reads it
// as it is now. Reset forgets it.
func (n *Node) Watch(key string) {
	n.watch = watch{key: key, last: KeyState{TTL: -1}, writer: noWriter}
	if key != "" {
		n.setTime(n.now) // a new node's zero time is the epoch
		n.watch.last, n.watch.at = n.readKey(key), n.now
	}
}

// Watched is the watched key right after the node's last event, Fresh when
// that event began a new version.
func (n *Node) Watched() KeyState { return n.watch.last }

// Observe is an event that runs no command at node time now (the engine's
// WAIT): the watched key as it is then, which a command-less event can only
// have let expire, so never Fresh.
func (n *Node) Observe(now time.Time) KeyState {
	if n.watch.key != "" {
		before := n.watchBefore(now)
		n.setTime(now)
		n.watchAfter(noWriter, before)
	}
	return n.watch.last
}

// watchBefore is the watched key at node time now, just before an event:
// what the last event left, unless it has expired since. It needs no look
// at the data: no command ran since the last look (every one is an
// event), and miniredis counts a TTL down by the node time that passed
// since the last access (none when the clock went back), which the last
// look was. A hash looks once a command may have given fields TTLs of
// their own (fieldTTLs), which can lose it fields; any key looks after a
// Key.
func (n *Node) watchBefore(now time.Time) KeyState {
	b := n.watch.last
	b.Fresh = false
	counted := b.Type == KeyString || !n.fieldTTLs
	switch {
	case !b.Exists || b.TTL < 0 && counted:
		return b
	case counted && !n.watch.looked:
		if d := now.Sub(n.watch.at); d > 0 {
			if b.TTL -= d; b.TTL <= 0 {
				return KeyState{TTL: -1}
			}
		}
		return b
	}
	return n.lookBefore(now)
}

// lookBefore is watchBefore from the data itself.
func (n *Node) lookBefore(now time.Time) KeyState {
	b := n.watch.last
	b.Fresh = false
	n.setTime(now)
	db := n.stepped()               // counts TTLs down to now, dropping the expired
	if db.Type(n.watch.key) == "" { // Type, unlike Exists, leaves OBJECT IDLETIME alone
		return KeyState{TTL: -1}
	}
	if b.TTL = db.TTL(n.watch.key); b.TTL == 0 {
		b.TTL = -1
	}
	if b.Type != KeyString { // fields may have expired
		_, b.Value = draw(db, n.watch.key)
	}
	return b
}

// watchAfter reads the watched key after an event by writer (the conn whose
// command ran, or noWriter) that began with the key as before.
func (n *Node) watchAfter(writer int, before KeyState) {
	after := n.readKey(n.watch.key)
	n.settle(before, n.watch.writer, after, writer)
}

// The watched key is followed through an Exec's commands (a script runs
// several) from their replies where the command says what it left: a read
// of the data after every command cost three of miniredis's locks and five
// map lookups, a tenth of a run's engine cost. What is followed is what the
// read would have found, and touches nothing the read would have: each
// followed command named the key, which touched its idle time at the same
// node time, or deleted it; no TTL counts down within an event.

// keyFollow is the watched key as the commands of the Exec running left
// it, while on.
type keyFollow struct {
	on  bool
	key KeyState
	// ran says a followed command ran: the data was touched at node time
	// now (TTLs counted down to it, the key's idle time) as the read would.
	// Without one (a command refused before it reached miniredis), the data
	// is read.
	ran bool
	// touch says a followed command may have left the key's idle time
	// alone: settleFollowed touches it as the read would have.
	touch bool
}

// startFollow follows the key from before (the data as the event found it,
// TestWatchBeforeCountsAsTheData), on a node whose connections are all on
// database 0: from a string or an absent key, or from a key of another
// type while no field can have a TTL of its own (a read could expire one).
func (n *Node) startFollow(before KeyState) {
	n.follow = keyFollow{on: !n.readBack && !n.selected && (!before.Exists || before.Type == KeyString || !n.fieldTTLs), key: before}
}

// followed takes args, a command that ran with reply r, into the followed
// key, or stops following when it cannot say what args left: GET of the key
// that replied a value or null leaves it, as do EXISTS, TTL and PTTL of it
// alone and HEXISTS and HGET of one of its fields that replied a count, a
// value or null (a waiter's poll of a hash lock); DEL of it alone that
// replied a count leaves it absent; SETNX that replied 0 leaves it, and
// SETNX that replied 1 and GETSET that replied a value or null wrote the
// value with no TTL (a timestamp lock's poll and takeover); SET of it with
// no option but NX, XX, EX and PX, each once, that replied OK wrote the
// value with its TTL (none without EX or PX), and one that replied null (NX
// of a key that exists, XX of one that does not) left it. Anything else, a
// reply queued in MULTI or an error included, stops.
func (n *Node) followed(args []string, r Reply) {
	if n.selected || len(args) < 2 || args[1] != n.watch.key {
		n.follow.on = false
		return
	}
	n.follow.ran = true
	switch {
	case len(args) == 2 && IsName(args[0], "GET") && (r.Kind == Bulk || r.Kind == Nil):
	case len(args) == 2 && r.Kind == Int && (IsName(args[0], "EXISTS") || IsName(args[0], "PTTL") || IsName(args[0], "TTL")),
		len(args) == 3 && (r.Kind == Int && (IsName(args[0], "HEXISTS") || IsName(args[0], "SETNX") && r.Int == 0) ||
			(r.Kind == Bulk || r.Kind == Nil) && IsName(args[0], "HGET")):
		n.follow.touch = true // some of these leave the key's idle time as it was: the read would not
	case len(args) == 2 && IsName(args[0], "DEL") && r.Kind == Int:
		n.follow.key = KeyState{TTL: -1}
	case len(args) == 3 && (r.Kind == Int && r.Int == 1 && IsName(args[0], "SETNX") ||
		(r.Kind == Bulk || r.Kind == Nil) && IsName(args[0], "GETSET")):
		// SETNX of an absent key, GETSET clearing the TTL (miniredis's stringSet touches it)
		n.follow.key = KeyState{Exists: true, Value: args[2], TTL: -1}
	case IsName(args[0], "SET"):
		n.follow.on = n.followSet(args, r)
	default:
		n.follow.on = false
	}
}

// settleFollowed records the followed key as the watched key after the
// event, as watchAfter would from the data; the read it stands for also
// counted as an access of the key (its idle time, OBJECT IDLETIME), which
// some followed reads do not.
func (n *Node) settleFollowed(before KeyState, writer int) {
	if n.follow.touch && n.follow.key.Exists {
		// No clock step: the followed command stepped to now (ran), or
		// owes that step (pollDB), which leaves the key where it is.
		n.db0.Exists(n.watch.key)
	}
	n.settle(before, n.watch.writer, n.follow.key, writer)
}

// givesFieldTTLs says whether command name may give a hash's fields TTLs
// of their own (HEXPIRE, HSETEX, and any H…EX… miniredis adds, such as
// HPEXPIRE or HGETEX; not HEXISTS), so that a hash can lose fields with no
// command: from then on the node looks at a watched hash rather than
// counting it (watchBefore).
func givesFieldTTLs(name string) bool {
	if len(name) < 5 || name[0]|0x20 != 'h' || IsName(name, "HEXISTS") {
		return false
	}
	for i := 1; i+1 < len(name); i++ {
		if name[i]|0x20 == 'e' && name[i+1]|0x20 == 'x' {
			return true
		}
	}
	return false
}

// followSet follows a SET (followed); false when it cannot.
func (n *Node) followSet(args []string, r Reply) bool {
	if len(args) < 3 {
		return false
	}
	var cond, expiry bool
	ttl := time.Duration(-1)
	for i := 3; i < len(args); i++ {
		switch opt := args[i]; {
		case !cond && (IsName(opt, "NX") || IsName(opt, "XX")):
			cond = true
		case !expiry && i+1 < len(args) && (IsName(opt, "EX") || IsName(opt, "PX")):
			expiry = true
			// miniredis's own parse: Atoi, times the unit.
			v, err := strconv.Atoi(args[i+1])
			unit := time.Millisecond
			if IsName(opt, "EX") {
				unit = time.Second
			}
			if err != nil || v <= 0 || int64(v) > math.MaxInt64/int64(unit) {
				return false
			}
			ttl = time.Duration(v) * unit
			i++
		default:
			return false
		}
	}
	switch {
	case r.Kind == Status && r.Str == "OK":
		n.follow.key = KeyState{Exists: true, Value: args[2], TTL: ttl}
		return true
	case r.Kind == Nil && cond:
		return true
	}
	return false
}

// settle records after, left by writer, as the watched key's state after an
// event that found before, written by beforeWriter.
func (n *Node) settle(before KeyState, beforeWriter int, after KeyState, writer int) {
	after.Fresh = freshVersion(before, beforeWriter, after, writer)
	switch {
	case after.Fresh:
		n.watch.writer = writer
	case !after.Exists:
		n.watch.writer = noWriter
	}
	n.watch.last, n.watch.at, n.watch.looked = after, n.now, false
}

// freshVersion says whether after, left by writer, is a new version of a key
// that was before, written by beforeWriter (KeyState's rule): it exists, and
// was absent, or had another type or content, or its writer changes and so
// does its TTL.
func freshVersion(before KeyState, beforeWriter int, after KeyState, writer int) bool {
	if !after.Exists {
		return false
	}
	return !before.Exists || before.Type != after.Type || before.Value != after.Value ||
		writer != beforeWriter && before.TTL != after.TTL
}

// TakeOver records the watched key as a failover leaves it on n, the
// replica promoted in place of prev at node time now: Fresh when it differs
// from the version prev held then. prev is not used again.
func (n *Node) TakeOver(now time.Time, prev *Node) KeyState {
	if n.watch.key == "" {
		return KeyState{TTL: -1}
	}
	before, beforeWriter := KeyState{TTL: -1}, noWriter // prev followed no such key
	if prev.watch.key == n.watch.key {
		before, beforeWriter = prev.watchBefore(now), prev.watch.writer
	}
	if !before.Exists {
		beforeWriter = noWriter
	}
	n.setTime(now)
	// The promoted version stays its writer's: the replica's own tracker
	// followed the stream's writers.
	n.settle(before, beforeWriter, n.readKey(n.watch.key), n.watch.writer)
	return n.watch.last
}

// readKey reads key at the node's time: the cheap path for a string (one
// Get and one TTL, as before the node drew other types), the drawing for
// the rest.
func (n *Node) readKey(key string) KeyState {
	db := n.stepped() // applies expiry up to now once
	value, err := db.Get(key)
	switch err {
	case nil:
	case miniredis.ErrKeyNotFound: // returned as is; errors.Is was a sixth of Key
		return KeyState{TTL: -1}
	default: // ErrWrongType
		var t KeyType
		t, value = draw(db, key)
		ks := KeyState{Exists: true, Type: t, Value: value, TTL: db.TTL(key)}
		if ks.TTL == 0 {
			ks.TTL = -1
		}
		return ks
	}
	ks := KeyState{Exists: true, Value: value, TTL: db.TTL(key)}
	if ks.TTL == 0 {
		ks.TTL = -1
	}
	return ks
}

// draw reads a key that is not a string, canonically drawn.
func draw(db *miniredis.RedisDB, key string) (KeyType, string) {
	t, _ := ParseKeyType(db.Type(key))
	switch t {
	case KeyHash:
		fields, _ := db.HKeys(key)
		pairs := make([]string, 0, 2*len(fields))
		for _, f := range fields {
			pairs = append(pairs, f, db.HGet(key, f))
		}
		return t, DrawHash(pairs)
	case KeySet:
		members, _ := db.Members(key)
		return t, DrawSet(members)
	case KeyList:
		items, _ := db.List(key)
		return t, DrawList(items)
	case KeyZSet:
		m, _ := db.SortedSet(key)
		members := make([]string, 0, len(m))
		for k := range m { // DrawZSet orders them
			members = append(members, k)
		}
		scores := make([]float64, len(members))
		for i, k := range members {
			scores[i] = m[k]
		}
		return t, DrawZSet(members, scores)
	case KeyStream:
		entries, _ := db.Stream(key)
		ids := make([]string, len(entries))
		pairs := make([][]string, len(entries))
		for i, e := range entries {
			ids[i], pairs[i] = e.ID, e.Values
		}
		return t, DrawStream(ids, pairs)
	}
	return t, ""
}
