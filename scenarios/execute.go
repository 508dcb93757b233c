package scenarios

import (
	"fmt"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// Outcome is one scenario run and its verdict.
type Outcome struct {
	Scenario *Scenario
	Prepared *Prepared
	Result   *sim.Result
	Verdict  model.Verdict
	Digest   string
	// Backend is "" for the simulation, else the real backend, as
	// BackendName shows it.
	Backend string
	_       struct{} // grows: callers name the fields they set
}

// Execute runs the scenario against algorithm algoName ("" for its own) and
// checks the history. opts.TTL is filled in from the algorithm.
func (s *Scenario) Execute(algoName string, opts model.Options) (*Outcome, error) {
	p, err := s.Prepare(algoName)
	if err != nil {
		return nil, err
	}
	return s.ExecutePrepared(p, opts)
}

// ExecutePrepared runs an already prepared scenario.
func (s *Scenario) ExecutePrepared(p *Prepared, opts model.Options) (*Outcome, error) {
	res, err := sim.Run(p.Config)
	if err != nil {
		return nil, err
	}
	return s.outcome(p, res, opts, ""), nil
}

// Judge is the one run step every caller shares (run, explore, matrix,
// simtest): simulate the prepared scenario and judge its history. Searches
// call it directly to skip what only a report needs (the digest, and
// porcupine when opts says so).
func (p *Prepared) Judge(opts model.Options) (*sim.Result, model.Verdict, error) {
	res, err := sim.Run(p.Config)
	if err != nil {
		return nil, model.Verdict{}, err
	}
	return res, p.judge(res, opts), nil
}

// judge checks a run's history: the lifetime filled in from the algorithm,
// a cut run marked incomplete (a real run cut at its duration is no more a
// pass than a simulated one), and a note for each planned fault that did
// not touch the lock (faultnotes.go).
func (p *Prepared) judge(res *sim.Result, opts model.Options) model.Verdict {
	opts.TTL = p.Lifetime()
	v := model.Check(res.History, opts)
	v.MarkCut(res.Cut)
	v.Notes = append(v.Notes, p.faultNotes(res)...)
	return v
}

// ExecuteReal runs an already prepared scenario against real servers
// through w, in wall-clock time (sim.RunReal), and checks the history with
// the same checkers. backend names w for reports ("redis 127.0.0.1:6379").
func (s *Scenario) ExecuteReal(p *Prepared, w sim.Wire, backend string, opts model.Options) (*Outcome, error) {
	res, err := sim.RunReal(p.Config, w)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return s.outcome(p, res, opts, backend), nil
}

// outcome judges a run for a report: the verdict and the digest.
func (s *Scenario) outcome(p *Prepared, res *sim.Result, opts model.Options, backend string) *Outcome {
	return &Outcome{
		Scenario: s,
		Prepared: p,
		Result:   res,
		Verdict:  p.judge(res, opts),
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
