package scenarios

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
)

// InsideTTL reports whether a run of the scenario stays inside the
// assumptions of the registered lock it names (locks.Assumptions), and if
// not, which one it breaks and how, in words such as "c1's pause of 35s
// exceeds what a 30s TTL allows". nil means inside: a run that fails there
// shows a bug in the lock. A scenario that names no registered lock is
// judged with InsideOf.
func (s *Scenario) InsideTTL() error {
	algo, err := locks.Lookup(s.Algorithm)
	if err != nil {
		return err
	}
	return s.InsideOf(algo)
}

// Outside is why a scenario lies outside its lock's assumptions: the error
// InsideOf returns.
type Outside struct {
	// Assumption names what the scenario breaks (the Assume* constants).
	Assumption string
	// Fault is the index of the fault that breaks it, -1 for none (a lease
	// overrun adds up a client's work, pauses, network and clocks).
	Fault int
	// Client is, for AssumeLease, the client whose lease runs out.
	Client string
	// Largest is, for AssumeLease, the largest of the terms that add up
	// (a Term* constant): what to shorten to come back inside.
	Largest string
	Words   string
}

func (o *Outside) Error() string { return o.Words }

// What a scenario may break.
const (
	AssumeLease     = "lease"      // work, pauses, round trips, drift and clock spread outlast the lease
	AssumePause     = "pause"      // pauses past what the lock declares (Assumptions.Pause)
	AssumeNodeClock = "node-clock" // a node's clock jumps under a lease that lives on it
	AssumeRestart   = "restart"    // a node restart loses the lock
	AssumeFailover  = "failover"   // a failover loses what the replica had not acknowledged
	AssumeTimeout   = "timeout"    // the client gives up before the WAIT the lock runs ends
	AssumeRenewal   = "renewal"    // a renewal's lost reply is known lost only after the lease lapsed
)

// The terms of a lease's budget, as Outside.Largest names them.
const (
	TermWork    = "work"
	TermPause   = "pause"
	TermNetwork = "network"
	TermDrift   = "drift"
	TermClocks  = "clocks"
)

// Lease is the time a lock taken with the scenario's parameters is sure to
// last on its own: the TTL, or the lifetime when that is shorter; for a
// timestamp lock one timestamp unit less, as the time it writes is
// truncated to it. 0 for a lock with no expiry.
func (s *Scenario) Lease(algo locks.Algorithm) time.Duration {
	if !algo.Assumes.Expiry.Timed() {
		return 0
	}
	p := algo.With(s.LockParams())
	lease := p.TTL
	if l := algo.Lifetime(s.LockParams()); l > 0 && l < lease {
		lease = l
	}
	if algo.Assumes.Expiry.UsesClientClocks() && p.Resolution > 0 {
		lease = lease.Truncate(p.Resolution)
	}
	return max(lease, 0)
}

// AcquireTime is the longest a lock on several nodes may take to acquire
// after its first node granted: one command for each further node, each
// as long as the round trip, or the client timeout on a network that can
// lose a command. 0 for a lock on one node, whose two round trips the
// budget already counts.
func (s *Scenario) AcquireTime(algo locks.Algorithm) time.Duration {
	n := algo.NodesNeeded(s.LockParams())
	if n <= 1 {
		return 0
	}
	cmd := s.Network.Request.Max.D() + s.Network.Reply.Max.D()
	if s.lossy() {
		cmd = max(cmd, s.Network.Timeout.D())
	}
	return time.Duration(n-1) * cmd
}

// lossy says a command may be lost: a loss rate, or a planned loss.
func (s *Scenario) lossy() bool {
	if s.Network.LossRequest > 0 || s.Network.LossReply > 0 {
		return true
	}
	for i := range s.Faults {
		if k := fileFaultOf(s.Faults[i].Kind); k != nil && k.lost() {
			return true
		}
	}
	return false
}

// ClockSpread is how far apart the clients' clocks may be, offsets and
// jumps together: what a timestamp lock's clients disagree by.
func ClockSpread(clients []Clock, jumps map[int][2]time.Duration) time.Duration {
	var lo, hi time.Duration
	for i, c := range clients {
		j := jumps[i] // [backwards, forwards]
		l, h := c.Offset.D()+j[0], c.Offset.D()+j[1]
		if i == 0 || l < lo {
			lo = l
		}
		if i == 0 || h > hi {
			hi = h
		}
	}
	return hi - lo
}

// InsideOf reports whether a run of the scenario stays inside algo's
// assumptions (algo.Assumes), as InsideTTL does for the registered lock
// the scenario names.
func (s *Scenario) InsideOf(algo locks.Algorithm) error {
	a := algo.Assumes
	lease := s.Lease(algo)
	rtt := s.Network.Request.Max.D() + s.Network.Reply.Max.D()
	for i := range s.Faults {
		f := &s.Faults[i]
		outside := outsides[f.EngineKind()] // faultkinds.go: which assumption, why
		if outside == nil {
			continue
		}
		if what, why := outside(s, algo, lease, f); why != "" {
			return &Outside{Assumption: what, Fault: i, Words: fmt.Sprintf("faults[%d] (%s): %s", i, f.Kind, why)}
		}
	}
	if a.Wait > 0 && s.Network.Timeout > 0 && s.Network.Timeout.D() < a.Wait+rtt {
		return &Outside{Assumption: AssumeTimeout, Fault: -1, Words: fmt.Sprintf(
			"network.timeout %s: the client gives up before the lock's WAIT of %s and a round trip %s end", s.Network.Timeout.D(), a.Wait, rtt)}
	}
	if !a.Expiry.Timed() {
		return nil // nothing of time ends the lease
	}
	// Each client's own pauses, watchdog pauses and clock jumps.
	paused := make([]time.Duration, len(s.Clients))
	dogPaused := make([]time.Duration, len(s.Clients))
	jumps := map[int][2]time.Duration{}
	for i := range s.Faults {
		f := &s.Faults[i]
		kind := fileFaultOf(f.Kind)
		c := s.clientIndex(f.Client)
		if kind == nil || c < 0 || kind.onNode(f) {
			continue
		}
		sk, d := kind.build(f)
		switch {
		case sk.Pauses():
			paused[c] += d
		case sk.StopsWatchdog():
			dogPaused[c] += d
		case sk.ShiftsClock():
			j := jumps[c]
			if d < 0 {
				j[0] += d
			} else {
				j[1] += d
			}
			jumps[c] = j
		}
	}
	clocks := make([]Clock, len(s.Clients))
	for i, c := range s.Clients {
		clocks[i] = c.Clock
	}
	drift := lease * time.Duration(LargestDrift(s.Nodes, clocks)) / 1_000_000
	var spread time.Duration
	if a.Expiry.UsesClientClocks() {
		spread = ClockSpread(clocks, jumps)
	}
	network := 2*rtt + s.AcquireTime(algo)
	for i, c := range s.Clients {
		if s.crashesOnFirstAcquire(c.Name) {
			continue // it never works under its lease: its crash ends the lease's use, as a crash may
		}
		if a.Pause > 0 && paused[i] > a.Pause {
			return &Outside{Assumption: AssumePause, Fault: -1, Client: c.Name, Words: fmt.Sprintf(
				"%s's pauses of %s exceed the %s the lock declares it survives", c.Name, paused[i], a.Pause)}
		}
		pause := paused[i]
		if a.Pause > 0 {
			pause = 0 // declared: the lock answers for pauses up to a.Pause whatever its lease
		}
		used := c.Work.D() + pause + network + drift + spread
		if used < lease {
			continue
		}
		// A renewed lease needs only outlast one renewal period and what
		// stops the renewals: the work may run on. On a network that can
		// lose a reply, a renewal whose reply is lost is known to have
		// failed only when its client stops waiting for it, and the holder
		// works on until then.
		every := s.renewal(algo, c)
		if every > 0 {
			covered := pause + dogPaused[i] + every + network + drift + spread
			wait := s.LostReplyWait(algo)
			if covered+wait < lease {
				continue
			}
			if covered < lease {
				return &Outside{Assumption: AssumeRenewal, Fault: -1, Client: c.Name, Words: fmt.Sprintf(
					"%s's renewal every %s: a renewal whose reply is lost is known lost only after its client waits %s for it, "+
						"and %s + %s + the rest of the budget %s is not below the %s lease", c.Name, every, wait, every, wait, covered-every, lease)}
			}
		}
		return s.overrun(algo, c, lease, pause, network, drift, spread, used)
	}
	return nil
}

// LostReplyWait is how long a client waits for a reply the network may
// lose before it gives up: 0 on a network that loses nothing; else the
// lock's own command budget when its client bounds commands itself
// (sim.CallBudgeter: go-redis's read timeouts and retries), or the longest
// of the scenario's timeout and the planned losses' own waits.
func (s *Scenario) LostReplyWait(algo locks.Algorithm) time.Duration {
	if !s.lossy() {
		return 0
	}
	if b, ok := algo.New(s.LockParams()).(sim.CallBudgeter); ok && b.CallBudget() > 0 {
		return b.CallBudget()
	}
	wait := s.Network.Timeout.D()
	for i := range s.Faults {
		if k := fileFaultOf(s.Faults[i].Kind); k != nil && k.lost() {
			wait = max(wait, s.Faults[i].For.D())
		}
	}
	return wait
}

// renewal is the period c's lease is renewed on: c's renew_every for a
// lock that can extend, else the library's own watchdog's; 0 for none.
func (s *Scenario) renewal(algo locks.Algorithm, c Client) time.Duration {
	l := algo.New(s.LockParams())
	if _, ok := l.(sim.Extender); ok && c.RenewEvery > 0 {
		return c.RenewEvery.D()
	}
	if own, ok := l.(sim.SelfRenewing); ok {
		return own.RenewEvery()
	}
	return 0
}

// overrun words a client's lease that its budget outlasts, naming the
// largest term first.
func (s *Scenario) overrun(algo locks.Algorithm, c Client, lease, pause, network, drift, spread, used time.Duration) error {
	o := &Outside{Assumption: AssumeLease, Fault: -1, Client: c.Name}
	ttl := algo.With(s.LockParams()).TTL
	terms := []struct {
		name string
		d    time.Duration
		head string
	}{
		{TermPause, pause, fmt.Sprintf("%s's pause of %s exceeds what a %s TTL allows", c.Name, pause, ttl)},
		{TermClocks, spread, fmt.Sprintf("client clocks %s apart exceed what a %s TTL allows", spread, ttl)},
		{TermWork, c.Work.D(), fmt.Sprintf("%s's work of %s exceeds what a %s TTL allows", c.Name, c.Work.D(), ttl)},
		{TermNetwork, network, fmt.Sprintf("a network of %s a lock's round trips exceeds what a %s TTL allows", network, ttl)},
		{TermDrift, drift, fmt.Sprintf("clock drift of %s exceeds what a %s TTL allows", drift, ttl)},
	}
	best := 0
	for i, t := range terms {
		if t.d > terms[best].d {
			best = i
		}
	}
	o.Largest = terms[best].name
	sum := fmt.Sprintf("work %s + pauses %s + round trips %s + drift %s", c.Work.D(), pause, network, drift)
	if algo.Assumes.Expiry.UsesClientClocks() {
		sum += fmt.Sprintf(" + clock spread %s", spread)
	}
	o.Words = fmt.Sprintf("%s: %s = %s, not below the %s lease", terms[best].head, sum, used, lease)
	return o
}

// LargestDrift is the largest clock drift, in ppm either way, of the nodes
// and the client clocks: what InsideTTL counts against the TTL, and what the
// generator (explore/gen) keeps room for when it stays inside.
func LargestDrift(nodes []Node, clients []Clock) int64 {
	var m int64
	for _, n := range nodes {
		m = max(m, n.Clock.DriftPPM, -n.Clock.DriftPPM)
	}
	for _, c := range clients {
		m = max(m, c.DriftPPM, -c.DriftPPM)
	}
	return m
}

// nodeSpec is node i as the scenario writes it (the zero Node when it
// writes fewer).
func (s *Scenario) nodeSpec(i int) Node {
	if i >= 0 && i < len(s.Nodes) {
		return s.Nodes[i]
	}
	return Node{}
}

// crashesOnFirstAcquire says the client crashes for good the moment it
// first holds the lock (a crash on its own first acquired point, with no
// restart): its work never runs, so it takes nothing of the lease. The
// documents' crash scenarios (a holder that dies, a waiter that takes over)
// are planned so.
func (s *Scenario) crashesOnFirstAcquire(client string) bool {
	for i := range s.Faults {
		f := &s.Faults[i]
		if f.Kind == fault.Crash.File() && f.Client == client && f.RestartAfter == 0 && f.On != nil &&
			f.On.Client == client && f.On.Point == PointAcquired && f.On.N <= 1 {
			return true
		}
	}
	return false
}
