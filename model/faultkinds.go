package model

import (
	"fmt"

	"github.com/locksim/locksim/sim"
)

// faultWords is the model's part of each fault kind (sim/faultkinds.go says
// what a kind is): how the timeline names it, where its bar ends, and its
// colour. What a kind means to the checkers is not here: they read the
// kind's facts (EndsLife, Pauses, LosesData), so a new kind with the same
// effect as an old one needs no checker change.
var faultWords = map[sim.FaultKind]func(e sim.Event) (desc string, to sim.Time, color string){
	sim.FaultPause: func(e sim.Event) (string, sim.Time, string) {
		return fmt.Sprintf("pause %v", e.Dur), e.At + sim.Time(e.Dur), colorPause
	},
	sim.FaultCrash: func(e sim.Event) (string, sim.Time, string) { return "crash", e.At, colorCrash },
	sim.FaultRestart: func(e sim.Event) (string, sim.Time, string) {
		return fmt.Sprintf("restart (life %d)", e.Incarnation), e.At, colorCrash
	},
	sim.FaultProcJump: func(e sim.Event) (string, sim.Time, string) { return "clock " + signed(e.Dur), e.At, colorJump },
	sim.FaultNodeJump: func(e sim.Event) (string, sim.Time, string) { return "clock " + signed(e.Dur), e.At, colorJump },
	sim.FaultNodeRestart: func(e sim.Event) (string, sim.Time, string) {
		return "restart, " + RestartLoss(e) + fmt.Sprintf(", down %v", e.Dur), e.At + sim.Time(e.Dur), colorCrash
	},
	sim.FaultFailover: func(e sim.Event) (string, sim.Time, string) {
		if e.Value == 0 { // no replica: an outage only, the key stays
			return fmt.Sprintf("failover: no replica to promote, down %v", e.Dur), e.At + sim.Time(e.Dur), colorCrash
		}
		return fmt.Sprintf("failover: primary lost, replica promoted after %v", e.Dur), e.At + sim.Time(e.Dur), colorCrash
	},
	// The timeout shows on the command's own result; the bar is the mark.
	sim.FaultLoseRequest: func(e sim.Event) (string, sim.Time, string) {
		return "its next request is lost" + lossWait(e), e.At, colorJump
	},
	sim.FaultLoseReply: func(e sim.Event) (string, sim.Time, string) {
		return "its next reply is lost" + lossWait(e), e.At, colorJump
	},
	sim.FaultDogPause: func(e sim.Event) (string, sim.Time, string) {
		return fmt.Sprintf("watchdog paused %v", e.Dur), e.At + sim.Time(e.Dur), colorPause
	},
}

// lossWait is how long a lost command's client waits, when the fault says.
func lossWait(e sim.Event) string {
	if e.Dur > 0 {
		return fmt.Sprintf(" (times out after %v)", e.Dur)
	}
	return ""
}

// faultBar is how the timeline shows fault event e.
func faultBar(e sim.Event) (desc string, to sim.Time, color string) {
	if words, ok := faultWords[e.Fault]; ok {
		return words(e)
	}
	return e.Fault.String(), e.At, colorJump
}
