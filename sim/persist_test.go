package sim

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim/node"
)

// persistRun: one process SETs k at 1.2 s and k2 at 1.9 s of true time,
// node 0 restarts at restartAt, the process GETs both at 5 s. The node clock
// runs offset ahead of true time, so whole seconds of node time are not
// those of true time.
func persistRun(t *testing.T, mode Persistence, offset, restartAt time.Duration) (k, k2 bool, ev Event) {
	t.Helper()
	var r1, r2 Reply
	res, err := oneProc(func(p Proc) (Lease, error) {
		p.Sleep(1200 * time.Millisecond)
		p.Do(0, "SET", "k", "v", "PX", "60000")
		p.Sleep(700 * time.Millisecond)
		p.Do(0, "SET", "k2", "v")
		p.Sleep(5*time.Second - 1900*time.Millisecond)
		r1, _ = p.Do(0, "GET", "k")
		r2, _ = p.Do(0, "GET", "k2")
		return Lease{}, nil
	}, func(cfg *Config) {
		cfg.Nodes[0] = NodeSpec{Persistence: mode, Clock: ClockSpec{Offset: offset}}
		cfg.Faults = []Fault{{Kind: fault.NodeRestart, Node: 0, At: restartAt, Dur: 100 * time.Millisecond}}
	})
	if err != nil {
		t.Fatal(err)
	}
	faults := eventsOf(res.History, KindFault)
	if len(faults) != 1 {
		t.Fatalf("%d fault events, want 1", len(faults))
	}
	return r1.Kind == node.Bulk, r2.Kind == node.Bulk, faults[0]
}

func TestNodeRestartPersistence(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name      string
		mode      Persistence
		offset    time.Duration
		restartAt time.Duration
		k, k2     bool
	}{
		{"none loses all", PersistNone, 0, 2500 * ms, false, false},
		{"always keeps all", PersistAlways, 0, 1950 * ms, true, true},
		// Node time = true time: writes at 1.2 s and 1.9 s, restart at 1.95 s,
		// the fsync at 1 s came before both.
		{"everysec same second", PersistEverysec, 0, 1950 * ms, false, false},
		// Restart at 2.5 s: the fsync at 2 s covered both.
		{"everysec next second", PersistEverysec, 0, 2500 * ms, true, true},
		// Node clock 300 ms ahead: writes at node 1.5 s and 2.2 s, restart at
		// node 2.25 s; the fsync at node 2 s covered k, not k2.
		{"everysec by node time", PersistEverysec, 300 * ms, 1950 * ms, true, false},
	}
	for _, tt := range tests {
		k, k2, ev := persistRun(t, tt.mode, tt.offset, tt.restartAt)
		if k != tt.k || k2 != tt.k2 {
			t.Errorf("%s: k kept %v, k2 kept %v; want %v, %v", tt.name, k, k2, tt.k, tt.k2)
		}
		if ev.RestartPersistence() != tt.mode {
			t.Errorf("%s: event says %s, want %s", tt.name, ev.RestartPersistence(), tt.mode)
		}
		// The event shows the watched key as the restart left it.
		if ev.Key.Exists != (tt.mode != PersistNone && tt.k) {
			t.Errorf("%s: event key %+v, k kept %v", tt.name, ev.Key, tt.k)
		}
		if tt.mode == PersistNone && ev.Key != (KeyState{}) {
			t.Errorf("%s: a restart without persistence records no key, got %+v", tt.name, ev.Key)
		}
	}
}

func TestRestartDelay(t *testing.T) {
	// Down 100 ms, then 2 s of restart delay (2.1 s in all): a command at
	// 2 s times out as for a node that is down, one at 2.15 s runs.
	var mid, after error
	res, err := oneProc(func(p Proc) (Lease, error) {
		p.Sleep(2 * time.Second)
		_, mid = p.Do(0, "GET", "k") // times out at 2.05 s
		p.Sleep(100 * time.Millisecond)
		_, after = p.Do(0, "GET", "k")
		return Lease{}, nil
	}, func(cfg *Config) {
		cfg.Network.Timeout = 50 * time.Millisecond
		cfg.Nodes[0].RestartDelay = 2 * time.Second
		cfg.Faults = []Fault{{Kind: fault.NodeRestart, Node: 0, At: 0, Dur: 100 * time.Millisecond}}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(mid, ErrTimeout) || after != nil {
		t.Fatalf("during the delay: %v (want a timeout); after it: %v (want none)", mid, after)
	}
	ev := eventsOf(res.History, KindFault)[0]
	if ev.Dur != 2100*time.Millisecond {
		t.Fatalf("the restart event's Dur is %v, want the whole time down, 2.1s", ev.Dur)
	}
}

func TestPooledNodesAreFreshWithPersistence(t *testing.T) {
	for s := uint64(0); s < 10; s++ {
		cfg := faultyConfig(s)
		cfg.Nodes[0].Persistence = Persistence(s%2 + 1)
		cfg.Faults = append(cfg.Faults, Fault{Kind: fault.NodeRestart, Node: 0, At: 1300 * time.Millisecond, Dur: time.Millisecond})
		pooled := digestOf(t, cfg)
		fresh := digestOnNewNodes(t, cfg)
		if pooled != fresh {
			t.Fatalf("seed %d: pooled node gave %s, a new node %s", s, pooled, fresh)
		}
		// A pooled node that persisted must not persist in the next run:
		// the run after a persisting one is the run on new nodes.
		digestOf(t, cfg) // leaves a node that persisted in the pool
		after := digestOf(t, faultyConfig(s))
		want := digestOnNewNodes(t, faultyConfig(s))
		if after != want {
			t.Fatalf("seed %d: a run after a persisting one gave %s, on new nodes %s", s, after, want)
		}
	}
}

func TestPersistenceValidated(t *testing.T) {
	cfg := standardConfig(1)
	cfg.Nodes[0].Persistence = 9
	if _, err := Run(cfg); err == nil || !strings.Contains(err.Error(), "nodes[0]: persistence 9 is not a mode") {
		t.Errorf("persistence 9: %v", err)
	}
	cfg.Nodes[0] = NodeSpec{RestartDelay: -time.Second}
	if _, err := Run(cfg); err == nil || !strings.Contains(err.Error(), "nodes[0]: restart delay -1s is negative") {
		t.Errorf("a negative restart delay: %v", err)
	}
}

// Restarts that replay their node's AOF are bounded like events: past the
// limit the run stops at that restart, cut. Each restart at x.5 s of an
// everysec node loses the GETs since x s and replays the rest of the log.
func TestRestartReplayBounded(t *testing.T) {
	defer func(l int) { replayLimit = l }(replayLimit)
	replayLimit = 50
	var gets int
	res, err := oneProc(func(p Proc) (Lease, error) {
		for i := 0; i < 100; i++ {
			p.Do(0, "GET", "k")
			gets++
			p.Sleep(100 * time.Millisecond)
		}
		return Lease{}, nil
	}, func(cfg *Config) {
		cfg.Nodes[0] = NodeSpec{Persistence: PersistEverysec}
		for s := 1; s <= 9; s++ {
			cfg.Faults = append(cfg.Faults, Fault{Kind: fault.NodeRestart, Node: 0, At: time.Duration(s)*time.Second + 500*time.Millisecond})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Cut, "restart replay limit 50") {
		t.Fatalf("cut %q, want the replay limit", res.Cut)
	}
	// A restart at x.5 s replays what ran before x s: about 10 GETs at
	// 1.5 s, 16 at 2.5 s, 22 at 3.5 s (48 in all), 28 at 4.5 s, past 50:
	// the run stops there, and nothing is recorded after it.
	faults := eventsOf(res.History, KindFault)
	if n := len(faults); n != 4 || faults[n-1].At != Time(4500*time.Millisecond) {
		t.Fatalf("%d restarts, the last at %v; want 4, the last at 4.5s", n, faults[len(faults)-1].At)
	}
	if last := res.History.Events[len(res.History.Events)-1]; last.At > Time(4500*time.Millisecond) {
		t.Errorf("an event at %v, after the cut at 4.5s", last.At)
	}
	if gets >= 100 {
		t.Errorf("%d GETs ran: the run went on past the cut", gets)
	}
}

// A restart while the node is still down keeps the later end of the two:
// a short restart inside a long one does not bring the node back early (the
// checkers count the union of both outages).
func TestRestartInsideRestartKeepsTheLaterEnd(t *testing.T) {
	var err error
	_, runErr := oneProc(func(p Proc) (Lease, error) {
		p.Sleep(500 * time.Millisecond)
		_, err = p.Do(0, "GET", "k")
		return Lease{}, nil
	}, func(c *Config) {
		c.Faults = []Fault{
			{Kind: fault.NodeRestart, Node: 0, At: 0, Dur: time.Second},
			{Kind: fault.NodeRestart, Node: 0, At: 100 * time.Millisecond, Dur: 10 * time.Millisecond},
		}
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	if err == nil {
		t.Error("GET at 500ms answered: the second restart ended the first's outage early")
	}
}
