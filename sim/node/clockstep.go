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
	// read is what the Exec running read of one key in the data as this
	// step left it: a script's polls read the same key three times (EXISTS,
	// HEXISTS, PTTL), and each read costs miniredis's lock.
	read polledKey
}

// polledKey is what polls read of key since the last step and dispatch in
// one Exec (cleared at each: exec), which nothing but a dispatch changes.
type polledKey struct {
	key string
	// checked: the step owed leaves key (pollDB), whose TTL is ttl.
	checked bool
	ttl     time.Duration
	// typed: key's type is typ ("" for none).
	typed bool
	typ   string
}

// read is the poll memo for key, made new when it was of another key.
func (n *Node) read(key string) *polledKey {
	if r := &n.step.read; r.key != key {
		*r = polledKey{key: key}
	}
	return &n.step.read
}

// typeOf is db.Type(key) for a poll, read once per Exec.
func (n *Node) typeOf(db *miniredis.RedisDB, key string) string {
	r := n.read(key)
	if !r.typed {
		r.typ, r.typed = db.Type(key), true
	}
	return r.typ
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
	r := n.read(key)
	if !r.checked {
		ttl := n.db0.TTL(key)
		if ttl < 0 || ttl > 0 && ttl <= over {
			return n.stepped(), 0 // the step drops key
		}
		r.checked, r.ttl = true, ttl
	}
	n.step.owed = n.now
	n.owes++
	return n.db0, over
}

// ttlOf is db.TTL(key) for a poll, read once per Exec when pollDB read it.
func (n *Node) ttlOf(db *miniredis.RedisDB, key string) time.Duration {
	if r := n.read(key); r.checked {
		return r.ttl
	}
	return db.TTL(key)
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
