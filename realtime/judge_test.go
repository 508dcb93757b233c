package realtime_test

import (
	"sync"
	"testing"
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/realtime"
	"github.com/locksim/locksim/realtime/engine"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// memWire is a engine.Wire over in-process nodes on the wall clock, enough to
// drive Judge without a server.
type memWire struct {
	mu    sync.Mutex
	nodes []*node.Node
	t0    time.Time
}

func (w *memWire) Dial(n int) (engine.Conn, error) { return &memConn{w: w, node: n}, nil }
func (w *memWire) Restart(n int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.nodes[n].Flush()
	return nil
}

type memConn struct {
	w    *memWire
	node int
}

func (c *memConn) Close() error { return nil }
func (c *memConn) Exec(args []string, key string) (sim.Reply, sim.KeyState, error) {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	now := sim.Epoch.Add(time.Since(c.w.t0))
	n := c.w.nodes[c.node]
	r := n.Exec(1, now, args)
	var ks sim.KeyState
	if key != "" {
		ks = n.Key(now, key)
	}
	return r, ks, nil
}

// A real run cut at its duration that found nothing is incomplete, as a
// simulated one is: never a pass.
func TestRealCutIsIncomplete(t *testing.T) {
	s, err := scenarios.Lookup("del-race")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Prepare("set-nx-px-token")
	if err != nil {
		t.Fatal(err)
	}
	p.Config.Duration = 200 * time.Millisecond
	p.Config.Network.Timeout = 0
	p.Config.Network.LossRequest = 1 // every client waits for ever: nothing is found
	w := &memWire{t0: time.Now()}
	for i := range p.Config.Nodes {
		w.nodes = append(w.nodes, node.New(int64(i)))
	}
	o, err := realtime.Judge(s, p, w, "mem", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Result.Cut == "" || o.Verdict.Verdict != model.VerdictIncomplete {
		t.Errorf("cut %q, verdict %s; want a cut run judged %s", o.Result.Cut, o.Verdict.Verdict, model.VerdictIncomplete)
	}
}
