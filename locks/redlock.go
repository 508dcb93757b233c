package locks

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/sim"
)

// Source: reference (redis.io/topics/distlock, "The Redlock algorithm").
//
// N independent nodes (5 by default). To acquire: read the local clock, SET
// key token NX PX ttl on every node in turn (the per-node timeout is the
// engine's client timeout; an error or a timeout is a node that did not
// grant), then read the clock again. The lock is held iff a majority granted
// and the validity, ttl − elapsed − drift with drift = ttl × 1% + 2 ms, is
// still positive. Otherwise unlock every node, even those that seemed not to
// grant, and retry after a random delay. Release runs the compare-and-delete
// script on every node.
//
// Choices (the page sets none): 3 tries in all, as redlock-py's and
// redlock-rb's default retry_count; a delay of 200 ms ± 50% between them
// (redlock-rb's retry_delay, with jitter); TTL 10 s, the page's example.
var redlockAlgorithm = register(Algorithm{
	Name:      "redlock",
	Source:    Reference,
	Summary:   "Redlock: SET NX PX on N nodes (5), held iff a majority granted and ttl − elapsed − drift > 0; release on all",
	Defaults:  Params{Key: "resource_name", TTL: 10 * time.Second, Retries: 3, RetrySleep: 200 * time.Millisecond, Nodes: 5},
	Scripts:   unlockScripts,
	Assumes:   Assumptions{Expiry: ExpiryTTL},
	lifetime:  func(p Params) time.Duration { return p.TTL },
	multiNode: true,
	check: func(p Params) error {
		if p.Nodes < 1 {
			return fmt.Errorf("redlock: nodes %d: want at least 1", p.Nodes)
		}
		return nil
	},
}, func(name string, p Params) sim.Locker { return &redlock{name: name, p: p} })

type redlock struct {
	name string
	p    Params
}

func (l *redlock) Acquire(p sim.Proc) (sim.Lease, error) {
	n := l.p.Nodes
	if p.Nodes() < n {
		return sim.Lease{}, fmt.Errorf("%s: needs %d nodes, the run has %d", l.name, n, p.Nodes())
	}
	quorum := n/2 + 1
	drift := l.p.TTL/100 + 2*time.Millisecond
	px := millis(l.p.TTL)
	for try := 1; ; try++ {
		// "It gets the current time in milliseconds." One token for all nodes.
		start := p.Now()
		tok := RandomToken(p)
		granted := 0
		// "It tries to acquire the lock in all the N instances sequentially,
		// using the same key name and random value in all the instances."
		for i := range n {
			if setNXPX(p, i, l.p.Key, tok, px) {
				granted++
			}
		}
		// "The client computes how much time elapsed in order to acquire the
		// lock"; the lock is acquired iff a majority granted and the
		// remaining validity, minus the clock drift, is positive.
		validity := l.p.TTL - p.Now().Sub(start) - drift
		if granted >= quorum && validity > 0 {
			return sim.Lease{Held: true, Token: tok}, nil
		}
		// "If the client failed to acquire the lock for some reason ... it
		// will try to unlock all the instances."
		l.unlockAll(p, tok)
		if LastTry(try, l.p.Retries) {
			return sim.Lease{}, nil
		}
		// "retry after a random delay in order to try to desynchronize
		// multiple clients trying to acquire the lock for the same resource
		// at the same time"
		p.Sleep(Jitter(p, l.p.RetrySleep))
	}
}

func (l *redlock) unlockAll(p sim.Proc, tok string) {
	for i := range l.p.Nodes {
		unlock(p, i, l.p.Key, tok)
	}
}

// Release: "simply release the lock in all instances, whether or not the
// client believes it was able to successfully lock a given instance."
func (l *redlock) Release(p sim.Proc, lease sim.Lease) error {
	l.unlockAll(p, lease.Token)
	return nil
}
