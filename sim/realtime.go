package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
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
// engine knows nothing of sockets (sim/realredis implements it over RESP).

// Wire reaches the real nodes.
type Wire interface {
	// Dial opens a connection to node for one process incarnation.
	Dial(node int) (Conn, error)
	// Restart makes node lose all its data, as a restart without
	// persistence does (a node-restart fault). The engine itself refuses
	// the node's commands for the time it is down.
	Restart(node int) error
}

// Conn is one client connection to a real node.
type Conn interface {
	// Exec runs one command and, when key is not "", reads key's state
	// right after it, atomically with it where the server allows, Fresh
	// when the command began a new version as far as the connection can
	// tell (sim/realredis says how).
	Exec(args []string, key string) (Reply, KeyState, error)
	Close() error
}

// CheckReal says whether cfg can run against real servers, naming the first
// thing that cannot: a server's clock can be neither offset, nor drift, nor
// jump.
func CheckReal(cfg *Config) error {
	for i, n := range cfg.Nodes {
		if n.Clock != (ClockSpec{}) {
			return fmt.Errorf("nodes[%d].clock: a real server's clock cannot be offset or drift (simulation only)", i)
		}
		if n.Persistence != PersistNone {
			return fmt.Errorf("nodes[%d].persistence: a real node's restart keeps nothing (FLUSHDB, or a server without persistence); %s runs only in simulation", i, n.Persistence)
		}
		if n.Replicas > 0 {
			return fmt.Errorf("nodes[%d].replicas: replication runs only in simulation", i)
		}
	}
	for i, p := range cfg.Procs {
		if p.RenewEvery > 0 || p.Reenter > 0 {
			return fmt.Errorf("clients[%d]: renew_every and reenter run only in simulation (the watchdog is a coroutine of the simulated process)", i)
		}
	}
	if cfg.NewLocker != nil && len(cfg.Procs) > 0 {
		if s, ok := cfg.NewLocker(0).(SelfRenewing); ok && s.RenewEvery() > 0 {
			return errors.New("algorithm: a lock that runs its own watchdog runs only in simulation")
		}
	}
	for i, f := range cfg.Faults {
		if why := f.Kind.spec().realRefusal; why != "" {
			return fmt.Errorf("faults[%d]: %s", i, why)
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
	if err := CheckReal(&cfg); err != nil {
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
		restart := r.fire(i)
		r.mu.Unlock()
		r.restartNode(restart)
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

func (r *rtRunner) recordLocked(e Event, inc int) {
	if r.ended {
		return
	}
	e.At = r.now()
	if e.Proc >= 0 && e.Kind != KindCommand {
		e.Incarnation = inc
	}
	r.hist.add(e)
	if r.hist.atLimit(r.maxEv) {
		r.ended, r.cut, r.end = true, r.hist.cut(r.maxEv), e.At
		close(r.done)
		for _, c := range r.conns {
			c.Close() // ends a read in flight; it does not wait for the reader
		}
	}
}

// trigger is Run's trigger under mu; it returns a node to restart, or -1.
func (r *rtRunner) trigger(point Point, s *rtSlot, cmd string) int {
	restart := -1
	for _, i := range r.byProc[s.id] {
		if r.reached(&r.cfg.Faults[i], i, point, cmd) {
			if n := r.fire(i); n >= 0 {
				restart = n
			}
		}
	}
	return restart
}

// fire applies fault i under mu, as Run's fire does. A node restart's flush
// is I/O: it returns the node for the caller to restart after unlocking.
func (r *rtRunner) fire(i int) int {
	if r.fired[i] || r.ended {
		return -1
	}
	r.fired[i] = true
	f := &r.cfg.Faults[i]
	spec := f.Kind.spec()
	if spec.applyReal == nil {
		return -1 // CheckReal refuses it
	}
	ev := Event{Kind: KindFault, Fault: f.Kind, Proc: -1, Node: -1, Dur: f.Dur}
	inc := 0
	switch spec.target {
	case TargetProc:
		p := r.slots[f.Proc].cur
		if p == nil || p.crashed {
			return -1
		}
		ev.Proc, inc = f.Proc, p.inc
	case TargetNode:
		ev.Node = f.Node
		ev.Dur = r.cfg.downFor(f)
	}
	r.recordLocked(ev, inc)
	return spec.applyReal(r, f)
}

// restartNode restarts node n beside the processes: restarting a server
// process takes milliseconds, and the process whose event fired the fault
// must not wait for it (the node refuses commands meanwhile).
func (r *rtRunner) restartNode(n int) {
	if n < 0 {
		return
	}
	r.goWait(func() {
		if err := r.wire.Restart(n); err != nil {
			r.stop(fmt.Sprintf("node %d: restart: %v", n, err))
		}
	})
}
