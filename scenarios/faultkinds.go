package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/locks"
)

// fileFault is a fault kind as a scenario file writes it (kind:): the
// fault package's rows with that file name, one per target it takes (a
// clock-jump names a client or a node). Everything about it (its target,
// its length field, the sim.Fault it builds) is read from those rows;
// validation, Prepare and InsideOf name no kind themselves.
type fileFault struct {
	name string
	// client and node are the kinds it builds aimed at a client or at a
	// node; 0 for a target it does not take.
	client, node fault.Kind
}

// fileFaults lists the kinds a file may write, in the fault table's order
// (validation names them in it).
var fileFaults = fileFaultsOf()

func fileFaultsOf() []fileFault {
	var out []fileFault
	for _, name := range fault.Files() {
		out = append(out, fileFault{name: name, client: fault.OfFile(name, false), node: fault.OfFile(name, true)})
	}
	return out
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

// onNode reports whether f names a node as its target: always for a kind
// only a node takes, when it names one for a kind both take.
func (k *fileFault) onNode(f *Fault) bool {
	return k.client == 0 || (k.node != 0 && f.Node != nil)
}

// kindOf is the engine's kind for f.
func (k *fileFault) kindOf(f *Fault) fault.Kind {
	if k.onNode(f) {
		return k.node
	}
	return k.client
}

// field is the length field the kind takes (its targets take the same).
func (k *fileFault) field() fault.Field { return max(k.client, k.node).Field() }

// lost says the kind loses a command: it needs on: (the command it loses
// is the client's next one) and a timeout to end the client's wait (for:,
// or the network's).
func (k *fileFault) lost() bool { return max(k.client, k.node).LosesCommand() }

// build is the engine's kind and Dur for f (f.Node set when it names one).
func (k *fileFault) build(f *Fault) (fault.Kind, time.Duration) {
	kind := k.kindOf(f)
	switch kind.Field() {
	case fault.FieldFor:
		return kind, f.For.D()
	case fault.FieldRestartAfter:
		return kind, f.RestartAfter.D()
	case fault.FieldBy:
		return kind, f.By.D()
	}
	return kind, 0
}

// EngineKind is the engine's kind for f, as validation resolves its file
// kind and target; 0 for a kind no file writes.
func (f *Fault) EngineKind() fault.Kind {
	if k := fileFaultOf(f.Kind); k != nil {
		return k.kindOf(f)
	}
	return 0
}

// FaultKinds lists the kinds a file may write, in order: validation names
// them.
func FaultKinds() []string { return fault.Files() }

// outsides says, for a kind whose fault may break a lock's assumptions,
// which and why ("" if it does not), for a lock whose lease is sure to
// last lease (0: no expiry). A kind that breaks a plain TTL lock's
// assumptions (fault.Kind.BreaksTTL) needs an entry; a kind that pauses
// or jumps a client's clock counts against the lease instead (InsideOf).
var outsides = map[fault.Kind]func(s *Scenario, algo locks.Algorithm, lease time.Duration, f *Fault) (what, why string){
	fault.NodeJump: func(_ *Scenario, algo locks.Algorithm, _ time.Duration, _ *Fault) (string, string) {
		if algo.Assumes.Expiry.UsesNodeTTL() {
			return AssumeNodeClock, fault.NodeJump.BreaksTTL()
		}
		return "", ""
	},
	fault.NodeRestart: restartOutside,
	fault.Failover:    failoverOutside,
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

// takersOf names the kinds that take field, for "only a … has …".
func takersOf(field fault.Field) string {
	var out []string
	for i := range fileFaults {
		if fileFaults[i].field() == field {
			out = append(out, fileFaults[i].name)
		}
	}
	return strings.Join(out, " or a ")
}
