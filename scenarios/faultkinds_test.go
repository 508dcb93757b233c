package scenarios

import (
	"slices"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"pgregory.net/rapid"
)

// TestFaultKindsComplete fails when a fault kind is missing a part of its
// scenarios entry: every kind the engine can plan is written some way in a
// file, and every file kind builds, is drawn by the generator under a fault
// class, and draws only the fields it takes, aimed at its own target.
func TestFaultKindsComplete(t *testing.T) {
	built := map[sim.FaultKind]bool{}
	seen := map[string]bool{}
	for i := range fileFaults {
		k := &fileFaults[i]
		if k.name == "" || seen[k.name] {
			t.Errorf("fileFaults[%d]: name %q is empty or repeated", i, k.name)
		}
		seen[k.name] = true
		if k.build == nil || len(k.gen) == 0 {
			t.Errorf("%s: needs build and at least one way to generate it", k.name)
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
		for j, g := range k.gen {
			if !slices.Contains(FaultClasses, g.class) || g.class == ClassNone || g.draw == nil {
				t.Errorf("%s gen[%d]: class %q is not a fault class, or no draw", k.name, j, g.class)
				continue
			}
			if g.onNode && k.target == targetClient || !g.onNode && k.target == targetNode {
				t.Errorf("%s gen[%d]: aimed at a node %v, but the kind targets %d", k.name, j, g.onNode, k.target)
			}
			fg := faultGen{ttl: time.Second, pauseMax: 3 * time.Second, clients: 2, nodes: 3}
			rapid.Check(t, func(rt *rapid.T) {
				f := g.draw(fg, rt)
				if f.Kind != k.name {
					rt.Fatalf("%s gen[%d] drew kind %q", k.name, j, f.Kind)
				}
				if f.For != 0 && !k.hasFor || f.RestartAfter != 0 && !k.hasRestartAfter || f.By != 0 && !k.hasBy {
					rt.Fatalf("%s gen[%d] drew a field the kind does not take: %+v", k.name, j, f)
				}
			})
		}
	}
	for _, sk := range sim.FaultKinds() {
		if sk.Planned() && !built[sk] {
			t.Errorf("%s: the engine can plan it, but no file kind builds it (scenarios/faultkinds.go)", sk)
		}
	}
}

// TestGeneratedKindOrder pins the order the generator offers kinds in: the
// "kind" draw indexes it, so a change here changes every explore digest.
func TestGeneratedKindOrder(t *testing.T) {
	all := classSet{}
	for _, c := range FaultClasses {
		all[c] = true
	}
	for _, tc := range []struct {
		inside bool
		want   []string
	}{
		{false, []string{"crash", "pause", "clock-jump", "clock-jump@node", "node-restart@node"}},
		{true, []string{"crash", "pause", "clock-jump"}},
	} {
		var got []string
		for _, g := range (&scenarioGen{inside: tc.inside}).faultKinds(all) {
			name := ""
			for i := range fileFaults {
				for j := range fileFaults[i].gen {
					if &fileFaults[i].gen[j] == g {
						name = fileFaults[i].name
					}
				}
			}
			if g.onNode {
				name += "@node"
			}
			got = append(got, name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("inside %v: kinds %v, want %v", tc.inside, got, tc.want)
		}
	}
}
