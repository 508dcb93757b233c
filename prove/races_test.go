package prove

import (
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

func ms(f float64) sim.Time { return sim.Time(f * float64(time.Millisecond)) }

// raceCase is c1 (process 0) about to send at 10 ms a command that runs on
// node 0 at 11 ms, and what c2 (process 1) or a node does around it.
func raceCase(around ...sim.Event) ([]sim.Event, []point) {
	ev := []sim.Event{
		{At: 0, Kind: sim.KindProcStart, Proc: 0, Node: -1},
		{At: 0, Kind: sim.KindProcStart, Proc: 1, Node: -1},
	}
	mine := sim.Event{At: ms(11), Kind: sim.KindCommand, Proc: 0, Node: 0, Sent: ms(10)}
	placed := false
	for _, e := range around {
		if !placed && e.At >= mine.At { // c1's first at its instant
			ev, placed = append(ev, mine), true
		}
		ev = append(ev, e)
	}
	if !placed {
		ev = append(ev, mine)
	}
	return ev, []point{{proc: 0, at: sim.PointSend, n: 1, now: ms(10), events: 2}}
}

func c2Command(at float64, node int) sim.Event {
	return sim.Event{At: ms(at), Kind: sim.KindCommand, Proc: 1, Node: node, Sent: ms(at - 1)}
}

// TestNeeds: the shortest delay that reorders c1's command with what
// follows it, on hand-made runs that must race and runs that must not.
func TestNeeds(t *testing.T) {
	ns := time.Duration(0)
	for _, c := range []struct {
		name   string
		around []sim.Event
		want   time.Duration
	}{
		{"nothing else", nil, noRace},
		{"c2's command on the node 0.5 ms after", []sim.Event{c2Command(11.5, 0)}, 500 * time.Microsecond},
		{"c2's command on the node 2 ms after", []sim.Event{c2Command(13, 0)}, 2 * time.Millisecond},
		{"c2's command on the node 2.5 ms after", []sim.Event{c2Command(13.5, 0)}, noRace},
		{"c2's command on another node", []sim.Event{c2Command(11.5, 1)}, noRace},
		{"c2's command at the same instant, after", []sim.Event{{At: ms(11), Kind: sim.KindCommand, Proc: 1, Node: 0}}, ns},
		{"c2's pause (its own)", []sim.Event{{At: ms(11.5), Kind: sim.KindFault, Fault: fault.Pause, Proc: 1, Node: -1}}, noRace},
		{"a node's restart", []sim.Event{{At: ms(11.5), Kind: sim.KindFault, Fault: fault.NodeRestart, Proc: -1, Node: 0}}, 500 * time.Microsecond},
		{"c2's acquire returning", []sim.Event{{At: ms(12), Kind: sim.KindLockReturn, Proc: 1, Node: -1}}, time.Millisecond},
		{"the watched key expiring 0.25 ms after", []sim.Event{
			{At: ms(5), Kind: sim.KindCommand, Proc: 1, Node: 0, Key: sim.KeyState{Exists: true, TTL: 6250 * time.Microsecond}},
		}, 250 * time.Microsecond},
		{"the watched key expiring 3 ms after", []sim.Event{
			{At: ms(5), Kind: sim.KindCommand, Proc: 1, Node: 0, Key: sim.KeyState{Exists: true, TTL: 9 * time.Millisecond}},
		}, noRace},
		{"the watched key with no TTL", []sim.Event{
			{At: ms(5), Kind: sim.KindCommand, Proc: 1, Node: 0, Key: sim.KeyState{Exists: true, TTL: -1}},
		}, noRace},
	} {
		ev, pts := raceCase(c.around...)
		needs(ev, pts, 2, maxShift)
		if pts[0].need != c.want {
			t.Errorf("%s: need %v, want %v", c.name, pts[0].need, c.want)
		}
	}

	// At the same instant but recorded before c1's: it already came first.
	ev := []sim.Event{
		{At: 0, Kind: sim.KindProcStart, Proc: 0, Node: -1},
		{At: ms(11), Kind: sim.KindCommand, Proc: 1, Node: 0, Sent: ms(10)},
		{At: ms(11), Kind: sim.KindCommand, Proc: 0, Node: 0, Sent: ms(10)},
	}
	pts := []point{{proc: 0, at: sim.PointSend, n: 1, now: ms(10), events: 1}}
	needs(ev, pts, 2, maxShift)
	if pts[0].need != noRace {
		t.Errorf("c2's command before c1's at one instant: need %v, want none", pts[0].need)
	}
}

// TestRacedOffersTheFirstPoint: c1's reply at 8 ms, then its send at 10 ms
// of a command that races. A delay at the reply makes the same run as one
// at the send: the reply's is offered, the send's not, unless the schedule
// starts after the reply. A delay too short for the race is offered at
// neither.
func TestRacedOffersTheFirstPoint(t *testing.T) {
	ev := []sim.Event{
		{At: 0, Kind: sim.KindProcStart, Proc: 0, Node: -1},
		{At: ms(8), Kind: sim.KindCommandResult, Proc: 0, Node: 0, Sent: ms(6)},
		{At: ms(11), Kind: sim.KindCommand, Proc: 0, Node: 0, Sent: ms(10)},
		{At: ms(11.5), Kind: sim.KindCommand, Proc: 1, Node: 0, Sent: ms(10.5)},
	}
	pts := []point{
		{proc: 0, at: sim.PointReply, n: 1, now: ms(8), events: 2},
		{proc: 0, at: sim.PointSend, n: 2, now: ms(9), events: 2},
	}
	needs(ev, pts, 2, maxShift)
	for _, c := range []struct {
		k, start int
		d        time.Duration
		want     bool
	}{
		{0, 0, time.Millisecond, true},
		{1, 0, time.Millisecond, false},
		{1, 1, time.Millisecond, true},
		{0, 0, time.Nanosecond, false},
		{1, 1, time.Nanosecond, false},
	} {
		if got := raced(pts, c.k, c.start, c.d); got != c.want {
			t.Errorf("point %d from %d, delay %v: offered %v, want %v", c.k, c.start, c.d, got, c.want)
		}
	}
}
