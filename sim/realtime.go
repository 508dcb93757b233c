package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/sim/node"
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
	// right after it, atomically with it where the server allows.
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
	}
	for i, f := range cfg.Faults {
		if f.Kind == FaultNodeJump {
			return fmt.Errorf("faults[%d]: a node clock jump cannot be applied to a real server (simulation only)", i)
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
	r.fired = make([]bool, len(cfg.Faults))
	r.counts = make([]int, len(cfg.Faults))
	r.byProc = make([][]int, len(cfg.Procs))
	var timed []int
	for i, f := range cfg.Faults {
		if f.On.Point == PointAt {
			timed = append(timed, i)
		} else {
			r.byProc[f.On.Proc] = append(r.byProc[f.On.Proc], i)
		}
	}
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
	names := make([]string, len(cfg.Procs))
	for i, p := range cfg.Procs {
		names[i] = p.Name
	}
	return &Result{
		History: History{Events: r.hist.events(), Procs: names, Nodes: len(cfg.Nodes), WatchKey: cfg.WatchKey},
		Stats:   r.stats,
		End:     r.end,
		Cut:     r.cut,
	}, nil
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
	fired     []bool
	counts    []int
	byProc    [][]int
	conns     []Conn // every connection opened, closed at the end
	resource  struct{ value, maxFence int64 }
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
	if r.hist.n >= r.maxEv {
		r.ended, r.cut, r.end = true, fmt.Sprintf("event limit %d reached", r.maxEv), e.At
		conns := r.conns
		close(r.done)
		for _, c := range conns {
			go c.Close() // not under mu: a Close may wait on a reader
		}
	}
}

// trigger is Run's trigger under mu; it returns a node to restart, or -1.
func (r *rtRunner) trigger(point Point, s *rtSlot, cmd string) int {
	restart := -1
	for _, i := range r.byProc[s.id] {
		f := &r.cfg.Faults[i]
		if r.fired[i] || f.On.Point != point || (f.On.Cmd != "" && !equalFold(f.On.Cmd, cmd)) {
			continue
		}
		r.counts[i]++
		if r.counts[i] == f.On.N {
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
	ev := Event{Kind: KindFault, Fault: f.Kind, Proc: -1, Node: -1, Dur: f.Dur}
	switch f.Kind {
	case FaultPause, FaultCrash, FaultProcJump:
		s := r.slots[f.Proc]
		p := s.cur
		if p == nil || p.crashed {
			return -1
		}
		ev.Proc = f.Proc
		r.recordLocked(ev, p.inc)
		switch f.Kind {
		case FaultPause:
			s.pausedUntil = max(s.pausedUntil, r.now()+Time(f.Dur))
		case FaultProcJump:
			s.jumped.Add(int64(f.Dur))
		case FaultCrash:
			// The process is abandoned: it unwinds at its next effect, or
			// at once if it is waiting; a command in flight still runs.
			p.crashed = true
			close(p.dead)
			s.cur, s.pausedUntil = nil, 0
			s.inc++
			if f.Dur > 0 {
				r.spawn(s, time.Duration(r.now())+f.Dur)
			} else {
				r.retire()
			}
		}
	case FaultNodeRestart:
		ev.Node = f.Node
		r.recordLocked(ev, 0)
		r.downUntil[f.Node] = r.now() + Time(f.Dur)
		return f.Node
	}
	return -1
}

func (r *rtRunner) restartNode(n int) {
	if n < 0 {
		return
	}
	if err := r.wire.Restart(n); err != nil {
		r.stop(fmt.Sprintf("node %d: restart: %v", n, err))
	}
}

// rtProc is one incarnation of a real-time client: a goroutine running the
// workload, with its own connections.
type rtProc struct {
	r       *rtRunner
	s       *rtSlot
	inc     int
	rng     *rand.Rand
	conns   []Conn // dialled on first use
	dead    chan struct{}
	crashed bool // (mu)
}

func (p *rtProc) run() {
	defer func() {
		for _, c := range p.conns {
			if c != nil {
				c.Close()
			}
		}
		if v := recover(); v != nil {
			if _, ok := v.(crashSignal); !ok {
				p.lock()
				p.r.recordLocked(Event{Kind: KindProcEnd, Proc: p.s.id, Node: -1,
					Err: "panic: " + firstLine(fmt.Sprint(v))}, p.inc)
				p.r.mu.Unlock()
			} else {
				return // crashed: the fault retired it or will restart it
			}
		}
		p.lock()
		if !p.crashed {
			p.crashed = true // finished: a later crash fault finds nobody
			p.s.cur = nil
			p.r.retire()
		}
		p.r.mu.Unlock()
	}()
	workload(p, p.r.cfg.NewLocker(p.s.id))
}

func (p *rtProc) lock() { p.r.mu.Lock() }

// alive unwinds the goroutine if the process crashed or the run ended.
func (p *rtProc) alive() {
	select {
	case <-p.dead:
		panic(crashSignal{})
	case <-p.r.done:
		panic(crashSignal{})
	default:
	}
}

// wait sleeps until t, unwinding on a crash or the end of the run.
func (p *rtProc) wait(t Time) {
	if !p.r.sleepUntil(t, p.dead) {
		panic(crashSignal{})
	}
}

// unpaused returns once no pause holds the process (a pause may grow while
// it waits), as Run's resume and begin do before every effect.
func (p *rtProc) unpaused() {
	for {
		p.alive()
		p.lock()
		until := p.s.pausedUntil
		p.r.mu.Unlock()
		if until <= p.r.now() {
			return
		}
		p.wait(until)
	}
}

func (p *rtProc) Name() string     { return p.s.spec.Name }
func (p *rtProc) Rand() *rand.Rand { return p.rng }
func (p *rtProc) Nodes() int       { return len(p.r.cfg.Nodes) }
func (p *rtProc) Now() time.Time {
	c := clock{spec: p.s.spec.Clock, jumped: time.Duration(p.s.jumped.Load())}
	return c.at(p.r.now()).Std()
}

func (p *rtProc) Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	p.unpaused()
	p.wait(p.r.now() + Time(d))
	p.unpaused()
}

func (p *rtProc) procID() int         { return p.s.id }
func (p *rtProc) procSpec() *ProcSpec { return p.s.spec }
func (p *rtProc) record(e Event) {
	p.lock()
	p.r.recordLocked(e, p.inc)
	p.r.mu.Unlock()
	p.alive()
}

func (p *rtProc) trigger(point Point) { p.triggerCmd(point, "") }

func (p *rtProc) triggerCmd(point Point, cmd string) {
	p.lock()
	n := p.r.trigger(point, p.s, cmd)
	p.r.mu.Unlock()
	p.r.restartNode(n)
	p.alive()
}

func (p *rtProc) count(acquired bool) {
	p.lock()
	if acquired {
		p.r.stats.Acquired++
	} else {
		p.r.stats.Failed++
	}
	p.r.mu.Unlock()
}

func (p *rtProc) readResource() int64 {
	p.unpaused()
	p.lock()
	v := p.r.resource.value
	p.r.recordLocked(Event{Kind: KindResourceRead, Proc: p.s.id, Node: -1, Value: v}, p.inc)
	p.r.mu.Unlock()
	p.unpaused()
	return v
}

func (p *rtProc) writeResource(v, fence int64) {
	p.unpaused()
	p.lock()
	res := &p.r.resource
	accepted := fence == 0 || fence >= res.maxFence
	if accepted {
		res.value = v
		res.maxFence = max(res.maxFence, fence)
	}
	p.r.recordLocked(Event{Kind: KindResourceWrite, Proc: p.s.id, Node: -1, Value: v, Fence: fence, Accepted: accepted}, p.inc)
	p.r.mu.Unlock()
	p.unpaused()
}

// nodeError is the kind of an error reply.
const nodeError = node.Error

// errConnClosed is what a connection reports once the run closed it.
var errConnClosed = errors.New("connection closed")

// Do is Run's send, arrive and deliver in one blocking call: the same
// network draws in the same order, the same events, the same timeout
// reasons.
func (p *rtProc) Do(n int, args ...string) (Reply, error) {
	node := n
	if node < 0 || node >= len(p.r.cfg.Nodes) {
		return Reply{}, fmt.Errorf("no node %d: the run has %d", node, len(p.r.cfg.Nodes))
	}
	if len(args) == 0 {
		return Reply{}, fmt.Errorf("empty command")
	}
	args = append([]string(nil), args...) // the history keeps them
	p.unpaused()
	p.triggerCmd(PointSend, args[0])
	p.unpaused()

	r, nw := p.r, &p.r.cfg.Network
	r.mu.Lock()
	r.reqID++
	id, sent := r.reqID, r.now()
	lostReq := nw.LossRequest > 0 && p.s.net.Float64() < nw.LossRequest
	lostReply := nw.LossReply > 0 && p.s.net.Float64() < nw.LossReply
	reqLat, repLat := latency(p.s.net, nw.Request), latency(p.s.net, nw.Reply)
	r.mu.Unlock()
	var deadline Time
	if nw.Timeout > 0 {
		deadline = sent + Time(nw.Timeout)
	}
	res := Event{Kind: KindCommandResult, Proc: p.s.id, Node: node, Req: id, Args: args, Sent: sent}
	timeout := func(why string) (Reply, error) {
		if deadline == 0 {
			p.wait(Time(1<<62 - 1)) // no timeout: the client waits for ever
		}
		p.wait(deadline)
		res.Err = why
		p.record(res)
		p.unpaused()
		return Reply{}, ErrTimeout
	}
	if lostReq {
		return timeout("timeout: request lost")
	}
	p.wait(sent + Time(reqLat))
	r.mu.Lock()
	down := r.now() < r.downUntil[node]
	r.mu.Unlock()
	if down {
		return timeout("timeout: node down")
	}
	reply, key, err := p.exec(node, args)
	if err != nil {
		p.alive()
		return timeout("timeout: " + err.Error())
	}
	r.mu.Lock()
	r.stats.Commands++
	r.recordLocked(Event{Kind: KindCommand, Proc: p.s.id, Node: node, Incarnation: p.inc, Req: id, Args: args,
		Reply: reply, Sent: sent, Key: key}, p.inc)
	r.mu.Unlock()
	p.alive()
	if lostReply {
		return timeout("timeout: reply lost")
	}
	if replyAt := r.now() + Time(repLat); deadline > 0 && replyAt > deadline {
		return timeout("timeout: reply too slow")
	}
	p.wait(r.now() + Time(repLat))
	var rerr error
	if reply.Kind == nodeError {
		rerr = &RedisError{Msg: reply.Str}
	}
	res.Reply = reply
	p.record(res)
	p.triggerCmd(PointReply, args[0])
	p.unpaused()
	return reply, rerr
}

// exec sends args on this incarnation's connection to node, dialling it
// first if needed.
func (p *rtProc) exec(node int, args []string) (Reply, KeyState, error) {
	c := p.conns[node]
	if c == nil {
		var err error
		if c, err = p.r.wire.Dial(node); err != nil {
			return Reply{}, KeyState{}, err
		}
		p.lock()
		if p.r.ended {
			p.r.mu.Unlock()
			c.Close()
			return Reply{}, KeyState{}, errConnClosed
		}
		p.r.conns = append(p.r.conns, c)
		p.r.mu.Unlock()
		p.conns[node] = c
	}
	return c.Exec(args, p.r.cfg.WatchKey)
}
