// Package reports renders runs and searches: text, JSON, HTML, the verdict
// matrix. It holds no simulation logic.
package reports

import (
	"encoding/json"
	"io"
	"time"

	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
)

// RunJSON is the stable JSON of one run. Later fields are only ever added.
type RunJSON struct {
	Scenario  string `json:"scenario"`
	Algorithm string `json:"algorithm"`
	Seed      uint64 `json:"seed"`
	Verdict   string `json:"verdict"`
	// SafetyBroken is, for an unsafe run, which safety broke
	// (model.Verdict.Broke): "lost update", "overlap, resource safe" or
	// "lock broken, resource safe"; omitted for any other verdict.
	SafetyBroken string `json:"safety_broken,omitempty"`
	// Vacuous: faults were planned and none touched the lock
	// (sim.Result.Vacuous), so the verdict says nothing about them; omitted
	// when false.
	Vacuous              bool              `json:"vacuous,omitempty"`
	Expect               string            `json:"expect,omitempty"`
	Violations           []model.Violation `json:"violations"`
	Linearizable         model.Tri         `json:"linearizable"`
	ResourceLinearizable model.Tri         `json:"resource_linearizable"`
	Digest               string            `json:"digest"`
	Stats                StatsJSON         `json:"stats"`
	Cut                  string            `json:"cut,omitempty"`
	// Notes are what the run did that breaks no rule but is worth knowing
	// (a release lost on the network whose key lived out its TTL).
	Notes []model.Note `json:"notes"`
	// Backend is "sim" for the simulation, "redis ADDR" for a real server.
	Backend string `json:"backend"`
	// Overrides are the lock parameters the run set over the lock's own
	// defaults (judge.Outcome.Overrides); empty when it kept them all.
	Overrides []judge.Override `json:"overrides"`
	// Assumptions says whether the scenario lies inside the run's lock's
	// assumptions, and if not which one it breaks.
	Assumptions AssumptionsJSON `json:"assumptions"`
	// NextSteps are what the counterexample means for the lock and what to
	// try (judge.Outcome.NextSteps); empty for a safe run.
	NextSteps []judge.NextStep `json:"next_steps"`
}

// AssumptionsJSON is whether a run's scenario lies inside the assumptions
// of its lock (judge.Outcome.Assumptions).
type AssumptionsJSON struct {
	Inside bool `json:"inside"`
	// Outside is the assumption the scenario breaks; "" when inside.
	Outside string `json:"outside,omitempty"`
}

// StatsJSON counts what happened.
type StatsJSON struct {
	Acquired   int     `json:"acquired"`
	Failed     int     `json:"failed"`
	Commands   int     `json:"commands"`
	SimSeconds float64 `json:"sim_seconds"`
}

// JSON is the value WriteJSON writes for an outcome, before encoding: the
// run as simrun run --json prints it.
func JSON(o *judge.Outcome) RunJSON {
	vs := o.Verdict.Violations
	if vs == nil {
		vs = []model.Violation{}
	}
	expect := ""
	if o.Prepared.Own {
		expect = o.Scenario.Expect // an expectation holds for the scenario's own algorithm only
	}
	notes := o.Verdict.Notes
	if notes == nil {
		notes = []model.Note{}
	}
	st := o.Result.Stats
	overrides := o.Overrides()
	if overrides == nil {
		overrides = []judge.Override{}
	}
	inside := AssumptionsJSON{Inside: true}
	if err := o.Assumptions(); err != nil {
		inside = AssumptionsJSON{Outside: err.Error()}
	}
	next := o.NextSteps()
	if next == nil {
		next = []judge.NextStep{}
	}
	return RunJSON{
		Scenario:             o.Scenario.Name,
		Algorithm:            o.Prepared.Algorithm.Name,
		Seed:                 o.Scenario.Seed,
		Verdict:              o.Verdict.Verdict,
		SafetyBroken:         o.Verdict.Broke(),
		Vacuous:              o.Result.Vacuous(),
		Expect:               expect,
		Violations:           vs,
		Linearizable:         o.Verdict.Linearizable,
		ResourceLinearizable: o.Verdict.ResourceLinearizable,
		Digest:               o.Digest,
		Stats: StatsJSON{Acquired: st.Acquired, Failed: st.Failed, Commands: st.Commands,
			SimSeconds: text.Seconds(time.Duration(o.Result.End))},
		Cut:         o.Result.Cut,
		Notes:       notes,
		Backend:     o.BackendName(),
		Overrides:   overrides,
		Assumptions: inside,
		NextSteps:   next,
	}
}

// WriteJSON writes one outcome as an indented JSON object.
func WriteJSON(w io.Writer, o *judge.Outcome) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(JSON(o))
}
