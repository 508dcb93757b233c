package locks

import (
	"strings"
	"time"
)

// Assumptions are what a lock assumes of the world it runs in. A run that
// keeps them and still fails shows a bug in the lock; a run that breaks one
// shows the lock's known limit (scenarios.Scenario.InsideTTL judges a
// scenario against them, and explore's inside search draws only runs that
// keep them).
//
// Every lock that measures time assumes its lease outlasts what a holder
// does with it: work, plus the most one client is paused, plus two round
// trips, plus the drift of the clocks over the lease, stay below the lease
// (for a lock whose watchdog renews, the lease left after one renewal
// period instead of the work). What else it assumes depends on how its
// lease ends, and on what it declares below.
type Assumptions struct {
	// Expiry is what ends a lease whose holder does not release it.
	Expiry Expiry
	// Pause is the longest a client may be paused in all, as the lock
	// declares it (an algorithm file's assumes: pause:); 0 leaves pauses to
	// the time the lease leaves after work, round trips and drift.
	Pause time.Duration
	// Fsync says the deployment keeps every acknowledged write across a
	// node restart (appendfsync always), so a node restart is inside
	// whatever the scenario's persistence; without it only a node with
	// persistence aof-always, or one that stays down for a whole lease
	// (redis.io's delayed restart), keeps a timed lock's assumptions.
	Fsync bool
	// Wait is the timeout of the WAIT the lock runs after taking the lock
	// on a primary: a failover is inside when every replica acknowledges
	// within it (its replication lag is below Wait) and the client's
	// timeout outlasts it by a round trip. 0: the lock does not wait, and
	// a failover, which loses what the replica had not received, is
	// outside.
	Wait time.Duration
	_    struct{} // grows: callers name the fields they set
}

// Expiry is what ends an abandoned lease.
type Expiry uint8

const (
	// ExpiryTTL: the key's TTL on the node, on the node's clock. A node
	// clock jump moves it: outside.
	ExpiryTTL Expiry = iota
	// ExpiryTimestamp: a timestamp in the value that every client compares
	// with its own clock. The clients' clocks must agree: the spread
	// between them (offsets and jumps) counts against the lease as work
	// does, and the lease is the TTL in whole timestamp units
	// (Params.Resolution), the units the lock writes and compares.
	ExpiryTimestamp
	// ExpiryBoth: both of the above (a timestamp in the value and a TTL on
	// the key).
	ExpiryBoth
	// ExpiryNone: nothing ends it; the lock assumes nothing of time, so
	// pauses, skew and jumps are all inside. A node restart that loses
	// the key is still outside.
	ExpiryNone
)

var expiryNames = [...]string{"ttl", "timestamp", "both", "none"}

func (e Expiry) String() string {
	if int(e) < len(expiryNames) {
		return expiryNames[e]
	}
	return "unknown"
}

// ParseExpiry reads an Expiry by its name.
func ParseExpiry(s string) (Expiry, bool) {
	for i, n := range expiryNames {
		if n == s {
			return Expiry(i), true
		}
	}
	return 0, false
}

// ExpiryNames lists the names ParseExpiry reads.
func ExpiryNames() []string { return append([]string(nil), expiryNames[:]...) }

// Timed says whether something of time ends the lease.
func (e Expiry) Timed() bool { return e != ExpiryNone }

// UsesNodeTTL says whether the node's clock ends the lease.
func (e Expiry) UsesNodeTTL() bool { return e == ExpiryTTL || e == ExpiryBoth }

// UsesClientClocks says whether the clients' clocks end the lease.
func (e Expiry) UsesClientClocks() bool { return e == ExpiryTimestamp || e == ExpiryBoth }

// Words are the assumptions in one line, as every search prints them.
func (a Assumptions) Words() string {
	var w []string
	switch a.Expiry {
	case ExpiryNone:
		w = append(w, "no expiry: nothing of time")
	default:
		budget := "work + pauses + 2 × round trip + drift"
		if a.Expiry.UsesClientClocks() {
			budget += " + client clock spread"
		}
		w = append(w, budget+" below the lease (a renewed lease: pauses + renewal period + 2 × round trip + drift + the wait for a lost reply)")
		if a.Expiry.UsesNodeTTL() {
			w = append(w, "no node clock jump")
		}
	}
	if a.Pause > 0 {
		w = append(w, "pauses up to "+a.Pause.String())
	}
	if a.Fsync {
		w = append(w, "node restarts keep acknowledged writes (fsync)")
	} else if a.Expiry.Timed() {
		w = append(w, "a node restart keeps its writes (aof-always) or stays down a lease")
	} else {
		w = append(w, "a node restart keeps its writes (aof-always)")
	}
	if a.Wait > 0 {
		w = append(w, "a failover keeps what WAIT acknowledged within "+a.Wait.String())
	} else {
		w = append(w, "no failover")
	}
	w = append(w, "crashes, lost replies and timeouts allowed")
	return strings.Join(w, "; ")
}
