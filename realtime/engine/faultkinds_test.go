package engine

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/sim"
)

// TestFaultKindsComplete fails when a planned fault kind has no entry in
// this layer's table: a way to fire it in wall-clock time or a reason it
// cannot be, exactly one; a kind that is only recorded has neither.
func TestFaultKindsComplete(t *testing.T) {
	for _, k := range sim.FaultKinds() {
		rk, ok := realKinds[k]
		switch {
		case !k.Planned():
			if ok {
				t.Errorf("%s: recorded only, yet it has an entry", k)
			}
		case !ok:
			t.Errorf("%s: planned, but the real-time backend has no entry for it", k)
		case (rk.apply == nil) == (rk.refusal == ""):
			t.Errorf("%s: needs an apply or a refusal, exactly one", k)
		}
	}
}

// A planned kind the table lacks is refused by name, not skipped.
func TestUnknownKindRefused(t *testing.T) {
	saved := realKinds[sim.FaultPause]
	delete(realKinds, sim.FaultPause)
	defer func() { realKinds[sim.FaultPause] = saved }()
	cfg := realConfig()
	cfg.Faults = []sim.Fault{{Kind: sim.FaultPause, Proc: 0, At: 0, Dur: 1}}
	if err := Check(&cfg); err == nil || !strings.HasPrefix(err.Error(), "faults[0]: a pause fault runs only in simulation") {
		t.Errorf("a kind without an entry: %v", err)
	}
}
