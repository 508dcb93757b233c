package locks

import (
	"strconv"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// Source: reference (set-nx-px-token plus WAIT, against the failover race
// of redis.io/topics/distlock, "Why failover-based implementations are not
// enough").
//
// The distributed-lock page says why a single primary with a replica is not
// enough: replication is asynchronous, so client A takes the lock on the
// primary, the primary crashes before the write reaches its replica, the
// replica is promoted, and client B takes the lock A still holds. The WAIT
// page says what WAIT is for: it blocks until the client's writes reach
// that many replicas or the timeout passes, and "does not make Redis a
// strongly consistent store"; it improves the odds in a failover, it does
// not make a lost acknowledged write impossible.
//
// This lock is set-nx-px-token with one step after a granted SET:
// WAIT 1 50, then it keeps the lock whatever WAIT answered. That is what
// most code that calls WAIT does (it logs fewer replicas than asked, or
// does nothing with the count): the lock narrows the failover window to the
// writes that took longer than the WAIT timeout to replicate, and still
// loses those (scenario failover-wait-lagging). A lock that treated 0 as
// not acquired (and released) would, in locksim's model of one replica,
// close that window at the price of no lock whenever the replica lags;
// Sentinel promoting a replica other than the one that acknowledged, which
// that variant would still lose to, is not modelled.
//
// Choices (no document sets them): everything of set-nx-px-token, a WAIT
// timeout of 50 ms (inside a usual client timeout; a client whose timeout
// is shorter than that plus the round trip fails every WAIT and never gets
// the lock: the matrix's stuck under net); a WAIT that fails on the client
// (a timeout, the primary lost during it) is a try that failed, and the
// try's key is released with the compare-and-delete script before the next
// one.
var setNXPXWaitAlgorithm = register(Algorithm{
	Name:     "set-nx-px-wait",
	Source:   Reference,
	Summary:  "set-nx-px-token, then WAIT 1 50 for a replica; keeps the lock whatever WAIT answers",
	Defaults: Params{Key: "resource_name", TTL: 30 * time.Second, Retries: Forever, RetrySleep: 200 * time.Millisecond},
	Scripts:  unlockScripts,
	Assumes:  Assumptions{Expiry: ExpiryTTL, Wait: WaitTimeout},
	lifetime: func(p Params) time.Duration { return p.TTL },
}, func(name string, p Params) sim.Locker {
	return &setNXPXToken{name: name, p: p, granted: func(pr sim.Proc, tok string) (sim.Lease, bool) {
		return waitForReplica(pr, p.Key, tok)
	}}
})

// WaitReplicas and WaitTimeout are set-nx-px-wait's WAIT arguments.
const (
	WaitReplicas = 1
	WaitTimeout  = 50 * time.Millisecond
)

// waitForReplica runs WAIT after a granted SET. The count it answers is
// not checked (see above); an error is a try that failed, whose key is
// released rather than left to block everyone for a TTL.
func waitForReplica(p sim.Proc, key, tok string) (sim.Lease, bool) {
	r, err := sim.Do(p, 0, "WAIT", strconv.Itoa(WaitReplicas), millis(WaitTimeout))
	if err != nil || r.Kind != node.Int {
		unlock(p, 0, key, tok)
		return sim.Lease{}, false
	}
	return sim.Lease{Held: true, Token: tok}, true
}
