package sim

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim/node"
)

// Persistence is what a node restart keeps: none (every key is lost),
// aof-everysec (the writes since the node clock's last whole second are
// lost) or aof-always (nothing is lost). sim/node/persist.go has the rules.
type Persistence = node.Persistence

// The persistence modes.
const (
	PersistNone     = node.PersistNone
	PersistEverysec = node.PersistEverysec
	PersistAlways   = node.PersistAlways
)

// downFor is how long fault f keeps its node unavailable: a node restart's
// Dur plus the node's RestartDelay (redis.io: a restarted Redlock node
// should stay unavailable for at least the longest TTL); another fault's Dur.
func (c *Config) downFor(f *Fault) time.Duration {
	if f.Kind == fault.NodeRestart && f.Node >= 0 && f.Node < len(c.Nodes) {
		return f.Dur + c.Nodes[f.Node].RestartDelay
	}
	return f.Dur
}

// MaxReplayed bounds the logged commands that aof-everysec restarts replay
// in one run (each restart that lost commands replays the whole kept log,
// so the sum grows with restarts x commands: about 2.5 s a million here).
// The run that passes it stops there, cut, like one at the event cap.
const MaxReplayed = 20_000_000

var replayLimit = MaxReplayed // lowered by a test

// restartNode restarts node f.Node at its own clock and completes the
// fault's event: Dur is the whole time it stays unavailable (with the
// restart delay); with persistence, Value is the mode and Key the watched
// key as the reload left it (a restart without persistence records neither:
// the key is gone, and the event is what it always was).
func restartNode(r *runner, f *Fault, ev *Event) {
	n := &r.nodes[f.Node]
	now := n.clock.at(r.now).Std()
	r.replayed += n.n.Restart(now)
	if r.replayed > replayLimit && r.cut == "" {
		r.cut = fmt.Sprintf("restart replay limit %d commands reached", replayLimit)
	}
	ev.Dur = r.cfg.downFor(f)
	if mode := n.n.Persistence(); mode != PersistNone {
		ev.Value = int64(mode)
		if k := n.n.Watched(); k.Exists {
			ev.Key = k
		}
	}
}

// RestartPersistence is the persistence of the node a node-restart event
// restarted, as the event records it; PersistNone for any other event (a
// failover's Value is the lane it promoted).
func (e *Event) RestartPersistence() Persistence {
	if e.Kind != KindFault || e.Fault != fault.NodeRestart {
		return PersistNone
	}
	return Persistence(e.Value)
}
