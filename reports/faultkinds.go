package reports

import (
	"fmt"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// faultDrawing is the reports' part of a fault kind (sim/faultkinds.go says
// what a kind is): how it shows on the lane of its target. A process lane
// draws life, mark and pauses; a node lane draws down, shifts and mark.
type faultDrawing struct {
	life   laneLife               // what the fault does to its process's lane
	mark   func(e sim.Event) mark // a glyph at the fault, or nil
	pauses bool                   // a pause bar for the event's Dur
	down   bool                   // the key is gone and the node down for Dur
	shifts bool                   // node time moves by Dur: a TTL ends Dur sooner in true time
}

// laneLife is what a fault does to the state a process lane shows.
type laneLife uint8

const (
	lifeSame    laneLife = iota // the process goes on
	lifeCrashed                 // crashed until it starts again
	lifeOver                    // this life is over (a fresh one starts at its proc-start)
)

var faultDrawings = map[sim.FaultKind]faultDrawing{
	sim.FaultPause: {pauses: true},
	sim.FaultCrash: {life: lifeCrashed, mark: func(e sim.Event) mark { return mark{e.At, markCrash, "crash"} }},
	sim.FaultRestart: {life: lifeOver, mark: func(e sim.Event) mark {
		return mark{e.At, markRestart, fmt.Sprintf("restart as a fresh process (life %d)", e.Incarnation)}
	}},
	sim.FaultProcJump: {mark: jumpMark},
	sim.FaultNodeJump: {mark: jumpMark, shifts: true},
	sim.FaultNodeRestart: {down: true, mark: func(e sim.Event) mark {
		return mark{e.At, markNodeRestart, "restart: " + model.RestartLoss(e) + fmt.Sprintf(", down %v", e.Dur)}
	}},
	// The address answers nothing until the replica is promoted; the key
	// there is then the replica's copy (its lane shows it).
	sim.FaultFailover: {down: true, mark: func(e sim.Event) mark {
		if e.Value == 0 { // no replica: an outage only, the key stays
			return mark{e.At, markNodeRestart, fmt.Sprintf("failover: no replica to promote, down %v", e.Dur)}
		}
		return mark{e.At, markNodeRestart, fmt.Sprintf("failover: primary lost, a replica promoted after %v", e.Dur)}
	}},
	sim.FaultLoseRequest: {mark: func(e sim.Event) mark { return mark{e.At, markLost, "its next request is lost"} }},
	sim.FaultLoseReply:   {mark: func(e sim.Event) mark { return mark{e.At, markLost, "its next reply is lost"} }},
}

func jumpMark(e sim.Event) mark {
	if e.Dur >= 0 {
		return mark{e.At, markJumpFwd, "clock jumps +" + e.Dur.String()}
	}
	return mark{e.At, markJumpBack, "clock jumps " + e.Dur.String()}
}
