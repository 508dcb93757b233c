// Package judge runs a prepared scenario and judges its history: the one run
// step that run, explore, prove, the matrix, simtest and the real-Redis backend
// share. It hands the history to the checkers (model.Check), marks a run cut
// at a cap incomplete, and adds a note for each planned fault that never
// touched the lock. The scenario format itself (package scenarios) knows no
// checker.
//
// It judges a sim.Result, whichever backend made it, and imports no backend
// but the simulated one (sim.Run, which is also the seam every backend meets):
// another backend runs the Config itself and hands its Result to Judged
// (realtime.Judge does, against real servers).
package judge

import (
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// Outcome is one scenario run and its verdict.
type Outcome struct {
	Scenario *scenarios.Scenario
	Prepared *scenarios.Prepared
	Result   *sim.Result
	Verdict  model.Verdict
	Digest   string
	// Backend is "" for the simulation, else the real backend, as
	// BackendName shows it.
	Backend string
	_       struct{} // grows: callers name the fields they set
}

// Run runs scenario s against algorithm algoName ("" for its own) and
// checks the history. opts.TTL is filled in from the algorithm.
func Run(s *scenarios.Scenario, algoName string, opts model.Options) (*Outcome, error) {
	p, err := s.Prepare(algoName)
	if err != nil {
		return nil, err
	}
	return Prepared(s, p, opts)
}

// Prepared runs p, already prepared from s, and checks the history.
func Prepared(s *scenarios.Scenario, p *scenarios.Prepared, opts model.Options) (*Outcome, error) {
	res, err := sim.Run(p.Config)
	if err != nil {
		return nil, err
	}
	return outcome(s, p, res, opts, ""), nil
}

// Verdict is the one run step every caller shares (run, explore, matrix,
// simtest): simulate the prepared scenario and judge its history. Searches
// call it directly to skip what only a report needs (the digest, and
// porcupine when opts says so).
func Verdict(p *scenarios.Prepared, opts model.Options) (*sim.Result, model.Verdict, error) {
	res, err := sim.Run(p.Config)
	if err != nil {
		return nil, model.Verdict{}, err
	}
	return res, check(p, res, opts), nil
}

// check judges a run's history: the lifetime filled in from the algorithm,
// a cut run marked incomplete (a real run cut at its duration is no more a
// pass than a simulated one), and a note for each planned fault that did
// not touch the lock (faultnotes.go).
func check(p *scenarios.Prepared, res *sim.Result, opts model.Options) model.Verdict {
	opts.TTL = p.Lifetime()
	v := model.Check(res.History, opts)
	v.MarkCut(res.Cut)
	v.Notes = append(v.Notes, faultNotes(p, res)...)
	return v
}

// Judged judges res, the result another backend made of p (prepared from
// s), with the same checkers as a simulated run's. backend names where it
// ran, for reports ("redis 127.0.0.1:6379"); it must not be empty.
func Judged(s *scenarios.Scenario, p *scenarios.Prepared, res *sim.Result, backend string, opts model.Options) *Outcome {
	return outcome(s, p, res, opts, backend)
}

// outcome judges a run for a report: the verdict and the digest.
func outcome(s *scenarios.Scenario, p *scenarios.Prepared, res *sim.Result, opts model.Options, backend string) *Outcome {
	return &Outcome{
		Scenario: s,
		Prepared: p,
		Result:   res,
		Verdict:  check(p, res, opts),
		Digest:   res.History.Digest(),
		Backend:  backend,
	}
}

// BackendName is where the outcome ran: "sim", or the real backend's name.
func (o *Outcome) BackendName() string {
	if o.Backend == "" {
		return "sim"
	}
	return o.Backend
}
