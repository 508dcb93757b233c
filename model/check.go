package model

import "github.com/locksim/locksim/sim"

// Check judges one run's history.
func Check(h sim.History, o Options) Verdict {
	o = o.withDefaults()
	t := traces.Get().(*trace).extract(&h, false, !o.SkipPorcupine)
	if !t.keepOps && len(t.strays) > 0 {
		t.extract(&h, false, true) // certain reads the lock operations
	}
	defer func() {
		t.h, t.names = nil, nil // keep the buffers, not the history
		traces.Put(t)
	}()
	w := &witnesses{h: &h}
	vs := append(overlapViolations(t, w), strayViolations(t, w, false)...)
	lockFound := len(vs)
	lost := lostUpdateViolations(t, w)
	vs = append(vs, lost...)
	vs = append(vs, stuckViolations(t, o, w)...)
	stale, notes := staleViolations(t, o, w)
	vs = append(vs, stale...)
	vs = append(vs, clientErrorViolations(t, w)...)

	v := Verdict{Linearizable: Unknown, ResourceLinearizable: Unknown}
	if !o.SkipPorcupine {
		m, ops := mutexCheck(t, minPiece)
		v.Linearizable = linearizable(m, ops, o.Timeout)
		m, ops = resourceCheck(t, minPiece)
		v.ResourceLinearizable = linearizable(m, ops, o.Timeout)
		// The direct checks should explain every porcupine rejection. If one
		// does not, say so rather than stay quiet.
		if v.Linearizable == No && lockFound == 0 {
			strays := strayViolations(t, w, true)
			if len(strays) == 0 {
				strays = append(strays, Violation{Kind: KindNotLinearizable, From: 0, To: t.end,
					Detail: "porcupine found no order of the lock history a mutex allows, and no overlap explains it"})
			}
			vs = append(vs, strays...)
		}
		if v.ResourceLinearizable == No && len(lost) == 0 {
			vs = append(vs, Violation{Kind: KindNotLinearizable, From: 0, To: t.end,
				Detail: "porcupine found no order of the resource history a counter allows, and no lost update explains it"})
		}
	}
	sortViolations(vs)
	if vs == nil {
		vs = []Violation{}
	}
	v.Violations = vs
	if notes == nil {
		notes = []Note{}
	}
	v.Notes = notes
	v.Verdict = verdictOf(vs)
	return v
}
