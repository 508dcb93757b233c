package engine

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

// A planned kind the table lacks is refused by name, not skipped.
func TestUnknownKindRefused(t *testing.T) {
	saved := realKinds[fault.Pause]
	delete(realKinds, fault.Pause)
	defer func() { realKinds[fault.Pause] = saved }()
	cfg := realConfig()
	cfg.Faults = []sim.Fault{{Kind: fault.Pause, Proc: 0, At: 0, Dur: 1}}
	if err := Check(&cfg); err == nil || !strings.HasPrefix(err.Error(), "faults[0]: a pause fault runs only in simulation") {
		t.Errorf("a kind without an entry: %v", err)
	}
}
