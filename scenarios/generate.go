package scenarios

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
	"pgregory.net/rapid"
)

// This file is over 400 lines until the re-cut of issue 19 moves generation
// and simplification out of scenarios (into explore): it holds the fault
// classes, the rapid generator and Simplify, which must agree on what a
// scenario may contain. How each fault kind is drawn is faultkinds.go's.

// Fault classes: the kinds of trouble a generated scenario brings.
const (
	ClassNone    = "none"    // no faults: contention only
	ClassCrash   = "crash"   // clients crash (at a time or on an event), some come back fresh
	ClassPause   = "pause"   // clients stop for up to several TTLs (a GC pause, a VM migration)
	ClassSkew    = "skew"    // client and node clocks start apart and drift
	ClassJump    = "jump"    // client and node clocks jump forwards or backwards
	ClassNet     = "net"     // latency, lost requests and replies, client timeouts
	ClassRestart = "restart" // nodes restart and lose their data
)

// FaultClasses lists every fault class in a stable order.
var FaultClasses = []string{ClassNone, ClassCrash, ClassPause, ClassSkew, ClassJump, ClassNet, ClassRestart}

// ParseClasses reads a comma-separated list of fault classes ("crash,pause")
// or "all". The result is in the order of FaultClasses, without repeats;
// "none" combined with other classes adds nothing.
func ParseClasses(list string) ([]string, error) {
	want := map[string]bool{}
	for _, c := range strings.Split(list, ",") {
		c = strings.TrimSpace(c)
		switch {
		case c == "all":
			for _, k := range FaultClasses {
				want[k] = true
			}
		case slices.Contains(FaultClasses, c):
			want[c] = true
		default:
			return nil, fmt.Errorf("%q is not a fault class (valid: %s, all)", c, strings.Join(FaultClasses, ", "))
		}
	}
	var out []string
	for _, c := range FaultClasses { // the fixed order, not the map's
		if want[c] && (c != ClassNone || len(want) == 1) {
			out = append(out, c)
		}
	}
	return out, nil
}

// GenOptions choose what a generator draws.
type GenOptions struct {
	// Classes are the fault classes a scenario may combine (see
	// ParseClasses); empty means none. With more than one, each scenario
	// switches each class on or off, so shrinking can drop whole classes.
	Classes []string
	// Inside keeps every scenario inside the assumptions of a TTL lock:
	// work + each client's pauses + 2 × the round trip + drift over the TTL
	// stays below the TTL, and no node restarts or node clock jumps
	// (InsideTTL holds).
	Inside bool
	_      struct{} // grows: callers name the fields they set
}

// Bounds of generated scenarios: small, so that a run costs a fraction of a
// millisecond to a few.
const (
	genMinClients = 2
	genMaxClients = 6
	genMaxIters   = 3
	genMaxFaults  = 4
	genMaxEvents  = 20_000
	genMaxDrift   = 50_000 // ppm: 5%, big enough to matter within a few TTLs
	genMaxLatency = 50 * time.Millisecond
	genTimeout    = time.Second      // client timeout when the net class is off
	genMargin     = time.Millisecond // kept free of the TTL in Inside mode
)

// genBaseLatency is each way's latency when the net class is off: a little
// jitter, so that commands of clients in step interleave in varied orders.
var genBaseLatency = Latency{Min: Duration(500 * time.Microsecond), Max: Duration(2500 * time.Microsecond)}

// scenarioGen is everything a draw depends on, fixed when the generator is
// made.
type scenarioGen struct {
	algo      locks.Algorithm
	classes   []string
	inside    bool
	res       time.Duration // timestamp resolution of the algorithm
	multiNode bool
	commands  []string // command names the algorithm sends, for event triggers
}

// Generator makes random scenarios for algo under the given fault classes.
// A drawn scenario passes Validate, round-trips through Marshal and Parse,
// and keeps every client's work time below the lock's TTL and lifetime: it
// is the faults that break locks, not a workload that ignores its own TTL.
// What a draw produces depends only on rapid's bits, so a seed replays it
// (rapid.Generator.Example(seed)).
func Generator(algo locks.Algorithm, o GenOptions) (*rapid.Generator[*Scenario], error) {
	classes, err := ParseClasses(strings.Join(o.Classes, ","))
	if len(o.Classes) == 0 {
		classes, err = []string{ClassNone}, nil
	}
	if err != nil {
		return nil, err
	}
	if err := algo.Validate(locks.Params{}); err != nil {
		return nil, err
	}
	g := &scenarioGen{algo: algo, classes: classes, inside: o.Inside}
	g.res = algo.With(locks.Params{}).Resolution
	g.multiNode = algo.NodesNeeded(locks.Params{Nodes: 3}) == 3
	g.commands = probeCommands(algo)
	return rapid.Custom(g.draw), nil
}

// classSet says which classes a draw switched on (looked up, never ranged).
type classSet map[string]bool

func (g *scenarioGen) draw(t *rapid.T) *Scenario {
	on := classSet{}
	for _, c := range g.classes {
		if len(g.classes) == 1 {
			on[c] = true
		} else {
			on[c] = drawBool(t, "class "+c)
		}
	}
	s := &Scenario{Name: "generated", Algorithm: g.algo.Name, MaxEvents: genMaxEvents}
	s.Seed = uint64(drawInt(t, "seed", 0, 255))

	// The lock's TTL: whole seconds for algorithms that write whole-second
	// timestamps, tenths of a second otherwise.
	var ttl time.Duration
	if g.res >= time.Second {
		ttl = time.Duration(drawInt(t, "ttl s", 1, 4)) * time.Second
	} else {
		ttl = time.Duration(drawInt(t, "ttl 100ms", 5, 40)) * 100 * time.Millisecond
	}
	s.Params.TTL = Duration(ttl)
	if g.multiNode {
		s.Params.Nodes = 2*drawInt(t, "nodes", 1, 2) + 1 // 3 or 5
	}
	params := g.algo.With(s.lockParams())
	nodes := g.algo.NodesNeeded(s.lockParams())
	// The work bound: the TTL, and the lifetime when that is shorter; a
	// lock that never expires still has its TTL parameter as the
	// timestamp's horizon.
	bound := params.TTL
	if l := g.algo.Lifetime(s.lockParams()); l > 0 && l < bound {
		bound = l
	}

	// The network. A client gives up after at most a quarter of the TTL:
	// waiting out a longer timeout would look like a stuck lock.
	timeout := min(genTimeout, ttl/4)
	s.Network = Network{Request: genBaseLatency, Reply: genBaseLatency, Timeout: Duration(timeout)}
	if on[ClassNet] {
		s.Network.Request = drawLatency(t, "request")
		s.Network.Reply = drawLatency(t, "reply")
		s.Network.LossRequest = float64(drawInt(t, "loss request %", 0, 20)) / 100
		s.Network.LossReply = float64(drawInt(t, "loss reply %", 0, 20)) / 100
		// Always a timeout (with losses and none, a client would wait for
		// ever: a stuck client, not a stuck lock), and never below the
		// longest round trip (a client that times out on most replies tells
		// nothing about the lock); lost replies make the ambiguous case.
		rtt := s.Network.Request.Max.D() + s.Network.Reply.Max.D()
		s.Network.Timeout = Duration(drawDur(t, "timeout", max(rtt, 10*time.Millisecond), max(rtt, timeout), 10*time.Millisecond))
	}
	rtt := s.Network.Request.Max.D() + s.Network.Reply.Max.D()

	// Clocks.
	if on[ClassSkew] {
		s.Nodes = make([]Node, nodes)
		for i := range s.Nodes {
			s.Nodes[i].Clock = drawClock(t, "node"+strconv.Itoa(i), ttl)
		}
	}
	var clocks []Clock
	if on[ClassSkew] {
		for i := range genMaxClients {
			clocks = append(clocks, drawClock(t, genClientName(i), ttl))
		}
	}
	drift := bound * time.Duration(largestDrift(s.Nodes, clocks)) / 1_000_000
	budget := max(bound-genMargin-2*rtt-drift, 0) // Inside: what work and pauses may use

	// Clients.
	workMax := bound / 2
	if g.inside {
		workMax = min(workMax, budget/2)
	}
	client := func(t *rapid.T) Client {
		var c Client
		c.Start = Duration(time.Duration(drawInt(t, "start slot", 0, 2))*ttl/2 +
			drawDur(t, "start jitter", 0, 5*time.Millisecond, time.Millisecond))
		c.Iterations = drawInt(t, "iterations", 1, genMaxIters)
		c.Work = Duration(drawDur(t, "work", 0, workMax, 10*time.Millisecond))
		c.Think = Duration(drawDur(t, "think", 0, ttl/2, 10*time.Millisecond))
		return c
	}
	s.Clients = drawList(t, "clients", genMinClients, genMaxClients, client)
	var maxWork time.Duration
	for i := range s.Clients {
		s.Clients[i].Name = genClientName(i)
		if clocks != nil {
			s.Clients[i].Clock = clocks[i]
		}
		maxWork = max(maxWork, s.Clients[i].Work.D())
	}

	// Faults.
	kinds := g.faultKinds(on)
	if len(kinds) > 0 {
		pauseMax := 3 * ttl
		if g.inside {
			pauseMax = ((budget - maxWork) / genMaxFaults).Truncate(time.Millisecond)
		}
		fg := faultGen{g: g, kinds: kinds, ttl: ttl, clients: len(s.Clients), nodes: nodes, pauseMax: pauseMax, prev: &prevFault{}}
		s.Faults = drawList(t, "faults", 1, genMaxFaults, fg.draw)
	}
	s.Duration = Duration(g.duration(s, ttl))
	return s
}

// faultKinds lists the ways to draw a fault that the switched-on classes
// allow, class by class in FaultClasses order, then in fileFaults order: the
// draw of "kind" indexes this list, so its order is part of every digest.
func (g *scenarioGen) faultKinds(on classSet) []*genFault {
	var kinds []*genFault
	for _, c := range FaultClasses {
		if !on[c] {
			continue
		}
		for i := range fileFaults {
			for j := range fileFaults[i].gen {
				if k := &fileFaults[i].gen[j]; k.class == c && !(k.outsideOnly && g.inside) {
					kinds = append(kinds, k)
				}
			}
		}
	}
	return kinds
}

type faultGen struct {
	g        *scenarioGen
	kinds    []*genFault
	ttl      time.Duration
	clients  int
	nodes    int
	pauseMax time.Duration
	prev     *prevFault // the fault drawn before this one in the same scenario
}

type prevFault struct {
	ok bool
	f  Fault
}

func (fg faultGen) draw(t *rapid.T) Fault {
	ttl := fg.ttl
	prev := fg.prev
	// The same fault as the one before, at the same moment, on the next
	// node or client: a majority of nodes restarting or jumping together.
	if prev.ok && drawInt(t, "same as the fault before", 0, 3) == 3 {
		f := prev.f
		if f.On != nil {
			on := *f.On
			f.On = &on
		}
		if f.Node != nil {
			n := (*f.Node + 1) % fg.nodes
			f.Node = &n
		} else {
			f.Client = genClientName((clientNumber(f.Client) + 1) % fg.clients)
		}
		prev.f = f
		return f
	}
	defer func() { prev.ok = true }()
	kind := fg.kinds[drawInt(t, "kind", 0, len(fg.kinds)-1)]
	target := drawInt(t, "client", 0, fg.clients-1)
	f := kind.draw(fg, t) // faultkinds.go
	if kind.onNode {
		n := drawInt(t, "node", 0, fg.nodes-1)
		f.Node = &n
	} else {
		f.Client = genClientName(target)
	}
	// When: at a true time, or on an event of the target client (or, less
	// often, of another one).
	defer func() { prev.f = f }()
	switch drawInt(t, "when", 0, 4) {
	case 0:
		f.At = Duration(drawDur(t, "at", 0, 3*ttl, 10*time.Millisecond))
		return f
	case 1:
		f.On = &Trigger{Point: PointAcquired}
	case 2:
		f.On = &Trigger{Point: PointReleased}
	case 3:
		f.On = &Trigger{Point: PointSend}
	case 4:
		f.On = &Trigger{Point: PointReply}
	}
	if f.On.Point == PointSend || f.On.Point == PointReply {
		cmds := append([]string{""}, fg.g.commands...)
		f.On.Command = cmds[drawInt(t, "command", 0, len(cmds)-1)]
	}
	other := drawInt(t, "other client", 0, 3) == 3
	who := target
	if other {
		who = (target + 1 + drawInt(t, "which", 0, fg.clients-2)) % fg.clients
	}
	f.On.Client = genClientName(who)
	f.On.N = drawInt(t, "n", 1, 3)
	return f
}

// duration is long enough for every client to finish its rounds after all
// faults, and for a lock abandoned at the end to show as stuck (2 × its
// lifetime of waiting), rounded up to a second.
func (g *scenarioGen) duration(s *Scenario, ttl time.Duration) time.Duration {
	life := g.algo.Lifetime(s.lockParams())
	if life <= 0 {
		life = ttl
	}
	d := 3*life + 3*ttl // faults at up to 3 TTLs
	var busy time.Duration
	for _, c := range s.Clients {
		busy = max(busy, c.Start.D())
		d += time.Duration(c.Iterations) * (c.Work.D() + c.Think.D())
	}
	d += busy
	for _, f := range s.Faults {
		d += f.For.D() + f.RestartAfter.D() + max(f.By.D(), -f.By.D())
	}
	return (d + time.Second - 1).Truncate(time.Second)
}

func genClientName(i int) string { return "c" + strconv.Itoa(i+1) }

// clientNumber is i for the name genClientName(i).
func clientNumber(name string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "c"))
	return max(n-1, 0)
}

// drawDur draws a duration within [lo, hi] in whole steps from lo.
func drawDur(t *rapid.T, label string, lo, hi, step time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(drawInt(t, label, 0, int((hi-lo)/step)))*step
}

func drawLatency(t *rapid.T, label string) Latency {
	lo := drawDur(t, label+" min", 0, genMaxLatency/2, time.Millisecond)
	hi := lo + drawDur(t, label+" spread", 0, genMaxLatency/2, time.Millisecond)
	return Latency{Min: Duration(lo), Max: Duration(hi)}
}

// drawClock: offsets up to two TTLs either way, drift up to 5% either way.
// Both shrink towards their largest value ahead: a counterexample whose
// clock is far off, not one that fails by a lucky millisecond.
func drawClock(t *rapid.T, label string, ttl time.Duration) Clock {
	off := 2*ttl - drawDur(t, label+" offset less", 0, 2*ttl, 10*time.Millisecond)
	if drawBool(t, label+" offset behind") {
		off = -off
	}
	drift := int64(genMaxDrift - 1000*drawInt(t, label+" drift less", 0, genMaxDrift/1000))
	if drawBool(t, label+" drift slow") {
		drift = -drift
	}
	if !drawBool(t, label+" skewed") {
		return Clock{} // most clocks are right: skew is one clock against the others
	}
	return Clock{Offset: Duration(off), DriftPPM: drift}
}

func largestDrift(nodes []Node, clients []Clock) int64 {
	var m int64
	for _, n := range nodes {
		m = max(m, n.Clock.DriftPPM, -n.Clock.DriftPPM)
	}
	for _, c := range clients {
		m = max(m, c.DriftPPM, -c.DriftPPM)
	}
	return m
}

// InsideTTL reports whether a run of the scenario stays inside the
// assumptions of a TTL lock, and if not, why: the longest work time, plus
// the most one client is paused in all, plus twice the longest round trip,
// plus the largest clock drift over the TTL, is below the TTL; and no node
// restarts or has its clock jump. A lock like set-nx-px-token promises
// safety only there.
func (s *Scenario) InsideTTL() error {
	algo, err := locks.Lookup(s.Algorithm)
	if err != nil {
		return err
	}
	ttl := algo.With(s.lockParams()).TTL
	if l := algo.Lifetime(s.lockParams()); l > 0 && l < ttl {
		ttl = l
	}
	var work time.Duration
	for _, c := range s.Clients {
		work = max(work, c.Work.D())
	}
	paused := make([]time.Duration, len(s.Clients))
	for i := range s.Faults {
		f := &s.Faults[i]
		kind := fileFaultOf(f.Kind) // faultkinds.go
		if kind == nil {
			continue
		}
		if kind.outsideTTL != nil {
			if why := kind.outsideTTL(f); why != "" {
				return fmt.Errorf("faults[%d]: %s", i, why)
			}
		}
		if sk, d := kind.build(f); sk.Pauses() {
			if c := s.clientIndex(f.Client); c >= 0 {
				paused[c] += d
			}
		}
	}
	pause := slices.Max(append(paused, 0))
	rtt := s.Network.Request.Max.D() + s.Network.Reply.Max.D()
	clocks := make([]Clock, len(s.Clients))
	for i, c := range s.Clients {
		clocks[i] = c.Clock
	}
	drift := ttl * time.Duration(largestDrift(s.Nodes, clocks)) / 1_000_000
	if used := work + pause + 2*rtt + drift; used >= ttl {
		return fmt.Errorf("work %s + pauses %s + 2 × round trip %s + drift %s = %s, not below the TTL %s",
			work, pause, rtt, drift, used, ttl)
	}
	return nil
}

// probeCommands runs the algorithm once through contention, a crash that
// abandons the lock and a release, and lists the command names it sent, in
// the order first sent: what event triggers may name. Deterministic: the
// probe is a fixed scenario.
func probeCommands(algo locks.Algorithm) []string {
	p := Params{TTL: Duration(time.Second)}
	if algo.NodesNeeded(locks.Params{Nodes: 3}) == 3 {
		p.Nodes = 3
	}
	s := &Scenario{
		Name: "probe", Algorithm: algo.Name, Params: p, Seed: 1, Duration: Duration(10 * time.Second),
		MaxEvents: genMaxEvents,
		Clients: []Client{
			{Name: "c1", Iterations: 1, Work: Duration(100 * time.Millisecond)},
			{Name: "c2", Start: Duration(time.Millisecond), Iterations: 2, Work: Duration(100 * time.Millisecond)},
			{Name: "c3", Start: Duration(3 * time.Second), Iterations: 2, Work: Duration(100 * time.Millisecond)},
		},
		Network: Network{Request: genBaseLatency, Reply: genBaseLatency, Timeout: Duration(genTimeout)},
		Faults:  []Fault{{Kind: FaultCrash, Client: "c1", On: &Trigger{Client: "c1", Point: PointAcquired, N: 1}}},
	}
	prep, err := s.PrepareWith(algo)
	if err != nil {
		return nil
	}
	res, err := sim.Run(prep.Config)
	if err != nil {
		return nil
	}
	var cmds []string
	for _, e := range res.History.Events {
		if e.Kind == sim.KindCommand && len(e.Args) > 0 {
			if c := strings.ToUpper(e.Args[0]); !slices.Contains(cmds, c) && len(c) <= 64 {
				cmds = append(cmds, c)
			}
		}
	}
	return cmds
}

// Simplify makes structural simplifications that rapid's shrinking of the
// generator's bits cannot (dropping a client shifts every later draw): drop
// a fault, drop a client, reset a field to its zero, one at a time, keeping
// each change after which fails still holds. It repeats until nothing
// changes and returns the simplest scenario and how many candidates it
// tried. A drop that no longer fails is tried again with scenario seeds 0 to
// simplifyReseeds-1 (other network dice). Deterministic: the candidates come in a fixed
// order.
func Simplify(s *Scenario, fails func(*Scenario) bool) (*Scenario, int) {
	cur, tries := s.clone(), 0
	for pass := 0; pass < 8; pass++ {
		changed := false
		for k := 0; ; k++ {
			c, ok := simplifyStep(cur, k)
			if !ok {
				break
			}
			if c == nil {
				continue // does not apply
			}
			tries++
			if fails(c) {
				cur, changed = c, true
				continue
			}
			if k >= len(cur.Faults)+len(cur.Clients) {
				continue
			}
			// Dropping a client or a fault shifts what the rest do: a
			// trigger waiting for a waiter's 3rd SETNX may now want its
			// 2nd, and the same plan may still fail with other dice.
			variants := []*Scenario{c}
			if lower := lowerTriggers(c); lower != nil {
				tries++
				if fails(lower) {
					cur, changed = lower, true
					continue
				}
				variants = append(variants, lower)
			}
		reseed:
			for _, v := range variants {
				for seed := uint64(0); seed < simplifyReseeds; seed++ {
					if seed == v.Seed {
						continue
					}
					r := v.clone()
					r.Seed = seed
					tries++
					if fails(r) {
						cur, changed = r, true
						break reseed
					}
				}
			}
		}
		if !changed {
			break
		}
	}
	return cur, tries
}

// lowerTriggers is s with every event count above 1 lowered by one, or nil
// when there is none.
func lowerTriggers(s *Scenario) *Scenario {
	c := s.clone()
	lowered := false
	for i := range c.Faults {
		if on := c.Faults[i].On; on != nil && on.N > 1 {
			on.N--
			lowered = true
		}
	}
	if !lowered {
		return nil
	}
	return c
}

// simplifyReseeds is how many scenario seeds Simplify tries when dropping a
// client or a fault alone does not fail.
const simplifyReseeds = 128

// simplifyStep is candidate k for s: a simpler copy, nil when candidate k
// changes nothing, ok false past the last candidate.
func simplifyStep(s *Scenario, k int) (c *Scenario, ok bool) {
	nf, nc := len(s.Faults), len(s.Clients)
	switch {
	case k < nf: // drop a fault, the last first
		c = s.clone()
		i := nf - 1 - k
		c.Faults = append(c.Faults[:i], c.Faults[i+1:]...)
		return c, true
	case k < nf+nc: // drop a client, the last first
		if nc <= 1 {
			return nil, true
		}
		return s.withoutClient(nc - 1 - (k - nf)), true
	}
	k -= nf + nc
	const perClient = 5
	if k < nc*perClient {
		i, what := k/perClient, k%perClient
		c = s.clone()
		cl := &c.Clients[i]
		switch what {
		case 0:
			cl.Iterations = min(cl.Iterations, 1)
		case 1:
			cl.Start = 0
		case 2:
			cl.Work = 0
		case 3:
			cl.Think = 0
		case 4:
			cl.Clock = Clock{}
		}
		return changedOrNil(s, c), true
	}
	k -= nc * perClient
	const perFault = 3
	if k < nf*perFault {
		i, what := k/perFault, k%perFault
		c = s.clone()
		f := &c.Faults[i]
		switch what {
		case 0:
			if f.On != nil {
				f.On.N = 1
			}
		case 1:
			if f.On != nil && f.On.Command != "" {
				f.On.Command = ""
			}
		case 2:
			f.RestartAfter = 0
		}
		return changedOrNil(s, c), true
	}
	k -= nf * perFault
	c = s.clone()
	switch k {
	case 0:
		c.Network.LossRequest = 0
	case 1:
		c.Network.LossReply = 0
	case 2:
		c.Network.Request, c.Network.Reply = genBaseLatency, genBaseLatency
	case 3:
		c.Nodes = nil
	case 4:
		c.Seed = 0
	default:
		return nil, false
	}
	return changedOrNil(s, c), true
}

// changedOrNil is c, or nil when it equals s: a candidate that changes nothing.
func changedOrNil(s, c *Scenario) *Scenario {
	a, _ := Marshal(s)
	b, _ := Marshal(c)
	if string(a) == string(b) {
		return nil
	}
	return c
}

// withoutClient drops client i, the faults that target it or wait for its
// events, and names the rest c1, c2, … again in order.
func (s *Scenario) withoutClient(i int) *Scenario {
	c := s.clone()
	gone := c.Clients[i].Name
	c.Clients = append(c.Clients[:i], c.Clients[i+1:]...)
	var faults []Fault
	for _, f := range c.Faults {
		if f.Client == gone || (f.On != nil && f.On.Client == gone) {
			continue
		}
		faults = append(faults, f)
	}
	c.Faults = faults
	rename := map[string]string{}
	for j := range c.Clients {
		rename[c.Clients[j].Name] = genClientName(j)
		c.Clients[j].Name = genClientName(j)
	}
	for j := range c.Faults {
		f := &c.Faults[j]
		if f.Client != "" {
			f.Client = rename[f.Client]
		}
		if f.On != nil {
			f.On.Client = rename[f.On.Client]
		}
	}
	return c
}

// genBit is the only rapid generator the scenario generator draws from:
// every number is made of single bits. rapid's biased integers carry a 53-bit
// block each, and minimizing such blocks took most of a shrink's runs.
var genBit = rapid.Bool()

func init() { _ = genBit.String() } // computed once, before any concurrent use

func drawBool(t *rapid.T, label string) bool { return genBit.Draw(t, label) }

// drawInt draws an integer within [lo, hi], about uniformly, from
// bits.Len(hi-lo) bits, most significant first; clearing bits lowers it, so
// it shrinks towards lo.
func drawInt(t *rapid.T, label string, lo, hi int) int {
	if hi <= lo {
		return lo
	}
	span := uint64(hi - lo)
	k := bits.Len64(span)
	var u uint64
	for i := k - 1; i >= 0; i-- {
		if genBit.Draw(t, label) {
			u |= 1 << i
		}
	}
	return lo + int(u*(span+1)>>k)
}

// drawList draws minN to maxN elements. Each element's group ends with the
// bit that says whether another follows (ignored below minN), so that rapid
// removes an element by removing its group; rapid.SliceOfN decides with a
// 53-bit coin per element, which cost thousands of shrinking runs.
func drawList[E any](t *rapid.T, label string, minN, maxN int, elem func(*rapid.T) E) []E {
	type item struct {
		v    E
		more bool
	}
	g := rapid.Custom(func(t *rapid.T) item {
		v := elem(t)
		return item{v, drawBool(t, "another of the "+label)}
	})
	var out []E
	for len(out) < maxN {
		it := g.Draw(t, label)
		out = append(out, it.v)
		if len(out) >= minN && !it.more {
			break
		}
	}
	return out
}
