package model

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

// TestFaultBars pins the timeline's words for every kind, from the table's
// words and facts alone: they must read as they did when model kept a
// table of kinds (the goldens hold them too), and every kind has one line.
func TestFaultBars(t *testing.T) {
	for _, k := range fault.Kinds() {
		desc, to, color := faultBar(sim.Event{At: 10, Kind: sim.KindFault, Fault: k, Dur: time.Second})
		if desc == "" || color == "" || to < 10 || strings.Contains(desc, "\n") {
			t.Errorf("%s: bar %q to %v colour %q: want a one-line wording, an end no earlier than the fault, a colour", k, desc, to, color)
		}
	}
	s := sim.Time(time.Second)
	for _, c := range []struct {
		e     sim.Event
		desc  string
		to    sim.Time
		color string
	}{
		{sim.Event{Fault: fault.Pause, Dur: time.Second}, "pause 1s", s, colorPause},
		{sim.Event{Fault: fault.Crash, Dur: time.Second}, "crash", 0, colorCrash},
		{sim.Event{Fault: fault.Respawn, Incarnation: 2}, "restart (life 2)", 0, colorCrash},
		{sim.Event{Fault: fault.ClientJump, Dur: -time.Second}, "clock -1s", 0, colorJump},
		{sim.Event{Fault: fault.NodeJump, Dur: time.Second}, "clock +1s", 0, colorJump},
		{sim.Event{Fault: fault.Failover, Dur: time.Second}, "failover: no replica to promote, down 1s", s, colorCrash},
		{sim.Event{Fault: fault.Failover, Value: 2, Dur: time.Second}, "failover: primary lost, replica promoted after 1s", s, colorCrash},
		{sim.Event{Fault: fault.LoseRequest, Dur: time.Second}, "its next request is lost (times out after 1s)", 0, colorJump},
		{sim.Event{Fault: fault.LoseReply}, "its next reply is lost", 0, colorJump},
		{sim.Event{Fault: fault.WatchdogPause, Dur: time.Second}, "watchdog paused 1s", s, colorPause},
	} {
		desc, to, color := faultBar(c.e)
		if desc != c.desc || to != c.to || color != c.color {
			t.Errorf("%s: bar %q to %v colour %q, want %q to %v colour %q", c.e.Fault, desc, to, color, c.desc, c.to, c.color)
		}
	}
	if desc, _, _ := faultBar(sim.Event{Fault: 200}); desc != "unknown" {
		t.Errorf("an unknown kind shows as %q, want its String", desc)
	}
}
