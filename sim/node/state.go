package node

import (
	"slices"
	"time"
)

// State visits what of the node decides its future replies, in a fixed
// order, at node time now (not before the node's last command): every key
// of db 0 as KeyState reads it (TTLs counted down to now), the loaded
// scripts, the watched key's tracker and the scripts' write budget. ok is
// false when some of it cannot be read (persistence on, miniredis's random
// source drawn from, a transaction open, whose queued commands miniredis
// keeps, or a connection that sent WATCH, SELECT, CLIENT or HELLO): the caller must then
// treat the node as unlike any other. Reading moves the node's
// clock to now, as a command at now would, and marks the data looked at
// (watch.go), so the node's later events are what they would have been.
func (n *Node) State(now time.Time, str func(string), num func(int64)) (ok bool) {
	if n.aof.mode != PersistNone || n.seeded || n.connState || slices.Contains(n.multi, true) {
		return false
	}
	if !now.Equal(n.now) {
		n.setTime(now)
	}
	n.watch.looked = true
	keys := n.stepped().Keys() // sorted
	num(int64(len(keys)))
	for _, k := range keys {
		ks := n.readKey(k)
		str(k)
		num(int64(ks.Type))
		str(ks.Value)
		num(int64(ks.TTL))
	}
	shas := make([]string, 0, len(n.scripts))
	for sha := range n.scripts {
		shas = append(shas, sha)
	}
	slices.Sort(shas) // never the map's order
	num(int64(len(shas)))
	for _, sha := range shas {
		str(sha)
	}
	w := n.watch.last
	str(w.Value)
	num(int64(w.Type))
	num(int64(w.TTL))
	if w.Exists {
		num(1)
	}
	num(int64(n.watch.writer))
	num(n.written)
	return true
}
