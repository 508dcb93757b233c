package gen

import (
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
	"pgregory.net/rapid"
)

// genFault is the generator's part of a fault kind (scenarios/faultkinds.go
// says how a file writes it and what it builds): one way to draw it, under
// one fault class, aimed at one target. A kind aimed at clients and at
// nodes has an entry for each.
type genFault struct {
	kind   string // as a file writes it: a scenarios.Fault* constant
	class  string // the fault class that switches it on; its Kinds (scenarios.Vocabulary) hold kind
	onNode bool   // aimed at a node (else a client); drawsInside says whether it is drawn inside the lock's assumptions
	// draw sets Kind and the length fields. It must draw the same values
	// in the same order for ever: explore's digests depend on it.
	draw func(fg faultGen, t *rapid.T) scenarios.Fault
	// notDrawn, when set, says why the generator never draws the kind (it
	// has no class and no draw): a kind only a written scenario or prove
	// plans. TestFaultKindsComplete accepts such an entry in place of a draw.
	notDrawn string
}

// genFaults lists the ways to draw each kind. The generator takes them
// class by class in scenarios.FaultClasses order, then in this order: a
// new kind goes last, so that no existing draw changes.
var genFaults = []genFault{
	{kind: scenarios.FaultPause, class: scenarios.ClassPause, draw: func(fg faultGen, t *rapid.T) scenarios.Fault {
		// Shrinks towards the longest pause: a counterexample that fails
		// by a wide margin, not by a lucky millisecond.
		return scenarios.Fault{Kind: scenarios.FaultPause, For: scenarios.Duration(fg.pauseMax - drawDur(t, "pause shorter by", 0, fg.pauseMax, 10*time.Millisecond))}
	}},
	{kind: scenarios.FaultCrash, class: scenarios.ClassCrash, draw: func(fg faultGen, t *rapid.T) scenarios.Fault {
		f := scenarios.Fault{Kind: scenarios.FaultCrash}
		if drawBool(t, "restarts") {
			f.RestartAfter = scenarios.Duration(drawDur(t, "restart after", 10*time.Millisecond, 2*fg.ttl, 10*time.Millisecond))
		}
		return f
	}},
	{kind: scenarios.FaultClockJump, class: scenarios.ClassJump, draw: drawJump},
	{kind: scenarios.FaultClockJump, class: scenarios.ClassJump, onNode: true, draw: drawJump},
	{kind: scenarios.FaultNodeRestart, class: scenarios.ClassRestart, onNode: true, draw: func(fg faultGen, t *rapid.T) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultNodeRestart, For: scenarios.Duration(fg.downMin + drawDur(t, "down", 0, fg.ttl, 10*time.Millisecond))}
	}},
	// The detection delay: up to half the TTL, so that the promoted replica
	// answers while the lost lock's holder still believes in its lease.
	// Shrinks towards the quickest promotion. The generator gives every
	// node a replica when the class is on (generate.go: giveReplicas).
	{kind: scenarios.FaultFailover, class: scenarios.ClassFailover, onNode: true, draw: func(fg faultGen, t *rapid.T) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultFailover, For: scenarios.Duration(drawDur(t, "detection", 0, fg.ttl/2, 10*time.Millisecond))}
	}},
	// A chosen lost request or reply is never drawn: the net class already
	// loses commands at random (network.loss_request, loss_reply), and a
	// draw here would change what the net class draws, so every explore
	// digest and matrix cell. faultKinds skips an entry with notDrawn; prove
	// (prove/menu.go) plans these kinds, and scenario files may write them.
	{kind: scenarios.FaultLoseRequest, notDrawn: "the net class loses requests at random (network.loss_request)"},
	{kind: scenarios.FaultLoseReply, notDrawn: "the net class loses replies at random (network.loss_reply)"},
	// A watchdog's own pause: drawn, it would change what the pause class
	// draws for every lock; prove's watchdog-pause class plans it.
	{kind: scenarios.FaultDogPause, notDrawn: "the pause class stops the whole client, its watchdog with it"},
}

// drawsInside says whether the generator may draw k when it keeps inside
// the lock's assumptions (Options.Inside), as scenarios' table judges them
// (scenarios/faultkinds.go, InsideOf): a kind that counts against the lease
// (a pause; a client's clock jump for a lock on the node's TTL) is sized by
// the budget; a client's jump under a timestamp lock, a node's under a
// lease on the node's TTL, and a failover without WAIT never; a node
// restart with fsync, or as a delayed restart (down for a whole lease)
// under a lock whose lease ends on its own, that no watchdog renews and no
// holder re-enters; a
// failover of a lock that WAITs, with lags below the WAIT.
func (g *scenarioGen) drawsInside(k *genFault) bool {
	a := g.assumes
	switch {
	case k.kind == scenarios.FaultClockJump && !k.onNode:
		return !a.Expiry.UsesClientClocks()
	case k.kind == scenarios.FaultClockJump:
		return !a.Expiry.UsesNodeTTL()
	case k.kind == scenarios.FaultNodeRestart:
		return a.Fsync || (a.Expiry.Timed() && g.renewal == renewNone && !g.reenters)
	case k.kind == scenarios.FaultFailover:
		return a.Wait > 0
	}
	return !scenarios.OutsideTTL(k.kind, k.onNode)
}

// drawJump draws a clock jump in quarters of the TTL, so that jumps past the
// TTL are common; it shrinks towards the largest jump forwards.
func drawJump(fg faultGen, t *rapid.T) scenarios.Fault {
	quarters := 8 - time.Duration(drawInt(t, "jump quarters less", 0, 16))
	return scenarios.Fault{Kind: scenarios.FaultClockJump, By: scenarios.Duration(quarters * fg.ttl / 4)}
}

// DrawsInside reports whether the generator, kept inside algo's
// assumptions (Options.Inside), draws any fault of the class: false when
// every fault the class plans breaks them; true for a class that plans
// none (net, whose losses are drawn at random and keep them) (a node restart for a lock whose
// watchdog renews it past any down time, a failover of a lock that does not
// WAIT). The matrix gives such a cell no inside answer.
func DrawsInside(algo locks.Algorithm, class string) bool {
	g := &scenarioGen{algo: algo, inside: true, assumes: algo.Assumes}
	g.renewal, g.reenters = leaseOffers(algo)
	planned := false // the class plans faults (net loses commands at random instead)
	for i := range genFaults {
		k := &genFaults[i]
		if k.class != class || k.notDrawn != "" {
			continue
		}
		planned = true
		if g.drawsInside(k) {
			return true
		}
	}
	return !planned
}
