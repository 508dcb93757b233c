package reports

import (
	"testing"

	"github.com/locksim/locksim/sim"
)

// TestFaultKindsComplete fails when a fault kind has no drawing, or one that
// contradicts what the kind does: a kind must show on the lane of its target,
// end a life on the lane exactly when it ends the process's life, draw a
// pause exactly when it pauses, and a node down exactly when it loses data.
func TestFaultKindsComplete(t *testing.T) {
	for _, k := range sim.FaultKinds() {
		d, ok := faultDrawings[k]
		if !ok {
			t.Errorf("%s: no entry in faultDrawings (reports/faultkinds.go)", k)
			continue
		}
		if !d.pauses && !d.down && d.mark == nil && d.life == lifeSame && !d.shifts {
			t.Errorf("%s: draws nothing", k)
		}
		if (d.life != lifeSame) != k.EndsLife() {
			t.Errorf("%s: lane life %d, but EndsLife() = %v", k, d.life, k.EndsLife())
		}
		if d.pauses != k.Pauses() || d.down != k.LosesData() {
			t.Errorf("%s: pause bar %v / node down %v, but Pauses() = %v / LosesData() = %v", k, d.pauses, d.down, k.Pauses(), k.LosesData())
		}
		onProc := d.life != lifeSame || d.pauses
		onNode := d.down || d.shifts
		if (onProc && k.Target() != sim.TargetProc) || (onNode && k.Target() != sim.TargetNode) {
			t.Errorf("%s: drawn on a lane that is not its target's (%d)", k, k.Target())
		}
	}
}
