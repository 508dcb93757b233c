package locks

import (
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// Source: reference (set-nx-px-token plus a fencing token, as in Martin
// Kleppmann's "How to do distributed locking").
//
// After SET NX PX the holder INCRs a counter key and carries the number into
// every write to the protected resource, which refuses a number lower than
// the highest it has seen: a holder that paused past its TTL is refused
// instead of overwriting its successor. The counter lives on the same node
// with no TTL; a node that loses its data restarts it at 1.
//
// Choices: the counter key is Key + ":fence". If INCR fails the lock is
// released and the try counts as failed: holding a lock without a fencing
// number would defeat the point.
var fencedTokenAlgorithm = register(Algorithm{
	Name:     "fenced-token",
	Source:   Reference,
	Summary:  "set-nx-px-token plus a fencing number from INCR key:fence that the protected resource checks",
	Defaults: setNXPXTokenAlgorithm.Defaults,
	Scripts:  unlockScripts,
	Assumes:  Assumptions{Expiry: ExpiryTTL},
	lifetime: func(p Params) time.Duration { return p.TTL },
}, func(name string, p Params) sim.Locker {
	l := &setNXPXToken{name: name, p: p}
	l.granted = func(pr sim.Proc, tok string) (sim.Lease, bool) {
		// INCR the fencing counter; if that fails, give the lock back and
		// count the try as failed.
		r, err := sim.Do(pr, 0, "INCR", FenceKey(p.Key))
		if err == nil && r.Kind == node.Int {
			return sim.Lease{Held: true, Token: tok, Fence: r.Int}, true
		}
		unlock(pr, 0, p.Key, tok)
		return sim.Lease{}, false
	}
	return l
})

// FenceKey is the counter fenced-token INCRs for lock key key.
func FenceKey(key string) string { return key + ":fence" }
