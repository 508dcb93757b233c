package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// The real-time runner stops at the same bound, with the same cut.
func TestHistorySizeCapReal(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	cfg := sim.Config{
		Seed:     7,
		Duration: time.Minute,
		Nodes:    []sim.NodeSpec{{}},
		Procs:    []sim.ProcSpec{{Name: "c1", Iterations: 1}},
		Network:  sim.Network{Timeout: time.Second},
		NewLocker: func(int) sim.Locker {
			return scriptLock{acquire: func(p sim.Proc) (sim.Lease, error) {
				for {
					if _, err := p.Do(0, "SET", "k", big); err != nil {
						return sim.Lease{}, err
					}
				}
			}}
		},
		WatchKey: "k",
	}
	res, err := Run(cfg, newMemWire(1))
	if err != nil {
		t.Fatal(err)
	}
	if want := "history size limit 512 MiB reached"; res.Cut != want {
		t.Fatalf("cut %q, want %q", res.Cut, want)
	}
}

func TestCheckRefusesPersistence(t *testing.T) {
	cfg := standardConfig(1)
	cfg.Nodes = []sim.NodeSpec{{RestartDelay: time.Second}} // a delay is honoured
	if err := Check(&cfg); err != nil {
		t.Fatalf("restart delay refused: %v", err)
	}
	cfg.Nodes[0].Persistence = sim.PersistEverysec
	if err := Check(&cfg); err == nil || !strings.HasPrefix(err.Error(), "nodes[0].persistence: ") {
		t.Fatalf("persistence: %v, want a refusal naming nodes[0].persistence", err)
	}
}

// The real-time backend honours a restart delay: down 20 ms plus 200 ms, a
// command at 100 ms finds the node down, and the event says 220 ms.
func TestRunRestartDelay(t *testing.T) {
	cfg := realOneSet(100*time.Millisecond, sim.Fault{Kind: fault.NodeRestart, Node: 0, At: 0, Dur: 20 * time.Millisecond})
	cfg.Nodes[0].RestartDelay = 200 * time.Millisecond
	res, err := Run(cfg, newMemWire(1))
	if err != nil {
		t.Fatal(err)
	}
	if rs := eventsOf(res.History, sim.KindCommandResult); len(rs) != 1 || rs[0].Err != "timeout: node down" {
		t.Errorf("results %+v, want one timeout: node down", rs)
	}
	if fs := eventsOf(res.History, sim.KindFault); len(fs) != 1 || fs[0].Dur != 220*time.Millisecond {
		t.Errorf("faults %+v, want one down 220ms", fs)
	}
}

// The real-time backend refuses replicas on servers it did not start; a
// lag without replicas is nothing.
func TestCheckRefusesReplicas(t *testing.T) {
	cfg := standardConfig(1)
	cfg.Nodes = []sim.NodeSpec{{ReplicationLag: sim.Latency{Min: time.Millisecond}}} // a lag without replicas is nothing
	if err := Check(&cfg); err != nil {
		t.Fatalf("no replicas refused: %v", err)
	}
	cfg.Nodes[0].Replicas = 1
	if err := Check(&cfg); err == nil || !strings.HasPrefix(err.Error(), "nodes[0].replicas: ") {
		t.Fatalf("replicas: %v, want a refusal naming nodes[0].replicas", err)
	}
}
