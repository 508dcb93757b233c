package realredis_test

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/realtime/engine"
	"github.com/locksim/locksim/realtime/realredis"
	"github.com/locksim/locksim/sim"
)

// The replication differential: scripted sequences of writes, waits, WAITs
// and a primary's death, run on the simulated replicas (sim.Run) and on
// real ones (a redis-server replica behind a lagging link, a redis-sentinel
// promoting it), comparing what a client can observe: every reply, in
// order (which keys the promoted replica has, what WAIT answers), and the
// key the failover event says the promoted replica holds.
//
// One difference is listed (diffCase.known) and required, so that it fails
// the test if it goes away: Redis 7.0 takes a client's WAIT offset as the
// primary's replication offset at the client's latest command, which counts
// the REPLCONF GETACK an earlier WAIT put on the stream; the simulation takes
// the offset after the client's latest write. A WAIT right after a write
// (set-nx-px-wait, every lock that calls WAIT) answers the same on both; a
// WAIT after a WAIT with no write between waits, on real Redis, for the
// first WAIT's GETACK to reach the replica: with a lag longer than its
// timeout it answers 0 where the simulation answers 1. No lock verdict
// reads such a WAIT.
//
// The other difference the sequences leave room for is time: the simulation
// promotes the replica exactly the failover's Dur after the primary died;
// Sentinel takes that Dur (down-after-milliseconds) plus its own steps (a
// random start delay of up to 1 s, REPLICAOF NO ONE, the INFO that shows
// the promotion), 1 to 3 s more here. The sequences wait 5 s after the
// death before they ask, so both backends answer from the promoted replica.

// diffStep is one step of a sequence: a command, or a sleep when cmd is nil.
type diffStep struct {
	cmd   []string
	sleep time.Duration
}

// seqLock runs its steps as Acquire, recording every reply.
type seqLock struct {
	steps []diffStep
	out   *[]string
}

func (l seqLock) Acquire(p sim.Proc) (sim.Lease, error) {
	for _, s := range l.steps {
		if s.cmd == nil {
			p.Sleep(s.sleep)
			continue
		}
		r, err := p.Do(0, s.cmd...)
		got := r.String()
		if err != nil && r.Kind != 0 {
			got += " (" + err.Error() + ")"
		} else if err != nil {
			got = err.Error()
		}
		*l.out = append(*l.out, strings.Join(s.cmd, " ")+" → "+got)
	}
	return sim.Lease{}, nil
}

func (seqLock) Release(sim.Proc, sim.Lease) error { return nil }

type diffCase struct {
	name string
	lag  time.Duration
	// failAfter: the failover fires at the reply of the process's nth
	// command (0: none).
	failAfter int
	steps     []diffStep
	// known: replies (by index) real Redis gives instead of the
	// simulation's, each a listed difference (see above).
	known map[int]string
}

func cmd(args ...string) diffStep    { return diffStep{cmd: args} }
func sleep(d time.Duration) diffStep { return diffStep{sleep: d} }
func diffConfig(c diffCase, out *[]string) sim.Config {
	cfg := sim.Config{
		Seed:     1,
		Duration: time.Minute,
		Nodes:    []sim.NodeSpec{{Replicas: 1, ReplicationLag: sim.Latency{Min: c.lag, Max: c.lag}}},
		Procs:    []sim.ProcSpec{{Name: "c1", Iterations: 1}},
		Network:  sim.Network{Timeout: time.Second},
		WatchKey: "b",
		NewLocker: func(int) sim.Locker {
			return seqLock{steps: c.steps, out: out}
		},
	}
	if c.failAfter > 0 {
		cfg.Faults = []sim.Fault{{Kind: fault.Failover, Node: 0, Dur: 500 * time.Millisecond,
			On: sim.Trigger{Proc: 0, Point: sim.PointReply, N: c.failAfter}}}
	}
	return cfg
}

var diffCases = []diffCase{
	{name: "write, lag, death, promotion", lag: 200 * time.Millisecond, failAfter: 2, steps: []diffStep{
		cmd("SET", "a", "1"), sleep(500 * time.Millisecond), // a reaches the replica
		cmd("SET", "b", "2"), // b is 200 ms from it when the primary dies
		sleep(5 * time.Second),
		cmd("GET", "a"), cmd("GET", "b"), cmd("SET", "c", "3"), cmd("GET", "c"),
		cmd("WAIT", "1", "100"), // the promoted replica has no replica: 0 at the timeout
	}},
	{name: "WAIT within and past the lag", lag: 200 * time.Millisecond, steps: []diffStep{
		cmd("SET", "b", "1"), cmd("WAIT", "1", "50"), cmd("WAIT", "1", "1000"),
		cmd("WAIT", "0", "0"), cmd("WAIT", "1", "50"), // no write since: the simulation answers 1 at once
		cmd("SET", "b", "2", "PX", "60000"), cmd("WAIT", "1", "1000"),
	}, known: map[int]string{
		3: "WAIT 0 0 → (integer) 0",  // the GETACK of WAIT 1 1000 is not acknowledged yet
		4: "WAIT 1 50 → (integer) 0", // nor within 50 ms: it is 200 ms from the replica
	}},
	{name: "WAIT, then death", lag: 100 * time.Millisecond, failAfter: 3, steps: []diffStep{
		cmd("SET", "b", "1", "PX", "60000"), cmd("SET", "a", "1"), cmd("WAIT", "1", "1000"),
		sleep(5 * time.Second),
		cmd("GET", "b"), cmd("GET", "a"), cmd("EXISTS", "b"),
	}},
}

func TestReplicationDifferential(t *testing.T) {
	t.Parallel() // seconds of wall time on servers of its own, next to the other tests'
	for _, bin := range []string{"redis-server", "redis-sentinel"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not on PATH (scripts/redis-server.sh installs it)", bin)
		}
	}
	var wg sync.WaitGroup
	for _, c := range diffCases {
		wg.Add(1)
		go func() { // side by side: each sequence takes seconds of wall time
			defer wg.Done()
			var simOut, realOut []string
			cfg := diffConfig(c, &simOut)
			res, err := sim.Run(cfg)
			if err != nil {
				t.Errorf("%s: sim: %v", c.name, err)
				return
			}
			simKey := failoverKey(res)
			cfg = diffConfig(c, &realOut)
			srv, err := realredis.StartSpecs(realredis.SpecsFor(&cfg))
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				return
			}
			defer srv.Stop()
			w, err := realredis.OpenServers(srv)
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				return
			}
			defer w.Close()
			rres, err := engine.Run(cfg, w)
			if err != nil {
				t.Errorf("%s: real: %v", c.name, err)
				return
			}
			realKey := failoverKey(rres)
			// A listed reply may also come out as the simulation's when the
			// replica's once-a-second REPLCONF ACK lands just before it; at
			// least one must differ, or the difference is gone.
			want, differed := append([]string(nil), simOut...), len(c.known) == 0
			for i, r := range c.known {
				if i < len(want) && i < len(realOut) {
					if want[i] == r {
						t.Errorf("%s: reply %d %q is listed as a difference, but the simulation gives it too", c.name, i, r)
					}
					if realOut[i] == r {
						want[i], differed = r, true
					}
				}
			}
			if !differed {
				t.Errorf("%s: none of the listed differences %v showed", c.name, c.known)
			}
			if got, want := strings.Join(realOut, "\n"), strings.Join(want, "\n"); got != want {
				t.Errorf("%s: real replies\n%s\nsimulated\n%s", c.name, got, want)
			}
			if realKey != simKey {
				t.Errorf("%s: the failover event's key: real %s, simulated %s", c.name, realKey, simKey)
			}
			t.Logf("%s: simulated\n%s\nfailover: %s", c.name, strings.Join(simOut, "\n"), simKey)
		}()
	}
	wg.Wait()
}

// failoverKey is what the run's failover event says of the promoted lane
// and the watched key there.
func failoverKey(res *sim.Result) string {
	for _, e := range res.History.Events {
		if e.Kind == sim.KindFault && e.Fault == fault.Failover {
			return fmt.Sprintf("lane %d, key exists %v value %q", e.Value, e.Key.Exists, e.Key.Value)
		}
	}
	return "none"
}
