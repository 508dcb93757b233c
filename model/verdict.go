package model

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/locksim/locksim/sim"
)

// Verdicts, from worst to best.
const (
	VerdictUnsafe      = "unsafe"
	VerdictStuck       = "stuck"
	VerdictStale       = "stale"
	VerdictClientError = "client-error"
	VerdictSafe        = "safe"
	VerdictIncomplete  = "incomplete" // nothing found, but the run was cut: incomplete.go
)

// Violation kinds.
const (
	KindOverlap         = "overlap"          // two live processes held the lock at once
	KindLostUpdate      = "lost-update"      // a write to the resource overwrote one it never saw
	KindNotLinearizable = "not-linearizable" // porcupine found no order, and no direct witness explains it
	KindStuck           = "stuck"            // processes kept trying and nobody got the lock
	KindStale           = "stale"            // a released lock's key stayed while others waited
	KindClientError     = "client-error"     // the algorithm's own code failed
)

// Verdict is the judgement of one run.
type Verdict struct {
	Verdict    string      `json:"verdict"`
	Violations []Violation `json:"violations"`
	// Linearizable is porcupine's answer for the lock (mutex) history.
	Linearizable Tri `json:"linearizable"`
	// ResourceLinearizable is porcupine's answer for the protected counter.
	ResourceLinearizable Tri `json:"resource_linearizable"`
	// Notes are what the run did that is worth knowing but breaks no rule:
	// a release lost on the network whose key lived out its TTL.
	Notes []Note `json:"notes"`
}

// Note is an observation about a run that is not a violation.
type Note struct {
	Processes []string
	From, To  sim.Time // true time
	Text      string
}

type noteJSON struct {
	Processes []string `json:"processes"`
	From      string   `json:"from"`
	To        string   `json:"to"`
	Text      string   `json:"text"`
}

// MarshalJSON writes times as RFC 3339 with nanoseconds of true time, as
// Violation does.
func (n Note) MarshalJSON() ([]byte, error) {
	procs := n.Processes
	if procs == nil {
		procs = []string{}
	}
	return json.Marshal(noteJSON{procs, n.From.String(), n.To.String(), n.Text})
}

// Violation is one finding with its witness.
type Violation struct {
	Kind      string
	Processes []string
	From, To  sim.Time // true time
	Detail    string
	// Witness is the events that led there, in history order. Reports render
	// it; it stays out of the JSON, whose fields are stable.
	Witness []sim.Event
}

type violationJSON struct {
	Kind      string   `json:"kind"`
	Processes []string `json:"processes"`
	From      string   `json:"from"`
	To        string   `json:"to"`
	Detail    string   `json:"detail"`
}

// MarshalJSON writes times as RFC 3339 with nanoseconds of true time.
func (v Violation) MarshalJSON() ([]byte, error) {
	procs := v.Processes
	if procs == nil {
		procs = []string{}
	}
	return json.Marshal(violationJSON{v.Kind, procs, v.From.String(), v.To.String(), v.Detail})
}

// severity orders kinds by the verdict they force.
func severity(kind string) int {
	switch kind {
	case KindOverlap, KindLostUpdate, KindNotLinearizable:
		return 4
	case KindStuck:
		return 3
	case KindStale:
		return 2
	case KindClientError:
		return 1
	}
	return 0
}

var verdictBySeverity = [...]string{VerdictSafe, VerdictClientError, VerdictStale, VerdictStuck, VerdictUnsafe}

// verdictOf applies the precedence unsafe > stuck > stale > client-error > safe.
func verdictOf(vs []Violation) string {
	worst := 0
	for _, v := range vs {
		worst = max(worst, severity(v.Kind))
	}
	return verdictBySeverity[worst]
}

// sortViolations orders findings by From, kind, processes, then the rest, so
// equal histories always list them the same way.
func sortViolations(vs []Violation) {
	slices.SortStableFunc(vs, func(a, b Violation) int {
		return cmp.Or(
			cmp.Compare(a.From, b.From),
			cmp.Compare(a.Kind, b.Kind),
			slices.Compare(a.Processes, b.Processes),
			cmp.Compare(a.To, b.To),
			cmp.Compare(a.Detail, b.Detail),
		)
	})
}
