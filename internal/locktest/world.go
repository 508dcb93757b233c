package locktest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// World is a small sequential stand-in for the engine: shared virtual true
// time, nodes driven through node.Exec, a fixed latency per command.
// Processes run one after another; a test interleaves them by hand with
// hooks that fire just before a process sends a given command.
type World struct {
	t       *testing.T
	Nodes   []*node.Node
	Now     time.Duration // true time since sim.Epoch
	Latency time.Duration // per command, half before it runs, half after
	Timeout time.Duration // what a command to a down node costs its caller
	Down    []bool
	Log     []string // "proc node CMD args…" for every command sent
}

func NewWorld(t *testing.T, nodes int) *World {
	w := &World{t: t, Latency: 2 * time.Millisecond, Timeout: 50 * time.Millisecond, Down: make([]bool, nodes)}
	for i := range nodes {
		w.Nodes = append(w.Nodes, node.New(int64(i+1)))
	}
	return w
}

// At is true time as a time.Time.
func (w *World) At() time.Time { return sim.Epoch.Add(w.Now) }

// Advance moves true time on (a test waiting, or a process working).
func (w *World) Advance(d time.Duration) { w.Now += d }

// Key reports Key on node n right now.
func (w *World) Key(n int, key string) (exists bool, value string, ttl time.Duration) {
	k := w.Nodes[n].Key(w.At(), key)
	return k.Exists, k.Value, k.TTL
}

// Exec runs a command outside any process (a test's own hand on a node).
func (w *World) Exec(n int, args ...string) sim.Reply {
	return w.Nodes[n].Exec(99, w.At(), args)
}

// Count is how many logged commands contain s.
func (w *World) Count(s string) int {
	c := 0
	for _, l := range w.Log {
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

// Proc is one fake process.
type Proc struct {
	w      *World
	name   string
	conn   int
	Offset time.Duration // local clock = true time + offset
	rng    *rand.Rand
	Slept  time.Duration
	Sleeps int
	hooks  []*hook
	Drop   map[string]bool // commands whose request is lost: the caller times out
}

func (w *World) Proc(name string, conn int) *Proc {
	return &Proc{w: w, name: name, conn: conn, rng: rand.New(rand.NewPCG(uint64(conn)+1, 7))}
}

// Before runs f just Before the nth cmd this process sends.
func (p *Proc) Before(cmd string, n int, f func()) {
	p.hooks = append(p.hooks, &hook{cmd: strings.ToUpper(cmd), n: n, f: f})
}

func (p *Proc) Name() string     { return p.name }
func (p *Proc) Now() time.Time   { return p.w.At().Add(p.Offset) }
func (p *Proc) Rand() *rand.Rand { return p.rng }
func (p *Proc) Nodes() int       { return len(p.w.Nodes) }

func (p *Proc) Sleep(d time.Duration) {
	p.Sleeps++
	if d > 0 {
		p.Slept += d
		p.w.Now += d
	}
}

func (p *Proc) Do(n int, args ...string) (sim.Reply, error) {
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
	w.Log = append(w.Log, fmt.Sprintf("%s %d %s", p.name, n, strings.Join(shown, " ")))
	if n < 0 || n >= len(w.Nodes) {
		return sim.Reply{}, fmt.Errorf("no node %d", n)
	}
	if w.Down[n] || p.Drop[cmd] {
		w.Now += w.Timeout
		return sim.Reply{}, sim.ErrTimeout
	}
	w.Now += w.Latency / 2
	r := w.Nodes[n].Exec(p.conn, w.At(), args)
	w.Now += w.Latency - w.Latency/2
	if r.Kind == node.Error {
		return r, &sim.RedisError{Msg: r.Str}
	}
	return r, nil
}

func MustAcquire(t *testing.T, l sim.Locker, p *Proc) sim.Lease {
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

func MustFail(t *testing.T, l sim.Locker, p *Proc) {
	t.Helper()
	lease, err := l.Acquire(p)
	if err != nil {
		t.Fatalf("%s: acquire: %v", p.name, err)
	}
	if lease.Held {
		t.Fatalf("%s: acquire: held, want not held", p.name)
	}
}

func MustRelease(t *testing.T, l sim.Locker, p *Proc, lease sim.Lease) {
	t.Helper()
	if err := l.Release(p, lease); err != nil {
		t.Fatalf("%s: release: %v", p.name, err)
	}
}

// Commands is the log filtered to the lines containing any of subs.
func (w *World) Commands(subs ...string) []string {
	var out []string
	for _, l := range w.Log {
		for _, s := range subs {
			if strings.Contains(l, s) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}
