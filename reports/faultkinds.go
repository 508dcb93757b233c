package reports

import (
	"fmt"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// The reports draw a fault by the kind's facts and words (the fault
// package's table: Crashes, Pauses, LosesData, ShiftsClock, Promotes,
// Mark...), never by its name, so
// a new kind with the facts of an old one draws with no change here. A
// process lane draws life, mark and pauses; a node lane draws down (the
// key gone and the node down for Dur: LosesData), clock shifts and mark.

// laneLife is what a fault does to the state a process lane shows.
type laneLife uint8

const (
	lifeSame    laneLife = iota // the process goes on
	lifeCrashed                 // crashed until it starts again
	lifeOver                    // this life is over (a fresh one starts at its proc-start)
)

// faultLife is what fault event e does to its process's lane.
func faultLife(e sim.Event) laneLife {
	switch k := e.Fault; {
	case k.Crashes():
		return lifeCrashed
	case k.EndsLife():
		return lifeOver
	}
	return lifeSame
}

// faultMark is the glyph and words at fault event e, completing the kind's
// Mark from the event; false when the kind draws no mark.
func faultMark(e sim.Event) (mark, bool) {
	k, words := e.Fault, e.Fault.Mark()
	switch {
	case words == "":
		return mark{}, false
	case k.Crashes():
		return mark{e.At, markCrash, words}, true
	case k.EndsLife():
		return mark{e.At, markRestart, fmt.Sprintf("%s (life %d)", words, e.Incarnation)}, true
	case k.ShiftsClock() && e.Dur >= 0:
		return mark{e.At, markJumpFwd, words + " +" + e.Dur.String()}, true
	case k.ShiftsClock():
		return mark{e.At, markJumpBack, words + " " + e.Dur.String()}, true
	case k.Promotes() && e.Value == 0: // no replica: an outage only, the key stays
		return mark{e.At, markNodeRestart, fmt.Sprintf("%s: no replica to promote, down %v", words, e.Dur)}, true
	case k.Promotes():
		// The address answers nothing until the replica is promoted; the
		// key there is then the replica's copy (its lane shows it).
		return mark{e.At, markNodeRestart, fmt.Sprintf("%s: primary lost, a replica promoted after %v", words, e.Dur)}, true
	case k.LosesData():
		return mark{e.At, markNodeRestart, words + ": " + model.RestartLoss(e) + fmt.Sprintf(", down %v", e.Dur)}, true
	case k.LosesCommand():
		return mark{e.At, markLost, words}, true
	}
	// A kind with words and no drawn fact: a plain mark, with its length.
	if e.Dur > 0 {
		words += " for " + e.Dur.String()
	}
	return mark{e.At, markOther, words}, true
}
