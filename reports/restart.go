package reports

import (
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// keptAfterRestart draws the key again once its node is back from a restart
// that persisted it (the event's Key; without persistence it is zero and
// nothing changes): the version last seen there, from when the node serves
// again until its TTL runs out. A kept key that is not the version last seen
// (aof-everysec lost a newer write) is left for the next command to show,
// as its writer is not known here.
func keptAfterRestart(e sim.Event, prev *sim.KeyState, had bool, present *bool, from, expires *sim.Time, back sim.Time) {
	if !e.Key.Exists || !had || !prev.Exists || prev.Value != e.Key.Value {
		return
	}
	*prev = e.Key
	*expires = -1
	if e.Key.TTL > 0 {
		*expires = e.At + sim.Time(e.Key.TTL)
	}
	if *expires < 0 || *expires > back {
		*present, *from = true, back
	}
}

// reloaded is what a node restart with persistence kept, for its line in
// the fault list ("" for any other fault, and without persistence).
func reloaded(e sim.Event) string {
	if e.Kind != sim.KindFault || !e.Fault.LosesData() || e.RestartPersistence() == sim.PersistNone {
		return ""
	}
	return " (" + model.RestartLoss(e) + ")"
}

// restartLegend explains the restart glyphs: a run whose restarts all lost
// their data says so as it always did.
func restartLegend(faults []sim.Event, failover bool) string {
	x := "X restart (data lost)"
	for _, e := range faults {
		if reloaded(e) != "" {
			x = "X restart (data lost, or reloaded as persisted)"
			break
		}
	}
	if failover {
		x += " or failover"
	}
	return x + "  x down"
}
