package explore

import (
	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
)

// AnswerReport is one answer of a two-answer search in the JSON
// (Report.Inside, Report.Outside).
type AnswerReport struct {
	// Verdict is the answer: the worst verdict found (safe when none, or
	// incomplete when only cut runs were met), or "untested" when too few
	// runs held the lock (Untested says why).
	Verdict string `json:"verdict"`
	Runs    int    `json:"runs"` // runs in index order up to the stopping one, or all
	// FirstRun is the failing run's index, null when none failed.
	FirstRun *int `json:"first_run"`
	// SafetyBroken is, for unsafe, which safety the counterexample broke.
	SafetyBroken string `json:"safety_broken,omitempty"`
	// Counterexample is the path of the answer's scenario file, when one
	// was written.
	Counterexample *string `json:"counterexample"`
	// FromOutside: the inside answer's counterexample came from the
	// outside search, whose failing run lay inside the assumptions.
	FromOutside bool `json:"from_outside,omitempty"`
	// IncompleteRuns, VacuousRuns and NeverHeldRuns count the search's cut
	// runs, runs no fault touched, and runs in which no Acquire returned
	// the lock; HeldShare is the share of runs that did.
	IncompleteRuns int     `json:"incomplete_runs"`
	VacuousRuns    int     `json:"vacuous_runs"`
	NeverHeldRuns  int     `json:"never_held_runs"`
	HeldShare      float64 `json:"held_share"`
	// Untested says why the search answers nothing ("" when it does).
	Untested string `json:"untested,omitempty"`
	// BreakingPoint is the outside answer's: the smallest fault found that
	// breaks the lock.
	BreakingPoint *BreakingReport `json:"breaking_point,omitempty"`
	// Also are other breaking points met (outside only).
	Also []BreakingReport `json:"also,omitempty"`
	_    struct{}         // grows: callers name the fields they set
}

// BreakingReport is a breaking point in the JSON.
type BreakingReport struct {
	Verdict    string `json:"verdict"`
	Words      string `json:"words"` // "unsafe from a pause of 2.97s with 30ms of work, TTL 3s"
	Kind       string `json:"kind"`  // pause, clocks, work, network, drift, clock-jump, node-restart, failover, timeout, renewal, plan
	Assumption string `json:"assumption"`
	// SizeSeconds is the breaking size, 0 for a sizeless fault;
	// BelowSeconds the largest size tried that did not break the lock.
	SizeSeconds  float64 `json:"size_seconds"`
	BelowSeconds float64 `json:"below_seconds"`
	Why          string  `json:"why"`   // the assumption it breaks, in words
	Class        string  `json:"class"` // fault classes of the search that found it
	Run          int     `json:"run"`
	// Counterexample is the path of its scenario file, when written.
	Counterexample *string `json:"counterexample"`
}

// AssumptionsReport is what a lock was judged against, in the JSON.
type AssumptionsReport struct {
	Words        string  `json:"words"`
	Expiry       string  `json:"expiry"`
	PauseSeconds float64 `json:"pause_seconds,omitempty"`
	Fsync        bool    `json:"fsync,omitempty"`
	WaitSeconds  float64 `json:"wait_seconds,omitempty"`
}

// Untested is the verdict of an answer whose search tested too little.
const Untested = "untested"

// AssumptionsJSON is a's JSON.
func AssumptionsJSON(a locks.Assumptions) *AssumptionsReport {
	return &AssumptionsReport{Words: a.Words(), Expiry: a.Expiry.String(), PauseSeconds: a.Pause.Seconds(),
		Fsync: a.Fsync, WaitSeconds: a.Wait.Seconds()}
}

// InsideReport is the inside answer's JSON; path is where its
// counterexample was written ("" for nowhere). nil when no inside search ran.
func (a *Answers) InsideReport(path string) *AnswerReport {
	if a.Inside == nil {
		return nil
	}
	rep := answerBase(a.Inside, a.InsideUntested)
	if f := a.InsideFind; f != nil {
		run := f.Run
		rep.FirstRun, rep.Verdict, rep.FromOutside = &run, f.Verdict, a.FromOutside
		if f.Verdict == model.VerdictUnsafe {
			rep.SafetyBroken = f.Outcome.Verdict.Broke()
		}
		rep.Counterexample = pathOrNil(path)
	}
	if a.InsideUntested != "" && a.InsideFind == nil {
		rep.Verdict = Untested
	}
	return rep
}

// OutsideReport is the outside answer's JSON; path is where its breaking
// point's counterexample was written. nil when no outside search ran.
func (a *Answers) OutsideReport(path string) *AnswerReport {
	if a.Outside == nil {
		return nil
	}
	rep := answerBase(a.Outside, a.OutsideUntested)
	if r := a.Outside; r.Search.Found != nil {
		run := r.Search.Found.Index
		rep.FirstRun = &run
		rep.Verdict = r.Search.Found.Verdict
		if r.Outcome != nil {
			rep.Verdict = r.Outcome.Verdict.Verdict
		}
	}
	if bp := a.Breaking; bp != nil {
		rep.BreakingPoint = breakingJSON(bp, path)
		rep.Counterexample = pathOrNil(path)
		if bp.Outcome != nil && bp.Verdict == model.VerdictUnsafe {
			rep.SafetyBroken = bp.Outcome.Verdict.Broke()
		}
	}
	for i := range a.Also {
		rep.Also = append(rep.Also, *breakingJSON(&a.Also[i], ""))
	}
	if a.OutsideUntested != "" && rep.FirstRun == nil {
		rep.Verdict = Untested
	}
	return rep
}

func answerBase(r *Result, untested string) *AnswerReport {
	sr := r.Search
	rep := &AnswerReport{Runs: sr.Runs, IncompleteRuns: sr.Incomplete, VacuousRuns: sr.Vacuous,
		NeverHeldRuns: sr.NeverHeld, Untested: untested}
	if sr.Runs > 0 {
		rep.HeldShare = float64(sr.Runs-sr.NeverHeld) / float64(sr.Runs)
	}
	rep.Verdict = model.VerdictSafe
	for _, f := range sr.Met { // worst first; incomplete last
		rep.Verdict = f.Verdict
		break
	}
	return rep
}

func breakingJSON(bp *BreakingPoint, path string) *BreakingReport {
	return &BreakingReport{Verdict: bp.Verdict, Words: bp.Words, Kind: bp.Kind, Assumption: bp.Assumption,
		SizeSeconds: text.Seconds(bp.Size), BelowSeconds: text.Seconds(bp.Below), Why: bp.Why, Class: bp.Class,
		Run: bp.Run, Counterexample: pathOrNil(path)}
}

func pathOrNil(p string) *string {
	if p == "" {
		return nil
	}
	return &p
}
