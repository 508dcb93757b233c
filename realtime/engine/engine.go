// Package engine is the real-time backend: the processes, workload, faults
// and history of sim.Run, against real Redis servers in wall-clock time, and
// not deterministic. It is built on sim's seam for such a backend (a
// sim.Ledger for the bookkeeping, sim.Workload over its processes as
// sim.Workers), so Run's event loop pays nothing for it. Wire is its own
// seam to the servers: it knows nothing of sockets (package
// realtime/realredis implements Wire over RESP and starts servers; package
// realtime runs scenarios and searches over it).
package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

// Wire reaches the real nodes.
type Wire interface {
	// Dial opens a connection to node for one process incarnation.
	Dial(node int) (Conn, error)
	// Restart restarts node (a node-restart fault): it loses all its data,
	// or, on a ServerWire with Parts().Processes, what its persistence
	// loses in a crash. The engine itself refuses the node's commands for
	// the time it is down.
	Restart(node int) error
}

// StaleConn is a Conn that knows when its server died under it: the
// process then dials afresh before sending, as a pool does.
type StaleConn interface {
	Conn
	Stale() bool
}

// ServerWire is a Wire whose servers locksim runs itself, and so can do
// more than commands and flushes (a plain Wire can do none of it).
type ServerWire interface {
	Wire
	// Parts says what the wire can carry out.
	Parts() Parts
	// ReadKey reads key's state on node, outside any client's commands.
	ReadKey(node int, key string) (sim.KeyState, error)
	// JumpClock steps node's clock by by (Parts().Clocks only).
	JumpClock(node int, by time.Duration) error
	// Failover kills node's primary for its replicas' Sentinel to promote
	// one (Parts().Replicas only), and returns the replica it will promote
	// (the one with the most of the stream) and key's state there.
	Failover(node int, key string) (replica int, ks sim.KeyState, err error)
}

// partsOf is what w can carry out.
func partsOf(w Wire) Parts {
	if sw, ok := w.(ServerWire); ok {
		return sw.Parts()
	}
	return Parts{}
}

// Parts are what a real backend can carry out beyond sending commands:
// servers you give locksim can only be flushed; servers it starts itself
// (--redis start) can be killed and restarted, have their clocks stepped.
type Parts struct {
	// Processes: a node restart kills the node's server and starts it again
	// on the same directory, so it replays its AOF (nodes[i].persistence).
	Processes bool
	// Clocks: a node's clock is its own (libfaketime), and can be offset
	// and stepped (nodes[i].clock.offset, node clock jumps).
	Clocks bool
	// Replicas: a node's replicas are real servers, behind a link that
	// lags as replication_lag says, and a failover kills the primary for
	// Sentinel to promote one of them.
	Replicas bool
}

// Conn is one client connection to a real node.
type Conn interface {
	// Exec runs one command and, when key is not "", reads key's state
	// right after it, atomically with it where the server allows, Fresh
	// when the command began a new version as far as the connection can
	// tell (realtime/realredis says how).
	Exec(args []string, key string) (sim.Reply, sim.KeyState, error)
	Close() error
}

// Check says whether cfg can run against servers locksim did not start
// (only flushed), naming the first thing that cannot.
func Check(cfg *sim.Config) error { return CheckWith(cfg, Parts{}) }

// CheckWith says whether cfg can run on a wire with parts, naming the
// first thing that cannot.
func CheckWith(cfg *sim.Config, parts Parts) error {
	for i, n := range cfg.Nodes {
		switch {
		case n.Clock.DriftPPM != 0:
			return fmt.Errorf("nodes[%d].clock: a real server's clock cannot drift (simulation only)", i)
		case n.Clock != (sim.ClockSpec{}) && !parts.Clocks:
			return fmt.Errorf("nodes[%d].clock: a real server's clock is its host's: offset it with --redis start (libfaketime)", i)
		}
		if n.Persistence != sim.PersistNone && !parts.Processes {
			return fmt.Errorf("nodes[%d].persistence: a restart of a server locksim did not start keeps nothing (FLUSHDB); %s needs --redis start", i, n.Persistence)
		}
		if n.Replicas > 0 && !parts.Replicas {
			return fmt.Errorf("nodes[%d].replicas: real replicas need servers locksim starts: --redis start", i)
		}
	}
	for i, f := range cfg.Faults {
		if why := realKindOf(f.Kind).refusal; why != "" {
			return fmt.Errorf("faults[%d]: %s", i, why)
		}
		if f.Kind == fault.NodeJump && !parts.Clocks {
			return fmt.Errorf("faults[%d]: a node clock jump needs a server whose clock locksim steps: --redis start (libfaketime)", i)
		}
		if f.Kind == fault.NodeRestart && f.Node >= 0 && f.Node < len(cfg.Nodes) && cfg.Nodes[f.Node].Replicas > 0 {
			return fmt.Errorf("faults[%d]: a restart of a node with replicas runs only in simulation (its replicas would resync from it)", i)
		}
	}
	return nil
}

// Run executes cfg against the nodes behind w in wall-clock time. True
// time is the wall time since the run began, measured on the monotonic
// clock; the history, stats and Result mean what they mean for sim.Run, but
// the run is not deterministic: two runs differ in their timings and digest.
// Network latencies of cfg are added on the client side (the request waits
// before it is written, the reply after it is read); a lost request is never
// written, a lost reply is read and dropped; either way the client waits out
// its timeout.
func Run(cfg sim.Config, w Wire) (*sim.Result, error) {
	book, err := sim.NewLedger(cfg)
	if err != nil {
		return nil, err
	}
	c := book.Config()
	if err := CheckWith(c, partsOf(w)); err != nil {
		return nil, err
	}
	r := &runner{cfg: c, book: book, wire: w, done: make(chan struct{}),
		idle: make(chan struct{}), downUntil: make([]sim.Time, len(c.Nodes))}
	r.slots = make([]*slot, len(c.Procs))
	for i := range c.Procs {
		r.slots[i] = &slot{id: i, spec: &c.Procs[i],
			net: rand.New(rand.NewPCG(mix(c.Seed^0x6e6574, uint64(i)+1), 0))}
	}
	r.live = len(c.Procs)
	r.t0 = time.Now()
	for i := range c.Procs {
		r.spawn(r.slots[i], c.Procs[i].Start)
	}
	r.goWait(func() { r.fireTimed(book.Timed()) })

	limit := time.NewTimer(c.Duration)
	select {
	case <-r.idle:
	case <-limit.C:
		r.stop(fmt.Sprintf("duration limit %s reached", c.Duration))
	case <-r.done:
	}
	limit.Stop()
	r.stop("")
	r.wg.Wait() // no goroutine outlives the run
	return book.Result(r.end, r.cut), nil
}

// mix is sim's stream splitter (splitmix64 of a combined with b), so that
// the processes draw from the streams they draw from in simulation.
func mix(a, b uint64) uint64 {
	z := a ^ (b * 0x9e3779b97f4a7c15)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// runner is one real-time run. mu guards everything below it: processes
// are goroutines, and every record, fault and resource access takes it, so
// the history is in true-time order.
type runner struct {
	cfg  *sim.Config // book's, validated
	wire Wire
	t0   time.Time
	wg   sync.WaitGroup
	done chan struct{} // closed when the run ends
	idle chan struct{} // closed when no process is alive or waiting to restart

	mu        sync.Mutex
	book      *sim.Ledger
	ended     bool
	end       sim.Time
	cut       string
	reqID     uint64
	live      int
	slots     []*slot
	downUntil []sim.Time
	conns     []Conn // every connection opened, closed at the end
	// lastFault is the event fire recorded last, for a kind's apply to
	// complete.
	lastFault *sim.Event
}

// slot is one client across its incarnations.
type slot struct {
	id          int
	spec        *sim.ProcSpec
	net         *rand.Rand   // the network's draws (mu)
	jumped      atomic.Int64 // clock jumps so far
	cur         *proc        // the live incarnation, or nil (mu)
	inc         int          // incarnations started (mu)
	pausedUntil sim.Time     // (mu)
	lose        lossPlan     // a chosen loss for the next command (mu)
}

// lossPlan is a planned loss waiting for its process's next command: kind
// fault.LoseRequest or fault.LoseReply (0: none) and the client's
// wait.
type lossPlan struct {
	kind    fault.Kind
	timeout time.Duration
}

func (r *runner) now() sim.Time { return sim.Time(time.Since(r.t0)) }

// goWait runs fn on a goroutine the run waits for.
func (r *runner) goWait(fn func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		fn()
	}()
}

// stop ends the run (once): later records are dropped, sleepers wake and
// unwind, and closing every connection ends reads in flight.
func (r *runner) stop(cut string) {
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return
	}
	r.ended, r.cut = true, cut
	r.end = min(r.now(), sim.Time(r.cfg.Duration))
	conns := r.conns
	r.mu.Unlock()
	close(r.done)
	for _, c := range conns {
		c.Close()
	}
}

// sleepUntil waits until true time t; false when the run ended or dead was
// closed first.
func (r *runner) sleepUntil(t sim.Time, dead <-chan struct{}) bool {
	d := time.Duration(t - r.now())
	if d <= 0 {
		select {
		case <-r.done:
			return false
		case <-dead:
			return false
		default:
			return true
		}
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-r.done:
		return false
	case <-dead:
		return false
	}
}

func (r *runner) fireTimed(timed []int) {
	for _, i := range timed {
		if !r.sleepUntil(sim.Time(r.cfg.Faults[i].At), nil) {
			return
		}
		r.mu.Lock()
		io := r.fire(i)
		r.mu.Unlock()
		r.afterFire(io)
	}
}

// spawn starts a fresh incarnation of s at true time at.
func (r *runner) spawn(s *slot, at time.Duration) {
	r.goWait(func() {
		if !r.sleepUntil(sim.Time(at), nil) {
			return
		}
		r.mu.Lock()
		if r.ended {
			r.mu.Unlock()
			return
		}
		p := &proc{r: r, s: s, inc: s.inc, dead: make(chan struct{}), conns: make([]Conn, len(r.cfg.Nodes)),
			rng: rand.New(rand.NewPCG(mix(r.cfg.Seed, uint64(s.id)+1), uint64(s.inc)))}
		if s.inc > 0 {
			r.recordLocked(sim.Event{Kind: sim.KindFault, Fault: fault.Respawn, Proc: s.id, Node: -1}, s.inc)
		}
		s.cur = p
		r.mu.Unlock()
		p.run()
	})
}

// retire is called when a process's workload returns or it crashed for
// good: the last one makes the run idle.
func (r *runner) retire() {
	r.live--
	if r.live == 0 {
		close(r.idle)
	}
}

// recordLocked records e at the current true time and returns it as
// recorded (it stays where it is: the ledger never moves an event), or nil
// when the run has ended.
func (r *runner) recordLocked(e sim.Event, inc int) *sim.Event {
	if r.ended {
		return nil
	}
	e.At = r.now()
	if e.Proc >= 0 && e.Kind != sim.KindCommand {
		e.Incarnation = inc
	}
	rec, cut := r.book.Record(e)
	if cut != "" {
		r.ended, r.cut, r.end = true, cut, e.At
		close(r.done)
		for _, c := range r.conns {
			c.Close() // ends a read in flight; it does not wait for the reader
		}
	}
	return rec
}

// faultIO is the part of a fault that talks to a server (a restart, a
// clock step): it runs after mu is released.
type faultIO func() error

// trigger counts point in s's process under mu, fires the faults due and
// returns their I/O.
func (r *runner) trigger(point sim.Point, s *slot, cmd string) []faultIO {
	if r.ended {
		return nil
	}
	var io []faultIO
	for _, i := range r.book.Reached(s.id, point, cmd) {
		if f := r.fire(i); f != nil {
			io = append(io, f)
		}
	}
	return io
}

// fire applies fault i under mu, as sim.Run's fire does, and returns its
// I/O for the caller to run after unlocking, or nil.
func (r *runner) fire(i int) faultIO {
	if r.ended {
		return nil
	}
	ev, ok := r.book.Fire(i)
	if !ok {
		return nil
	}
	f := &r.cfg.Faults[i]
	apply := realKindOf(f.Kind).apply
	if apply == nil {
		return nil // CheckWith refuses it
	}
	inc := 0
	switch f.Kind.Target() {
	case fault.OnClient:
		p := r.slots[f.Proc].cur
		if p == nil || p.crashed {
			return nil
		}
		inc = p.inc
	case fault.OnNode:
		if mode := r.cfg.Nodes[f.Node].Persistence; f.Kind == fault.NodeRestart && mode != sim.PersistNone && partsOf(r.wire).Processes {
			ev.Value = int64(mode) // as sim records it; the reloaded key follows (reloaded)
		}
	}
	r.lastFault = r.recordLocked(ev, inc)
	return apply(r, f)
}

// failedOver completes a failover's event rec once the primary is dead:
// the promoted replica's lane and the watched key there, as sim records
// them.
func (r *runner) failedOver(rec *sim.Event, n int) error {
	sw, ok := r.wire.(ServerWire)
	if !ok {
		return errors.New("the wire cannot fail a node over")
	}
	k, ks, err := sw.Failover(n, r.cfg.WatchKey)
	if err != nil || rec == nil {
		return err
	}
	lane := len(r.cfg.Nodes)
	for i := range n {
		lane += r.cfg.Nodes[i].Replicas
	}
	r.mu.Lock()
	rec.Value = int64(lane + k)
	if r.cfg.WatchKey != "" {
		rec.Key = ks
	}
	r.mu.Unlock()
	return nil
}

// reloaded completes a node restart's event rec once the server is back:
// with persistence, the watched key as the reload left it, as the
// simulation records it.
func (r *runner) reloaded(rec *sim.Event, n int) error {
	if rec == nil || rec.Value == int64(sim.PersistNone) || r.cfg.WatchKey == "" {
		return nil
	}
	sw, ok := r.wire.(ServerWire)
	if !ok {
		return nil
	}
	ks, err := sw.ReadKey(n, r.cfg.WatchKey)
	if err != nil {
		return err
	}
	r.mu.Lock()
	rec.Key = ks
	r.mu.Unlock()
	return nil
}

// afterFire runs the faults' I/O beside the processes: restarting a server
// takes milliseconds, and the process whose event fired the fault must not
// wait for it (the node refuses commands meanwhile). Faults fired together
// run their I/O in plan order.
func (r *runner) afterFire(io ...faultIO) {
	io = slices.DeleteFunc(io, func(f faultIO) bool { return f == nil })
	if len(io) == 0 {
		return
	}
	r.goWait(func() {
		for _, f := range io {
			if err := f(); err != nil {
				r.stop(err.Error())
				return
			}
		}
	})
}
