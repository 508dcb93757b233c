package sim

import (
	"github.com/locksim/locksim/sim/node"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
)

// withReplica gives node 0 one replica with a fixed lag.
func withReplica(lag time.Duration) func(*Config) {
	return func(c *Config) {
		c.Nodes[0].Replicas = 1
		c.Nodes[0].ReplicationLag = Latency{Min: lag, Max: lag}
	}
}

// TestReplicaFollowsAfterLag: a write reaches the replica after the lag, a
// read does not go down the stream, and a script replicates its writes.
func TestReplicaFollowsAfterLag(t *testing.T) {
	res, err := oneProc(func(p Proc) (Lease, error) {
		p.Do(0, "SET", "k", "v1", "PX", "10000")
		p.Do(0, "GET", "k")
		p.Do(0, "EVAL", `redis.call("get", KEYS[1]); return redis.call("set", KEYS[1], "v2")`, "1", "k")
		p.Sleep(time.Second)
		return Lease{}, nil
	}, withReplica(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	reps := eventsOf(res.History, KindReplicate)
	if len(reps) != 2 {
		t.Fatalf("got %d replicate events, want 2 (SET, the script's SET): %+v", len(reps), reps)
	}
	cmds := eventsOf(res.History, KindCommand)
	if got := reps[0].At - cmds[0].At; got != Time(50*time.Millisecond) {
		t.Errorf("first write applied %v after it ran, want the 50ms lag", time.Duration(got))
	}
	if reps[0].Node != 1 || res.History.Nodes != 1 || len(res.History.Replicas) != 1 || res.History.Replicas[0] != 0 {
		t.Errorf("replica lane %d, history nodes %d replicas %v: want lane 1 replicating node 0", reps[0].Node, res.History.Nodes, res.History.Replicas)
	}
	if !reps[0].Key.Exists || reps[0].Key.Value != "v1" || reps[1].Key.Value != "v2" {
		t.Errorf("replica's key: %+v then %+v, want v1 then v2", reps[0].Key, reps[1].Key)
	}
	if len(reps[1].Args) != 3 || reps[1].Args[0] != "SET" {
		t.Errorf("script replicated as %q, want its SET only", reps[1].Args)
	}
}

// TestWait: WAIT blocks until the replica has the client's last write, or
// times out with fewer; with no replica it answers 0 at its timeout.
func TestWait(t *testing.T) {
	for _, tc := range []struct {
		name      string
		lag       time.Duration
		replicas  int
		timeoutMs string
		want      int64
		took      time.Duration
	}{
		{"acknowledged", 30 * time.Millisecond, 1, "100", 1, 30 * time.Millisecond},
		{"lag beyond the timeout", 300 * time.Millisecond, 1, "100", 0, 100 * time.Millisecond},
		{"no replica", 0, 0, "100", 0, 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got int64
			var took time.Duration
			res, err := oneProc(func(p Proc) (Lease, error) {
				p.Do(0, "SET", "k", "v")
				t0 := p.Now()
				r, err := p.Do(0, "WAIT", "1", tc.timeoutMs)
				if err != nil {
					t.Errorf("WAIT: %v", err)
				}
				got, took = r.Int, p.Now().Sub(t0)
				return Lease{}, nil
			}, func(c *Config) {
				c.Nodes[0].Replicas = tc.replicas
				c.Nodes[0].ReplicationLag = Latency{Min: tc.lag, Max: tc.lag}
			})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || took != tc.took {
				t.Errorf("WAIT = %d after %v, want %d after %v", got, took, tc.want, tc.took)
			}
			_ = res
		})
	}
}

// TestFailoverLosesUnreplicatedWrite: the write the replica had not applied
// is gone after the promotion; the one it had stays, with its TTL.
func TestFailoverLosesUnreplicatedWrite(t *testing.T) {
	var before, after Reply
	var afterErr error
	_, err := oneProc(func(p Proc) (Lease, error) {
		p.Do(0, "SET", "old", "1", "PX", "60000")
		p.Sleep(200 * time.Millisecond) // replicated
		p.Do(0, "SET", "k", "v")        // not yet: the primary dies 10ms later
		p.Sleep(time.Second)
		before, _ = p.Do(0, "GET", "old")
		after, afterErr = p.Do(0, "GET", "k")
		return Lease{}, nil
	}, func(c *Config) {
		withReplica(100 * time.Millisecond)(c)
		c.Faults = []Fault{{Kind: fault.Failover, Node: 0, At: 210 * time.Millisecond, Dur: 500 * time.Millisecond}}
	})
	if err != nil {
		t.Fatal(err)
	}
	if afterErr != nil || after.Kind != node.Nil {
		t.Errorf("GET k after the failover = %v, %v: want nil (the write was lost)", after, afterErr)
	}
	if before.Str != "1" {
		t.Errorf("GET old after the failover = %v: want 1 (it was replicated)", before)
	}
}

// TestFailoverInFlight: a command sent to the primary as it fails times out
// (its reply is lost), and commands during the detection delay too.
func TestFailoverInFlight(t *testing.T) {
	var errs []error
	_, err := oneProc(func(p Proc) (Lease, error) {
		for range 3 {
			_, err := p.Do(0, "SET", "k", "v")
			errs = append(errs, err)
		}
		return Lease{}, nil
	}, func(c *Config) {
		withReplica(time.Millisecond)(c)
		c.Network.Request = Latency{Min: 10 * time.Millisecond, Max: 10 * time.Millisecond}
		c.Network.Reply = c.Network.Request
		c.Network.Timeout = 100 * time.Millisecond
		// The first SET ran at 10ms; its reply is due at 20ms.
		c.Faults = []Fault{{Kind: fault.Failover, Node: 0, At: 15 * time.Millisecond, Dur: 150 * time.Millisecond}}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 3 || errs[0] != ErrTimeout || errs[1] != ErrTimeout || errs[2] != nil {
		t.Errorf("errors %v: want timeout (reply lost), timeout (detection), then success", errs)
	}
}

// TestReplicationDeterministic: replicas and a failover keep runs repeatable.
func TestReplicationDeterministic(t *testing.T) {
	cfg := standardConfig(3)
	cfg.Nodes[0].Replicas = 2
	cfg.Nodes[0].ReplicationLag = Latency{Min: time.Millisecond, Max: 40 * time.Millisecond}
	cfg.Faults = []Fault{{Kind: fault.Failover, Node: 0, At: 300 * time.Millisecond, Dur: 100 * time.Millisecond}}
	a, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(cfg)
	if a.History.Digest() != b.History.Digest() {
		t.Error("same config, different digests")
	}
	if len(eventsOf(a.History, KindReplicate)) == 0 {
		t.Error("no replicate events")
	}
}

// A WAIT whose timeout is huge or zero waits for ever for a replica that
// never comes: the client times out; bad arguments get Redis's error.
func TestWaitEdges(t *testing.T) {
	var errs []error
	var bad Reply
	_, err := oneProc(func(p Proc) (Lease, error) {
		p.Do(0, "SET", "k", "v")
		for _, tm := range []string{"0", "9223372036854775807"} {
			_, err := p.Do(0, "WAIT", "2", tm)
			errs = append(errs, err)
		}
		bad, _ = p.Do(0, "WAIT", "x", "1")
		return Lease{}, nil
	}, withReplica(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 2 || errs[0] != ErrTimeout || errs[1] != ErrTimeout {
		t.Errorf("WAIT for 2 of 1 replica: %v, want two client timeouts", errs)
	}
	if bad.Kind != node.Error {
		t.Errorf("WAIT x 1 = %v, want an error reply", bad)
	}
}

// A replica applies each entry at the primary's node time of the write, so
// right after it the watched key on the replica is what it was on the
// primary right after the command: value, and TTL to the nanosecond.
func TestReplicaMatchesPrimaryAtEachEntry(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		cfg := standardConfig(seed)
		cfg.Network.LossReply = 0.1
		cfg.Nodes[0].Replicas = 2
		cfg.Nodes[0].ReplicationLag = Latency{Min: time.Millisecond, Max: 30 * time.Millisecond}
		res, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		after := map[uint64]KeyState{} // looked up only
		applied := 0
		for _, e := range res.History.Events {
			switch e.Kind {
			case KindCommand:
				after[e.Req] = e.Key
			case KindReplicate:
				applied++
				if want, ok := after[e.Req]; !ok || want != e.Key {
					t.Fatalf("seed %d: replica lane %d after req %d has %+v, the primary had %+v", seed, e.Node, e.Req, e.Key, want)
				}
			}
		}
		if applied == 0 {
			t.Fatalf("seed %d: nothing replicated", seed)
		}
	}
}

// Dropping the entries every replica has applied changes nothing a run
// does: a long run with WAITs and a failover has the same digest with the
// whole stream kept.
func TestStreamTrimKeepsDigest(t *testing.T) {
	cfg := standardConfig(9)
	for i := range cfg.Procs {
		cfg.Procs[i].Iterations = 400
	}
	cfg.Nodes[0].Replicas = 3
	cfg.Nodes[0].ReplicationLag = Latency{Min: time.Millisecond, Max: 20 * time.Millisecond}
	cfg.NewLocker = func(int) Locker {
		return scriptLock{acquire: func(p Proc) (Lease, error) {
			l, err := tokenLock{ttl: time.Second}.Acquire(p)
			p.Do(0, "WAIT", "2", "5")
			return l, err
		}}
	}
	cfg.Faults = []Fault{{Kind: fault.Failover, Node: 0, At: 5 * time.Second, Dur: 100 * time.Millisecond}}
	limit := 3 * trimAt
	run := func() string {
		res, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(eventsOf(res.History, KindReplicate)); n < limit {
			t.Fatalf("only %d entries applied: the stream was never trimmed", n)
		}
		return res.History.Digest()
	}
	trimmed := run()
	old := trimAt
	trimAt = 1 << 30
	defer func() { trimAt = old }()
	if whole := run(); whole != trimmed {
		t.Errorf("digest %s with the stream trimmed, %s kept whole", trimmed, whole)
	}
}

// The failover's event carries the watched key as the promoted replica has
// it, so the checkers read the key on across the promotion: a replicated
// key lives on, an unreplicated one is gone.
func TestFailoverEventRecordsPromotedKey(t *testing.T) {
	for _, c := range []struct {
		name   string
		setAt  time.Duration // the SET, before the failover at 210ms
		exists bool
	}{
		{"replicated", 0, true},
		{"lost", 200 * time.Millisecond, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := oneProc(func(p Proc) (Lease, error) {
				p.Sleep(c.setAt)
				p.Do(0, "SET", "lock", "tok", "PX", "60000")
				p.Sleep(time.Second)
				return Lease{}, nil
			}, func(cfg *Config) {
				withReplica(100 * time.Millisecond)(cfg)
				cfg.WatchKey = "lock"
				cfg.Faults = []Fault{{Kind: fault.Failover, Node: 0, At: 210 * time.Millisecond, Dur: 50 * time.Millisecond}}
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range res.History.Events {
				if e.Kind != KindFault || e.Fault != fault.Failover {
					continue
				}
				if e.Key.Exists != c.exists || (c.exists && e.Key.Value != "tok") || e.RestartPersistence() != PersistNone {
					t.Errorf("failover event key %+v (persistence %v), want exists=%v", e.Key, e.RestartPersistence(), c.exists)
				}
				if e.Value != int64(res.History.Nodes) { // the one replica's lane
					t.Errorf("failover event promoted lane %d, want %d", e.Value, res.History.Nodes)
				}
				return
			}
			t.Fatal("no failover event")
		})
	}
}

// The engine refuses negative replicas or lag, and a real run refuses
// replicas: they exist only in simulation.
func TestReplicationValidated(t *testing.T) {
	for _, n := range []NodeSpec{{Replicas: -1}, {Replicas: 1, ReplicationLag: Latency{Min: -1}}, {Replicas: 1, ReplicationLag: Latency{Max: -1}}} {
		cfg := standardConfig(1)
		cfg.Nodes[0] = n
		if _, err := Run(cfg); err == nil || !strings.Contains(err.Error(), "nodes[0]: replicas and replication lag must not be negative") {
			t.Errorf("%+v: %v", n, err)
		}
	}
}

// A promoted replica keeps the node's persistence: a restart after the
// failover keeps what that persistence keeps, and its event says so.
func TestFailoverKeepsPersistence(t *testing.T) {
	for _, mode := range []Persistence{PersistAlways, PersistEverysec} {
		var got string
		res, err := oneProc(func(p Proc) (Lease, error) {
			p.Do(0, "SET", "lock", "tok")
			p.Sleep(3 * time.Second)
			r, _ := p.Do(0, "GET", "lock")
			got = r.String()
			return Lease{}, nil
		}, func(cfg *Config) {
			withReplica(10 * time.Millisecond)(cfg)
			cfg.Nodes[0].Persistence = mode
			cfg.WatchKey = "lock"
			// everysec: the SET replicated at 10 ms, synced at the second
			// after; the restart at 2.5 s keeps it.
			cfg.Faults = []Fault{{Kind: fault.Failover, Node: 0, At: 500 * time.Millisecond, Dur: 10 * time.Millisecond},
				{Kind: fault.NodeRestart, Node: 0, At: 2500 * time.Millisecond, Dur: 10 * time.Millisecond}}
		})
		if err != nil {
			t.Fatal(err)
		}
		if got != `"tok"` {
			t.Errorf("%s: GET after a failover and a restart answered %s, want the replicated key", mode, got)
		}
		restarts := 0
		for _, e := range eventsOf(res.History, KindFault) {
			if e.Fault != fault.NodeRestart {
				continue
			}
			restarts++
			if e.RestartPersistence() != mode || !e.Key.Exists {
				t.Errorf("%s: restart event persistence %v key %+v", mode, e.RestartPersistence(), e.Key)
			}
		}
		if restarts != 1 { // without it, the GET above proves nothing
			t.Errorf("%s: %d restart events, want 1", mode, restarts)
		}
	}
}

// A promoted replica under everysec rebuilds, at a restart that lost
// commands, the node its clients saw: a MULTI it had applied from the old
// primary's stream was dropped with the connections at the promotion, so the
// client's next SET, on a new connection, ran and is kept.
func TestFailoverThenReplayKeepsTheNewConnection(t *testing.T) {
	var got, lost string
	_, err := oneProc(func(p Proc) (Lease, error) {
		p.Do(0, "MULTI") // applied by the replica at 10 ms; the EXEC never comes
		p.Sleep(100 * time.Millisecond)
		p.Do(0, "SET", "k", "v")         // on the promoted replica, after the failover
		p.Sleep(1400 * time.Millisecond) // past the fsync at 1 s
		p.Do(0, "SET", "lost", "1")      // lost by the restart at 1.6 s
		p.Sleep(500 * time.Millisecond)
		r, _ := p.Do(0, "GET", "k")
		got = r.String()
		r, _ = p.Do(0, "GET", "lost")
		lost = r.String()
		return Lease{}, nil
	}, func(cfg *Config) {
		withReplica(10 * time.Millisecond)(cfg)
		cfg.Nodes[0].Persistence = PersistEverysec
		cfg.Faults = []Fault{{Kind: fault.Failover, Node: 0, At: 50 * time.Millisecond, Dur: 10 * time.Millisecond},
			{Kind: fault.NodeRestart, Node: 0, At: 1600 * time.Millisecond, Dur: 10 * time.Millisecond}}
	})
	if err != nil {
		t.Fatal(err)
	}
	if lost != "(nil)" {
		t.Fatalf("GET lost answered %s: the restart did not replay", lost)
	}
	if got != `"v"` {
		t.Errorf("GET after the failover and a restart that replayed answered %s, want the SET that ran", got)
	}
}
