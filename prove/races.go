package prove

import (
	"slices"
	"time"

	"github.com/locksim/locksim/sim"
)

// Delays says where a delay is offered.
type Delays uint8

const (
	// DelaysRaces offers a delay at a point only where, in the run it
	// extends, it would reorder one of the point's process's events with a
	// conflicting event of another process or a node (a race, in DPOR's
	// words): see needs.
	DelaysRaces Delays = iota
	// DelaysAll offers every delay at every point, as before races.
	DelaysAll
)

var delaysNames = [...]string{DelaysRaces: "races", DelaysAll: "all"}

func (d Delays) String() string { return delaysNames[d] }

// ParseDelays reads a --delays word.
func ParseDelays(s string) (Delays, error) { return parseWord[Delays](delaysNames[:], s) }

// noRace marks a point where no delay reorders anything.
const noRace time.Duration = -1

// needs fills in each point's need: the shortest delay there that reorders
// one of its process's events with a conflicting event of another process
// or a node in this run (noRace: none does); its ahead, the shortest need
// at it or at a later point of its process; and prev, its process's
// point before it (-1: none). raced says where a delay is offered.
//
// Why that is enough. A delay of d at point p of process A shifts A's
// events from p on by d. Take A's events between p and A's next point p'
// (the commands A sent in that span, wherever they ran, and its other
// events recorded in it). If none of them has a conflicting event within
// d after it, the delay changes no order of conflicting events before p',
// so the run is the run delayed at p' instead, but for when A's own events
// in between happened (at most d later): delayed at p', which this rule
// offers when a race follows it, or which is equivalent to a later point in
// turn. So every order a delay can make is made at the next point whose
// span holds a race, as a plain DPOR adds a backtracking point only where
// the run has a race. Of the points whose delay makes one run, raced offers
// the first (so the first schedule of a verdict is the one the full menu
// meets first, but for timing). What this does not cover is timing alone: a process
// whose decision depends on its clock reading within d of a boundary (a
// timestamp compared at a second's resolution), which no order shows; and
// races with events that only a later choice brings. Tested against the
// full menu (reduce_test.go), not proved, as the summary reduction is.
func needs(ev []sim.Event, pts []point, procs int, maxShift time.Duration) {
	// Each process's events, and its commands by when they were sent
	// (a command is recorded when it runs, which a slow or blocked one
	// does long after its span).
	own := make([][]int, procs)
	sent := make([][]int, procs)
	for i := range ev {
		e := &ev[i]
		if e.Proc < 0 || e.Proc >= procs {
			continue
		}
		if sentBy(e) {
			sent[e.Proc] = append(sent[e.Proc], i)
		} else {
			own[e.Proc] = append(own[e.Proc], i)
		}
	}
	for p := range sent {
		slices.SortStableFunc(sent[p], func(a, b int) int { return cmpTime(ev[a].Sent, ev[b].Sent) })
	}
	deadline := keyDeadlines(ev)
	next := make([]int, procs) // the next point of each process, scanning backwards
	for i := range next {
		next[i] = -1
	}
	for k := len(pts) - 1; k >= 0; k-- {
		pt := &pts[k]
		a := pt.proc
		lo, hi := pt.events, len(ev)
		t0, t1 := pt.now, sim.Time(1<<62)
		if n := next[a]; n >= 0 {
			hi, t1 = pts[n].events, pts[n].now
		}
		next[a] = k
		need := noRace
		race := func(i int) {
			if d := raceAfter(ev, i, deadline[i], maxShift); d != noRace && (need == noRace || d < need) {
				need = d
			}
		}
		// Its other events recorded in the span.
		o := own[a]
		for j, _ := slices.BinarySearch(o, lo); j < len(o) && o[j] < hi; j++ {
			race(o[j])
		}
		// Its commands sent in the span, wherever they ran.
		s := sent[a]
		j, _ := slices.BinarySearchFunc(s, t0, func(i int, t sim.Time) int { return cmpTime(ev[i].Sent, t) })
		for ; j < len(s) && ev[s[j]].Sent <= t1; j++ {
			if s[j] >= lo {
				race(s[j])
			}
		}
		pt.need = need
	}
	last := make([]int, procs) // each process's point met last, scanning forwards
	for i := range last {
		last[i] = -1
	}
	for k := range pts {
		pts[k].prev = last[pts[k].proc]
		last[pts[k].proc] = k
	}
	for i := range next {
		next[i] = -1
	}
	for k := len(pts) - 1; k >= 0; k-- {
		pt := &pts[k]
		pt.ahead = pt.need
		if n := next[pt.proc]; n >= 0 {
			pt.ahead = minNeed(pt.ahead, pts[n].ahead)
		}
		next[pt.proc] = k
	}
}

func minNeed(a, b time.Duration) time.Duration {
	if a == noRace || b != noRace && b < a {
		return b
	}
	return a
}

// raced says whether a delay of d at point k of pts, in a schedule
// extended from point start on, reorders something no other offered delay
// of d does: a race follows it (at k or a later point of its process), and
// it is the first point that reaches that race (its process's point before
// it is before start, or has a race of its own).
func raced(pts []point, k, start int, d time.Duration) bool {
	pt := &pts[k]
	if pt.ahead == noRace || d < pt.ahead {
		return false
	}
	prev := pt.prev
	return prev < start || pts[prev].need != noRace && pts[prev].need <= d
}

// sentBy says whether an event is a command's, placed by when it was sent.
func sentBy(e *sim.Event) bool {
	return e.Kind == sim.KindCommand || e.Kind == sim.KindCommandResult
}

func cmpTime(a, b sim.Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// raceAfter is the shortest shift of event i, at most maxShift, that puts it
// after a conflicting event that came after it (or after its node's watched
// key expires: deadline, 0 for none), or noRace.
func raceAfter(ev []sim.Event, i int, deadline sim.Time, maxShift time.Duration) time.Duration {
	e := &ev[i]
	end := e.At + sim.Time(maxShift)
	if e.Kind == sim.KindCommand && deadline != 0 && deadline >= e.At && deadline <= end {
		return max(time.Duration(deadline-e.At), 0)
	}
	for j := i + 1; j < len(ev) && ev[j].At <= end; j++ {
		if conflicts(e, &ev[j]) {
			return time.Duration(ev[j].At - e.At)
		}
	}
	return noRace
}

// conflicts says whether the order of e and f (f not e's process's) can
// matter: always, but for commands on different nodes, and for another
// process's own fault (a pause, crash or clock jump changes that process
// alone, whose events show what it did after).
func conflicts(e, f *sim.Event) bool {
	switch {
	case f.Proc == e.Proc:
		return false
	case f.Kind == sim.KindFault && f.Proc >= 0:
		return false
	case e.Kind == sim.KindCommand && f.Kind == sim.KindCommand:
		return e.Node == f.Node
	}
	return true
}

// keyDeadlines gives each command the true time at which its node's
// watched key expires as the command found it (0: no TTL, or no key). A
// node's fault leaves it unknown until the next command there, which then
// races with any delay (-1 stands for that, as "expiring now").
func keyDeadlines(ev []sim.Event) []sim.Time {
	out := make([]sim.Time, len(ev))
	last := map[int]sim.Time{} // by node: the deadline after its last event; looked up, never ranged over
	for i := range ev {
		e := &ev[i]
		if e.Node < 0 {
			continue
		}
		d, known := last[e.Node]
		if e.Kind == sim.KindCommand {
			switch {
			case !known:
				out[i] = 0
			case d < 0:
				out[i] = e.At // unknown since a fault: as if it expired now
			default:
				out[i] = d
			}
		}
		switch {
		case e.Kind == sim.KindFault:
			last[e.Node] = -1
		case e.Key.Exists && e.Key.TTL >= 0:
			last[e.Node] = e.At + sim.Time(e.Key.TTL)
		default:
			last[e.Node] = 0
		}
	}
	return out
}
