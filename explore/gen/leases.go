package gen

import (
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"pgregory.net/rapid"
)

// Leases: for a lock that can extend its lease or be re-entered, each
// client draws a watchdog period (renew_every), a hold longer than the TTL
// for the watchdog to keep alive, and a re-entry depth (reenter). They are
// drawn after everything else (leasesLast), so that a draw's earlier values
// stay where they were, and only for a lock that supports them, so that
// every other lock's digests stand.

// genMaxReenter is the deepest re-entry drawn: two nested acquisitions show
// all that more would (scenarios.MaxReenter allows far more).
const genMaxReenter = 2

// leaseSupport says whether algo's lease is renewed in searches (by a
// watchdog of its library's, sim.SelfRenewing, or as a Renewable lock says)
// and whether a holder that acquires again gets it (a probe run: one client
// re-entering once, under a lease far longer than the run, so that a lock
// which is not re-entrant cannot get its own key back by waiting it out).
// Deterministic: the probe is a fixed scenario.
func leaseSupport(algo locks.Algorithm) (renews, reenters bool) {
	r, reenters := leaseOffers(algo)
	return r != renewNone, reenters
}

func leaseOffers(algo locks.Algorithm) (r renewal, reenters bool) {
	// A lock whose library runs the watchdog (sim.SelfRenewing with a
	// period: a Go library's lease with Extend under golock's search is
	// one), or one whose library renews by itself (Renewable). A lock that
	// merely offers Extend (an algorithm file's extend: with no every:)
	// leaves the renewal loop to its user, whose period and timeouts are
	// not the lock's to draw; for it renew_every 0 means no watchdog, and a
	// drawn hold past the TTL would blame the workload.
	l := algo.New(algo.With(locks.Params{}))
	if own, ok := l.(sim.SelfRenewing); ok && own.RenewEvery() > 0 {
		r = renewSelf
	} else if _, byItself, _, _ := offers(l); byItself {
		r = renewOwn
	}
	p := probeParams(algo, time.Minute)
	s := &scenarios.Scenario{
		Name: "reentry probe", Algorithm: algo.Name, Params: p, Seed: 1, Duration: scenarios.Duration(5 * time.Second),
		MaxEvents: genMaxEvents,
		Clients:   []scenarios.Client{{Name: "c1", Iterations: 1, Work: scenarios.Duration(10 * time.Millisecond), Reenter: 1}},
		Network:   scenarios.Network{Request: genBaseLatency, Reply: genBaseLatency, Timeout: scenarios.Duration(genTimeout)},
	}
	prep, err := s.PrepareWith(algo)
	if err != nil {
		return r, false
	}
	res, err := sim.Run(prep.Config)
	if err != nil {
		return r, false
	}
	for _, e := range res.History.Events {
		if e.Kind == sim.KindReenter && e.Held {
			return r, true
		}
	}
	return r, false
}

// leasesLast draws each client's lease options, client by client. The
// watchdog's period is 0 (the library's own, when it runs one) or a tenth
// to a half of the TTL; a renewing client's work may then run past the TTL
// (up to twice the work bound), the hold a watchdog exists for, except
// inside the TTL's assumptions (Options.Inside), where the work stays as
// drawn. Both shrink towards none: no period of its own, no extra work, no
// re-entry. A lock whose library renews by itself with no period of
// locksim's (Renewable's ownWatchdog) draws the work only. A Renewable lock
// whose Extend is aimed at then draws the faults aimed at its renewals
// (renewalFaults).
func (g *scenarioGen) leasesLast(t *rapid.T, s *scenarios.Scenario, on classSet, ttl, bound, pauseMax time.Duration) {
	if g.renewal == renewNone && !g.reenters {
		return
	}
	for i := range s.Clients {
		c := &s.Clients[i]
		if g.renewal != renewNone {
			if g.renewal == renewSelf {
				if tenths := drawInt(t, "renew every TTL/10s", 0, 5); tenths > 0 {
					c.RenewEvery = scenarios.Duration(max(time.Duration(tenths)*ttl/10, scenarios.MinRenewEvery))
				}
			}
			if !g.inside {
				c.Work += scenarios.Duration(drawDur(t, "work past the TTL", 0, 2*bound, 10*time.Millisecond))
			}
		}
		if g.reenters {
			c.Reenter = drawInt(t, "reenter", 0, genMaxReenter)
		}
	}
	if g.aimsAtRenewals {
		g.renewalFaults(t, s, on, pauseMax)
	}
}

// renewalFaults draws, for each client (each renews: renew_every 0 is the
// lock's own period), whether a fault is
// aimed at one of its renewals: a pause (the pause class) or a lost reply
// (the net class) at the first to third command of the kind an Extend
// sends (extendCommand, from the probe). They come
// after every other draw, so that the lock's other draws stay where they
// were. Both shrink towards none.
func (g *scenarioGen) renewalFaults(t *rapid.T, s *scenarios.Scenario, on classSet, pauseMax time.Duration) {
	if g.extendCommand == "" {
		return
	}
	var kinds []string
	if on[scenarios.ClassPause] && (!g.inside || fault.Pause.BreaksTTL() == "") {
		kinds = append(kinds, fault.Pause.File())
	}
	if on[scenarios.ClassNet] && (!g.inside || fault.LoseReply.BreaksTTL() == "") {
		kinds = append(kinds, fault.LoseReply.File())
	}
	if len(kinds) == 0 {
		return
	}
	for i := range s.Clients {
		c := &s.Clients[i]
		if !drawBool(t, "fault during a renewal") {
			continue
		}
		f := scenarios.Fault{Kind: kinds[drawInt(t, "renewal fault kind", 0, len(kinds)-1)], Client: c.Name}
		// A lost reply is planned at the send of the command it loses; a
		// pause there holds the command back, at its reply the reply.
		point := scenarios.PointSend
		switch f.Kind {
		case fault.Pause.File():
			if !drawBool(t, "at the renewal's send") {
				point = scenarios.PointReply
			}
			f.For = scenarios.Duration(pauseMax - drawDur(t, "renewal pause shorter by", 0, pauseMax, 10*time.Millisecond))
		case fault.LoseReply.File():
			f.For = s.Network.Timeout
		}
		f.On = &scenarios.Trigger{Client: c.Name, Point: point, Command: g.extendCommand, N: drawInt(t, "renewal n", 1, 3)}
		s.Faults = append(s.Faults, f)
	}
}
