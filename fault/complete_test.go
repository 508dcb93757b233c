package fault_test

import (
	"slices"
	"testing"

	"github.com/locksim/locksim/explore/gen"
	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/realtime/engine"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// TestEveryKindComplete fails, naming the kind and the file, when a kind a
// plan may hold lacks a part outside the table: an apply in the simulator
// (sim/faultapply.go), an apply or a one-line refusal in the real-time
// backend (realtime/engine/faultkinds.go), a draw or the reason it is never
// drawn in the generator (explore/gen/faultkinds.go), a kind of scenario
// file that builds it, and classes the vocabulary knows. The words and
// facts the checkers and the reports read are the table's own (fault's
// TestTable and TestFactsAgree); a kind that is only recorded (a respawn)
// has no apply anywhere.
func TestEveryKindComplete(t *testing.T) {
	for _, k := range fault.Kinds() {
		name := k.Name()
		if !k.Planned() {
			if sim.Applies(k) {
				t.Errorf("%s: recorded only, yet sim/faultapply.go applies it", name)
			}
			if ok, why := engine.Applies(k); ok || why != "" {
				t.Errorf("%s: recorded only, yet realtime/engine/faultkinds.go has an entry", name)
			}
			continue
		}
		if !sim.Applies(k) {
			t.Errorf("%s: no apply in sim/faultapply.go", name)
		}
		if ok, why := engine.Applies(k); ok == (why != "") {
			t.Errorf("%s: realtime/engine/faultkinds.go needs an apply or a refusal, exactly one", name)
		}
		if drawn, why := gen.Draws(k); drawn == (why != "") {
			t.Errorf("%s: explore/gen/faultkinds.go needs a draw or a notDrawn reason, exactly one", name)
		}
		f := scenarios.Fault{Kind: k.File()}
		if k.Target() == fault.OnNode {
			f.Node = new(int)
		}
		if f.EngineKind() != k {
			t.Errorf("%s: a scenario file's %q aimed at its target builds %s", name, k.File(), f.EngineKind().Name())
		}
		for _, c := range k.Classes() {
			if cl := scenarios.ClassOf(c); cl == nil || !slices.Contains(cl.Kinds(), k) {
				t.Errorf("%s: class %q is not in scenarios.Vocabulary", name, c)
			}
		}
	}
}
