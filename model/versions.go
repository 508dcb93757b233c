package model

import (
	"github.com/locksim/locksim/sim"
)

// Versions of the watched key. A lease is a version of the key, and a
// version belongs to the process whose command wrote it, whatever the value
// holds: the checkers ask who wrote the key, never whether its value equals
// a token (the value's encoding, a prefix, JSON or a hash of owners, is the
// algorithm's business).
//
// The key's lanes are the nodes and the replicas (History.Replicas). An
// event carries the key on its lane when it is a command, a replica's entry,
// or a fault that lost or reloaded a node's data (a restart, a failover). It
// begins a new version when the key exists after it and the event is marked
// Fresh (the engine saw a new version begin: sim/node's KeyState), or the
// key's existence, type or content differs from the lane's previous
// key-carrying event (what a history without Fresh marks, a hand-made one
// or an older engine's, still shows).
//
// A version's writer is the command's process; for a replica's entry, the
// process of the primary's command with the same request id; for a
// failover, the writer of the promoted replica's version when the key it
// promotes is that version, else unknown; for a restart's reload, unknown
// (the reload brings back an older write, not a new one). An unknown writer
// is -1: no process of the run is credited with the version.

// beginsVersion says whether key state now, after an event on a lane whose
// previous key-carrying event left prev, begins a new version there.
func beginsVersion(prev, now sim.KeyState) bool {
	return now.Exists && (now.Fresh || !prev.Exists || prev.Type != now.Type || prev.Value != now.Value)
}

// carriesKey says whether e leaves the watched key's state on a lane, and
// which lane.
func carriesKey(e *sim.Event) (lane int, ok bool) {
	switch e.Kind {
	case sim.KindCommand, sim.KindReplicate:
		return e.Node, e.Node >= 0
	case sim.KindFault:
		return e.Node, e.Node >= 0 && e.Fault.LosesData()
	}
	return 0, false
}

// laneVersion is the key on one lane as the walk last saw it.
type laneVersion struct {
	key     sim.KeyState
	writer  int32 // the current version's writer; -1 unknown
	version int32 // the current version's id; -1 while the key is absent
	from    int   // the event that began the current version
}

// versionWalk follows the key's versions lane by lane, fed the events in
// order. The stale check (ownLeftovers) and KeyVersions, which the reports
// draw, both run it, so they agree on every version; keyGone and stuck's
// key writes (lease.go), which need no writer, apply beginsVersion alone.
type versionWalk struct {
	lanes []laneVersion
	ran   ranRequests // whose command each request ran: a replica's writer
	count int32       // versions begun so far
}

// reset readies w for h, reusing its memory.
func (w *versionWalk) reset(h *sim.History) {
	w.lanes, w.count = w.lanes[:0], 0
	w.ran.reset(h)
}

// step reads event e, the history's event i: on a key-carrying event, it
// returns the lane and whether the event began a version there.
func (w *versionWalk) step(i int, e *sim.Event) (lane int, begins, ok bool) {
	if e.Kind == sim.KindCommand {
		w.ran.mark(e.Req, e.Proc)
	}
	if lane, ok = carriesKey(e); !ok {
		return 0, false, false
	}
	for len(w.lanes) <= lane {
		w.lanes = append(w.lanes, laneVersion{writer: -1, version: -1})
	}
	l := &w.lanes[lane]
	begins = beginsVersion(l.key, e.Key)
	switch {
	case !e.Key.Exists:
		l.writer, l.version = -1, -1
	case begins:
		l.writer, l.version, l.from = w.writer(e), w.count, i
		w.count++
	}
	l.key = e.Key
	return lane, begins, true
}

// writer is who wrote the version event e begins (see the rule above).
func (w *versionWalk) writer(e *sim.Event) int32 {
	switch e.Kind {
	case sim.KindCommand:
		return int32(e.Proc)
	case sim.KindReplicate:
		return w.ran.proc(e.Req)
	case sim.KindFault:
		if e.Fault.Promotes() && e.Value > 0 && int(e.Value) < len(w.lanes) {
			if r := &w.lanes[e.Value]; r.version >= 0 && r.key.Type == e.Key.Type && r.key.Value == e.Key.Value {
				return r.writer
			}
		}
	}
	return -1
}

// KeyVersion is one version of the watched key on one lane: the key as one
// writer left it, from the event that began it.
type KeyVersion struct {
	Lane   int // a node, or a replica's lane (History.Nodes + its index)
	Writer int // the process that wrote it; -1 when no process of the run is known to have
	Event  int // index in History.Events of the event that began it
	_      struct{}
}

// KeyVersions walks h's watched key: its versions in the order they began,
// and, for each event of h, the version the event leaves on its lane (an
// index in the versions), or -1 when the event carries no key or leaves it
// absent.
func KeyVersions(h *sim.History) ([]KeyVersion, []int) {
	var w versionWalk
	w.reset(h)
	var vs []KeyVersion
	at := make([]int, len(h.Events))
	for i := range h.Events {
		e := &h.Events[i]
		at[i] = -1
		lane, begins, ok := w.step(i, e)
		if !ok {
			continue
		}
		if begins {
			l := &w.lanes[lane]
			vs = append(vs, KeyVersion{Lane: lane, Writer: int(l.writer), Event: i})
		}
		at[i] = int(w.lanes[lane].version)
	}
	return vs, at
}
