package scenarios

import (
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
	"pgregory.net/rapid"
)

// Fault kinds as written in files.
const (
	FaultPause       = "pause"
	FaultCrash       = "crash"
	FaultClockJump   = "clock-jump"
	FaultNodeRestart = "node-restart"
)

// fileFault is the scenarios' part of a fault kind (sim/faultkinds.go says
// what the engine does with it): the kind as written in a file, which
// fields it takes, the sim.Fault it builds, what it does to the TTL's
// assumptions, and how the random generator draws it. Validation, Prepare,
// InsideTTL and the generator read this table and name no kind themselves.
type fileFault struct {
	name   string
	target fileTarget
	// The length fields it takes; validation refuses the others.
	hasFor, hasRestartAfter, hasBy bool
	// build is the engine's kind and Dur for f (f.Node set when it names one).
	build func(f *Fault) (sim.FaultKind, time.Duration)
	// outsideTTL, when set, says why f breaks a TTL lock's assumptions
	// ("" if it does not). A kind that pauses (sim.FaultKind.Pauses)
	// counts its Dur against the TTL instead.
	outsideTTL func(f *Fault) string
	// gen are the ways the generator draws it, one per target.
	gen []genFault
}

// fileTarget is what a file's fault names.
type fileTarget uint8

const (
	targetClient fileTarget = iota + 1
	targetNode
	targetEither // a node when the fault names one, else a client
)

// genFault is one way the generator draws a fault kind.
type genFault struct {
	class  string // the fault class that switches it on
	onNode bool   // aimed at a node (else a client)
	// outsideOnly: never drawn when the generator keeps inside the TTL.
	outsideOnly bool
	// draw sets Kind and the length fields. It must draw the same values
	// in the same order for ever: explore's digests depend on it.
	draw func(fg faultGen, t *rapid.T) Fault
}

// fileFaults lists the kinds in the order validation names them. The
// generator takes them class by class in FaultClasses order, then in this
// order: a new kind goes last, so that no existing draw changes.
var fileFaults = []fileFault{
	{name: FaultPause, target: targetClient, hasFor: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultPause, f.For.D() },
		gen: []genFault{{class: ClassPause, draw: func(fg faultGen, t *rapid.T) Fault {
			// Shrinks towards the longest pause: a counterexample that fails
			// by a wide margin, not by a lucky millisecond.
			return Fault{Kind: FaultPause, For: Duration(fg.pauseMax - drawDur(t, "pause shorter by", 0, fg.pauseMax, 10*time.Millisecond))}
		}}}},
	{name: FaultCrash, target: targetClient, hasRestartAfter: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultCrash, f.RestartAfter.D() },
		gen: []genFault{{class: ClassCrash, draw: func(fg faultGen, t *rapid.T) Fault {
			f := Fault{Kind: FaultCrash}
			if drawBool(t, "restarts") {
				f.RestartAfter = Duration(drawDur(t, "restart after", 10*time.Millisecond, 2*fg.ttl, 10*time.Millisecond))
			}
			return f
		}}}},
	{name: FaultClockJump, target: targetEither, hasBy: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) {
			if f.Node != nil {
				return sim.FaultNodeJump, f.By.D()
			}
			return sim.FaultProcJump, f.By.D()
		},
		outsideTTL: func(f *Fault) string {
			if f.Node != nil {
				return "a node's clock jump moves the lock's expiry"
			}
			return ""
		},
		gen: []genFault{
			{class: ClassJump, draw: drawJump},
			{class: ClassJump, onNode: true, outsideOnly: true, draw: drawJump},
		}},
	{name: FaultNodeRestart, target: targetNode, hasFor: true,
		build:      func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultNodeRestart, f.For.D() },
		outsideTTL: func(*Fault) string { return "a node restart loses the lock" },
		gen: []genFault{{class: ClassRestart, onNode: true, outsideOnly: true, draw: func(fg faultGen, t *rapid.T) Fault {
			return Fault{Kind: FaultNodeRestart, For: Duration(drawDur(t, "down", 0, fg.ttl, 10*time.Millisecond))}
		}}}},
}

// drawJump draws a clock jump in quarters of the TTL, so that jumps past the
// TTL are common; it shrinks towards the largest jump forwards.
func drawJump(fg faultGen, t *rapid.T) Fault {
	quarters := 8 - time.Duration(drawInt(t, "jump quarters less", 0, 16))
	return Fault{Kind: FaultClockJump, By: Duration(quarters * fg.ttl / 4)}
}

// fileFaultOf is the kind named name, or nil.
func fileFaultOf(name string) *fileFault {
	for i := range fileFaults {
		if fileFaults[i].name == name {
			return &fileFaults[i]
		}
	}
	return nil
}

// onNode reports whether f names a node as its target.
func (k *fileFault) onNode(f *Fault) bool {
	return k.target == targetNode || (k.target == targetEither && f.Node != nil)
}

// fileFaultNames lists the kinds, in order.
func fileFaultNames() []string {
	out := make([]string, len(fileFaults))
	for i, k := range fileFaults {
		out[i] = k.name
	}
	return out
}

// takersOf names the kinds that take a field, for "only a … has …".
func takersOf(has func(k *fileFault) bool) string {
	var out []string
	for i := range fileFaults {
		if has(&fileFaults[i]) {
			out = append(out, fileFaults[i].name)
		}
	}
	return strings.Join(out, " or a ")
}
