package algofile

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// This file is locks' fake_test.go, which algofile's tests moved away from:
// keep the two alike until the world moves to a package both import.

// world is a small sequential stand-in for the engine: shared virtual true
// time, nodes driven through node.Exec, a fixed latency per command.
// Processes run one after another; a test interleaves them by hand with
// hooks that fire just before a process sends a given command.
type world struct {
	t       *testing.T
	nodes   []*node.Node
	now     time.Duration // true time since sim.Epoch
	latency time.Duration // per command, half before it runs, half after
	timeout time.Duration // what a command to a down node costs its caller
	down    []bool
	log     []string // "proc node CMD args…" for every command sent
}

func newWorld(t *testing.T, nodes int) *world {
	w := &world{t: t, latency: 2 * time.Millisecond, timeout: 50 * time.Millisecond, down: make([]bool, nodes)}
	for i := range nodes {
		w.nodes = append(w.nodes, node.New(int64(i+1)))
	}
	return w
}

// at is true time as a time.Time.
func (w *world) at() time.Time { return sim.Epoch.Add(w.now) }

// advance moves true time on (a test waiting, or a process working).
func (w *world) advance(d time.Duration) { w.now += d }

// key reports key on node n right now.
func (w *world) key(n int, key string) (exists bool, value string, ttl time.Duration) {
	k := w.nodes[n].Key(w.at(), key)
	return k.Exists, k.Value, k.TTL
}

// exec runs a command outside any process (a test's own hand on a node).
func (w *world) exec(n int, args ...string) sim.Reply {
	return w.nodes[n].Exec(99, w.at(), args)
}

// count is how many logged commands contain s.
func (w *world) count(s string) int {
	c := 0
	for _, l := range w.log {
		if strings.Contains(l, s) {
			c++
		}
	}
	return c
}

type hook struct {
	cmd  string // upper case
	n    int    // fire before the nth such command
	seen int
	f    func()
}

// proc is one fake process.
type proc struct {
	w      *world
	name   string
	conn   int
	offset time.Duration // local clock = true time + offset
	rng    *rand.Rand
	slept  time.Duration
	sleeps int
	hooks  []*hook
	drop   map[string]bool // commands whose request is lost: the caller times out
}

func (w *world) proc(name string, conn int) *proc {
	return &proc{w: w, name: name, conn: conn, rng: rand.New(rand.NewPCG(uint64(conn)+1, 7))}
}

// before runs f just before the nth cmd this process sends.
func (p *proc) before(cmd string, n int, f func()) {
	p.hooks = append(p.hooks, &hook{cmd: strings.ToUpper(cmd), n: n, f: f})
}

func (p *proc) Name() string     { return p.name }
func (p *proc) Now() time.Time   { return p.w.at().Add(p.offset) }
func (p *proc) Rand() *rand.Rand { return p.rng }
func (p *proc) Nodes() int       { return len(p.w.nodes) }

func (p *proc) Sleep(d time.Duration) {
	p.sleeps++
	if d > 0 {
		p.slept += d
		p.w.now += d
	}
}

func (p *proc) Do(n int, args ...string) (sim.Reply, error) {
	w := p.w
	cmd := strings.ToUpper(args[0])
	for _, h := range p.hooks {
		if h.cmd == cmd {
			h.seen++
			if h.seen == h.n {
				h.f()
			}
		}
	}
	shown := append([]string(nil), args...)
	if cmd == "EVAL" {
		shown[1] = "<script>"
	}
	w.log = append(w.log, fmt.Sprintf("%s %d %s", p.name, n, strings.Join(shown, " ")))
	if n < 0 || n >= len(w.nodes) {
		return sim.Reply{}, fmt.Errorf("no node %d", n)
	}
	if w.down[n] || p.drop[cmd] {
		w.now += w.timeout
		return sim.Reply{}, sim.ErrTimeout
	}
	w.now += w.latency / 2
	r := w.nodes[n].Exec(p.conn, w.at(), args)
	w.now += w.latency - w.latency/2
	if r.Kind == node.Error {
		return r, &sim.RedisError{Msg: r.Str}
	}
	return r, nil
}

// locker makes algorithm name with overrides o.
func locker(t *testing.T, name string, o locks.Params) sim.Locker {
	t.Helper()
	a, err := locks.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(o); err != nil {
		t.Fatal(err)
	}
	return a.New(o)
}

func mustAcquire(t *testing.T, l sim.Locker, p *proc) sim.Lease {
	t.Helper()
	lease, err := l.Acquire(p)
	if err != nil {
		t.Fatalf("%s: acquire: %v", p.name, err)
	}
	if !lease.Held {
		t.Fatalf("%s: acquire: not held", p.name)
	}
	return lease
}

func mustFail(t *testing.T, l sim.Locker, p *proc) {
	t.Helper()
	lease, err := l.Acquire(p)
	if err != nil {
		t.Fatalf("%s: acquire: %v", p.name, err)
	}
	if lease.Held {
		t.Fatalf("%s: acquire: held, want not held", p.name)
	}
}

func mustRelease(t *testing.T, l sim.Locker, p *proc, lease sim.Lease) {
	t.Helper()
	if err := l.Release(p, lease); err != nil {
		t.Fatalf("%s: release: %v", p.name, err)
	}
}
