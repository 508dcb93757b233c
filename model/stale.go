package model

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/sim"
)

// stale: Release returned success, yet on some node the key stayed in a
// version the releaser wrote (versions.go) for the hold it released (from
// that hold's Acquire call on, but for a failed try whose clean-up got no
// reply: ownLeftovers), for longer than StaleBound while another process
// was trying to acquire. The version is taken to be gone when a later
// command on that node finds the key absent or in another version, when its
// TTL (as the last command saw it) runs out, or when the node restarts
// without it. A version another process wrote is not this release's
// leftover, whatever its value. Time others waited while a live process
// held the lock is contention, not staleness, and does not count.
//
// Stale splits by cause. A key is stale only when the release's commands on
// that node ran and their replies came back (the algorithm's own release
// left the key behind), or when the lock has no TTL (nothing will ever
// clear it). When a command of the release on that node got no reply (the
// request or the reply was lost, or too slow) and the key has a TTL, the key
// lives out its TTL as a TTL lock is designed to: that is a note on the run,
// not a violation.

func staleViolations(t *trace, o Options, w *witnesses) ([]Violation, []Note) {
	// Only a release that left its own version of the key behind (extract
	// found each key left, ownLeftovers whose it is) has anything to
	// explain: a clean run stops here.
	if t.ownLeftovers(); len(t.leftovers) == 0 {
		return nil, nil
	}
	w.build(len(t.wants), t.nodes)
	busy := holdSpans(t)
	var vs []Violation
	var notes []Note
	for rest := t.leftovers; len(rest) > 0; {
		ri := rest[0].rel
		r := t.releases[ri]
		end := 1
		for end < len(rest) && rest[end].rel == ri {
			end++
		}
		left := rest[:end]
		rest = rest[end:]
		var nodes, wit, lostNodes []int
		var lostGone sim.Time
		waiters := make([]bool, len(t.wants))
		var gone, waited sim.Time
		for _, l := range left {
			n, c := l.node, l.cmd
			k := t.h.Events[c].Key
			g := keyGone(t, w, n, c)
			if g <= r.at {
				continue
			}
			win := span{r.at, g}
			var others []span
			for p, ws := range t.wants {
				if c := clip(ws, win); p != r.proc && len(c) > 0 {
					others = append(others, c...)
					waiters[p] = true
				}
			}
			m := measure(subtract(union(others), busy))
			if m <= sim.Time(o.StaleBound) {
				continue
			}
			if o.TTL > 0 && k.TTL >= 0 && l.lost {
				lostNodes, lostGone = append(lostNodes, n), max(lostGone, g)
				continue
			}
			nodes, wit = append(nodes, n), append(wit, c)
			gone, waited = max(gone, g), max(waited, m)
		}
		if len(lostNodes) > 0 {
			notes = append(notes, Note{From: r.at, To: lostGone, Processes: names(t, r.proc),
				Text: fmt.Sprintf("%s's release at %s got no reply from node%s %s (lost on the network): the key lived out its TTL until %s, as a TTL lock is built to",
					t.name(r.proc), since(r.at), text.Plural(len(lostNodes), "s"), joinInts(lostNodes), since(lostGone))})
		}
		if len(nodes) == 0 {
			continue
		}
		procs := []int{r.proc}
		for p, waiting := range waiters {
			if waiting {
				procs = append(procs, p)
			}
		}
		vs = append(vs, Violation{
			Kind:      KindStale,
			Processes: names(t, procs...),
			From:      r.at,
			To:        gone,
			Detail: fmt.Sprintf("%s released the lock at %s but the key stayed on node%s %s until %s while others waited %v",
				t.name(r.proc), since(r.at), text.Plural(len(nodes), "s"), joinInts(nodes), since(gone), time.Duration(waited)),
			Witness: w.events(w.lastCommands(t, r.proc, r.idx, 3), wit),
		})
	}
	return vs, notes
}

// keyGone is when the key version that command c left on node n went
// away, at the latest the end of the run: a later event there leaves the key
// absent or begins another version (versions.go). A node restart loses it,
// unless the node persisted it: the restart's event then carries the key as
// the reload left it, and is read like a command.
func keyGone(t *trace, w *witnesses, n, c int) sim.Time {
	prev := t.h.Events[c].Key
	deadline := expiry(t.h.Events[c])
	cmds, resets := w.byNode[n], w.resets[n]
	k, _ := slices.BinarySearch(cmds, c+1)
	r, _ := slices.BinarySearch(resets, c+1)
	for k < len(cmds) || r < len(resets) {
		var d int
		if r == len(resets) || k < len(cmds) && cmds[k] < resets[r] {
			d, k = cmds[k], k+1
		} else {
			d, r = resets[r], r+1
		}
		e := t.h.Events[d]
		if deadline <= e.At {
			break
		}
		if !e.Key.Exists || beginsVersion(prev, e.Key) {
			return e.At
		}
		prev, deadline = e.Key, expiry(e) // the TTL may have been extended
	}
	return min(deadline, t.end)
}

// expiry is when the watched key runs out by its TTL as e saw it.
func expiry(e sim.Event) sim.Time {
	if e.Key.TTL < 0 {
		return forever
	}
	return e.At + sim.Time(e.Key.TTL)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
