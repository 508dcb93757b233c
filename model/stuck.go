package model

import (
	"fmt"
	"math"
	"time"

	"github.com/locksim/locksim/sim"
)

// stuck: processes kept trying to acquire (an acquire in flight, or failed
// acquires one after another) while nobody held the lock, for at least 2×TTL;
// or, for a lock with no TTL, nobody acquired it again before the run ended.
// Waiting while a live process holds the lock is contention, not a stuck
// lock, so hold intervals are cut out of the waiting time; a crashed holder's
// hold ends at its crash, which is what makes its abandoned lock visible.
//
// A process is not trying while a pause has it stopped, so its paused spans
// are cut out of its waiting. With a TTL, waiting is also forgiven while a
// legitimate lease (lease.go) may keep the lock taken: an abandoned hold, a
// lost release, a write whose writer cannot know what it left. Nothing
// else: a failed try's own write of the key explains no waiting. Nor is
// waiting counted while too many nodes are down to acquire (outage.go).
//
// Nor is the network's waiting (trace.go, netWait): from the send of a try's
// command that had not reached its node when the process gave up on it,
// until the send of the process's next command that runs (or, with none
// before it stops trying, the last such give-up). That time is neither
// counted nor a break: a window is a stretch of waiting with no live holder,
// and it is stuck when what is left of it after the network's waiting still
// lasts 2×TTL. Without this, a free lock whose waiter lost four requests in
// a row under 15% loss was called stuck; with it, a lock that refuses every
// try that arrives is still stuck however many others the network loses.

func stuckViolations(t *trace, o Options, w *witnesses) []Violation {
	// all, busy and idle live in the trace's scratch (a long history's
	// lists are long): what is kept of them below is copied out.
	all := t.spanA[:0]
	for p, ws := range t.wants {
		if len(t.paused[p]) == 0 {
			all = append(all, ws...)
		} else {
			all = append(all, subtract(union(ws), union(t.paused[p]))...)
		}
	}
	all = unionIn(all, &t.spanC)
	t.spanA = all[:0]
	lastAcquire := sim.Time(math.MinInt64)
	for _, h := range t.holds {
		lastAcquire = max(lastAcquire, h.from)
	}
	busy := holdSpansIn(t, t.spanB[:0])
	t.spanB = busy[:0]
	if out := outageSpans(t); len(out) > 0 {
		busy = unionOwned(append(busy, out...))
	}
	var idle []span
	if o.TTL > 0 {
		if ab := abandonedLeases(t, o.TTL); len(ab) > 0 {
			busy = unionOwned(append(busy, ab...))
		}
		// The other leases only shrink the idle time: look for them (a
		// second walk of the history) only when there is a window to shrink.
		if idle = subtractIn(t.spanC[:0], all, busy); longest(idle) >= 2*sim.Time(o.TTL) {
			busy = unionOwned(append(busy, legitimateLeases(t, o.TTL)...))
			idle = subtractIn(idle[:0], all, busy)
		}
	} else {
		idle = subtractIn(t.spanC[:0], all, busy)
	}
	t.spanC = idle[:0]
	// A window is a stretch of idle time that lasts need; it is stuck when
	// what is left of it after the network's waiting still does.
	need := 2 * sim.Time(o.TTL)
	var windows []span
	if o.TTL > 0 {
		for _, s := range idle {
			if s.len() >= need {
				windows = append(windows, s)
			}
		}
	} else {
		// No TTL: the tail after the last acquisition, if they tried for at
		// least StaleBound in it (a run cut off mid-acquire is not a stuck
		// lock).
		need = sim.Time(o.StaleBound)
		var tail []span
		for _, s := range idle {
			if s.from >= lastAcquire {
				tail = append(tail, s)
			}
		}
		if len(tail) > 0 && measure(tail) >= need {
			windows = append(windows, span{tail[0].from, tail[len(tail)-1].to})
		}
	}
	// counted is idle less the network's waiting (the same list when there
	// is none), made only when there is a window to judge: most runs have
	// none.
	counted := idle
	if len(windows) > 0 {
		if c, lost := countedWaiting(t); lost {
			counted = subtract(c, busy)
			kept := windows[:0]
			for _, win := range windows {
				if measure(clip(counted, win)) >= need {
					kept = append(kept, win)
				}
			}
			windows = kept
		}
	}
	var vs []Violation
	for _, win := range windows {
		var procs []int
		var wit [][]int
		for p, ws := range t.wants {
			if len(clip(ws, win)) > 0 {
				procs = append(procs, p)
				wit = append(wit, w.lastCommands(t, p, indexAfter(t, win.to), 2))
			}
		}
		why := fmt.Sprintf("at least 2 × TTL (%v)", 2*o.TTL)
		if o.TTL == 0 {
			why = "and nobody acquired it again before the run ended (no TTL)"
		}
		took := time.Duration(win.len()).String()
		if net := measure(clip(idle, win)) - measure(clip(counted, win)); net > 0 {
			took += fmt.Sprintf(", %v of it waiting on tries the network lost, not counted", time.Duration(net))
		}
		vs = append(vs, Violation{
			Kind:      KindStuck,
			Processes: names(t, procs...),
			From:      win.from,
			To:        win.to,
			Detail: fmt.Sprintf("%s kept trying to acquire from %s to %s (%s) with no live holder, %s",
				joinNames(t, procs...), since(win.from), since(win.to), took, why),
			Witness: w.events(wit...),
		})
	}
	return vs
}

// countedWaiting is every process's waiting outside its pauses (stuck's
// all) less the network's waiting of each process: the time some process
// waited on the lock itself; lost says whether the network waited at all
// (without, the list is not made: it would be all).
func countedWaiting(t *trace) (counted []span, lost bool) {
	for _, nw := range t.netWaits {
		lost = lost || len(nw) > 0
	}
	if !lost {
		return nil, false
	}
	var out []span
	for p, ws := range t.wants {
		mine := union(ws)
		if len(t.paused[p]) > 0 {
			mine = subtract(mine, union(t.paused[p]))
		}
		if len(t.netWaits[p]) > 0 {
			mine = subtract(mine, union(t.netWaits[p]))
		}
		out = append(out, mine...)
	}
	return unionOwned(out), true
}

// holdSpans is when some live process held the lock. An acquisition, even one
// released at once, counts for at least a nanosecond: it breaks a wait.
func holdSpans(t *trace) []span { return holdSpansIn(t, make([]span, 0, len(t.holds))) }

// holdSpansIn is holdSpans appending to busy, memory the caller reuses.
func holdSpansIn(t *trace, busy []span) []span {
	for _, h := range t.holds {
		busy = append(busy, span{h.from, max(min(h.to, t.end), h.from+1)})
	}
	return unionOwned(busy)
}

// abandonedLeases is, for each hold that ended without a Release call (a
// crash, a stop, a failed extend), the time its lease still kept the lock
// from others.
func abandonedLeases(t *trace, ttl time.Duration) []span {
	var out []span
	for _, h := range t.holds {
		if h.end != endReleased && h.end != endOpen {
			out = append(out, span{h.to, h.to + sim.Time(ttl)})
		}
	}
	return out
}

// longest is the length of the longest span.
func longest(s []span) sim.Time {
	var n sim.Time
	for _, x := range s {
		n = max(n, x.len())
	}
	return n
}
