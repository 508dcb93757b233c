package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
)

// Prepared is a scenario made ready to run with one algorithm.
type Prepared struct {
	Config    sim.Config
	Algorithm locks.Algorithm
	Params    locks.Params // the algorithm's defaults with the scenario's overrides
	// Own says the lock is the one the scenario names, so its expect:
	// holds: the registered algorithm of that name, or (set by the caller
	// that checked its sha256) its algorithm_file.
	Own bool
	// faultKinds are the plan's kinds as the file writes them, by index in
	// Config.Faults: the fault notes name them so (faultnotes.go).
	faultKinds []string
}

// Prepare builds the engine config for algorithm algoName, or for the
// scenario's own algorithm when algoName is "". Running another algorithm
// replays the same clients, clocks, network and fault plan against it.
func (s *Scenario) Prepare(algoName string) (*Prepared, error) {
	if algoName == "" {
		if s.Algorithm == "" {
			what := "no lock"
			if w := s.LockWords(); w != "" {
				what = w + ", not a registered algorithm"
			}
			return nil, fmt.Errorf("%s names %s: give the lock to run", s.Name, what)
		}
		algoName = s.Algorithm
	}
	algo, err := locks.Lookup(algoName)
	if err != nil {
		return nil, err
	}
	return s.PrepareWith(algo)
}

// PrepareWith builds the engine config for a given algorithm, which need not
// be registered (an algorithm file's, say).
func (s *Scenario) PrepareWith(algo locks.Algorithm) (*Prepared, error) {
	over := s.LockParams()
	if err := algo.Validate(over); err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	params := algo.With(over)
	need := algo.NodesNeeded(over)
	nodes := s.Nodes
	if len(nodes) == 0 {
		// As many as the algorithm needs, and at least every node the fault
		// plan names: replaying a five-node plan against a one-node lock
		// keeps the plan whole; that lock just never talks to the others.
		nodes = make([]Node, max(need, s.faultNodes()))
	} else if len(nodes) < need {
		return nil, fmt.Errorf("nodes: %s needs %d nodes, the scenario has %d", algo.Name, need, len(nodes))
	}
	mk := algo.New // the closure keeps the constructor, not a copy of the whole Algorithm
	cfg := sim.Config{
		Seed:      s.Seed,
		Duration:  s.Duration.D(),
		MaxEvents: s.MaxEvents,
		WatchKey:  params.Key,
		NewLocker: func(int) sim.Locker { return mk(over) },
		Network: sim.Network{
			Request:     sim.Latency{Min: s.Network.Request.Min.D(), Max: s.Network.Request.Max.D()},
			Reply:       sim.Latency{Min: s.Network.Reply.Min.D(), Max: s.Network.Reply.Max.D()},
			LossRequest: s.Network.LossRequest,
			LossReply:   s.Network.LossReply,
			Timeout:     s.Network.Timeout.D(),
		},
	}
	// Sized once, as an explore search prepares every run; nil stays nil
	// when there is nothing to append.
	if len(nodes) > 0 {
		cfg.Nodes = make([]sim.NodeSpec, 0, len(nodes))
	}
	if len(s.Clients) > 0 {
		cfg.Procs = make([]sim.ProcSpec, 0, len(s.Clients))
	}
	if len(s.Faults) > 0 {
		cfg.Faults = make([]sim.Fault, 0, len(s.Faults))
	}
	for _, n := range nodes {
		cfg.Nodes = append(cfg.Nodes, n.spec())
	}
	for _, c := range s.Clients {
		cfg.Procs = append(cfg.Procs, sim.ProcSpec{Name: c.Name, Clock: c.Clock.spec(), Start: c.Start.D(),
			Iterations: c.Iterations, Work: c.Work.D(), Think: c.Think.D(), RenewEvery: c.RenewEvery.D(), Reenter: c.Reenter})
	}
	for i := range s.Faults {
		f, err := s.fault(i, len(nodes))
		if err != nil {
			return nil, err
		}
		cfg.Faults = append(cfg.Faults, f)
	}
	var kinds []string
	if len(s.Faults) > 0 {
		kinds = make([]string, len(s.Faults))
		for i := range s.Faults {
			kinds[i] = s.Faults[i].Kind
		}
	}
	return &Prepared{Config: cfg, Algorithm: algo, Params: params, Own: s.Algorithm != "" && algo.Name == s.Algorithm,
		faultKinds: kinds}, nil
}

// faultNodes is one more than the highest node the fault plan names.
func (s *Scenario) faultNodes() int {
	n := 0
	for _, f := range s.Faults {
		if f.Node != nil {
			n = max(n, *f.Node+1)
		}
	}
	return n
}

func (c Clock) spec() sim.ClockSpec {
	return sim.ClockSpec{Offset: c.Offset.D(), DriftPPM: c.DriftPPM}
}

var pointOf = map[string]sim.Point{PointSend: sim.PointSend, PointReply: sim.PointReply,
	PointAcquired: sim.PointAcquired, PointReleased: sim.PointReleased}

func (s *Scenario) fault(i, nodes int) (sim.Fault, error) {
	f := &s.Faults[i] // read only (build too)
	out := sim.Fault{At: f.At.D(), Proc: s.clientIndex(f.Client), Node: -1}
	if f.Node != nil {
		if *f.Node >= nodes {
			return out, fmt.Errorf("faults[%d].node: node %d does not exist (the run has %d)", i, *f.Node, nodes)
		}
		out.Node = *f.Node
	}
	if kind := fileFaultOf(f.Kind); kind != nil { // validated: always
		out.Kind, out.Dur = kind.build(f)
	}
	if f.On != nil {
		out.On = sim.Trigger{Point: pointOf[f.On.Point], Proc: s.clientIndex(f.On.Client),
			Cmd: strings.ToUpper(f.On.Command), N: f.On.N}
	}
	return out, nil
}

// Lifetime is how long the lock outlives a silent holder, for liveness.
func (p *Prepared) Lifetime() time.Duration { return p.Algorithm.Lifetime(p.Params) }

// FaultKind is fault i of the plan (an index in Config.Faults) as the file
// writes its kind ("clock-jump"), or the engine's name for a fault the plan
// was given without a file's kind.
func (p *Prepared) FaultKind(i int) string {
	if i < len(p.faultKinds) {
		return p.faultKinds[i]
	}
	return p.Config.Faults[i].Kind.String()
}
