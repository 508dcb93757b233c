package sim

import (
	"strconv"
	"time"
)

// tokenLock is a minimal SET NX PX lock for engine tests: the engine's tests
// must not depend on the algorithms package.
type tokenLock struct{ ttl time.Duration }

const releaseScript = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`

func (l tokenLock) Acquire(p Proc) (Lease, error) {
	tok := strconv.FormatUint(p.Rand().Uint64(), 16)
	px := strconv.FormatInt(l.ttl.Milliseconds(), 10) // once, as set-nx-px-token does
	for {
		r, err := Do(p, 0, "SET", "lock", tok, "NX", "PX", px)
		if err == nil && r.Str == "OK" {
			return Lease{Held: true, Token: tok}, nil
		}
		p.Sleep(10 * time.Millisecond)
	}
}

func (l tokenLock) Release(p Proc, le Lease) error {
	Do(p, 0, "EVAL", releaseScript, "1", "lock", le.Token)
	return nil
}

func standardConfig(seed uint64) Config {
	procs := make([]ProcSpec, 3)
	for i := range procs {
		procs[i] = ProcSpec{Name: "c" + strconv.Itoa(i+1), Iterations: 20, Work: 5 * time.Millisecond, Think: 2 * time.Millisecond}
	}
	return Config{
		Seed:     seed,
		Duration: time.Minute,
		Nodes:    []NodeSpec{{}},
		Procs:    procs,
		Network: Network{
			Request: Latency{Min: 100 * time.Microsecond, Max: 500 * time.Microsecond},
			Reply:   Latency{Min: 100 * time.Microsecond, Max: 500 * time.Microsecond},
			Timeout: 50 * time.Millisecond,
		},
		NewLocker: func(int) Locker { return tokenLock{ttl: time.Second} },
		WatchKey:  "lock",
	}
}

// scriptLock runs test code as the acquire step: the engine's workload then
// records it like any algorithm.
type scriptLock struct {
	acquire func(p Proc) (Lease, error)
}

func (l scriptLock) Acquire(p Proc) (Lease, error) { return l.acquire(p) }
func (l scriptLock) Release(Proc, Lease) error     { return nil }

// oneProc runs body once in a single process on one node with a
// zero-latency network.
func oneProc(body func(p Proc) (Lease, error), mod func(*Config)) (*Result, error) {
	cfg := Config{
		Seed:      7,
		Duration:  time.Hour,
		Nodes:     []NodeSpec{{}},
		Procs:     []ProcSpec{{Name: "c1", Iterations: 1}},
		Network:   Network{Timeout: time.Second},
		NewLocker: func(int) Locker { return scriptLock{acquire: body} },
		WatchKey:  "k",
	}
	if mod != nil {
		mod(&cfg)
	}
	return Run(cfg)
}

func eventsOf(h History, k Kind) []Event {
	var out []Event
	for _, e := range h.Events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}
