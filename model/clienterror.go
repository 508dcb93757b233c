package model

import "fmt"

// client-error: a process stopped because the algorithm's own code failed
// (what would have been an exception in the document's language).
func clientErrorViolations(t *trace, w *witnesses) []Violation {
	var vs []Violation
	for _, i := range t.clientErr {
		e := t.h.Events[i]
		vs = append(vs, Violation{
			Kind:      KindClientError,
			Processes: names(t, e.Proc),
			From:      e.At,
			To:        e.At,
			Detail:    fmt.Sprintf("%s stopped at %s: %s", t.name(e.Proc), since(e.At), e.Err),
			Witness:   w.events(w.lastCommands(t, e.Proc, i, 3), []int{i}),
		})
	}
	return vs
}
