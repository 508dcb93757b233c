package model

import (
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

// A failover's bar says whether it promoted a replica: with none (Value 0)
// it is an outage only, and the node keeps its key.
func TestFailoverBarSaysWhetherAReplicaWasPromoted(t *testing.T) {
	for value, want := range map[int64]string{
		0: "failover: no replica to promote, down 1s",
		1: "failover: primary lost, replica promoted after 1s",
	} {
		e := sim.Event{Kind: sim.KindFault, Fault: fault.Failover, Value: value, Dur: time.Second}
		if desc, _, _ := faultBar(e); desc != want {
			t.Errorf("failover promoting lane %d: %q, want %q", value, desc, want)
		}
	}
}
