package scenarios

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
)

func TestInsideTTL(t *testing.T) {
	zero := 0
	base := func() *Scenario {
		return &Scenario{Name: "x", Algorithm: "set-nx-px-token", Params: Params{TTL: Duration(1e9)},
			Seed: 1, Duration: Duration(10e9),
			Clients: []Client{{Name: "a", Iterations: 1, Work: Duration(400e6)}, {Name: "b", Iterations: 1}},
			Network: Network{Request: fixedLatency(1e6), Reply: fixedLatency(1e6)}}
	}
	cases := []struct {
		name   string
		change func(*Scenario)
		inside bool
	}{
		{"plain", func(*Scenario) {}, true},
		{"one pause fits", func(s *Scenario) { s.Faults = []Fault{{Kind: fault.Pause.File(), Client: "a", For: Duration(500e6)}} }, true},
		{"two pauses add up", func(s *Scenario) {
			s.Faults = []Fault{{Kind: fault.Pause.File(), Client: "a", For: Duration(300e6)}, {Kind: fault.Pause.File(), Client: "a", For: Duration(300e6)}}
		}, false},
		{"latency", func(s *Scenario) { s.Network.Reply = fixedLatency(300e6) }, false},
		{"drift", func(s *Scenario) { s.Nodes = []Node{{Clock: Clock{DriftPPM: 600_000}}} }, false},
		{"node restart", func(s *Scenario) { s.Faults = []Fault{{Kind: fault.NodeRestart.File(), Node: &zero}} }, false},
		{"node jump", func(s *Scenario) { s.Faults = []Fault{{Kind: fault.NodeJump.File(), Node: &zero, By: Duration(1e6)}} }, false},
		{"client jump", func(s *Scenario) { s.Faults = []Fault{{Kind: fault.ClientJump.File(), Client: "b", By: Duration(5e9)}} }, true},
	}
	for _, c := range cases {
		s := base()
		c.change(s)
		if err := s.InsideTTL(); (err == nil) != c.inside {
			t.Errorf("%s: InsideTTL() = %v, want inside %v", c.name, err, c.inside)
		}
	}
}

func fixedLatency(d time.Duration) Latency { return Latency{Min: Duration(d), Max: Duration(d)} }

// Each lock is judged against its own assumptions (locks.Assumptions).
func TestInsideOfEachLocksAssumptions(t *testing.T) {
	zero := 0
	base := func(algo string) *Scenario {
		return &Scenario{Name: "x", Algorithm: algo, Params: Params{TTL: Duration(3e9)},
			Seed: 1, Duration: Duration(20e9),
			Clients: []Client{{Name: "a", Iterations: 1, Work: Duration(400e6)}, {Name: "b", Iterations: 1}},
			Network: Network{Request: fixedLatency(1e6), Reply: fixedLatency(1e6), Timeout: Duration(1e9)}}
	}
	jump := func(client string, by time.Duration) Fault {
		return Fault{Kind: fault.ClientJump.File(), Client: client, By: Duration(by)}
	}
	cases := []struct {
		name, algo string
		change     func(*Scenario)
		want       string // "" inside, else the assumption broken
	}{
		{"a TTL lock ignores client clocks", "set-nx-px-token", func(s *Scenario) { s.Faults = []Fault{jump("b", 10e9)} }, ""},
		{"a timestamp lock's clients must agree", "setnx-getset", func(s *Scenario) { s.Faults = []Fault{jump("b", 3e9)} }, AssumeLease},
		{"within the allowance", "setnx-getset", func(s *Scenario) { s.Faults = []Fault{jump("b", 1e9)} }, ""},
		{"offsets count too", "java-getset", func(s *Scenario) { s.Clients[1].Clock.Offset = Duration(-2700e6) }, AssumeLease},
		{"a timestamp lock ignores a node's clock", "setnx-getset", func(s *Scenario) {
			s.Faults = []Fault{{Kind: fault.NodeJump.File(), Node: &zero, By: Duration(10e9)}}
		}, ""},
		{"both: the node's clock too", "php-eval", func(s *Scenario) {
			s.Faults = []Fault{{Kind: fault.NodeJump.File(), Node: &zero, By: Duration(10e9)}}
		}, AssumeNodeClock},
		{"no expiry: pauses are free", "setnx-del", func(s *Scenario) {
			s.Faults = []Fault{{Kind: fault.Pause.File(), Client: "a", For: Duration(60e9)}, jump("b", 60e9)}
		}, ""},
		{"no expiry: a restart still loses the key", "setnx-del", func(s *Scenario) {
			s.Faults = []Fault{{Kind: fault.NodeRestart.File(), Node: &zero, For: Duration(60e9)}}
		}, AssumeRestart},
		{"aof-always keeps it", "setnx-del", func(s *Scenario) {
			s.Nodes = []Node{{Persistence: "aof-always"}}
			s.Faults = []Fault{{Kind: fault.NodeRestart.File(), Node: &zero}}
		}, ""},
		{"a delayed restart keeps a TTL lock", "set-nx-px-token", func(s *Scenario) {
			s.Faults = []Fault{{Kind: fault.NodeRestart.File(), Node: &zero, For: Duration(2e9)}}
			s.Nodes = []Node{{RestartDelay: Duration(1e9)}}
		}, ""},
		{"a short one does not", "set-nx-px-token", func(s *Scenario) {
			s.Faults = []Fault{{Kind: fault.NodeRestart.File(), Node: &zero, For: Duration(2e9)}}
		}, AssumeRestart},
		{"nor under a watchdog", "token-extend", func(s *Scenario) {
			s.Faults = []Fault{{Kind: fault.NodeRestart.File(), Node: &zero, For: Duration(5e9)}}
		}, AssumeRestart},
		{"a failover loses a plain lock", "set-nx-px-token", func(s *Scenario) {
			s.Nodes = []Node{{Replicas: 1, ReplicationLag: fixedLatency(1e6)}}
			s.Faults = []Fault{{Kind: fault.Failover.File(), Node: &zero}}
		}, AssumeFailover},
		{"WAIT keeps it while the replica keeps up", "set-nx-px-wait", func(s *Scenario) {
			s.Nodes = []Node{{Replicas: 1, ReplicationLag: fixedLatency(10e6)}}
			s.Faults = []Fault{{Kind: fault.Failover.File(), Node: &zero}}
		}, ""},
		{"not when it lags past the WAIT", "set-nx-px-wait", func(s *Scenario) {
			s.Nodes = []Node{{Replicas: 1, ReplicationLag: fixedLatency(80e6)}}
			s.Faults = []Fault{{Kind: fault.Failover.File(), Node: &zero}}
		}, AssumeFailover},
		{"a client timeout shorter than the WAIT", "set-nx-px-wait", func(s *Scenario) { s.Network.Timeout = Duration(30e6) }, AssumeTimeout},
		{"a watchdog outlasts long work", "token-extend", func(s *Scenario) {
			s.Params.TTL = Duration(8e9)
			s.Clients[0].Work = Duration(20e9)
			s.Clients[0].RenewEvery = Duration(2e9)
		}, ""},
		{"but not a pause past the lease left after a renewal period", "token-extend", func(s *Scenario) {
			s.Params.TTL = Duration(8e9)
			s.Clients[0].Work = Duration(20e9)
			s.Clients[0].RenewEvery = Duration(2e9)
			s.Faults = []Fault{{Kind: fault.Pause.File(), Client: "a", For: Duration(6500e6)}}
		}, AssumeLease},
		{"a renewal outlasts a lost reply its client gives up on in time", "token-extend", func(s *Scenario) {
			s.Params.TTL = Duration(8e9)
			s.Clients[0].Work = Duration(20e9)
			s.Clients[0].RenewEvery = Duration(2e9)
			s.Network.LossReply = 0.1 // a reply lost: known at the 1s timeout, 3s into a lease of 8s
		}, ""},
		{"but not one it waits past the lease for", "token-extend", func(s *Scenario) {
			s.Params.TTL = Duration(8e9)
			s.Clients[0].Work = Duration(20e9)
			s.Clients[0].RenewEvery = Duration(2e9)
			s.Faults = []Fault{{Kind: fault.LoseReply.File(), Client: "a", For: Duration(6500e6)}} // 2s + 6.5s
		}, AssumeRenewal},
		{"redlock counts its acquisition on every node", "redlock", func(s *Scenario) {
			s.Params.TTL = Duration(1e9)
			s.Network.LossReply = 0.1
			s.Network.Timeout = Duration(250e6) // 4 more nodes × 250ms + 100ms of work: past 1s
			s.Clients[0].Work = Duration(100e6)
		}, AssumeLease},
	}
	for _, c := range cases {
		s := base(c.algo)
		c.change(s)
		err := s.InsideTTL()
		var o *Outside
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: InsideTTL() = %v, want inside", c.name, err)
		case c.want != "" && !errors.As(err, &o):
			t.Errorf("%s: InsideTTL() = %v, want outside (%s)", c.name, err, c.want)
		case c.want != "" && o.Assumption != c.want:
			t.Errorf("%s: InsideTTL() breaks %s (%v), want %s", c.name, o.Assumption, err, c.want)
		}
	}
}

// The words say which assumption, whose fault and by how much.
func TestInsideTTLWords(t *testing.T) {
	s := &Scenario{Name: "x", Algorithm: "set-nx-px-token", Params: Params{TTL: Duration(30e9)}, Seed: 1, Duration: Duration(100e9),
		Clients: []Client{{Name: "c1", Iterations: 1, Work: Duration(10e6)}},
		Faults:  []Fault{{Kind: fault.Pause.File(), Client: "c1", For: Duration(35e9)}}}
	err := s.InsideTTL()
	if err == nil || !strings.HasPrefix(err.Error(), "c1's pause of 35s exceeds what a 30s TTL allows: work 10ms + pauses 35s") {
		t.Errorf("InsideTTL() = %v", err)
	}
}
