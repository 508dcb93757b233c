package judge

import (
	"fmt"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// faultNotes is a note for each fault of the plan that did not act on the
// lock (sim.FaultUse): "faults[2] (node-restart node2): node2 never served
// this lock", at the time it fired, or the run's end when it never did. A
// verdict that stands on faults that touched nothing says less than it
// seems to.
func faultNotes(p *scenarios.Prepared, res *sim.Result) []model.Note {
	var notes []model.Note
	for i, u := range res.Faults {
		if u.Acted || i >= len(p.Config.Faults) {
			continue
		}
		f := &p.Config.Faults[i]
		kind := p.FaultKind(i)
		var target string
		var procs []string
		switch f.Kind.Target() {
		case fault.OnNode:
			target = fmt.Sprintf("node%d", f.Node)
		case fault.OnClient:
			target = procLabel(&res.History, f.Proc)
			procs = []string{target}
		}
		notes = append(notes, model.Note{Processes: procs, From: u.At, To: u.At,
			Text: fmt.Sprintf("faults[%d] (%s %s): %s", i, kind, target, u.Why)})
	}
	return notes
}

// procLabel is process i's name as the history has it.
func procLabel(h *sim.History, i int) string {
	if i >= 0 && i < len(h.Procs) && h.Procs[i] != "" {
		return h.Procs[i]
	}
	return fmt.Sprintf("p%d", i)
}
