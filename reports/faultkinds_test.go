package reports

import (
	"testing"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

// TestEveryKindDraws fails when a fault kind draws nothing, or its
// facts contradict each other in a way the drawing would show wrong: a kind
// must show on the lane of its target (a life, a pause bar or a lost command
// on a process lane; a node down or a promotion on a node lane), and every
// kind with a Mark draws a mark.
func TestEveryKindDraws(t *testing.T) {
	for _, k := range fault.Kinds() {
		e := sim.Event{Kind: sim.KindFault, Fault: k, Dur: -1}
		life := faultLife(e)
		_, marked := faultMark(e)
		if marked != (k.Mark() != "") {
			t.Errorf("%s: mark drawn %v, but Mark() = %q", k, marked, k.Mark())
		}
		if !k.Pauses() && !k.LosesData() && !marked && life == lifeSame && !k.ShiftsClock() {
			t.Errorf("%s: draws nothing (give it a Mark in the fault table)", k)
		}
		if (life != lifeSame) != k.EndsLife() {
			t.Errorf("%s: lane life %d, but EndsLife() = %v", k, life, k.EndsLife())
		}
		onProc := life != lifeSame || k.Pauses() || k.LosesCommand()
		onNode := k.LosesData() || k.Promotes()
		if (onProc && k.Target() != fault.OnClient) || (onNode && k.Target() != fault.OnNode) {
			t.Errorf("%s: drawn on a lane that is not its target's (%d)", k, k.Target())
		}
	}
}

// TestFaultMarksSayWhatHappened pins the words each kind's mark draws, from
// the facts alone: they must read as they did when reports kept a table of
// kinds (the transcripts hold them too).
func TestFaultMarksSayWhatHappened(t *testing.T) {
	for _, c := range []struct {
		e    sim.Event
		kind markKind
		want string
	}{
		{sim.Event{Fault: fault.Crash}, markCrash, "crash"},
		{sim.Event{Fault: fault.Respawn, Incarnation: 2}, markRestart, "restart as a fresh process (life 2)"},
		{sim.Event{Fault: fault.ClientJump, Dur: 1500e6}, markJumpFwd, "clock jumps +1.5s"},
		{sim.Event{Fault: fault.NodeJump, Dur: -2e9}, markJumpBack, "clock jumps -2s"},
		{sim.Event{Fault: fault.NodeRestart, Node: 0, Dur: 1e9}, markNodeRestart, "restart: data lost, down 1s"},
		{sim.Event{Fault: fault.Failover, Node: 0, Dur: 1e9}, markNodeRestart, "failover: no replica to promote, down 1s"},
		{sim.Event{Fault: fault.Failover, Node: 0, Value: 3, Dur: 1e9}, markNodeRestart, "failover: primary lost, a replica promoted after 1s"},
		{sim.Event{Fault: fault.LoseRequest}, markLost, "its next request is lost"},
		{sim.Event{Fault: fault.LoseReply}, markLost, "its next reply is lost"},
		{sim.Event{Fault: fault.WatchdogPause, Dur: 1e9}, markOther, "its watchdog stops for 1s"},
	} {
		c.e.Kind = sim.KindFault
		m, ok := faultMark(c.e)
		if !ok || m.kind != c.kind || m.detail != c.want {
			t.Errorf("%s: mark %v %d %q, want %d %q", c.e.Fault, ok, m.kind, m.detail, c.kind, c.want)
		}
	}
	if _, ok := faultMark(sim.Event{Kind: sim.KindFault, Fault: fault.Pause, Dur: 1e9}); ok {
		t.Error("a pause draws a mark; it draws a bar")
	}
}
