package gen

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// What a lock may tell the generator of itself beyond its locks.Algorithm:
// the Locker its New makes may implement any of these. A Go library run by
// golock answers them (it learns them from the library and its client);
// no built-in or algorithm file does, so their draws and digests stand.

// Renewable is a lock that says how its lease is renewed beyond what
// sim.SelfRenewing says (a Go library under golock). Extends: its Extend
// renews the lease (redsync's Extend, bsm/redislock's Refresh), so faults
// aimed at a renewal are drawn (a pause or a lost reply during an Extend);
// its period comes from sim.SelfRenewing. OwnWatchdog: the library renews a
// held lease by itself, with no period of locksim's, so holds past the TTL
// are drawn for it to cover even when the lock is not SelfRenewing.
type Renewable interface {
	Renewal() (extends, ownWatchdog bool)
}

// FixedNodes is a lock that runs on exactly this many nodes (a library
// given one client per node: redsync with a pool each), where a multi-node
// algorithm draws 3 or 5 and any other runs on one.
type FixedNodes interface {
	Nodes() int
}

// renewal is how a lock's lease is renewed, for the draws (leasesLast).
type renewal uint8

const (
	renewNone renewal = iota
	// renewSelf: a sim.SelfRenewing lock with a period of its own: a
	// client's period is drawn, 0 for the lock's own.
	renewSelf
	// renewOwn: a Renewable lock whose library renews by itself, with no
	// period to draw.
	renewOwn
)

// offers asks a locker made with the lock's defaults what it tells the
// generator: whether its Extend is aimed at (Renewable), whether its
// library renews by itself, its nodes and its client's command budget.
func offers(l any) (extends, ownWatchdog bool, nodes int, budget time.Duration) {
	if x, ok := l.(Renewable); ok {
		extends, ownWatchdog = x.Renewal()
	}
	if n, ok := l.(FixedNodes); ok && n.Nodes() > 1 {
		nodes = n.Nodes()
	}
	if b, ok := l.(sim.CallBudgeter); ok && b.CallBudget() > 0 {
		budget = b.CallBudget()
	}
	return extends, ownWatchdog, nodes, budget
}
