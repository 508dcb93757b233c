package shrink

import (
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/scenarios"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// jumps is two clients and the given faults, on one node.
func jumps(faults ...scenarios.Fault) *scenarios.Scenario {
	return &scenarios.Scenario{
		Name: "jumps", Algorithm: "set-nx-px-token", Params: scenarios.Params{TTL: scenarios.Duration(2 * time.Second)},
		Duration: scenarios.Duration(10 * time.Second), MaxEvents: 100_000,
		Clients: []scenarios.Client{{Name: "c1", Iterations: 1}, {Name: "c2", Iterations: 1}},
		Network: scenarios.Network{Request: QuietLatency, Reply: QuietLatency},
		Faults:  faults,
	}
}

func nodeJump(node int, at, by time.Duration) scenarios.Fault {
	return scenarios.Fault{Kind: fault.NodeJump.File(), Node: &node, At: scenarios.Duration(at), By: scenarios.Duration(by)}
}

// jumpedAtLeast is a stand-in verdict: the clocks jump by d in all, and
// there are two clients. Either jump of the pair alone is too
// little, so only their merge can go below two faults.
func jumpedAtLeast(d time.Duration) func(*scenarios.Scenario) bool {
	return func(s *scenarios.Scenario) bool {
		var sum time.Duration
		for _, f := range s.Faults {
			if f.EngineKind().ShiftsClock() {
				sum += f.By.D()
			}
		}
		return len(s.Clients) >= 2 && sum >= d
	}
}

// Two jumps of one node's clock at one instant (+40 ms, +1.3 s) fail as one
// +1.34 s jump does: Shrink makes them one.
func TestShrinkMergesClockJumps(t *testing.T) {
	s := jumps(nodeJump(0, time.Second, 40*time.Millisecond), nodeJump(0, time.Second, 1300*time.Millisecond))
	got, _, capped := Shrink(s, jumpedAtLeast(1340*time.Millisecond), 10_000)
	if capped || len(got.Faults) != 1 {
		data, _ := scenarios.Marshal(got)
		t.Fatalf("shrunk to %d faults (capped %v), want the two jumps merged:\n%s", len(got.Faults), capped, data)
	}
	if f := got.Faults[0]; f.EngineKind() != fault.NodeJump || *f.Node != 0 || f.By.D() != 1340*time.Millisecond {
		t.Errorf("merged fault %+v, want node 0's clock jumping by 1.34s", f)
	}
}

// Jumps of two clocks (a node's and a client's) are two causes: Shrink
// keeps both, however small it makes the rest, and never tries them as one.
func TestShrinkKeepsJumpsOfTwoClocks(t *testing.T) {
	s := jumps(nodeJump(0, time.Second, 40*time.Millisecond),
		scenarios.Fault{Kind: fault.ClientJump.File(), Client: "c1", At: scenarios.Duration(time.Second), By: scenarios.Duration(1300 * time.Millisecond)})
	fails := jumpedAtLeast(1340 * time.Millisecond)
	got, _, _ := Shrink(s, func(c *scenarios.Scenario) bool {
		if len(c.Faults) == 1 && c.Faults[0].By.D() >= 1340*time.Millisecond {
			t.Errorf("tried one jump by %v: two clocks' jumps merged", c.Faults[0].By)
		}
		return fails(c)
	}, 10_000)
	if len(got.Faults) != 2 {
		t.Errorf("shrunk to %d faults, want both jumps kept", len(got.Faults))
	}
}

// mergeable: the same kind, target and instant, of a kind that adds; any
// one of those different, or a kind that does not add, and the two stay.
func TestMergeable(t *testing.T) {
	on := func(n int) *scenarios.Trigger {
		return &scenarios.Trigger{Client: "c1", Point: scenarios.PointAcquired, N: n}
	}
	jump := nodeJump(0, time.Second, 40*time.Millisecond)
	onAcquire := jump
	onAcquire.At, onAcquire.On = 0, on(1)
	other := func(fn func(f *scenarios.Fault)) scenarios.Fault {
		f := jump
		f.Node, f.On = ptr(*jump.Node), nil
		fn(&f)
		return f
	}
	pause := scenarios.Fault{Kind: fault.Pause.File(), Client: "c1", At: scenarios.Duration(time.Second), For: scenarios.Duration(time.Second)}
	restart := scenarios.Fault{Kind: fault.NodeRestart.File(), Node: ptr(0), At: scenarios.Duration(time.Second)}
	for _, c := range []struct {
		name string
		a, b scenarios.Fault
		want bool
	}{
		{"one node, one time", jump, other(func(f *scenarios.Fault) { f.By = scenarios.Duration(time.Second) }), true},
		{"one node, one trigger", onAcquire, func() scenarios.Fault { f := onAcquire; f.On = on(1); return f }(), true},
		{"another node", jump, other(func(f *scenarios.Fault) { f.Node = ptr(1) }), false},
		{"a client's clock", jump, other(func(f *scenarios.Fault) { f.Node, f.Client = nil, "c1" }), false},
		{"another time", jump, other(func(f *scenarios.Fault) { f.At = scenarios.Duration(2 * time.Second) }), false},
		{"another trigger", onAcquire, func() scenarios.Fault { f := onAcquire; f.On = on(2); return f }(), false},
		{"a time and a trigger", jump, func() scenarios.Fault { f := onAcquire; f.At = jump.At; return f }(), false},
		{"pauses (the longer acts)", pause, pause, false},
		{"restarts (the later end acts)", restart, restart, false},
	} {
		if got := mergeable(&c.a, &c.b); got != c.want {
			t.Errorf("%s: mergeable %v, want %v", c.name, got, c.want)
		}
	}
}

// Jumps that cancel merge into no fault: a jump by 0 is no fault a file
// may hold.
func TestMergedJumpsThatCancel(t *testing.T) {
	s := jumps(nodeJump(0, time.Second, time.Second), nodeJump(0, time.Second, -time.Second))
	if m := merged(s, 0, 1); len(m.Faults) != 0 {
		t.Errorf("merged to %+v, want no fault", m.Faults)
	}
	if m := merged(s, 0, 1); len(s.Faults) != 2 || m == s {
		t.Error("merged changed its input")
	}
}

func ptr(n int) *int { return &n }
