package scenarios

import (
	"testing"

	"github.com/locksim/locksim/sim"
)

// TestFaultKindsComplete fails when a fault kind is missing a part of its
// scenarios entry: every kind the engine can plan is written some way in a
// file, and every file kind builds, aimed at its own target. That the
// generator draws each kind is explore/gen's TestFaultKindsComplete.
func TestFaultKindsComplete(t *testing.T) {
	built := map[sim.FaultKind]bool{}
	seen := map[string]bool{}
	for i := range fileFaults {
		k := &fileFaults[i]
		if k.name == "" || seen[k.name] {
			t.Errorf("fileFaults[%d]: name %q is empty or repeated", i, k.name)
		}
		seen[k.name] = true
		if k.build == nil {
			t.Errorf("%s: needs build", k.name)
			continue
		}
		node := 0
		for _, f := range []Fault{{Kind: k.name, Client: "c1"}, {Kind: k.name, Node: &node}} {
			if k.onNode(&f) != (f.Node != nil) {
				continue // not a target this kind takes
			}
			sk, _ := k.build(&f)
			built[sk] = true
			want := sim.TargetProc
			if f.Node != nil {
				want = sim.TargetNode
			}
			if sk.Target() != want {
				t.Errorf("%s aimed at node %v builds %s, which targets %d", k.name, f.Node != nil, sk, sk.Target())
			}
		}
	}
	for _, sk := range sim.FaultKinds() {
		if sk.Planned() && !built[sk] {
			t.Errorf("%s: the engine can plan it, but no file kind builds it (scenarios/faultkinds.go)", sk)
		}
	}
}

// OutsideTTL names exactly the kinds and targets InsideTTL refuses outright.
func TestOutsideTTL(t *testing.T) {
	for _, c := range []struct {
		kind   string
		onNode bool
		want   bool
	}{
		{FaultPause, false, false}, // counted against the TTL, not refused
		{FaultCrash, false, false},
		{FaultClockJump, false, false},
		{FaultClockJump, true, true},
		{FaultNodeRestart, true, true},
		{FaultFailover, true, true},
		{"no-such-kind", true, false},
	} {
		if got := OutsideTTL(c.kind, c.onNode); got != c.want {
			t.Errorf("OutsideTTL(%s, node %v) = %v, want %v", c.kind, c.onNode, got, c.want)
		}
	}
}
