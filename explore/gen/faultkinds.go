package gen

import (
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
	"pgregory.net/rapid"
)

// genFault is the generator's part of a fault kind (the fault package's
// table says what the kind is, its target among it): one way to draw it,
// under one fault class. A kind is drawn once per class at most.
type genFault struct {
	kind  fault.Kind
	class string // the fault class that switches it on; one of the kind's Classes
	// draw sets Kind and the length fields. It must draw the same values
	// in the same order for ever: explore's digests depend on it.
	draw func(fg faultGen, t *rapid.T) scenarios.Fault
	// inside, when set, says whether the generator may draw the kind when
	// it keeps inside the lock's assumptions (Options.Inside); unset, it
	// may unless the kind breaks a plain TTL lock's (fault.Kind.BreaksTTL).
	inside func(g *scenarioGen) bool
	// notDrawn, when set, says why the generator never draws the kind (it
	// has no class and no draw): a kind only a written scenario or prove
	// plans. fault's TestEveryKindComplete accepts it in place of a draw.
	notDrawn string
}

// onNode says the kind is aimed at a node (else a client).
func (k *genFault) onNode() bool { return k.kind.Target() == fault.OnNode }

// genFaults lists the ways to draw each kind. The generator takes them
// class by class in scenarios.FaultClasses order, then in this order: a
// new kind goes last, so that no existing draw changes.
var genFaults = []genFault{
	{kind: fault.Pause, class: scenarios.ClassPause, draw: func(fg faultGen, t *rapid.T) scenarios.Fault {
		// Shrinks towards the longest pause: a counterexample that fails
		// by a wide margin, not by a lucky millisecond.
		return scenarios.Fault{Kind: fault.Pause.File(), For: scenarios.Duration(fg.pauseMax - drawDur(t, "pause shorter by", 0, fg.pauseMax, 10*time.Millisecond))}
	}},
	{kind: fault.Crash, class: scenarios.ClassCrash, draw: func(fg faultGen, t *rapid.T) scenarios.Fault {
		f := scenarios.Fault{Kind: fault.Crash.File()}
		if drawBool(t, "restarts") {
			f.RestartAfter = scenarios.Duration(drawDur(t, "restart after", 10*time.Millisecond, 2*fg.ttl, 10*time.Millisecond))
		}
		return f
	}},
	// A client's clock jump counts against the lease of a lock on the
	// node's TTL; a timestamp lock's clients disagree by it.
	{kind: fault.ClientJump, class: scenarios.ClassJump, draw: drawJump,
		inside: func(g *scenarioGen) bool { return !g.assumes.Expiry.UsesClientClocks() }},
	// A node's clock jump moves a lease on the node's TTL.
	{kind: fault.NodeJump, class: scenarios.ClassJump, draw: drawJump,
		inside: func(g *scenarioGen) bool { return !g.assumes.Expiry.UsesNodeTTL() }},
	// Inside: with fsync, or as a delayed restart (down for a whole lease)
	// under a lock whose lease ends on its own, that no watchdog renews and
	// no holder re-enters.
	{kind: fault.NodeRestart, class: scenarios.ClassRestart, draw: func(fg faultGen, t *rapid.T) scenarios.Fault {
		return scenarios.Fault{Kind: fault.NodeRestart.File(), For: scenarios.Duration(fg.downMin + drawDur(t, "down", 0, fg.ttl, 10*time.Millisecond))}
	}, inside: func(g *scenarioGen) bool {
		a := g.assumes
		return a.Fsync || (a.Expiry.Timed() && g.renewal == renewNone && !g.reenters)
	}},
	// The detection delay: up to half the TTL, so that the promoted replica
	// answers while the lost lock's holder still believes in its lease.
	// Shrinks towards the quickest promotion. The generator gives every
	// node a replica when the class is on (generate.go: giveReplicas).
	// Inside only for a lock that WAITs (with lags below the WAIT).
	{kind: fault.Failover, class: scenarios.ClassFailover, draw: func(fg faultGen, t *rapid.T) scenarios.Fault {
		return scenarios.Fault{Kind: fault.Failover.File(), For: scenarios.Duration(drawDur(t, "detection", 0, fg.ttl/2, 10*time.Millisecond))}
	}, inside: func(g *scenarioGen) bool { return g.assumes.Wait > 0 }},
	// A chosen lost request or reply is never drawn: the net class already
	// loses commands at random (network.loss_request, loss_reply), and a
	// draw here would change what the net class draws, so every explore
	// digest and matrix cell. faultKinds skips an entry with notDrawn; prove
	// (prove/menu.go) plans these kinds, and scenario files may write them.
	{kind: fault.LoseRequest, notDrawn: "the net class loses requests at random (network.loss_request)"},
	{kind: fault.LoseReply, notDrawn: "the net class loses replies at random (network.loss_reply)"},
	// A watchdog's own pause: drawn, it would change what the pause class
	// draws for every lock; prove's watchdog-pause class plans it.
	{kind: fault.WatchdogPause, notDrawn: "the pause class stops the whole client, its watchdog with it"},
}

// Draws reports whether the generator draws kind k, and if not why not.
func Draws(k fault.Kind) (drawn bool, notDrawn string) {
	for i := range genFaults {
		if g := &genFaults[i]; g.kind == k {
			if g.notDrawn != "" {
				return false, g.notDrawn
			}
			drawn = drawn || g.draw != nil
		}
	}
	return drawn, ""
}

// drawsInside says whether the generator may draw k when it keeps inside
// the lock's assumptions (Options.Inside), as scenarios' InsideOf judges
// them: a kind that counts against the lease (a pause; a client's clock
// jump for a lock on the node's TTL) is sized by the budget.
func (g *scenarioGen) drawsInside(k *genFault) bool {
	if k.inside != nil {
		return k.inside(g)
	}
	return k.kind.BreaksTTL() == ""
}

// drawJump draws a clock jump (a file's clock-jump, which the caller aims
// at a client or a node) in quarters of the TTL, so that jumps past the
// TTL are common; it shrinks towards the largest jump forwards.
func drawJump(fg faultGen, t *rapid.T) scenarios.Fault {
	quarters := 8 - time.Duration(drawInt(t, "jump quarters less", 0, 16))
	return scenarios.Fault{Kind: fault.ClientJump.File(), By: scenarios.Duration(quarters * fg.ttl / 4)}
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
