package gen

import (
	"slices"
	"testing"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
	"pgregory.net/rapid"
)

// TestDrawsAreValid fails when a way of drawing a kind is not what its
// entry says: a kind a file writes, drawn under one of the kind's classes
// that the vocabulary plans it under, with only the fields it takes, aimed
// at its target, as scenarios.Validate judges. That every kind has an
// entry is fault's TestEveryKindComplete.
func TestDrawsAreValid(t *testing.T) {
	for j, g := range genFaults {
		if !g.kind.Planned() {
			t.Errorf("genFaults[%d]: %s is not a kind a file may write", j, g.kind.Name())
			continue
		}
		if g.notDrawn != "" {
			// A kind the generator never draws: no class, no draw, or it
			// would be drawn after all (faultKinds skips it by notDrawn).
			if g.class != "" || g.draw != nil || g.inside != nil {
				t.Errorf("%s genFaults[%d]: not drawn (%s), yet it has a class or a draw", g.kind.Name(), j, g.notDrawn)
			}
			continue
		}
		if !slices.Contains(scenarios.FaultClasses, g.class) || g.class == scenarios.ClassNone || g.draw == nil {
			t.Errorf("%s genFaults[%d]: class %q is not a fault class, or no draw", g.kind.Name(), j, g.class)
			continue
		}
		// The class is the vocabulary's, and the vocabulary says it plans this kind.
		if c := scenarios.ClassOf(g.class); c == nil || !slices.Contains(c.Kinds(), g.kind) {
			t.Errorf("%s genFaults[%d]: the vocabulary's class %q does not plan it (the fault table's Classes)", g.kind.Name(), j, g.class)
		}
		fg := faultGen{ttl: time.Second, pauseMax: 3 * time.Second, clients: 2, nodes: 3}
		rapid.Check(t, func(rt *rapid.T) {
			f := g.draw(fg, rt)
			if g.onNode() {
				n := 0
				f.Node = &n
			} else {
				f.Client = "c1"
			}
			if f.EngineKind() != g.kind {
				rt.Fatalf("%s genFaults[%d] drew kind %q", g.kind.Name(), j, f.Kind)
			}
			s := &scenarios.Scenario{Name: "kind", Algorithm: "set-nx-px-token", Seed: 1,
				Duration: scenarios.Duration(10 * time.Second), Nodes: make([]scenarios.Node, 3),
				Clients: []scenarios.Client{{Name: "c1", Iterations: 1}}, Faults: []scenarios.Fault{f}}
			if err := s.Validate(); err != nil {
				rt.Fatalf("%s genFaults[%d] drew a fault a file may not hold: %v", g.kind.Name(), j, err)
			}
		})
	}
}

// TestGeneratedKindOrder pins the order the generator offers kinds in: the
// "kind" draw indexes it, so a change here changes every explore digest.
func TestGeneratedKindOrder(t *testing.T) {
	all := classSet{}
	for _, c := range scenarios.FaultClasses {
		all[c] = true
	}
	for _, tc := range []struct {
		inside  bool
		assumes locks.Assumptions
		renews  bool
		want    []string
	}{
		{false, locks.Assumptions{}, false, []string{"crash", "pause", "clock-jump", "clock-jump@node", "node-restart@node", "failover@node"}}, // failover is never among several here: failoverLast draws it
		// A lease on the node's TTL: a client's clock does not end it, a
		// node's does; a delayed restart keeps it.
		{true, locks.Assumptions{Expiry: locks.ExpiryTTL}, false, []string{"crash", "pause", "clock-jump", "node-restart@node"}},
		{true, locks.Assumptions{Expiry: locks.ExpiryTTL}, true, []string{"crash", "pause", "clock-jump"}}, // a watchdog outlives any down time
		{true, locks.Assumptions{Expiry: locks.ExpiryTimestamp}, false, []string{"crash", "pause", "clock-jump@node", "node-restart@node"}},
		{true, locks.Assumptions{Expiry: locks.ExpiryNone}, false, []string{"crash", "pause", "clock-jump", "clock-jump@node"}},
		{true, locks.Assumptions{Expiry: locks.ExpiryNone, Fsync: true}, false, []string{"crash", "pause", "clock-jump", "clock-jump@node", "node-restart@node"}},
		{true, locks.Assumptions{Expiry: locks.ExpiryTTL, Wait: time.Millisecond}, false, []string{"crash", "pause", "clock-jump", "node-restart@node", "failover@node"}},
	} {
		var got []string
		for _, g := range (&scenarioGen{inside: tc.inside, assumes: tc.assumes, renewal: renewalIf(tc.renews)}).faultKinds(all) {
			name := g.kind.File()
			if g.onNode() {
				name += "@node"
			}
			got = append(got, name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("inside %v, %+v, renews %v: kinds %v, want %v", tc.inside, tc.assumes, tc.renews, got, tc.want)
		}
	}
}

// renewalIf is a watchdog's renewal when renews, else none.
func renewalIf(renews bool) renewal {
	if renews {
		return renewSelf
	}
	return renewNone
}
