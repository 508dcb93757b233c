package gen

import (
	"time"

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

// leaseSupport says whether algo's lease is renewed by a watchdog of its
// library's and whether a holder that acquires again gets
// it (a probe run: one client re-entering once, under a lease far longer
// than the run, so that a lock which is not re-entrant cannot get its own
// key back by waiting it out). Deterministic: the probe is a fixed
// scenario.
func leaseSupport(algo locks.Algorithm) (renews, reenters bool) {
	// Only a lock whose library runs the watchdog (sim.SelfRenewing with a
	// period): a lock that merely offers Extend (a Go library under golock,
	// an algorithm file's extend: with no every:) leaves the renewal loop to
	// its user, whose period and timeouts are not the lock's to draw; for it
	// renew_every 0 means no watchdog, and a drawn hold past the TTL would
	// blame the workload.
	own, ok := algo.New(algo.With(locks.Params{})).(sim.SelfRenewing)
	renews = ok && own.RenewEvery() > 0
	p := probeParams(algo, time.Minute)
	s := &scenarios.Scenario{
		Name: "reentry probe", Algorithm: algo.Name, Params: p, Seed: 1, Duration: scenarios.Duration(5 * time.Second),
		MaxEvents: genMaxEvents,
		Clients:   []scenarios.Client{{Name: "c1", Iterations: 1, Work: scenarios.Duration(10 * time.Millisecond), Reenter: 1}},
		Network:   scenarios.Network{Request: genBaseLatency, Reply: genBaseLatency, Timeout: scenarios.Duration(genTimeout)},
	}
	prep, err := s.PrepareWith(algo)
	if err != nil {
		return renews, false
	}
	res, err := sim.Run(prep.Config)
	if err != nil {
		return renews, false
	}
	for _, e := range res.History.Events {
		if e.Kind == sim.KindReenter && e.Held {
			return renews, true
		}
	}
	return renews, false
}

// leasesLast draws each client's lease options, client by client. The
// watchdog's period is 0 (the library's own, when it runs one) or a tenth
// to a half of the TTL; a renewing client's work may then run past the TTL
// (up to twice the work bound), the hold a watchdog exists for, except
// inside the TTL's assumptions (Options.Inside), where the work stays as
// drawn. Both shrink towards none: no period of its own, no extra work, no
// re-entry.
func (g *scenarioGen) leasesLast(t *rapid.T, s *scenarios.Scenario, ttl, bound time.Duration) {
	if !g.renews && !g.reenters {
		return
	}
	for i := range s.Clients {
		c := &s.Clients[i]
		if g.renews {
			if tenths := drawInt(t, "renew every TTL/10s", 0, 5); tenths > 0 {
				c.RenewEvery = scenarios.Duration(max(time.Duration(tenths)*ttl/10, scenarios.MinRenewEvery))
			}
			if !g.inside {
				c.Work += scenarios.Duration(drawDur(t, "work past the TTL", 0, 2*bound, 10*time.Millisecond))
			}
		}
		if g.reenters {
			c.Reenter = drawInt(t, "reenter", 0, genMaxReenter)
		}
	}
}
