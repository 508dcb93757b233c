package sim

// FaultUse says what one fault of a run's plan did: whether it fired before
// the run ended, and whether it touched the lock. A fault that fired and
// touched nothing (a restart of a node the lock never used, a crash of a
// process that had finished) leaves the run's verdict saying less than it
// seems to: the reports say so.
type FaultUse struct {
	Fired bool
	Acted bool
	// Why is, when it did not act, why not, in words that follow the
	// fault's name: "node2 never served this lock", "c1 had finished".
	Why string
}

// Vacuous says the run had faults planned and none of them touched the
// lock: whatever its verdict, the fault plan did not test the lock.
func (r *Result) Vacuous() bool {
	if len(r.Faults) == 0 {
		return false
	}
	for _, f := range r.Faults {
		if f.Acted {
			return false
		}
	}
	return true
}
