package scenarios

import (
	"testing"
	"time"
)

func TestInsideTTL(t *testing.T) {
	zero := 0
	cases := []struct {
		name   string
		change func(*Scenario)
		inside bool
	}{
		{"plain", func(*Scenario) {}, true},
		{"one pause fits", func(s *Scenario) { s.Faults = []Fault{{Kind: FaultPause, Client: "a", For: Duration(500e6)}} }, true},
		{"two pauses add up", func(s *Scenario) {
			s.Faults = []Fault{{Kind: FaultPause, Client: "a", For: Duration(300e6)}, {Kind: FaultPause, Client: "a", For: Duration(300e6)}}
		}, false},
		{"latency", func(s *Scenario) { s.Network.Reply = fixedLatency(300e6) }, false},
		{"drift", func(s *Scenario) { s.Nodes = []Node{{Clock: Clock{DriftPPM: 600_000}}} }, false},
		{"node restart", func(s *Scenario) { s.Faults = []Fault{{Kind: FaultNodeRestart, Node: &zero}} }, false},
		{"node jump", func(s *Scenario) { s.Faults = []Fault{{Kind: FaultClockJump, Node: &zero, By: Duration(1e6)}} }, false},
		{"client jump", func(s *Scenario) { s.Faults = []Fault{{Kind: FaultClockJump, Client: "b", By: Duration(5e9)}} }, true},
	}
	for _, c := range cases {
		s := insideBase()
		c.change(s)
		if err := s.InsideTTL(); (err == nil) != c.inside {
			t.Errorf("%s: InsideTTL() = %v, want inside %v", c.name, err, c.inside)
		}
	}
}

// insideBase is a scenario inside a 1 s TTL: 400 ms of work, 1 ms each way.
func insideBase() *Scenario {
	return &Scenario{Name: "x", Algorithm: "set-nx-px-token", Params: Params{TTL: Duration(1e9)},
		Seed: 1, Duration: Duration(10e9),
		Clients: []Client{{Name: "a", Iterations: 1, Work: Duration(400e6)}, {Name: "b", Iterations: 1}},
		Network: Network{Request: fixedLatency(1e6), Reply: fixedLatency(1e6)}}
}

func fixedLatency(d time.Duration) Latency { return Latency{Min: Duration(d), Max: Duration(d)} }

// The reason a scenario is outside names the fault or the work that breaks
// the TTL, with its length, in words a header can print.
func TestInsideTTLWording(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Scenario)
		want   string
	}{
		{"pause", func(s *Scenario) { s.Faults = []Fault{{Kind: FaultPause, Client: "b", For: Duration(2e9)}} },
			"b's pause of 2s exceeds what a 1s TTL allows"},
		{"two pauses", func(s *Scenario) {
			s.Faults = []Fault{{Kind: FaultPause, Client: "a", For: Duration(600e6)}, {Kind: FaultPause, Client: "a", For: Duration(600e6)}}
		}, "a's 2 pauses of 1.2s in all exceed what a 1s TTL allows"},
		{"work", func(s *Scenario) { s.Clients[1].Work = Duration(3e9) }, "b's work of 3s exceeds what a 1s TTL allows"},
		{"sum", func(s *Scenario) { s.Faults = []Fault{{Kind: FaultPause, Client: "b", For: Duration(599e6)}} },
			"a's work of 400ms, b's pause of 599ms, 2 round trips of 2ms add up to 1.003s, which a 1s TTL does not allow"},
		{"node restart", func(s *Scenario) { zero := 0; s.Faults = []Fault{{Kind: FaultNodeRestart, Node: &zero}} },
			"faults[0] (node-restart): a node restart loses the lock"},
	}
	for _, c := range cases {
		s := insideBase()
		c.change(s)
		err := s.InsideTTL()
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: InsideTTL() = %v, want %q", c.name, err, c.want)
		}
	}
}
