// Package gen draws random scenarios for the explorer: the search side of a
// scenario, apart from its file format, validation and run step (package
// scenarios), which it only uses, and from shrinking (package shrink).
// What a drawn scenario is depends only on rapid's bits, so its draws are
// part of every explore digest: the order in which this package draws
// anything must not change.
package gen

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"pgregory.net/rapid"
)

// The generator is in this file, how each fault kind is drawn in
// faultkinds.go, the bit-level draw helpers in draw.go. The shrinker is
// package shrink.

// Options choose what a generator draws.
type Options struct {
	// Classes are the fault classes a scenario may combine (see
	// scenarios.ParseClasses); empty means none. With more than one, each
	// scenario switches each class on or off, so shrinking can drop whole
	// classes.
	Classes []string
	// Inside keeps every scenario inside the lock's assumptions
	// (locks.Assumptions; scenarios.Scenario.InsideOf holds): work + each
	// client's pauses + the round trips + drift (+ the client clocks'
	// spread, for a timestamp lock) stay below the lease, and only the
	// faults the lock survives by its assumptions are drawn, sized so that
	// it does (faultkinds.go: drawsInside).
	Inside bool
	// DrawTTL draws each scenario's TTL (whole seconds from 1 to 4 for a
	// lock that writes whole seconds, else 0.5 to 4 s) where by default
	// every scenario keeps the lock's own, the file's or the built-in's, so
	// that a file's 60 s lock is explored as written. Everything sized by
	// the TTL (work, think time, starts, pauses, jumps, restarts, the
	// client timeout, the run's duration and event cap) follows whichever
	// it is. The two draw different bits, so the same seed draws other
	// scenarios with and without it. A lock with no TTL of its own draws.
	DrawTTL bool
	_       struct{} // grows: callers name the fields they set
}

// Bounds of generated scenarios: small, so that a run costs a fraction of a
// millisecond to a few.
const (
	genMinClients = 2
	genMaxClients = 6
	genMaxIters   = 3
	genMaxFaults  = 4
	// genMaxEvents is far above what a run that ends needs (a python-setnx
	// crash run with six clients polling took 21,800); a run that reaches
	// it is cut, and its verdict judges only its prefix.
	genMaxEvents = 100_000
	// genDrawnTTLMax is the longest TTL drawn (Options.DrawTTL), the TTL
	// genMaxEvents was sized for; a longer TTL scales the cap (eventCap).
	genDrawnTTLMax = 4 * time.Second
	genMaxDrift    = 50_000 // ppm: 5%, big enough to matter within a few TTLs
	genMaxLatency  = 50 * time.Millisecond
	genTimeout     = time.Second      // client timeout when the net class is off
	genMargin      = time.Millisecond // kept free of the TTL in Inside mode
)

// genBaseLatency is each way's latency when the net class is off: a little
// jitter, so that commands of clients in step interleave in varied orders.
// The shrinker's quiet network is the same (shrink.QuietLatency; a test
// says so).
var genBaseLatency = scenarios.Latency{Min: scenarios.Duration(500 * time.Microsecond), Max: scenarios.Duration(2500 * time.Microsecond)}

// scenarioGen is everything a draw depends on, fixed when the generator is
// made.
type scenarioGen struct {
	algo      locks.Algorithm
	classes   []string
	inside    bool
	ttl       time.Duration // the lock's own TTL; 0: drawn
	res       time.Duration // timestamp resolution of the algorithm
	multiNode bool
	commands  []string // command names the algorithm sends, for event triggers
	assumes   locks.Assumptions
	// triggerCommands is "" (any command), then commands: what a send or
	// reply trigger draws from.
	triggerCommands []string
	classLabels     []string // by index in classes: "class " + the class, the label of its on/off draw
	// The lease options the lock supports (leases.go): a watchdog's
	// period, re-entry. A lock with neither draws neither, so its digests
	// stand.
	renewal  renewal
	reenters bool
	// aimsAtRenewals: a Renewable lock whose Extend faults are aimed at;
	// extendCommand is the first command its Extend sent in the probe,
	// what they trigger on.
	aimsAtRenewals bool
	extendCommand  string
	// What the lock tells the generator (offers.go): the nodes it runs on
	// (0: the algorithm's), its client's longest command (0: the
	// scenario's timeout bounds it).
	fixedNodes int
	callBudget time.Duration
}

// Generator makes random scenarios for algo under the given fault classes.
// A drawn scenario passes Validate, round-trips through Marshal and Parse,
// and keeps every client's work time below the lock's TTL and lifetime: it
// is the faults that break locks, not a workload that ignores its own TTL.
// What a draw produces depends only on rapid's bits, so a seed replays it
// (rapid.Generator.Example(seed)).
func Generator(algo locks.Algorithm, o Options) (*rapid.Generator[*scenarios.Scenario], error) {
	classes, err := scenarios.ParseClasses(strings.Join(o.Classes, ","))
	if len(o.Classes) == 0 {
		classes, err = []string{scenarios.ClassNone}, nil
	}
	if err != nil {
		return nil, err
	}
	if err := algo.Validate(locks.Params{}); err != nil {
		return nil, err
	}
	g := &scenarioGen{algo: algo, classes: classes, inside: o.Inside, assumes: algo.Assumes}
	g.res = algo.With(locks.Params{}).Resolution
	if !o.DrawTTL {
		g.ttl = algo.With(locks.Params{}).TTL // 0 (none) falls back to a draw
	}
	g.multiNode = multiNode(algo)
	g.renewal, g.reenters = leaseOffers(algo)
	g.aimsAtRenewals, _, g.fixedNodes, g.callBudget = offers(algo.New(algo.With(locks.Params{})))
	g.commands, g.extendCommand = probeCommands(algo, g.aimsAtRenewals)
	g.triggerCommands = append([]string{""}, g.commands...)
	for _, c := range classes {
		g.classLabels = append(g.classLabels, "class "+c)
	}
	return rapid.Custom(g.draw), nil
}

// classSet says which classes a draw switched on (looked up, never ranged).
type classSet map[string]bool

func (g *scenarioGen) draw(t *rapid.T) *scenarios.Scenario {
	on := classSet{}
	for i, c := range g.classes {
		switch {
		case len(g.classes) == 1:
			on[c] = true
		case c == scenarios.ClassFailover:
			// Drawn last (failoverLast): the draws of the other classes,
			// which existing digests depend on, stay where they were.
		default:
			on[c] = drawBool(t, g.classLabels[i])
		}
	}
	s := &scenarios.Scenario{Name: "generated", Algorithm: g.algo.Name, MaxEvents: genMaxEvents}
	s.Seed = uint64(drawInt(t, "seed", 0, 255))

	// The lock's TTL: its own, as it runs in production; or drawn, whole
	// seconds for algorithms that write whole-second timestamps, tenths of
	// a second otherwise.
	var ttl time.Duration
	switch {
	case g.ttl > 0:
		ttl = g.ttl
	case g.res >= time.Second:
		ttl = time.Duration(drawInt(t, "ttl s", 1, 4)) * time.Second
	default:
		ttl = time.Duration(drawInt(t, "ttl 100ms", 5, 40)) * 100 * time.Millisecond
	}
	s.Params.TTL = scenarios.Duration(ttl)
	s.MaxEvents = eventCap(ttl)
	if g.multiNode {
		s.Params.Nodes = 2*drawInt(t, "nodes", 1, 2) + 1 // 3 or 5
	}
	params := g.algo.With(s.LockParams())
	nodes := g.algo.NodesNeeded(s.LockParams())
	if g.fixedNodes > 0 {
		nodes = g.fixedNodes
	}
	// The work bound: the TTL, and the lifetime when that is shorter; a
	// lock that never expires still has its TTL parameter as the
	// timestamp's horizon.
	bound := params.TTL
	if l := g.algo.Lifetime(s.LockParams()); l > 0 && l < bound {
		bound = l
	}

	// The network. A client gives up after at most a quarter of the TTL:
	// waiting out a longer timeout would look like a stuck lock.
	timeout := min(genTimeout, ttl/4)
	s.Network = scenarios.Network{Request: genBaseLatency, Reply: genBaseLatency, Timeout: scenarios.Duration(timeout)}
	if on[scenarios.ClassNet] {
		s.Network.Request = drawLatency(t, "request")
		s.Network.Reply = drawLatency(t, "reply")
		s.Network.LossRequest = float64(drawInt(t, "loss request %", 0, 20)) / 100
		s.Network.LossReply = float64(drawInt(t, "loss reply %", 0, 20)) / 100
		// Always a timeout (with losses and none, a client would wait for
		// ever: a stuck client, not a stuck lock), and never below the
		// longest round trip (a client that times out on most replies tells
		// nothing about the lock); lost replies make the ambiguous case.
		rtt := s.Network.Request.Max.D() + s.Network.Reply.Max.D()
		s.Network.Timeout = scenarios.Duration(drawDur(t, "timeout", max(rtt, 10*time.Millisecond), max(rtt, timeout), 10*time.Millisecond))
	}
	rtt := s.Network.Request.Max.D() + s.Network.Reply.Max.D()
	if g.inside && g.assumes.Wait > 0 {
		// The client waits out the lock's WAIT and its round trip.
		s.Network.Timeout = max(s.Network.Timeout, scenarios.Duration(g.assumes.Wait+rtt+time.Millisecond))
	}

	// Clocks.
	if on[scenarios.ClassSkew] {
		s.Nodes = make([]scenarios.Node, nodes)
		for i := range s.Nodes {
			s.Nodes[i].Clock = drawClock(t, clockLabelsOf(nodeClockLabels, i, func(i int) string { return "node" + strconv.Itoa(i) }), ttl)
		}
	}
	var clocks []scenarios.Clock
	if on[scenarios.ClassSkew] {
		// Inside, a timestamp lock's clients disagree by a sixteenth of the
		// TTL at most, each way: the spread counts against the lease.
		span := ttl
		if g.inside && g.assumes.Expiry.UsesClientClocks() {
			span = ttl / 16
		}
		clocks = make([]scenarios.Clock, 0, genMaxClients)
		for i := range genMaxClients {
			clocks = append(clocks, drawClock(t, clockLabelsOf(clientClockLabels, i, genClientName), span))
		}
	}
	drift := bound * time.Duration(scenarios.LargestDrift(s.Nodes, clocks)) / 1_000_000
	budget := max(bound-genMargin-2*rtt-drift, 0) // Inside: what work and pauses may use
	if g.inside {
		budget = g.insideBudget(s, clocks, rtt)
	}

	// Clients.
	workMax := bound / 2
	if g.inside {
		workMax = min(workMax, budget/2)
	}
	if g.inside && !g.assumes.Expiry.Timed() {
		workMax = bound / 2 // nothing of time ends the lease: work is free
	}
	client := func(t *rapid.T) scenarios.Client {
		var c scenarios.Client
		c.Start = scenarios.Duration(time.Duration(drawInt(t, "start slot", 0, 2))*ttl/2 +
			drawDur(t, "start jitter", 0, 5*time.Millisecond, time.Millisecond))
		c.Iterations = drawInt(t, "iterations", 1, genMaxIters)
		c.Work = scenarios.Duration(drawDur(t, "work", 0, workMax, 10*time.Millisecond))
		c.Think = scenarios.Duration(drawDur(t, "think", 0, ttl/2, 10*time.Millisecond))
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
	pauseMax := 3 * ttl
	switch {
	case !g.inside || !g.assumes.Expiry.Timed():
	case g.assumes.Pause > 0: // declared: the lock answers for pauses up to it
		pauseMax = (g.assumes.Pause / genMaxFaults).Truncate(time.Millisecond)
	default:
		pauseMax = ((budget - maxWork) / genMaxFaults).Truncate(time.Millisecond)
	}
	if len(kinds) > 0 {
		fg := faultGen{g: g, kinds: kinds, ttl: ttl, clients: len(s.Clients), nodes: nodes, pauseMax: pauseMax, prev: &prevFault{}}
		if g.inside {
			fg.downMin = s.Lease(g.algo) // a delayed restart (drawsInside)
		}
		s.Faults = drawList(t, "faults", 1, genMaxFaults, fg.draw)
	}
	g.failoverLast(t, s, on, ttl, nodes)
	g.leasesLast(t, s, on, ttl, bound, pauseMax)
	if g.fixedNodes > 0 && len(s.Nodes) == 0 {
		s.Nodes = make([]scenarios.Node, nodes)
	}
	s.Duration = scenarios.Duration(g.duration(s, ttl))
	return s
}

// eventCap is a run's event cap for a lock of this TTL: genMaxEvents up to
// the longest drawn TTL, and in proportion above it. A run's length is
// proportional to its TTL (duration), while the events of a simulated second
// are not (clients poll at their retry sleep, commands take the network's
// latency): a 30 s lock's run lasts about 8 times a 4 s lock's and may need
// 8 times the events to reach its end, and a run cut at the cap is
// incomplete, never safe. Runs that end cost nothing more. (Seed 1's matrix
// is the same with the fixed cap: no run there reaches it; those cut, such
// as set-nx-px-wait's under net, reach their duration.) The engine's own
// ceiling (a scenario file's largest max_events) bounds it: a 60 s lock's
// runs get 10 times the events, not 15.
func eventCap(ttl time.Duration) int {
	if ttl <= genDrawnTTLMax {
		return genMaxEvents
	}
	return min(genMaxEvents*int((ttl+genDrawnTTLMax-1)/genDrawnTTLMax), scenarios.MaxEvents)
}

// faultKinds lists the ways to draw a fault that the switched-on classes
// allow, class by class in FaultClasses order, then in genFaults order: the
// draw of "kind" indexes this list, so its order is part of every digest.
func (g *scenarioGen) faultKinds(on classSet) []*genFault {
	var kinds []*genFault
	for _, c := range scenarios.FaultClasses {
		if !on[c] {
			continue
		}
		for i := range genFaults {
			if k := &genFaults[i]; k.class == c && k.notDrawn == "" && (!g.inside || g.drawsInside(k)) {
				kinds = append(kinds, k)
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
	downMin  time.Duration // added to a node restart's down time: 0 but inside
	prev     *prevFault    // the fault drawn before this one in the same scenario
}

type prevFault struct {
	ok bool
	f  scenarios.Fault
}

func (fg faultGen) draw(t *rapid.T) scenarios.Fault {
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
	if kind.onNode() {
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
		f.At = scenarios.Duration(drawDur(t, "at", 0, 3*ttl, 10*time.Millisecond))
		return f
	case 1:
		f.On = &scenarios.Trigger{Point: scenarios.PointAcquired}
	case 2:
		f.On = &scenarios.Trigger{Point: scenarios.PointReleased}
	case 3:
		f.On = &scenarios.Trigger{Point: scenarios.PointSend}
	case 4:
		f.On = &scenarios.Trigger{Point: scenarios.PointReply}
	}
	if f.On.Point == scenarios.PointSend || f.On.Point == scenarios.PointReply {
		cmds := fg.g.triggerCommands
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
// lifetime of waiting), rounded up to a second. It is twice that estimate:
// lost replies make a client retry for TTLs on end, and a run cut at the
// duration is incomplete, not safe (seed 1, 2000 runs a cell: 27
// fenced-token/net runs were cut at the estimate, none at twice it). The
// slack costs nothing to runs that end; a run ends when its processes do.
func (g *scenarioGen) duration(s *scenarios.Scenario, ttl time.Duration) time.Duration {
	life := g.algo.Lifetime(s.LockParams())
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
	// A client that bounds its commands itself (CallBudgeter: go-redis's
	// 5 s reads, retried) may wait out its budget once in each round, where
	// the scenario's timeout is a fraction of the TTL the terms above
	// cover.
	for _, c := range s.Clients {
		d += time.Duration(c.Iterations) * g.callBudget
	}
	d *= 2
	return (d + time.Second - 1).Truncate(time.Second)
}

// multiNode says whether the lock runs on as many nodes as it is given
// (Redlock), so a probe or a draw gives it three.
func multiNode(algo locks.Algorithm) bool { return algo.NodesNeeded(locks.Params{Nodes: 3}) == 3 }

// probeParams are a probe scenario's parameters: this TTL, and three nodes
// for a lock on several.
func probeParams(algo locks.Algorithm, ttl time.Duration) scenarios.Params {
	p := scenarios.Params{TTL: scenarios.Duration(ttl)}
	if multiNode(algo) {
		p.Nodes = 3
	}
	return p
}

// probeCommands runs the algorithm once through contention, a crash that
// abandons the lock and a release, and lists the command names it sent, in
// the order first sent: what event triggers may name. Deterministic: the
// probe is a fixed scenario.
func probeCommands(algo locks.Algorithm, renewed bool) (cmds []string, extend string) {
	p := probeParams(algo, time.Second)
	s := &scenarios.Scenario{
		Name: "probe", Algorithm: algo.Name, Params: p, Seed: 1, Duration: scenarios.Duration(10 * time.Second),
		MaxEvents: genMaxEvents,
		Clients: []scenarios.Client{
			{Name: "c1", Iterations: 1, Work: scenarios.Duration(100 * time.Millisecond)},
			{Name: "c2", Start: scenarios.Duration(time.Millisecond), Iterations: 2, Work: scenarios.Duration(100 * time.Millisecond)},
			{Name: "c3", Start: scenarios.Duration(3 * time.Second), Iterations: 2, Work: scenarios.Duration(100 * time.Millisecond)},
		},
		Network: scenarios.Network{Request: genBaseLatency, Reply: genBaseLatency, Timeout: scenarios.Duration(genTimeout)},
		Faults:  []scenarios.Fault{{Kind: fault.Crash.File(), Client: "c1", On: &scenarios.Trigger{Client: "c1", Point: scenarios.PointAcquired, N: 1}}},
	}
	if renewed {
		// A Renewable lock's clients renew in the probe, so that its
		// Extend's commands are among those listed.
		for i := range s.Clients {
			s.Clients[i].RenewEvery = scenarios.Duration(30 * time.Millisecond)
		}
	}
	prep, err := s.PrepareWith(algo)
	if err != nil {
		return nil, ""
	}
	res, err := sim.Run(prep.Config)
	if err != nil {
		return nil, ""
	}
	extending := map[int]bool{} // looked up, never ranged
	for _, e := range res.History.Events {
		switch {
		case e.Kind == sim.KindExtendInvoke:
			extending[e.Proc] = true
		case e.Kind == sim.KindExtendReturn:
			extending[e.Proc] = false
		case e.Kind == sim.KindCommand && len(e.Args) > 0:
			c := strings.ToUpper(e.Args[0])
			if !slices.Contains(cmds, c) && len(c) <= 64 {
				cmds = append(cmds, c)
			}
			if extend == "" && extending[e.Proc] && len(c) <= 64 {
				extend = c
			}
		}
	}
	return cmds, extend
}

// failoverLast draws the failover class when it is one of several (after
// every other draw, so that adding the class changed no digest of the
// others), its faults then, and gives every node a replica when the class
// is on.
func (g *scenarioGen) failoverLast(t *rapid.T, s *scenarios.Scenario, on classSet, ttl time.Duration, nodes int) {
	if len(g.classes) > 1 && slices.Contains(g.classes, scenarios.ClassFailover) {
		if on[scenarios.ClassFailover] = drawBool(t, g.classLabels[slices.Index(g.classes, scenarios.ClassFailover)]); on[scenarios.ClassFailover] {
			kinds := g.faultKinds(classSet{scenarios.ClassFailover: true})
			if len(kinds) > 0 {
				fg := faultGen{g: g, kinds: kinds, ttl: ttl, clients: len(s.Clients), nodes: nodes, prev: &prevFault{}}
				s.Faults = append(s.Faults, drawList(t, "failovers", 1, genMaxFaults, fg.draw)...)
			}
		}
	}
	if !on[scenarios.ClassFailover] {
		return
	}
	// One replica per node, all with one lag: shrinks towards the longest
	// (half the TTL), a write that stays unreplicated for long.
	lag := scenarios.Duration(ttl/2 - drawDur(t, "replication lag shorter by", 0, ttl/2-time.Millisecond, time.Millisecond))
	if g.inside && g.assumes.Wait > 0 {
		lag = min(lag, scenarios.Duration(g.assumes.Wait-time.Millisecond)) // the replica acknowledges within the WAIT
	}
	if len(s.Nodes) == 0 {
		s.Nodes = make([]scenarios.Node, nodes)
	}
	for i := range s.Nodes {
		s.Nodes[i].Replicas = 1
		s.Nodes[i].ReplicationLag = scenarios.Latency{Min: lag, Max: lag}
	}
}

// insideBudget is what work and pauses may use of the lease inside the
// lock's assumptions (scenarios.Scenario.InsideOf), for a scenario whose
// network and clocks are drawn: the lease less a margin, the round trips,
// the acquisition on further nodes, the drift and, for a timestamp lock,
// the spread of the client clocks drawn (all of genMaxClients, a bound on
// the clients drawn after). A lock on several nodes whose network leaves
// less than half the lease gets the quiet network instead.
func (g *scenarioGen) insideBudget(s *scenarios.Scenario, clocks []scenarios.Clock, rtt time.Duration) time.Duration {
	lease := s.Lease(g.algo)
	if lease == 0 {
		return 0 // no expiry: the budget is not used
	}
	drift := lease * time.Duration(scenarios.LargestDrift(s.Nodes, clocks)) / 1_000_000
	var spread time.Duration
	if g.assumes.Expiry.UsesClientClocks() {
		spread = scenarios.ClockSpread(clocks, nil)
	}
	if 2*rtt+s.AcquireTime(g.algo) > lease/2 {
		s.Network = scenarios.Network{Request: genBaseLatency, Reply: genBaseLatency, Timeout: s.Network.Timeout}
		rtt = s.Network.Request.Max.D() + s.Network.Reply.Max.D()
	}
	return max(lease-genMargin-2*rtt-s.AcquireTime(g.algo)-drift-spread, 0)
}
