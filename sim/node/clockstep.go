package node

import (
	"time"

	"github.com/alicebob/miniredis/v2"
)

// miniredis counts TTLs down on every database access (ClockTTL): by the
// node time since its last access, none when its clock went back. That
// step lists, sorts and visits every key, and a waiter's poll paid it at
// each poll: 15% of the matrix's CPU (2026-12-03). A poll
// reads one key, and the step changes nothing of that key but its TTL
// unless the step expires it, so answerPoll reads the data unstepped and
// owes the step (pollDB). What is owed is paid before anything else reads
// the data, as the step miniredis would have made at the last poll's time,
// so miniredis's TTLs, expiries and clock are as if every poll had stepped.
// TestPollsAsMiniredis and TestPollsOweTheStep compare with a node that
// steps at every poll.

// clockStep is what the node knows of miniredis's last step.
type clockStep struct {
	// at is the node time of miniredis's last step (its lastTick), zero
	// when not known: after a command that may or may not have accessed
	// the data (a dispatch).
	at time.Time
	// owed, when not zero, is the node time of the last poll that did not
	// step: miniredis's TTLs are those of at, counted down to owed by
	// nobody yet.
	owed time.Time
	// read is what polls read of one key in the data as this step left
	// it, which only a step, a dispatch or a flush changes (flushAll): a
	// hash lock's poll reads its key three times a script (EXISTS, HEXISTS,
	// PTTL), each under miniredis's lock, and HEXISTS's listing sorts the
	// fields.
	read polledKey
}

// polledKey is what polls read of key, each part once.
type polledKey struct {
	key    string
	timed  bool // ttl is miniredis's TTL of key (0: none, or no key)
	ttl    time.Duration
	typed  bool // typ is key's type ("" for none)
	typ    string
	listed bool // fields are key's, a hash's, sorted (HKeys)
	fields []string
}

// read is the poll memo for key, made new when it was of another key.
func (n *Node) read(key string) *polledKey {
	if r := &n.step.read; r.key != key {
		*r = polledKey{key: key}
	}
	return &n.step.read
}

// ttlOf is db.TTL(key) for a poll, db the data as the step left it.
func (n *Node) ttlOf(db *miniredis.RedisDB, key string) time.Duration {
	r := n.read(key)
	if !r.timed {
		r.ttl, r.timed = db.TTL(key), true
	}
	return r.ttl
}

// typeOf is db.Type(key) for a poll.
func (n *Node) typeOf(db *miniredis.RedisDB, key string) string {
	r := n.read(key)
	if !r.typed {
		r.typ, r.typed = db.Type(key), true
	}
	return r.typ
}

// hashFields is db.HKeys(key) for a poll of a hash whose access time is now
// already, which the listing would set. Fields that expire on their own
// (fieldTTLs) need no care: pollDB then steps at every poll.
func (n *Node) hashFields(db *miniredis.RedisDB, key string) []string {
	r := n.read(key)
	if !r.listed {
		r.fields, _ = db.HKeys(key)
		r.listed = true
	}
	return r.fields
}

// stepped is database 0 after a step to the node's time, which anything
// that reads the data takes first: a step to now subsumes an owed one,
// which is no later than now (setTime).
func (n *Node) stepped() *miniredis.RedisDB {
	db := n.m.DB(0) // the clock step
	n.step = clockStep{at: n.now}
	return db
}

// pollDB is database 0 for a poll of key at the node's time, and what
// miniredis's TTL of key overstates it by: stepped when the node cannot
// say what a step would leave of key (the time of the last step unknown,
// fields that may expire on their own) or when the step expires key; else
// unstepped, owing the step.
func (n *Node) pollDB(key string) (db *miniredis.RedisDB, over time.Duration) {
	if n.step.at.IsZero() || n.fieldTTLs {
		return n.stepped(), 0
	}
	over = n.now.Sub(n.step.at)
	if over == 0 {
		return n.db0, 0
	}
	if ttl := n.ttlOf(n.db0, key); ttl < 0 || ttl > 0 && ttl <= over {
		return n.stepped(), 0 // the step drops key
	}
	n.step.owed = n.now
	n.owes++
	return n.db0, over
}

// flushAll empties miniredis, with no step: what polls read of it goes too.
func (n *Node) flushAll() {
	n.m.FlushAll()
	n.step.read = polledKey{}
	n.accessed = ""
}

// payOwed makes the step a poll owed, at its time, so that miniredis's
// clock and data are what they would be had the poll stepped; the node's
// clock is left as it was.
func (n *Node) payOwed() {
	switch owed := n.step.owed; {
	case owed.IsZero():
	case owed.Equal(n.now): // a script's poll, then its write
		n.stepped()
	default:
		n.m.SetTime(owed)
		n.m.DB(0) // the clock step
		n.m.SetTime(n.now)
		n.step = clockStep{at: owed}
	}
}

// clockTo is setTime's part: a clock that goes back before an owed step
// pays it first, since miniredis then counts from the new time (no TTL
// counts up) and the step to the poll's time would be lost.
func (n *Node) clockTo(now time.Time) {
	if !n.step.owed.IsZero() && now.Before(n.step.owed) {
		n.payOwed()
	}
	if now.Before(n.step.at) { // never when at is zero: now is not (setTime)
		n.step.at = now // miniredis's own rule (SetTime)
	}
}
