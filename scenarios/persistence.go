package scenarios

import (
	"strings"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// A node's restart rules, as files write them:
//
//	nodes:
//	  - persistence: aof-everysec   # none (default), aof-everysec, aof-always
//	    restart_delay: 11s          # unavailable this much longer after a restart
//
// none loses every key at a node-restart (what locksim always did);
// aof-always keeps every command that ran; aof-everysec keeps the commands
// that ran before the node clock's last whole second (the fsync point) and
// loses those since. A key whose TTL ran out while the node was down is not
// served when it is back. restart_delay adds to each node-restart's for:
// redis.io's delayed restart, a Redlock node kept unavailable for at least
// the longest TTL after it restarts.

// spec is the engine's node.
func (n Node) spec() sim.NodeSpec {
	mode, _ := node.ParsePersistence(n.persistence()) // validated
	return sim.NodeSpec{Clock: n.Clock.spec(), Persistence: mode, RestartDelay: n.RestartDelay.D(), Replicas: n.Replicas,
		ReplicationLag: sim.Latency{Min: n.ReplicationLag.Min.D(), Max: n.ReplicationLag.Max.D()}}
}

// persistence is the mode's name; "" is none.
func (n Node) persistence() string {
	if n.Persistence == "" {
		return node.PersistNone.String()
	}
	return n.Persistence
}

func (n Node) validateRestart(field string) error {
	if _, ok := node.ParsePersistence(n.persistence()); !ok {
		return fieldError(field+".persistence", "%q is not a persistence mode (valid: %s)", n.Persistence, strings.Join(node.PersistenceNames(), ", "))
	}
	if n.RestartDelay < 0 || n.RestartDelay.D() > MaxDuration {
		return fieldError(field+".restart_delay", "must be within 0s..%s", MaxDuration)
	}
	return nil
}
