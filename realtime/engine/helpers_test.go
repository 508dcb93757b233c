package engine

import (
	"strconv"
	"time"

	"github.com/locksim/locksim/sim"
)

// The locks and configs of sim's tests (sim_helpers_test.go,
// watchdog_test.go), for the same runs in wall-clock time.

type tokenLock struct{ ttl time.Duration }

const releaseScript = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`

func (l tokenLock) Acquire(p sim.Proc) (sim.Lease, error) {
	tok := strconv.FormatUint(p.Rand().Uint64(), 16)
	for {
		r, err := p.Do(0, "SET", "lock", tok, "NX", "PX", strconv.FormatInt(l.ttl.Milliseconds(), 10))
		if err == nil && r.Str == "OK" {
			return sim.Lease{Held: true, Token: tok}, nil
		}
		p.Sleep(10 * time.Millisecond)
	}
}

func (l tokenLock) Release(p sim.Proc, le sim.Lease) error {
	p.Do(0, "EVAL", releaseScript, "1", "lock", le.Token)
	return nil
}

type extendLock struct{ tokenLock }

const extendScript = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("pexpire",KEYS[1],ARGV[2]) else return 0 end`

func (l extendLock) Extend(p sim.Proc, le sim.Lease) (bool, error) {
	r, err := p.Do(0, "EVAL", extendScript, "1", "lock", le.Token, strconv.FormatInt(l.ttl.Milliseconds(), 10))
	return err == nil && r.Int == 1, nil
}

// scriptLock runs test code as the acquire step: the workload then records
// it like any algorithm.
type scriptLock struct {
	acquire func(p sim.Proc) (sim.Lease, error)
}

func (l scriptLock) Acquire(p sim.Proc) (sim.Lease, error) { return l.acquire(p) }
func (l scriptLock) Release(sim.Proc, sim.Lease) error     { return nil }

func standardConfig(seed uint64) sim.Config {
	procs := make([]sim.ProcSpec, 3)
	for i := range procs {
		procs[i] = sim.ProcSpec{Name: "c" + strconv.Itoa(i+1), Iterations: 20, Work: 5 * time.Millisecond, Think: 2 * time.Millisecond}
	}
	return sim.Config{
		Seed:     seed,
		Duration: time.Minute,
		Nodes:    []sim.NodeSpec{{}},
		Procs:    procs,
		Network: sim.Network{
			Request: sim.Latency{Min: 100 * time.Microsecond, Max: 500 * time.Microsecond},
			Reply:   sim.Latency{Min: 100 * time.Microsecond, Max: 500 * time.Microsecond},
			Timeout: 50 * time.Millisecond,
		},
		NewLocker: func(int) sim.Locker { return tokenLock{ttl: time.Second} },
		WatchKey:  "lock",
	}
}

func renewConfig(mod func(*sim.Config)) sim.Config {
	cfg := standardConfig(3)
	cfg.Procs = []sim.ProcSpec{
		{Name: "c1", Iterations: 1, Work: 5 * time.Second, RenewEvery: 300 * time.Millisecond},
		{Name: "c2", Start: 100 * time.Millisecond, Iterations: 1, Work: 10 * time.Millisecond},
	}
	cfg.NewLocker = func(int) sim.Locker { return extendLock{tokenLock{ttl: time.Second}} }
	if mod != nil {
		mod(&cfg)
	}
	return cfg
}

func eventsOf(h sim.History, k sim.Kind) []sim.Event {
	var out []sim.Event
	for _, e := range h.Events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}
