package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim/node"
)

// Result is what a run produced.
type Result struct {
	History History
	Stats   Stats
	End     Time   // true time at which the run ended
	Cut     string // why the run stopped before its processes finished, if it did
	// Faults is, for each fault of Config.Faults by index, what it did
	// (faultuse.go). Nil for a run with no fault plan, and for a run of
	// realtime/engine, which classes neither its faults nor its network.
	Faults []FaultUse
	// LossyNetwork says the network could lose a command or time it out
	// (Network.LossRequest, LossReply, or a Timeout below the slowest round
	// trip); Unanswered counts the commands whose reply never reached
	// their client in time (lost, too slow, dropped by a node that was
	// down, lost in a failover), whether the client timed out or waits for
	// ever. Vacuous reads both.
	LossyNetwork bool
	Unanswered   int
	// LastClockRead is, for each process, how many of its own trigger
	// points (sends, replies, acquired and released, its watchdog's too)
	// had come when it last read its clock (Proc.Now, by it or its
	// watchdog); -1: it never did. Nothing but Proc.Now reads a process's
	// clock (Sleep runs on true time), so a clock jump of the process at a
	// later point of its own changes nothing of the run but its own fault
	// event (prove/jumps.go).
	LastClockRead []int
	// HistoryKey is, for a run with Config.OnState set, a 128-bit hash of
	// its whole history, its clients, nodes and watched key included: equal
	// keys are equal histories, as equal digests are, but it is summed event
	// by event as the run records them (StateKeys.History), where Digest
	// reads the history again. Unknown without OnState.
	HistoryKey StateKey
	// spareEvents and spareBytes are what the history could still have
	// held when the run ended (Room).
	spareEvents, spareBytes int
	mem                     *memory  // what Release gives back; nil once released
	_                       struct{} // grows: callers name the fields they set
}

// Release gives the run's memory (its history's events, the argument lists
// they hold, its requests) back to the engine for a later run to reuse. A
// search that judges a run and keeps nothing of it calls it; nothing of the
// result, its history above all, may be read afterwards, nor any copy of
// its events (a verdict's witness): their argument lists are reused.
// Calling it again, or on a result of realtime/engine, does nothing.
func (r *Result) Release() {
	if r == nil || r.mem == nil {
		return
	}
	r.mem.release(r.History.Events)
	r.mem, r.History.Events = nil, nil
}

// Stats counts what happened in a run.
type Stats struct {
	Acquired int `json:"acquired"`
	Failed   int `json:"failed"`
	Commands int `json:"commands"`
}

// count counts one acquire that returned: held, or not.
func (s *Stats) count(acquired bool) {
	if acquired {
		s.Acquired++
	} else {
		s.Failed++
	}
}

// request is one command in flight.
type request struct {
	id        uint64
	proc, inc int
	node      int
	args      []string
	sent      Time
	deadline  Time   // 0: the client waits for ever
	dropped   bool   // the node was down when it arrived
	ran       bool   // it ran on its node
	gen       int32  // the node's failover generation when it ran
	block     Time   // WAIT: how long the reply waits after it ran; -1: for ever
	why       string // why the client times out; "" while a reply is due
	reply     Reply
	more      []Reply // a library's pub/sub command: the frames after reply (pubsubconn.go)
	// A blocking pop (blocking.go): parked on its node since arrived; the
	// reply takes replyLat to come back; waiting: the client's reply time
	// has come and it waits for the pop; answered: delivered, later
	// events for it are stale.
	parked, waiting, answered bool
	arrived, replyLat         Time
	lib                       LibConn // a client library's connection (libhost.go)
	ref                       reqRef  // its name in the scheduler's queue
	argBytes                  int     // what args count in the history; 0: not yet reckoned (countArgs)
	argSum                    argsSum // args summed for the state keys
}

type simNode struct {
	n         *node.Node
	clock     clock
	downUntil Time
	g         *group         // replicas, if any (replication.go)
	parked    []*request     // blocking pops and SUBWAITs waiting on this node, oldest first
	subs      []subscription // library connections' subscriptions, oldest first (pubsubconn.go)
	// served counts the client commands that reached the node (run, or
	// dropped while it was down) and the replies a failover lost: what a
	// fault on the node could have touched (faultuse.go).
	served uint64
}

type runner struct {
	cfg   *Config
	now   Time
	q     queue
	procs []*process
	nodes []simNode
	hist  recorder
	mem   *memory // history buffer, requests and argument lists (arena.go)
	stats Stats
	reqID uint64
	live  int // processes alive or waiting to restart
	maxEv int
	cut   string // set: the run stops (loop)
	// replayed counts the commands node restarts replayed (MaxReplayed).
	replayed int
	// unanswered counts the commands whose reply did not come in time
	// (Result.Unanswered).
	unanswered int
	limit      Time
	triggers
	resource resource
	past     past // what the state keys keep of the history (statehash.go)
	// uses classes the planned faults (faultuse.go); firing is the fault
	// being applied, for a kind that leaves work for later (a planned loss).
	uses   faultUses
	firing int
	// points counts the trigger points told to Config.OnPoint so far
	// (Result.LastClockRead).
	points int
	// bub is the run's client libraries (libhost.go, package sim/bubble);
	// nil until one joins.
	bub Libraries
	// backend is a process backend's state for the run (Host.SetBackend,
	// package sim/foreign), atEnd what it does once the run is over.
	backend any
	atEnd   func()
	// waking counts the coroutines woken while running (resume) that have
	// not yet gone on: each one above them yields until none is (runOwn).
	waking int
	// messages are the SUBWAITs the command running reached with a
	// PUBLISH, answered once it has run (pubsub.go).
	messages []*request
	// closing are the library connections a PUBLISH found unsubscribed by
	// a restart, failover or crash, closed once it has run.
	closing []LibConn
}

// Run executes one simulation. It returns an error only for a configuration
// that cannot run; everything that happens in the run is in the history.
func Run(cfg Config) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	// The run owns its fault plan: trigger command names are compared upper
	// case, and the caller's slice is left alone.
	cfg.Faults = append([]Fault(nil), cfg.Faults...)
	for i := range cfg.Faults {
		cfg.Faults[i].On.Cmd = upper(cfg.Faults[i].On.Cmd)
	}
	r := &runner{cfg: &cfg, limit: Time(cfg.Duration), maxEv: cfg.MaxEvents}
	if r.maxEv == 0 {
		r.maxEv = DefaultMaxEvents
	}
	r.nodes = make([]simNode, len(cfg.Nodes))
	for i, ns := range cfg.Nodes {
		r.nodes[i] = simNode{n: takeNode(int64(mix(cfg.Seed, uint64(i)+1<<32))), clock: clock{spec: ns.Clock}}
		if ns.Persistence != PersistNone {
			r.nodes[i].n.SetPersistence(ns.Persistence)
		}
		r.nodes[i].n.Watch(cfg.WatchKey)
	}
	r.setupReplication()
	r.publishing()
	r.mem = takeMemory(historyEstimate(&cfg, r.maxEv))
	r.hist.cur, r.q.items = r.mem.events, r.mem.queue
	defer func() {
		for _, n := range r.nodes {
			n.n.Publish = nil // the node outlives the run in the pool
			nodePool.Put(n.n)
		}
		r.releaseReplication()
	}()
	r.procs = make([]*process, len(cfg.Procs))
	procs := make([]process, len(cfg.Procs)) // one allocation, not one each
	for i := range cfg.Procs {
		spec := &cfg.Procs[i]
		p := &procs[i]
		*p = process{r: r, id: i, spec: spec, clock: clock{spec: spec.Clock}}
		// Each process has its own network stream: removing one client (as
		// shrinking does) leaves the others' latencies and losses as they were.
		p.netSrc.Seed(mix(cfg.Seed^0x6e6574, uint64(i)+1), 0) // 0x6e6574: "net"
		p.net = rand.New(&p.netSrc)
		r.procs[i] = p
		r.q.push(event{at: Time(spec.Start), kind: evStart, proc: int32(i)})
		r.live++
	}
	if n := len(cfg.Faults); n > 0 {
		r.uses = faultUses{use: make([]FaultUse, n), mark: make([]uint64, n)}
	}
	var timed []int
	r.triggers, timed = newTriggers(&cfg)
	for _, i := range timed {
		r.q.push(event{at: Time(cfg.Faults[i].At), kind: evFault, fault: int32(i)})
	}
	r.loop()
	r.mem.queue = r.q.items[:0] // for the next run (Result.Release)
	for _, p := range r.procs {
		p.kill() // unwinds the goroutine: none outlives the run
	}
	if r.atEnd != nil {
		r.atEnd() // a process backend's workers end with the run
	}
	res := cfg.result(r.hist.events(), r.stats, r.now, r.cut)
	res.mem = r.mem
	res.Faults = r.faultUses()
	res.LossyNetwork, res.Unanswered = cfg.Network.lossy(), r.unanswered
	res.LastClockRead = make([]int, len(r.procs))
	for i, p := range r.procs {
		res.LastClockRead[i] = p.readAt - 1
	}
	res.spareEvents, res.spareBytes = r.maxEv-r.hist.n, MaxHistoryBytes-r.hist.size
	if cfg.OnState != nil {
		res.HistoryKey = r.historyKey(&res.History)
	}
	return res, nil
}

// Room says whether the history had room, when the run ended, for n more
// events that carry no strings (a clock jump's fault event) before a cap
// (Config.MaxEvents, MaxHistoryBytes) would have cut the run.
func (r *Result) Room(n int) bool {
	return r.spareEvents > n && r.spareBytes > n*eventSize
}

// historyEstimate sizes the first chunk of history so that a run with little
// contention fits in it: a round is a dozen events or so (invoke, return,
// read, write, release, commands with their results), retries add more.
func historyEstimate(cfg *Config, maxEvents int) int {
	n := 0
	for _, p := range cfg.Procs {
		n += 4 + 16*p.Iterations
	}
	return max(min(n, maxEvents, 1<<16), 64)
}

// recorder appends events in chunks and joins them once at the end: a
// growing slice would copy and clear the history about twice over.
type recorder struct {
	full [][]Event
	cur  []Event
	n    int
	size int // eventBytes so far, against MaxHistoryBytes
}

// add copies *e into the history (by pointer: an Event is 224 bytes, and a
// run records hundreds).
func (r *recorder) add(e *Event) {
	s := r.slot()
	*s = *e
	r.counted(s, argsBytes(e.Args))
}

// slot is where the next event goes, as its last use left it: the caller
// sets it whole, then counts it (counted). An event set in its slot is not
// copied there (224 bytes).
func (r *recorder) slot() *Event {
	if len(r.cur) == cap(r.cur) {
		r.full = append(r.full, r.cur)
		r.cur = make([]Event, 0, min(max(r.n, 64), 1<<16))
	}
	i := len(r.cur)
	r.cur = r.cur[:i+1]
	return &r.cur[i]
}

// counted counts e, set in the last slot, whose argument list counts args
// bytes.
func (r *recorder) counted(e *Event, args int) {
	r.n++
	r.size += fixedBytes(e) + args
}

// atLimit says whether the history has reached a run's bounds: maxEv events
// or MaxHistoryBytes. Both engines stop there.
func (r *recorder) atLimit(maxEv int) bool { return r.n >= maxEv || r.size >= MaxHistoryBytes }

// cut is why a history at its limit stopped its run.
func (r *recorder) cut(maxEv int) string {
	if r.n >= maxEv {
		return fmt.Sprintf("event limit %d reached", maxEv)
	}
	return fmt.Sprintf("history size limit %d MiB reached", MaxHistoryBytes>>20)
}

func (r *recorder) events() []Event {
	if len(r.full) == 0 {
		return r.cur
	}
	out := make([]Event, 0, r.n)
	for i, c := range r.full {
		out = append(out, c...)
		r.full[i] = nil // the collector may take it back while the rest is copied
	}
	return append(out, r.cur...)
}

// nodePool keeps nodes between runs: building one costs more than a short
// run. A taken node is Reset, which makes it indistinguishable from a new one
// (TestPooledNodesAreFresh).
var nodePool sync.Pool

// freshNodes turns the node and memory pools off, for the tests that compare
// runs with and without them.
var freshNodes = false

func takeNode(seed int64) *node.Node {
	if n, ok := nodePool.Get().(*node.Node); ok && !freshNodes {
		n.Reset(seed)
		return n
	}
	return node.New(seed)
}

func (r *runner) loop() {
	for r.q.len() > 0 && r.live > 0 {
		if !r.step() {
			return
		}
		if r.bub != nil {
			r.bub.Loop() // a client library joined: time is the bubble's
			return
		}
	}
}

// step runs the next event, unless a bound ends the run first: the
// duration (nothing left to run before it counts as reaching it too), the
// event cap, or one met inside the event (MaxReplayed). false: the run is
// over, and r.cut says why.
func (r *runner) step() bool {
	if r.q.len() == 0 || r.q.peek().at > r.limit {
		r.now = r.limit
		r.cut = fmt.Sprintf("duration limit %s reached", time.Duration(r.limit))
		return false
	}
	if r.hist.atLimit(r.maxEv) {
		r.cut = r.hist.cut(r.maxEv)
		return false
	}
	e := r.q.pop()
	r.now = e.at
	r.dispatch(&e)
	return r.cut == ""
}

func (r *runner) dispatch(e *event) {
	switch e.kind {
	case evFault:
		r.fire(int(e.fault))
		return
	case evArrive:
		r.arrive(r.mem.req(e.req))
		return
	case evUnblock:
		r.popTimedOut(r.mem.req(e.req))
		return
	case evReplicate:
		r.applyEntry(int(e.proc), int(e.fault), e.inc)
		return
	case evLibrary:
		return // the library backend's loop does the work (libhost.go)
	case evAwait:
		r.awoken(e)
		return
	}
	p := r.procs[e.proc]
	if e.kind == evStart {
		r.startProc(p)
		return
	}
	if e.sub {
		if p = p.dog; p == nil {
			return // a watchdog that was stopped
		}
	}
	if int(e.inc) != p.inc || !p.live {
		return // an event of a process incarnation that crashed
	}
	switch e.kind {
	case evBegin:
		r.begin(p)
	case evResume:
		r.resume(p)
	case evReply:
		r.deliver(p, r.mem.req(e.req))
	}
}

func (r *runner) startProc(p *process) {
	if p.live {
		return // one coroutine per process, whatever the fault plan says
	}
	if p.inc > 0 {
		r.record(Event{Kind: KindFault, Fault: fault.Respawn, Proc: p.id, Node: -1})
	}
	p.rngSrc = rand.NewPCG(mix(r.cfg.Seed, uint64(p.id)+1), uint64(p.inc))
	p.rng = rand.New(p.rngSrc)
	p.obs = stateSum{}.num(int64(p.inc)) // its observations start again (statehash.go)
	p.obsStart, p.readClock = r.now, false
	p.start()
	r.resume(p)
}

// resume runs the process until its next yield, unless it is paused.
func (r *runner) resume(p *process) {
	if until := p.stoppedUntil(); until > r.now {
		r.pauseDeferred(p)
		r.q.push(p.ev(until, evResume))
		return
	}
	if p.running {
		// p runs the events itself (runOwn), or another coroutine does on
		// top of it: p goes on once control is back with it.
		p.woken = true
		r.waking++
		return
	}
	p.running = true
	_, ok := p.next()
	p.running = false
	if !ok {
		p.live = false
		if p.owner != nil {
			return // a watchdog's end is not its process's
		}
		if p.dog != nil {
			p.dog.kill() // a watchdog never outlives its process's coroutine
			p.dog = nil
		}
		if p.crashPending {
			p.inc++
		} else {
			p.ended = true
			r.live--
		}
		return
	}
	if p.begun {
		p.begun = false
		return // the coroutine began its effect itself (suspend)
	}
	if p.want == effCommand {
		r.trigger(PointSend, p, p.args[0])
		if !p.live {
			return
		}
	}
	r.begin(p)
}

// begin starts the effect the process yielded for, once any pause is over.
func (r *runner) begin(p *process) {
	if until := p.stoppedUntil(); until > r.now {
		r.pauseDeferred(p)
		r.q.push(p.ev(until, evBegin))
		return
	}
	switch p.want {
	case effSleep:
		r.q.push(p.ev(r.now+Time(p.sleep), evResume))
	case effCommand:
		r.send(p)
	case effRead:
		r.read(p)
		r.resume(p)
	case effWrite:
		r.write(p)
		r.resume(p)
	}
}

// read is a critical section's read of the resource, now.
func (r *runner) read(p *process) {
	p.readVal = r.resource.value
	if r.cfg.OnState != nil {
		p.obs = p.obs.num(p.readVal)
	}
	r.record(Event{Kind: KindResourceRead, Proc: p.id, Node: -1, Value: p.readVal})
}

// write is a critical section's write of p.value with p.fence, now.
func (r *runner) write(p *process) {
	accepted := r.resource.write(p.value, p.fence)
	r.record(Event{Kind: KindResourceWrite, Proc: p.id, Node: -1, Value: p.value, Fence: p.fence, Accepted: accepted})
}

// inlines says whether the running coroutine p may do the scheduler's work
// on its own yield (suspend): it is a main coroutine (a watchdog's events go
// through its process), no client library shares the run's time
// (package sim/bubble), and none of p's trigger points can fire a fault or call
// OnPoint or OnState (a fault may stop other coroutines, which only the
// scheduler does; a state key is taken at each point).
func (r *runner) inlines(p *process) bool {
	if inlineOff || p.owner != nil || p.want == effLibrary || r.bub != nil || r.cfg.OnPoint != nil || r.cfg.OnState != nil {
		return false
	}
	return r.allFired(p.id)
}

// allFired says whether every trigger fault watching process id has fired:
// its points can fire nothing more.
func (r *runner) allFired(id int) bool {
	for _, i := range r.byProc[id] {
		if !r.fired[i] {
			return false
		}
	}
	return true
}

// runOwn runs the loop's next events in the running coroutine p, exactly as
// step would: commands arriving at their nodes (which resume no one), p's
// own events, and the resumptions, replies and pending effects of the other
// main coroutines none of whose trigger points can fire, which it resumes
// itself, on top of it (resume): true once an event resumes p (resume then
// only marks it woken). A coroutine resumed so runs its own events the same
// way; once one lower down is woken, each above it yields (waking) until
// control is back with it, so that it goes on before any later event, as
// under the scheduler. Any other event, or a bound of the run, is left to
// the scheduler: false, and p yields. Each event run in place saves two of
// the scheduler's coroutine switches: p's yield and its resumption.
func (r *runner) runOwn(p *process) bool {
	for !p.woken {
		if r.waking > 0 || r.cut != "" || r.q.len() == 0 || r.bub != nil {
			return false
		}
		e := r.q.peek()
		if e.at > r.limit || r.hist.atLimit(r.maxEv) || !r.inPlace(e) {
			return false
		}
		next := r.q.pop()
		r.now = next.at
		r.dispatch(&next)
		if ranOwn != nil {
			ranOwn(next.kind != evArrive && next.proc != int32(p.id))
		}
	}
	p.woken = false
	r.waking--
	return true
}

// inPlace says whether a coroutine may run event e in place (runOwn): a
// command's arrival, or a main coroutine's resumption, reply or pending
// effect when none of that process's trigger points can fire a fault (a
// fault may stop coroutines, which only the scheduler does). A process's
// start, a watchdog's event, a fault and the rest are the scheduler's.
func (r *runner) inPlace(e *event) bool {
	switch e.kind {
	case evArrive:
		return true
	case evResume, evReply, evBegin:
		return !e.sub && r.allFired(int(e.proc))
	}
	return false
}

// ranOwn, set by tests, is told of every event a coroutine runs itself;
// other: the event was another coroutine's, which it resumed on top of it.
var ranOwn func(other bool)

func (r *runner) record(e Event) {
	s := r.hist.slot()
	*s = e
	r.recordSlot(s, argsBytes(e.Args))
}

// recordSlot records e, set in the history's last slot (recorder.slot),
// whose argument list counts args bytes.
func (r *runner) recordSlot(e *Event, args int) { r.recordFor(e, args, nil) }

// recordFor is recordSlot of an event of request q (nil: none), whose
// argument list the state keys then sum once for all its events.
func (r *runner) recordFor(e *Event, args int, q *request) {
	e.At = r.now
	if e.Proc >= 0 && e.Kind != KindCommand {
		e.Incarnation = r.procs[e.Proc].inc
	}
	if r.cfg.OnState != nil {
		r.note(e, q)
	}
	r.hist.counted(e, args)
}

func mix(a, b uint64) uint64 {
	// splitmix64 of a combined with b: independent streams per purpose.
	z := a ^ (b * 0x9e3779b97f4a7c15)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func upper(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' {
			return strings.ToUpper(s)
		}
	}
	return s
}

// result is what a run of cfg returns, from either engine.
func (cfg *Config) result(events []Event, stats Stats, end Time, cut string) *Result {
	names := make([]string, len(cfg.Procs))
	for i, p := range cfg.Procs {
		names[i] = p.Name
	}
	return &Result{
		History: History{Events: events, Procs: names, Nodes: len(cfg.Nodes), WatchKey: cfg.WatchKey, Replicas: cfg.lanes()},
		Stats:   stats,
		End:     end,
		Cut:     cut,
	}
}

// resource is what the lock protects, in either engine: a counter that, with
// fencing, refuses a fencing number lower than the highest it has seen.
type resource struct{ value, maxFence int64 }

// write stores v unless fence (0: none) is below the highest seen; it says
// whether it did.
func (res *resource) write(v, fence int64) (accepted bool) {
	if fence != 0 && fence < res.maxFence {
		return false
	}
	res.value = v
	res.maxFence = max(res.maxFence, fence)
	return true
}
