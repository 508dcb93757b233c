// Package prove enumerates every schedule of a bounded space of fault
// schedules, on the real algorithm code, and says either that none breaks
// the lock ("proved within bounds") or which one does first.
//
// The space. N clients run R rounds each on a fixed network (1 ms each way
// unless Options.Latency says otherwise, no loss), so without faults a run
// has exactly one schedule. What a space holds fixed (the work, the
// latency, the TTL...) is its Parameters, part of every result. A choice
// point is a process's send of a command, the arrival of a reply at it, or
// its Acquire returning held (the engine's trigger points,
// sim.Config.OnPoint). At every choice point one choice of a small menu
// (menu.go) may be made, at most one per point: a fault, at most K in a
// schedule, or a delay that reorders events, at most D. Every choice is an
// ordinary scenario fault triggered on that event ("c2's 3rd reply"), so a
// schedule is a scenario and its counterexample replays with `simrun run`.
//
// The enumeration is stateless: each schedule is run from the start. A
// schedule is extended only at choice points after its last choice fired,
// so each set of choices is run once. Schedules are taken level by level
// (0 choices, then 1, then 2...), each level in canonical order (by the
// position of each choice in its parent's run, then menu order): the first
// schedule of each verdict met has the fewest choices and is the first of
// those in that order, whatever the number of workers or shards.
//
// Pruning. At each choice point of a run the engine can hash the state the
// rest of the run depends on (sim.Config.OnState): a point whose key an
// earlier schedule was extended from, with no smaller budget, no later a
// time and no more events, is not extended again (its futures are those
// ones, shifted no later). The key is paired with the past the checkers
// read (Options.Reduce): the whole history (sound by construction), or a
// summary of the lock's story (tested against the full space, not proved).
// Off, only identical whole runs are pruned. See docs/prove.md.
//
// Clock jumps (Options.Jumps, opt-in): a schedule with a client's clock
// jump that the run without it shows nobody read is judged at that run's
// verdict without running (jumps.go).
//
// Two answers. Each schedule's scenario is classified by the lock's
// assumptions (scenarios.(*Scenario).InsideTTL): inside, a violation is a
// bug in the lock; outside, it is the known limit. The enumeration stops
// only at the first inside unsafe schedule; once an outside one is unsafe,
// the outside answer is settled and later outside schedules are not run.
package prove

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
	"github.com/locksim/locksim/shrink"
	"github.com/locksim/locksim/sim"
)

// Options say which space to enumerate.
type Options struct {
	Algorithm string          // a registered algorithm, or "" with Lock
	Lock      locks.Algorithm // an algorithm file's lock, when Algorithm is ""
	Clients   int             // default 2
	Rounds    int             // default 2
	Classes   []string        // menu classes (ParseClasses); empty: all
	MaxFaults int             // K: faults in one schedule, at most
	// MaxDelays bounds the interleaving choices (delays, menu.go) in one
	// schedule, apart from MaxFaults.
	MaxDelays int
	Workers   int // 0: one per core
	// Shard splits the space by the first fault: shard i of n extends the
	// one-fault schedules whose index is i mod n (every shard runs the
	// fault-free schedule).
	Shard search.Shard
	// Reduce says which state pruning to use (ReduceOff: identical whole
	// runs only, as before state keys).
	Reduce Reduction
	// Delays says where delays are offered (DelaysAll: at every point).
	Delays Delays
	// Jumps says whether a schedule with a clock jump nothing reads takes
	// the verdict of the schedule without it, unrun (JumpsUnread,
	// jumps.go).
	Jumps Jumps
	// Work, Latency and TTL set what every schedule holds fixed
	// (Parameters); zero keeps prove's own: work TTL/10, or the lock's
	// retry sleep if shorter (TTL + TTL/10 under watchdog-pause); 1 ms
	// each way; the lock's own TTL.
	Work, Latency, TTL time.Duration
	// Progress, if set, is called about ten times a second from another
	// goroutine while the enumeration runs.
	Progress func(Progress)
	_        struct{} // grows: callers name the fields they set
}

// Reduction is how prove prunes by state: which past a choice point's key
// holds besides the engine's state (sim.StateKeys).
type Reduction uint8

const (
	// ReduceHistory keys a choice point by the engine's state and the
	// whole history so far: sound by construction, since equal keys mean
	// equal histories so far and equal futures.
	ReduceHistory Reduction = iota
	// ReduceSummary keys it by the engine's state, the history's summary
	// (sim.StateKeys.Summary) and the verdict of the run it was met in.
	ReduceSummary
	// ReduceOff prunes identical whole runs only.
	ReduceOff
)

var reductionNames = [...]string{ReduceHistory: "history", ReduceSummary: "summary", ReduceOff: "off"}

func (r Reduction) String() string { return reductionNames[r] }

// ParseReduction reads a --reduce word.
func ParseReduction(s string) (Reduction, error) { return parseWord[Reduction](reductionNames[:], s) }

// parseWord reads a flag's word as the index of its name.
func parseWord[T ~uint8](names []string, s string) (T, error) {
	for i, n := range names {
		if n == s {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("%q is not one of %s", s, strings.Join(names, ", "))
}

// Progress is what a terminal shows while prove runs.
type Progress struct {
	Explored, Pruned int64
	Depth            int // choices (faults and delays) in the schedules of the pass running
	Elapsed          time.Duration
}

// Step is one fault of a schedule: what happened to which client where.
type Step struct {
	Client string `json:"client"`
	Point  string `json:"point"` // send or reply
	N      int    `json:"n"`     // the client's Nth such point
	Choice string `json:"choice"`
}

func (s Step) String() string {
	return fmt.Sprintf("%s at %s's %s #%d", s.Choice, s.Client, s.Point, s.N)
}

// Found is the first failing schedule of one verdict: the fewest choices,
// then the first in canonical order.
type Found struct {
	Verdict  string
	Schedule []Step
	Path     []int // canonical position: the child index taken at each level
	Scenario *scenarios.Scenario
	// Outside is the assumption the schedule breaks; "": it is inside.
	Outside string
}

// Result is a whole enumeration.
type Result struct {
	Algorithm  string
	Clients    int
	Rounds     int
	Classes    []string
	MaxFaults  int
	MaxDelays  int
	Reduce     Reduction
	Delays     Delays
	Jumps      Jumps
	Shard      search.Shard
	TTL        time.Duration // the lock's lifetime, which the menu scales to
	Params     Parameters    // what every schedule holds fixed
	Menu       []MenuChoice  // the choices offered, sized
	Explored   int64         // schedules run (with JumpsUnread, judged: Unrun of them unrun)
	Pruned     int64         // schedules not run: their parent's run had been extended already
	Incomplete int64         // schedules cut at a cap: nothing can be said of them
	// Unrun counts, with JumpsUnread, the schedules explored (judged)
	// without a run of their own: a clock jump nobody read, at the verdict
	// of the schedule without it (jumps.go); JumpsRan, those whose last
	// choice is a clock jump that had to run.
	Unrun, JumpsRan int64
	Depth           int // the last pass finished: every schedule of at most Depth choices ran (-1: none; with Found, its pass)
	Elapsed         time.Duration
	// Found is the worst verdict met, at its first schedule; nil: none
	// within the bounds.
	Found *Found
	// Met is the first schedule of every failing verdict met, worst first
	// (Found's among them), on both sides together (MetOf). The
	// enumeration goes on past every verdict but an inside unsafe one,
	// extending failing schedules too, so a lesser verdict early never
	// hides a worse one later.
	Met []Found
	// Inside and Outside answer each side of the lock's assumptions.
	Inside, Outside Answer
	// NeverInside lists the menu's classes no inside schedule held.
	NeverInside []NeverInside
	// BaseOutside is the assumption even the fault-free schedule breaks
	// (work past the TTL, say); "": it is inside.
	BaseOutside string
	// Interrupted: the context ended before the space was done.
	Interrupted bool
}

// Proved says whether every schedule within the bounds ran, and none failed.
func (r *Result) Proved() bool {
	return r.Found == nil && r.Incomplete == 0 && !r.Interrupted
}

// Prover enumerates one space.
type Prover struct {
	opts     Options
	algo     locks.Algorithm
	menu     []choice
	ttl      time.Duration // what the menu scales to
	sizes    sizes
	params   Parameters
	base     *scenarios.Scenario
	names    []string
	classify classifier
	// onUnrun, set by a test, is told of every schedule taken unrun
	// (jumps.go), in canonical order, as it is judged.
	onUnrun func(steps []Step, jump int, verdict string)
	// waitEach, set by a test, has the walk wait for the verdicts of the
	// schedules it hands over where it hands them over (pool.go).
	waitEach bool
}

// New checks the options.
func New(o Options) (*Prover, error) {
	if o.Clients == 0 {
		o.Clients = 2
	}
	if o.Rounds == 0 {
		o.Rounds = 2
	}
	for _, c := range []struct {
		field string
		err   error
	}{
		{"clients", CheckClients(o.Clients)},
		{"rounds", CheckRounds(o.Rounds)},
		{"max-faults", CheckMaxFaults(o.MaxFaults)},
		{"max-delays", CheckMaxDelays(o.MaxDelays)},
		{"work", CheckWork(o.Work)},
		{"latency", CheckLatency(o.Latency)},
	} {
		if c.err != nil {
			return nil, fmt.Errorf("%s: %w", c.field, c.err)
		}
	}
	if o.Shard.Count == 0 {
		o.Shard = search.Shard{Index: 0, Count: 1}
	}
	if err := o.Shard.Check(); err != nil {
		return nil, fmt.Errorf("shard: %s: %w", o.Shard, err)
	}
	if len(o.Classes) == 0 {
		o.Classes = allClasses
	}
	p := &Prover{opts: o}
	if o.Algorithm != "" {
		a, err := locks.Lookup(o.Algorithm)
		if err != nil {
			return nil, fmt.Errorf("algo: %w", err)
		}
		p.algo = a
	} else {
		if o.Lock.Name == "" {
			return nil, errors.New("algo: no algorithm given")
		}
		p.algo = o.Lock
	}
	nodes := p.algo.NodesNeeded(locks.Params{})
	if nodes < 2 && slices.ContainsFunc(o.Classes, isNodeClass) {
		// A single node's restart or clock jump loses any lock: not a
		// bound worth proving. Dropped from a longer list (all), refused
		// when only they are given, so that no proof claims a class it
		// never tried.
		rest := slices.DeleteFunc(slices.Clone(o.Classes), isNodeClass)
		if len(rest) == 0 {
			return nil, fmt.Errorf("faults: %s is for a lock on several nodes; %s uses one", strings.Join(o.Classes, ","), p.algo.Name)
		}
		o.Classes = rest
		p.opts.Classes = o.Classes
	}
	params := p.algo.With(locks.Params{})
	watchdog := runsWatchdog(p.algo, params)
	if slices.Contains(o.Classes, ClassDogPause) && !watchdog {
		return nil, fmt.Errorf("faults: %s is for a lock whose library runs a watchdog; %s has none", ClassDogPause, p.algo.Name)
	}
	if err := CheckTTL(p.algo, o.TTL); err != nil {
		return nil, fmt.Errorf("ttl: %w", err)
	}
	var lp locks.Params
	if o.TTL != p.algo.With(locks.Params{}).TTL {
		lp.TTL = o.TTL // the lock's own TTL written out is no override
	}
	params = p.algo.With(lp)
	p.ttl = p.algo.Lifetime(lp)
	if p.ttl <= 0 {
		p.ttl = noTTL
	}
	// Work and think stay well inside the TTL (it is the faults that break
	// locks); work as long as one retry sleep keeps the waiters' retry
	// loops, and so the number of choice points, short.
	work := p.ttl / 10
	if params.RetrySleep > 0 {
		work = min(work, params.RetrySleep)
	}
	if slices.Contains(o.Classes, ClassDogPause) {
		work = holdPastTTL(p.ttl)
	}
	if o.Work > 0 {
		work = o.Work
	}
	latency := defaultLatency
	if o.Latency > 0 {
		latency = o.Latency
	}
	rounds := time.Duration(o.Clients * o.Rounds)
	s := &scenarios.Scenario{
		Name:      fmt.Sprintf("prove-%s-%dx%d", p.algo.Name, o.Clients, o.Rounds),
		Algorithm: o.Algorithm,
		Seed:      1,
		Params:    scenarios.Params{TTL: scenarios.Duration(lp.TTL)},
		// Long enough for every round after the longest pause and a lock
		// left to expire, for every client in turn, and for work past the
		// TTL and a slower network.
		Duration: scenarios.Duration(p.ttl*(4+2*rounds) + time.Minute +
			rounds*(max(work-p.ttl, 0)+20*(latency-defaultLatency))),
		Network: scenarios.Network{
			Request: scenarios.Latency{Min: scenarios.Duration(latency), Max: scenarios.Duration(latency)},
			Reply:   scenarios.Latency{Min: scenarios.Duration(latency), Max: scenarios.Duration(latency)},
		},
	}
	for i := range o.Clients {
		name := fmt.Sprintf("c%d", i+1)
		p.names = append(p.names, name)
		s.Clients = append(s.Clients, scenarios.Client{Name: name, Iterations: o.Rounds, Work: scenarios.Duration(work)})
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	p.base = s
	p.classify = classifierFor(p.algo)
	p.sizes = sizes{ttl: p.ttl, k: o.MaxFaults, latency: latency}
	p.sizes.short, p.sizes.shortName = p.shortPause(p.sizes, o.MaxDelays)
	p.menu = menuOf(o.Classes, o.MaxDelays, nodes, p.sizes)
	p.params = Parameters{TTL: params.TTL, Lifetime: p.ttl, Work: work, Latency: latency, LossTimeout: p.sizes.lossTimeout(),
		Key: params.Key, Retries: params.Retries, RetrySleep: params.RetrySleep, Nodes: nodes, Seed: s.Seed, Duration: s.Duration.D()}
	return p, nil
}

// The bounds New refuses past, one check each, so that a command checks
// its flags with them and names the flag (as search.ValidateRuns).
func CheckClients(n int) error   { return within(n, 1, 64) }
func CheckRounds(n int) error    { return within(n, 1, 100) }
func CheckMaxFaults(n int) error { return within(n, 0, 8) }
func CheckMaxDelays(n int) error { return within(n, 0, 8) }

func within(n, lo, hi int) error {
	if n < lo || n > hi {
		return fmt.Errorf("%d is not within %d to %d", n, lo, hi)
	}
	return nil
}

// node is one schedule: its faults, and once run, what extends it.
type node struct {
	steps  []Step
	faults []scenarios.Fault
	path   []int
	start  int // first choice point an extension may use
	// stateFrom is the engine's number (point.seq) of that point, at
	// least: no state key is needed before it (sim.Config.StateFrom).
	stateFrom int
	faultN    int // faults among steps (the rest are delays)
	// ords are, step by step, the step's point's number among its
	// client's own points (point.own) in the run it was chosen in.
	ords []int
	// outside is the assumption the schedule breaks; "": inside.
	outside string
	// inherit is, with JumpsUnread, the verdict of the schedule without
	// a clock jump nothing read (unreadJump, withoutJump): where judged,
	// the schedule takes it unrun; unrun says it did.
	inherit string
	unrun   bool
	jump    int // the step of the jump it was taken unrun for (onUnrun)
	// After the run:
	points  []point
	verdict string
	key     [32]byte // the run's history and points (run): equal runs, equal keys
	// reads is what jumps.go reads of the run (noteReads), or of the run
	// it was taken from; nil when that run cannot stand for another.
	reads []int
}

// point is one choice point of a run.
type point struct {
	proc int
	at   sim.Point
	n    int
	seq  int       // the run's OnPoint calls so far, this one included (sim.Config.StateFrom)
	own  int       // its process's own OnPoint calls so far, this one included (sim.Result.LastClockRead)
	key  [4]uint64 // the state key there (Options.Reduce); zero: none
	// When it came, and how many events the history held then.
	now    sim.Time
	events int
	// Where delays are offered (races.go): the shortest delay that
	// reorders something there, and there or later in its process (noRace:
	// none); its process's point before it (-1: none).
	need, ahead time.Duration
	prev        int
}

// scenario is the schedule's scenario: the base workload and its faults.
func (p *Prover) scenario(n *node) *scenarios.Scenario {
	s := p.base.Clone()
	s.Faults = append([]scenarios.Fault(nil), n.faults...)
	return s
}

// Scenario returns the schedule with these steps as a scenario.
func (p *Prover) Scenario(steps []Step) (*scenarios.Scenario, error) {
	n := &node{}
	for _, st := range steps {
		c := p.choiceNamed(st.Choice)
		if c == nil {
			return nil, fmt.Errorf("no choice %q in the menu", st.Choice)
		}
		n.faults = append(n.faults, p.fault(c, st))
	}
	return p.scenario(n), nil
}

func (p *Prover) choiceNamed(name string) *choice {
	for i := range p.menu {
		if p.menu[i].name == name {
			return &p.menu[i]
		}
	}
	return nil
}

func (p *Prover) fault(c *choice, st Step) scenarios.Fault {
	f := c.fault
	if f.Node != nil { // a node's fault names its node, not the client whose event triggers it
		n := *f.Node // each scenario its own
		f.Node = &n
	} else {
		f.Client = st.Client
	}
	f.On = &scenarios.Trigger{Client: st.Client, Point: st.Point, N: st.N}
	return f
}

// run runs n's schedule and fills in its verdict and, unless last (nothing
// will extend it), its points and key.
func (p *Prover) run(n *node, last bool) error {
	s := p.scenario(n)
	prep, err := s.PrepareWith(p.algo)
	if err != nil {
		return err
	}
	var pts []point
	if !last {
		prep.Config.OnPoint = p.recorder(&pts)
		if p.opts.Reduce != ReduceOff {
			prep.Config.OnState = p.keyRecorder(&pts)
			prep.Config.StateFrom = n.stateFrom
		}
	}
	res, v, err := judge.Verdict(prep, model.Options{})
	if err != nil {
		return err
	}
	defer res.Release() // nothing of the run is kept but its verdict and key
	n.verdict = v.Verdict
	p.noteReads(n, res)
	if last {
		return nil
	}
	n.points = pts
	if p.opts.Delays == DelaysRaces && len(n.steps)-n.faultN < p.opts.MaxDelays {
		// Only where a child may still add a delay.
		needs(res.History.Events, pts, len(p.names), p.sizes.longestDelay())
	}
	if p.opts.Reduce == ReduceSummary {
		// The summary forgets the past's violations: a run that has one
		// keeps its points apart from runs that do not. It forgets the
		// faults before each client's last too, which the assumptions
		// read (answer.go): runs of other faults keep theirs apart.
		v := uint64(model.Rank(n.verdict))
		fh := faultsHash(n.faults)
		for i := range pts {
			pts[i].key[2] ^= v * 0x9e3779b97f4a7c15
			pts[i].key[3] ^= fh
		}
	}
	// The run's key: its history (the sum its state keys took as it went,
	// or, without them, its digest) and its choice points.
	h := sha256.New()
	if k := res.HistoryKey; k != sim.Unknown {
		h.Write(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, k[0]), k[1]))
	} else {
		h.Write([]byte(res.History.Digest()))
	}
	for _, pt := range pts {
		h.Write([]byte{byte(pt.proc), byte(pt.at), byte(pt.n), byte(pt.n >> 8), byte(pt.n >> 16)})
	}
	h.Sum(n.key[:0])
	return nil
}

// recorder is an OnPoint hook that appends each choice point to pts,
// numbering each client's points of a kind from 1 as triggers count them.
func (p *Prover) recorder(pts *[]point) func(sim.Point, int, sim.Time, int) {
	counts := make([][3]int, len(p.names))
	own := make([]int, len(p.names))
	seq := 0
	return func(at sim.Point, proc int, now sim.Time, events int) {
		seq++ // every call, as the engine counts them
		own[proc]++
		var k int
		switch at {
		case sim.PointSend:
			k = 0
		case sim.PointReply:
			k = 1
		case sim.PointAcquired:
			k = 2
		default:
			return
		}
		counts[proc][k]++
		*pts = append(*pts, point{proc: proc, at: at, n: counts[proc][k], seq: seq, own: own[proc], now: now, events: events})
	}
}

// keyRecorder is an OnState hook that keys the point recorder has just
// appended with the state there, unless the state could not be read.
func (p *Prover) keyRecorder(pts *[]point) func(sim.Point, int, sim.StateKeys) {
	return func(at sim.Point, proc int, k sim.StateKeys) {
		if len(*pts) == 0 || k.State == sim.Unknown {
			return
		}
		past := k.History
		if p.opts.Reduce == ReduceSummary {
			past = k.Summary
		}
		pt := &(*pts)[len(*pts)-1]
		pt.key = [4]uint64{k.State[0], k.State[1], past[0], past[1]}
	}
}

// children are n's extensions by one choice, in canonical order, but for
// the points whose state (with no smaller budget) an earlier schedule was
// extended from: skip says so, and pruned counts the children skipped.
func (p *Prover) children(n *node, skip func(pt *point, faults, delays int) bool) (out []*node, pruned int) {
	for i := n.start; i < len(n.points); i++ {
		pt := n.points[i]
		if skip != nil && skip(&pt, p.opts.MaxFaults-n.faultN, p.opts.MaxDelays-(len(n.steps)-n.faultN)) {
			pruned += p.choicesAt(n, i)
			continue
		}
		st := Step{Client: p.names[pt.proc], Point: pt.at.String(), N: pt.n}
		for j := range p.menu {
			c := &p.menu[j]
			if !p.offered(n, i, c) {
				continue
			}
			faultN := n.faultN
			if c.class != "" { // a fault, not a delay
				faultN++
			}
			st.Choice = c.name
			k := &node{
				faultN: faultN,
				steps:  append(append([]Step(nil), n.steps...), st),
				faults: append(append([]scenarios.Fault(nil), n.faults...), p.fault(c, st)),
				path:   append(append([]int(nil), n.path...), len(out)),
				ords:   append(append([]int(nil), n.ords...), pt.own),
				start:  i + 1,
				// The run is n's up to point i: its later points come
				// after n's seq there.
				stateFrom: pt.seq + 1,
			}
			k.outside = p.outsideOf(k.faults)
			if p.unreadJump(n, i, c) {
				k.inherit, k.reads = n.verdict, n.reads
			}
			out = append(out, k)
		}
	}
	return out, pruned
}

// choicesAt counts n's extensions at its point i.
func (p *Prover) choicesAt(n *node, i int) int {
	c := 0
	for j := range p.menu {
		if p.offered(n, i, &p.menu[j]) {
			c++
		}
	}
	return c
}

// offered says whether choice c extends n at its point i: the kind of
// point it is for, a fault or delay left in n's budget, and for a delay,
// one that reorders something no other does (Options.Delays).
func (p *Prover) offered(n *node, i int, c *choice) bool {
	if c.sendOnly() && n.points[i].at != sim.PointSend {
		return false
	}
	if c.class == "" { // a delay
		return len(n.steps)-n.faultN < p.opts.MaxDelays &&
			// where it races, unless every point is offered: elsewhere
			// another point's delay makes its run (races.go)
			(p.opts.Delays == DelaysAll || raced(n.points, i, n.start, c.shift()))
	}
	return n.faultN < p.opts.MaxFaults
}

// budget is how many faults and delays a schedule's extensions may still
// add: each at most 8 (CheckMaxFaults, CheckMaxDelays).
type budget struct{ faults, delays uint8 }

func budgetOf(faults, delays int) budget { return budget{uint8(faults), uint8(delays)} }

func (b budget) covers(o budget) bool { return b.faults >= o.faults && b.delays >= o.delays }

// extended is what pruning remembers of an extended run (walker.memo):
// where its extensions began, and their budget.
type extended struct {
	start int32
	budget
}

// vouch is what pruning remembers of a point extended from (walker.states):
// its extensions' budget and their room before the run's caps. Kept small:
// a pass holds one for every point of every run it extends, millions at
// three clients, where a larger one took the heap to the soft memory limit
// and the collector ran without pause.
type vouch struct {
	now    sim.Time
	events int32 // at most scenarios.MaxEvents
	budget
}

// covers says whether v vouches for o: no smaller budget, no less room.
func (v vouch) covers(o vouch) bool {
	return v.budget.covers(o.budget) && v.now >= o.now && v.events >= o.events
}

// Run enumerates the space by iterative deepening: pass t runs every
// schedule with exactly t choices, depth first in canonical order,
// re-running the shorter schedules it extends to learn their choice points
// (their own verdicts were judged in an earlier pass). Memory stays one
// batch of schedules per level; the cost is re-running the shorter
// schedules once per later pass.
func (p *Prover) Run(ctx context.Context) (*Result, error) {
	o := p.opts
	r := &Result{Algorithm: p.algo.Name, Clients: o.Clients, Rounds: o.Rounds, Classes: o.Classes,
		MaxFaults: o.MaxFaults, MaxDelays: o.MaxDelays, Reduce: o.Reduce, Delays: o.Delays, Jumps: o.Jumps, Shard: o.Shard, TTL: p.ttl, Depth: -1,
		Params: p.params, Menu: p.Menu()}
	began := time.Now()
	w := &walker{p: p, ctx: ctx, workers: o.Workers, sides: newSides()}
	if w.workers <= 0 {
		w.workers = runtime.GOMAXPROCS(0)
	}
	w.startPool()
	defer w.stopPool()
	if o.Progress != nil {
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					o.Progress(Progress{Explored: w.explored.Load(), Pruned: w.pruned.Load(), Depth: int(w.depth.Load()), Elapsed: time.Since(began)})
				}
			}
		}()
	}
	finish := func() *Result {
		r.Explored, r.Pruned, r.Incomplete, r.Elapsed = w.explored.Load(), w.pruned.Load(), w.incomplete.Load(), time.Since(began)
		r.Unrun, r.JumpsRan = w.unrun, w.jumpsRan
		r.Inside, r.Outside = p.answer(&w.sides.inside), p.answer(&w.sides.outside)
		r.Met = MetOf(r.Inside.Met, r.Outside.Met)
		if len(r.Met) > 0 {
			r.Found = &r.Met[0]
		}
		r.NeverInside = p.neverInside(w.sides)
		return r
	}
	root := &node{}
	root.outside = p.outsideOf(nil)
	r.BaseOutside = root.outside
	for t := 0; t <= o.MaxFaults+o.MaxDelays; t++ {
		w.depth.Store(int32(t))
		w.target = t
		w.memo = map[[32]byte]extended{} // the same decisions in every pass
		if o.Jumps == JumpsUnread {
			w.last, w.judged = w.judged, nil
			if t < o.MaxFaults+o.MaxDelays { // the last pass's are read by no later one
				w.judged = map[[16]byte]reads{}
			}
		}
		w.states = map[[4]uint64]vouch{}
		if _, err := w.runNow([]*node{root}, t == 0); err != nil {
			return nil, err
		}
		var found *node
		var err error
		if t == 0 {
			found = w.judge(root)
		} else if root.verdict != model.VerdictIncomplete && w.extends(root) {
			if found, err = w.walk(root, 0); found == nil && err == nil {
				found, err = w.settle(0) // the pass's last judged schedules
			}
		}
		if err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			r.Interrupted = true
			return finish(), nil
		}
		r.Depth = t
		if found != nil { // unsafe inside: nothing is worse
			break
		}
	}
	return finish(), nil
}

// walker is one enumeration's state.
type walker struct {
	p                            *Prover
	ctx                          context.Context
	workers                      int
	target                       int // the pass: schedules with this many choices are judged
	memo                         map[[32]byte]extended
	states                       map[[4]uint64]vouch // the points extended from, by state key (Options.Reduce)
	explored, pruned, incomplete atomic.Int64
	unrun, jumpsRan              int64 // judged in canonical order (judge): no atomics
	// judged and last are, with JumpsUnread, what this pass's and the
	// last pass's judged schedules' runs say of their clock reads, by
	// their steps (jumps.go).
	judged, last map[[16]byte]reads
	depth        atomic.Int32
	sides        *sides // both answers so far (answer.go)
	pool         pool   // the workers, and what the walk owes the answer (pool.go)
}

// extends says whether n's extensions are worth running: not those of an
// outside schedule once the outside answer is settled, since they are
// outside too.
func (w *walker) extends(n *node) bool { return n.outside == "" || !w.sides.settled }

// walk extends n (run, at depth d < target) by one choice and goes on to
// the pass's depth, in canonical order; it returns the first schedule of
// the pass that is unsafe inside.
func (w *walker) walk(n *node, d int) (*node, error) {
	p := w.p
	var skip func(pt *point, faults, delays int) bool
	// A shard does not run the root's every extension, so the root's
	// points vouch for nothing there.
	if p.opts.Reduce != ReduceOff && (d > 0 || p.opts.Shard.Count == 1) {
		skip = func(pt *point, faults, delays int) bool {
			if pt.key == ([4]uint64{}) {
				return false
			}
			// The earlier point vouches for this one when its extensions
			// had no smaller budget and no less room before the run's caps:
			// this one's futures are its futures, shifted no later.
			here := vouch{now: pt.now, events: int32(pt.events), budget: budgetOf(faults, delays)}
			s, ok := w.states[pt.key]
			if ok && s.covers(here) {
				return true
			}
			if !ok || here.covers(s) {
				w.states[pt.key] = here
			}
			return false
		}
	}
	kids, skipped := p.children(n, skip)
	judged := d+1 == w.target
	if judged {
		w.owePruned(skipped)
	}
	if d == 0 && p.opts.Shard.Count > 1 {
		var mine []*node
		for i, c := range kids {
			if i%p.opts.Shard.Count == p.opts.Shard.Index {
				mine = append(mine, c)
			}
		}
		kids = mine
	}
	n.points = nil // the children hold what they need
	if judged {
		return w.judgeLater(kids)
	}
	for lo := 0; lo < len(kids); lo += chunk {
		batch := kids[lo:min(lo+chunk, len(kids))]
		if f, err := w.runNow(batch, false); f != nil || err != nil {
			return f, err
		}
		if w.ctx.Err() != nil {
			return nil, nil
		}
		for _, k := range batch {
			if k.verdict == model.VerdictIncomplete {
				continue // cut at a cap (counted in an earlier pass)
			}
			if k.outside != "" && !w.sides.settled {
				// Whether it is extended hangs on the verdicts before it.
				if f, err := w.settle(0); f != nil || err != nil {
					return f, err
				}
			}
			if !w.extends(k) {
				continue // settled outside: not extended
			}
			// A failing schedule is extended too: a worse verdict may
			// follow from more choices (an unsafe one inside ended the search).
			left := extended{start: int32(k.start), budget: budgetOf(p.opts.MaxFaults-k.faultN, p.opts.MaxDelays-(len(k.steps)-k.faultN))}
			if s, ok := w.memo[k.key]; ok && s.start <= left.start && s.covers(left.budget) {
				if d+2 == w.target {
					kids, _ := p.children(k, nil)
					w.owePruned(len(kids))
				}
				k.points = nil
				continue
			}
			w.memo[k.key] = left
			f, err := w.walk(k, d+1)
			if f != nil || err != nil || w.ctx.Err() != nil {
				return f, err
			}
		}
	}
	return nil, nil
}

// violation says whether a verdict breaks the lock.
func violation(v string) bool {
	return v != model.VerdictSafe && v != model.VerdictIncomplete && v != ""
}

// shrinkBudget bounds Shrink by runs, as explore's --shrink-tries does:
// the result is the same on any machine.
const shrinkBudget = 20_000

// Shrink shrinks the found schedule's scenario (package shrink, explore's
// shrinker: drop faults and clients, shorten and simplify, while the same
// verdict holds, within shrinkBudget runs) and replays the result with
// every checker, porcupine too; it stays on the found schedule's side of
// the lock's assumptions. The scenario it returns
// expects that verdict, so `simrun run` replays it and agrees; tries is how
// many runs shrinking took.
func (p *Prover) Shrink(f *Found) (s *scenarios.Scenario, o *judge.Outcome, tries int, err error) {
	fails := func(c *scenarios.Scenario) bool {
		// On the same side of the assumptions: an outside counterexample
		// shrunk inside would be another answer.
		if (p.classify(c) == "") != (f.Outside == "") {
			return false
		}
		prep, err := c.PrepareWith(p.algo)
		if err != nil {
			return false
		}
		res, v, err := judge.Verdict(prep, model.Options{})
		res.Release()
		return err == nil && v.Verdict == f.Verdict
	}
	s, tries, _ = shrink.Shrink(f.Scenario, fails, shrinkBudget)
	s.Expect = f.Verdict
	prep, err := s.PrepareWith(p.algo)
	if err != nil {
		return nil, nil, tries, err
	}
	o, err = judge.Prepared(s, prep, model.Options{})
	if err != nil {
		return nil, nil, tries, err
	}
	if o.Verdict.Verdict != f.Verdict {
		return nil, nil, tries, fmt.Errorf("shrunk counterexample replays %s, not %s", o.Verdict.Verdict, f.Verdict)
	}
	return s, o, tries, nil
}

func isNodeClass(c string) bool { return slices.Contains(nodeClasses, c) }

// runsWatchdog reports whether the lock's library renews its lease on its
// own (sim.SelfRenewing with a period): prove's clients set no period of
// their own, so only such a lock has a watchdog to pause.
func runsWatchdog(a locks.Algorithm, p locks.Params) bool {
	s, ok := a.New(p).(sim.SelfRenewing)
	return ok && s.RenewEvery() > 0
}

// holdPastTTL is the holders' work under watchdog-pause: a little past the
// TTL, so that the lease lives on the watchdog's renewals alone, and a
// renewal it misses lets the lease lapse under a working holder.
func holdPastTTL(ttl time.Duration) time.Duration { return ttl + ttl/10 }
