package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
)

// Fault kinds as written in files.
const (
	FaultPause       = "pause"
	FaultCrash       = "crash"
	FaultClockJump   = "clock-jump"
	FaultNodeRestart = "node-restart"
	FaultFailover    = "failover"
	FaultLoseRequest = "lose-request"
	FaultLoseReply   = "lose-reply"
	FaultDogPause    = "watchdog-pause"
)

// fileFault is the scenarios' part of a fault kind (sim/faultkinds.go says
// what the engine does with it, explore/gen/faultkinds.go how the random
// generator draws it): the kind as written in a file, which fields it
// takes, the sim.Fault it builds, and what it does to the TTL's
// assumptions. Validation, Prepare and InsideOf read this table and name
// no kind themselves.
type fileFault struct {
	name   string
	target fileTarget
	// The length fields it takes; validation refuses the others.
	hasFor, hasRestartAfter, hasBy bool
	// lost: a lost request or reply, which needs on: (the command it
	// loses is the client's next one) and a timeout to end the client's
	// wait: for:, or the network's.
	lost bool
	// build is the engine's kind and Dur for f (f.Node set when it names one).
	build func(f *Fault) (sim.FaultKind, time.Duration)
	// outside, when set, says which of a lock's assumptions f breaks and
	// why ("" if it does not), for a lock whose lease is sure to last
	// lease (0: no expiry). A kind that pauses (sim.FaultKind.Pauses) or
	// jumps a client's clock counts against the lease instead (InsideOf).
	outside func(s *Scenario, algo locks.Algorithm, lease time.Duration, f *Fault) (what, why string)
}

// fileTarget is what a file's fault names.
type fileTarget uint8

const (
	targetClient fileTarget = iota + 1
	targetNode
	targetEither // a node when the fault names one, else a client
)

// fileFaults lists the kinds in the order validation names them; a new
// kind goes last.
var fileFaults = []fileFault{
	{name: FaultPause, target: targetClient, hasFor: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultPause, f.For.D() },
	},
	{name: FaultCrash, target: targetClient, hasRestartAfter: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultCrash, f.RestartAfter.D() },
	},
	{name: FaultClockJump, target: targetEither, hasBy: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) {
			if f.Node != nil {
				return sim.FaultNodeJump, f.By.D()
			}
			return sim.FaultProcJump, f.By.D()
		},
		outside: func(_ *Scenario, algo locks.Algorithm, _ time.Duration, f *Fault) (string, string) {
			if f.Node != nil && algo.Assumes.Expiry.UsesNodeTTL() {
				return AssumeNodeClock, "a node's clock jump moves the lock's expiry"
			}
			return "", ""
		},
	},
	{name: FaultNodeRestart, target: targetNode, hasFor: true,
		build:   func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultNodeRestart, f.For.D() },
		outside: restartOutside,
	},
	// For is the detection delay: the node answers nothing until a replica
	// is promoted.
	{name: FaultFailover, target: targetNode, hasFor: true,
		build:   func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultFailover, f.For.D() },
		outside: failoverOutside,
	},
	// For is how long the client waits for the lost command's reply before
	// it times out (0: network.timeout). What a timeout does to a lock is
	// the lock's own business, as for the network's random losses: no
	// assumption of the TTL is broken.
	{name: FaultLoseRequest, target: targetClient, hasFor: true, lost: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultLoseRequest, f.For.D() },
	},
	{name: FaultLoseReply, target: targetClient, hasFor: true, lost: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultLoseReply, f.For.D() },
	},
	// The client's watchdog alone stops for For; the holder works on. A
	// lock without a watchdog is not touched: no assumption of the TTL is
	// broken.
	{name: FaultDogPause, target: targetClient, hasFor: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultDogPause, f.For.D() },
	},
}

// fileFaultOf is the kind named name, or nil.
func fileFaultOf(name string) *fileFault {
	for i := range fileFaults {
		if fileFaults[i].name == name {
			return &fileFaults[i]
		}
	}
	return nil
}

// onNode reports whether f names a node as its target.
func (k *fileFault) onNode(f *Fault) bool {
	return k.target == targetNode || (k.target == targetEither && f.Node != nil)
}

// FaultKinds lists the kinds a file may write, in order: validation names
// them, and explore/gen checks that it draws each one.
func FaultKinds() []string {
	out := make([]string, len(fileFaults))
	for i, k := range fileFaults {
		out[i] = k.name
	}
	return out
}

// OutsideTTL reports whether a fault of this kind, aimed at a node or at a
// client, breaks the assumptions of a plain TTL lock (set-nx-px-token's:
// a lease on the node's TTL, no fsync, no WAIT) whatever its lengths:
// InsideOf refuses it outright.
func OutsideTTL(kind string, onNode bool) bool {
	k := fileFaultOf(kind)
	if k == nil || k.outside == nil {
		return false
	}
	f := Fault{Kind: kind}
	if onNode {
		f.Node = new(int)
	}
	_, why := k.outside(&Scenario{}, locks.Algorithm{Assumes: locks.Assumptions{Expiry: locks.ExpiryTTL}}, 0, &f)
	return why != ""
}

// restartOutside: a node restart keeps a lock's assumptions when the
// deployment keeps acknowledged writes (fsync), when the node's persistence
// keeps every command (aof-always), or, for a lock whose lease ends on its
// own, when the node stays down for a whole lease (redis.io's delayed
// restart: every lease it held has run out when it is back, and nobody
// could take one from it meanwhile). A lease a watchdog renews may outlive
// any down time, and a holder that re-enters waits out the down time on
// its re-entry while it holds (past its lease), so for either only the
// first two count: the generator draws no restart inside for them.
func restartOutside(s *Scenario, algo locks.Algorithm, lease time.Duration, f *Fault) (string, string) {
	a, n := algo.Assumes, s.nodeSpec(*f.Node)
	down := f.For.D() + n.RestartDelay.D()
	switch {
	case a.Fsync, n.persistence() == "aof-always":
		return "", ""
	case lease > 0 && down >= lease && !s.renews(algo) && !s.reenters():
		return "", ""
	case lease > 0:
		return AssumeRestart, fmt.Sprintf("a node restart down %s (persistence %s) loses the lock: inside, it keeps its writes or stays down the %s lease", down, n.persistence(), lease)
	}
	return AssumeRestart, fmt.Sprintf("a node restart (persistence %s) loses the lock", n.persistence())
}

// failoverOutside: a failover keeps a lock's assumptions only for a lock
// that WAITs for a replica (Assumptions.Wait), when every replica of the
// node acknowledges within the WAIT.
func failoverOutside(s *Scenario, algo locks.Algorithm, _ time.Duration, f *Fault) (string, string) {
	a, n := algo.Assumes, s.nodeSpec(*f.Node)
	switch {
	case a.Wait == 0:
		return AssumeFailover, "a failover loses what the replica had not received"
	case n.Replicas == 0:
		return AssumeFailover, "a failover with no replica loses the lock"
	case n.ReplicationLag.Max.D() >= a.Wait:
		return AssumeFailover, fmt.Sprintf("a replication lag of up to %s outlasts the lock's WAIT of %s: a failover loses what WAIT gave up on", n.ReplicationLag.Max.D(), a.Wait)
	}
	return "", ""
}

// renews says whether a watchdog renews some client's lease.
func (s *Scenario) renews(algo locks.Algorithm) bool {
	for _, c := range s.Clients {
		if s.renewal(algo, c) > 0 {
			return true
		}
	}
	return false
}

// reenters says a client re-enters the lock it holds (reenter > 0): its
// re-entry is a command to the node during its hold.
func (s *Scenario) reenters() bool {
	for _, c := range s.Clients {
		if c.Reenter > 0 {
			return true
		}
	}
	return false
}

// takersOf names the kinds that take a field, for "only a … has …".
func takersOf(has func(k *fileFault) bool) string {
	var out []string
	for i := range fileFaults {
		if has(&fileFaults[i]) {
			out = append(out, fileFaults[i].name)
		}
	}
	return strings.Join(out, " or a ")
}
