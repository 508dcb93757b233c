package reports

import (
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// reloaded is what a node restart with persistence kept, for its line in
// the fault list ("" for any other fault, and without persistence).
func reloaded(e sim.Event) string {
	if e.Kind != sim.KindFault || !e.Fault.LosesData() || e.RestartPersistence() == sim.PersistNone {
		return ""
	}
	return " (" + model.RestartLoss(e) + ")"
}

// restartLegend explains the restart glyphs: a run whose restarts all lost
// their data says so as it always did; a fault that promotes a replica
// draws the same glyph, and the legend names it by its mark ("failover").
func restartLegend(faults []sim.Event) string {
	x := "X restart (data lost)"
	for _, e := range faults {
		if reloaded(e) != "" {
			x = "X restart (data lost, or reloaded as persisted)"
			break
		}
	}
	for _, e := range faults {
		if e.Fault.Promotes() {
			x += " or " + e.Fault.Mark()
			break
		}
	}
	return x + "  x down"
}
