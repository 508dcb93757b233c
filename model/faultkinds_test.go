package model

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// TestFaultKindsComplete fails when a fault kind has no wording on the
// timeline, or one that does not name it apart from the raw kind name.
func TestFaultKindsComplete(t *testing.T) {
	for _, k := range sim.FaultKinds() {
		if _, ok := faultWords[k]; !ok {
			t.Errorf("%s: no entry in faultWords (model/faultkinds.go)", k)
			continue
		}
		desc, to, color := faultBar(sim.Event{At: 10, Kind: sim.KindFault, Fault: k, Dur: time.Second})
		if desc == "" || color == "" || to < 10 || strings.Contains(desc, "\n") {
			t.Errorf("%s: bar %q to %v colour %q: want a one-line wording, an end no earlier than the fault, a colour", k, desc, to, color)
		}
	}
	if desc, _, _ := faultBar(sim.Event{Fault: 200}); desc != "unknown" {
		t.Errorf("an unknown kind shows as %q, want its String", desc)
	}
}
