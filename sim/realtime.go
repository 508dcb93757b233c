package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// The real-time backend: the same processes, workload, faults and history
// as Run, against real Redis servers in wall-clock time. It lives beside the
// simulated engine, not inside it: Run's event loop is untouched and pays
// nothing for it; the two share the workload (workload.go), the clocks, the
// fault plan and the history types. Wire is the seam to the servers; the
// engine knows nothing of sockets (realtime/realredis implements it over RESP).

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
	Parts() RealParts
	// ReadKey reads key's state on node, outside any client's commands.
	ReadKey(node int, key string) (KeyState, error)
	// JumpClock steps node's clock by by (Parts().Clocks only).
	JumpClock(node int, by time.Duration) error
	// Failover kills node's primary for its replicas' Sentinel to promote
	// one (Parts().Replicas only), and returns the replica it will promote
	// (the one with the most of the stream) and key's state there.
	Failover(node int, key string) (replica int, ks KeyState, err error)
}

// partsOf is what w can carry out.
func partsOf(w Wire) RealParts {
	if sw, ok := w.(ServerWire); ok {
		return sw.Parts()
	}
	return RealParts{}
}

// RealParts are what a real backend can carry out beyond sending commands:
// servers you give locksim can only be flushed; servers it starts itself
// (--redis start) can be killed and restarted, have their clocks stepped.
type RealParts struct {
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
	Exec(args []string, key string) (Reply, KeyState, error)
	Close() error
}

// CheckReal says whether cfg can run against servers locksim did not start
// (only flushed), naming the first thing that cannot.
func CheckReal(cfg *Config) error { return CheckRealWith(cfg, RealParts{}) }

// CheckRealWith says whether cfg can run on a wire with parts, naming the
// first thing that cannot.
func CheckRealWith(cfg *Config, parts RealParts) error {
	for i, n := range cfg.Nodes {
		switch {
		case n.Clock.DriftPPM != 0:
			return fmt.Errorf("nodes[%d].clock: a real server's clock cannot drift (simulation only)", i)
		case n.Clock != (ClockSpec{}) && !parts.Clocks:
			return fmt.Errorf("nodes[%d].clock: a real server's clock is its host's: offset it with --redis start (libfaketime)", i)
		}
		if n.Persistence != PersistNone && !parts.Processes {
			return fmt.Errorf("nodes[%d].persistence: a restart of a server locksim did not start keeps nothing (FLUSHDB); %s needs --redis start", i, n.Persistence)
		}
		if n.Replicas > 0 && !parts.Replicas {
			return fmt.Errorf("nodes[%d].replicas: real replicas need servers locksim starts: --redis start", i)
		}
	}
	for i, f := range cfg.Faults {
		if why := f.Kind.spec().realRefusal; why != "" {
			return fmt.Errorf("faults[%d]: %s", i, why)
		}
		if f.Kind == FaultNodeJump && !parts.Clocks {
			return fmt.Errorf("faults[%d]: a node clock jump needs a server whose clock locksim steps: --redis start (libfaketime)", i)
		}
		if f.Kind == FaultNodeRestart && f.Node >= 0 && f.Node < len(cfg.Nodes) && cfg.Nodes[f.Node].Replicas > 0 {
			return fmt.Errorf("faults[%d]: a restart of a node with replicas runs only in simulation (its replicas would resync from it)", i)
		}
	}
	return nil
}

// RunReal executes cfg against the nodes behind w in wall-clock time. True
// time is the wall time since the run began, measured on the monotonic
// clock; the history, stats and Result mean what they mean for Run, but the
// run is not deterministic: two runs differ in their timings and digest.
// Network latencies of cfg are added on the client side (the request waits
// before it is written, the reply after it is read); a lost request is never
// written, a lost reply is read and dropped; either way the client waits out
// its timeout.
func RunReal(cfg Config, w Wire) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := CheckRealWith(&cfg, partsOf(w)); err != nil {
		return nil, err
	}
	cfg.Faults = append([]Fault(nil), cfg.Faults...)
	for i := range cfg.Faults {
		cfg.Faults[i].On.Cmd = upper(cfg.Faults[i].On.Cmd)
	}
	r := &rtRunner{cfg: &cfg, wire: w, maxEv: cfg.MaxEvents, done: make(chan struct{}),
		idle: make(chan struct{}), downUntil: make([]Time, len(cfg.Nodes))}
	if r.maxEv == 0 {
		r.maxEv = DefaultMaxEvents
	}
	r.hist.cur = make([]Event, 0, historyEstimate(&cfg, r.maxEv))
	var timed []int
	r.triggers, timed = newTriggers(&cfg)
	// Equal times fire in plan order, as the simulation's queue does.
	sort.SliceStable(timed, func(a, b int) bool { return cfg.Faults[timed[a]].At < cfg.Faults[timed[b]].At })
	r.slots = make([]*rtSlot, len(cfg.Procs))
	for i := range cfg.Procs {
		r.slots[i] = &rtSlot{id: i, spec: &cfg.Procs[i],
			net: rand.New(rand.NewPCG(mix(cfg.Seed^0x6e6574, uint64(i)+1), 0))}
	}
	r.live = len(cfg.Procs)
	r.t0 = time.Now()
	for i := range cfg.Procs {
		r.spawn(r.slots[i], cfg.Procs[i].Start)
	}
	r.goWait(func() { r.fireTimed(timed) })

	limit := time.NewTimer(cfg.Duration)
	select {
	case <-r.idle:
	case <-limit.C:
		r.stop(fmt.Sprintf("duration limit %s reached", cfg.Duration))
	case <-r.done:
	}
	limit.Stop()
	r.stop("")
	r.wg.Wait() // no goroutine outlives the run
	return cfg.result(r.hist.events(), r.stats, r.end, r.cut), nil
}

// rtRunner is one real-time run. mu guards everything below it: processes
// are goroutines, and every record, fault and resource access takes it, so
// the history is in true-time order.
type rtRunner struct {
	cfg   *Config
	wire  Wire
	t0    time.Time
	maxEv int
	wg    sync.WaitGroup
	done  chan struct{} // closed when the run ends
	idle  chan struct{} // closed when no process is alive or waiting to restart

	mu        sync.Mutex
	ended     bool
	end       Time
	cut       string
	hist      recorder
	stats     Stats
	reqID     uint64
	live      int
	slots     []*rtSlot
	downUntil []Time
	triggers
	conns    []Conn // every connection opened, closed at the end
	resource resource
	// lastFault is the event fire recorded last, for applyReal to complete.
	lastFault *Event
}

// rtSlot is one client across its incarnations.
type rtSlot struct {
	id          int
	spec        *ProcSpec
	net         *rand.Rand   // the network's draws (mu)
	jumped      atomic.Int64 // clock jumps so far
	cur         *rtProc      // the live incarnation, or nil (mu)
	inc         int          // incarnations started (mu)
	pausedUntil Time         // (mu)
	lose        lossPlan     // a chosen loss for the next command (mu)
}

func (r *rtRunner) now() Time { return Time(time.Since(r.t0)) }

// goWait runs fn on a goroutine the run waits for.
func (r *rtRunner) goWait(fn func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		fn()
	}()
}

// stop ends the run (once): later records are dropped, sleepers wake and
// unwind, and closing every connection ends reads in flight.
func (r *rtRunner) stop(cut string) {
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return
	}
	r.ended, r.cut = true, cut
	r.end = min(r.now(), Time(r.cfg.Duration))
	conns := r.conns
	r.mu.Unlock()
	close(r.done)
	for _, c := range conns {
		c.Close()
	}
}

// sleepUntil waits until true time t; false when the run ended or dead was
// closed first.
func (r *rtRunner) sleepUntil(t Time, dead <-chan struct{}) bool {
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

func (r *rtRunner) fireTimed(timed []int) {
	for _, i := range timed {
		if !r.sleepUntil(Time(r.cfg.Faults[i].At), nil) {
			return
		}
		r.mu.Lock()
		io := r.fire(i)
		r.mu.Unlock()
		r.afterFire(io)
	}
}

// spawn starts a fresh incarnation of s at true time at.
func (r *rtRunner) spawn(s *rtSlot, at time.Duration) {
	r.goWait(func() {
		if !r.sleepUntil(Time(at), nil) {
			return
		}
		r.mu.Lock()
		if r.ended {
			r.mu.Unlock()
			return
		}
		p := &rtProc{r: r, s: s, inc: s.inc, dead: make(chan struct{}), conns: make([]Conn, len(r.cfg.Nodes)),
			rng: rand.New(rand.NewPCG(mix(r.cfg.Seed, uint64(s.id)+1), uint64(s.inc)))}
		if s.inc > 0 {
			r.recordLocked(Event{Kind: KindFault, Fault: FaultRestart, Proc: s.id, Node: -1}, s.inc)
		}
		s.cur = p
		r.mu.Unlock()
		p.run()
	})
}

// retire is called when a process's workload returns or it crashed for
// good: the last one makes the run idle.
func (r *rtRunner) retire() {
	r.live--
	if r.live == 0 {
		close(r.idle)
	}
}

// recordLocked records e at the current true time and returns it as
// recorded (it stays where it is: the recorder never moves an event), or nil
// when the run has ended.
func (r *rtRunner) recordLocked(e Event, inc int) *Event {
	if r.ended {
		return nil
	}
	e.At = r.now()
	if e.Proc >= 0 && e.Kind != KindCommand {
		e.Incarnation = inc
	}
	r.hist.add(e)
	rec := &r.hist.cur[len(r.hist.cur)-1]
	if r.hist.atLimit(r.maxEv) {
		r.ended, r.cut, r.end = true, r.hist.cut(r.maxEv), e.At
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

// trigger is Run's trigger under mu; it returns the faults' I/O.
func (r *rtRunner) trigger(point Point, s *rtSlot, cmd string) []faultIO {
	var io []faultIO
	for _, i := range r.byProc[s.id] {
		if r.reached(&r.cfg.Faults[i], i, point, cmd) {
			if f := r.fire(i); f != nil {
				io = append(io, f)
			}
		}
	}
	return io
}

// fire applies fault i under mu, as Run's fire does, and returns its I/O
// for the caller to run after unlocking, or nil.
func (r *rtRunner) fire(i int) faultIO {
	if r.fired[i] || r.ended {
		return nil
	}
	r.fired[i] = true
	f := &r.cfg.Faults[i]
	spec := f.Kind.spec()
	if spec.applyReal == nil {
		return nil // CheckReal refuses it
	}
	ev := Event{Kind: KindFault, Fault: f.Kind, Proc: -1, Node: -1, Dur: f.Dur}
	inc := 0
	switch spec.target {
	case TargetProc:
		p := r.slots[f.Proc].cur
		if p == nil || p.crashed {
			return nil
		}
		ev.Proc, inc = f.Proc, p.inc
	case TargetNode:
		ev.Node = f.Node
		ev.Dur = r.cfg.downFor(f)
		if mode := r.cfg.Nodes[f.Node].Persistence; f.Kind == FaultNodeRestart && mode != PersistNone && partsOf(r.wire).Processes {
			ev.Value = int64(mode) // as restartNode records it; the reloaded key follows (reloaded)
		}
	}
	r.lastFault = r.recordLocked(ev, inc)
	return spec.applyReal(r, f)
}

// failedOver completes a failover's event rec once the primary is dead:
// the promoted replica's lane and the watched key there, as failoverEvent
// records them in simulation.
func (r *rtRunner) failedOver(rec *Event, n int) error {
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
func (r *rtRunner) reloaded(rec *Event, n int) error {
	if rec == nil || rec.Value == int64(PersistNone) || r.cfg.WatchKey == "" {
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
func (r *rtRunner) afterFire(io ...faultIO) {
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
