package main

import (
	"fmt"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/realredis"
)

// executeReal runs s against real Redis at addrs in wall-clock time (run
// --redis): the same preparation as a simulated run, another backend.
func executeReal(s *scenarios.Scenario, algo, algoFile, addrs string) (*scenarios.Outcome, error) {
	var p *scenarios.Prepared
	var err error
	switch {
	case algoFile != "":
		a, err := loadAlgoFile(algoFile)
		if err != nil {
			return nil, err
		}
		p, err = s.PrepareWith(a)
		if err != nil {
			return nil, err
		}
	case algo != "":
		if _, err := (&algoFlags{Name: algo}).resolve(); err != nil {
			return nil, err
		}
		fallthrough
	default:
		if p, err = s.Prepare(algo); err != nil {
			return nil, err
		}
	}
	if err := sim.CheckReal(&p.Config); err != nil {
		return nil, fmt.Errorf("--redis: scenario %s: %w", s.Name, err)
	}
	w, err := realredis.Open(addrs, len(p.Config.Nodes))
	if err != nil {
		return nil, fmt.Errorf("--redis: %w", err)
	}
	defer w.Close()
	return s.ExecuteReal(p, w, w.Name(), model.Options{})
}
