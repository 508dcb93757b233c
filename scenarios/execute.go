package scenarios

import (
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
	_        struct{} // grows: callers name the fields they set
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
	opts.TTL = p.Lifetime()
	v := model.Check(res.History, opts)
	v.MarkCut(res.Cut)
	return &Outcome{
		Scenario: s,
		Prepared: p,
		Result:   res,
		Verdict:  v,
		Digest:   res.History.Digest(),
	}, nil
}
