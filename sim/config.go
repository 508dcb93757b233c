package sim

import (
	"time"

	"github.com/locksim/locksim/fault"
)

// Config is everything one run depends on.
type Config struct {
	Seed      uint64
	Duration  time.Duration // true-time limit of the run
	MaxEvents int           // history limit; 0 means DefaultMaxEvents
	Nodes     []NodeSpec
	Procs     []ProcSpec
	Network   Network
	Faults    []Fault
	// NewLocker makes the lock algorithm for one process incarnation.
	NewLocker func(proc int) Locker
	// WatchKey is recorded on every node after every command (the lock key).
	WatchKey string
	// OnPoint, when set, is told of every send and reply trigger point of
	// a process as it happens, in order, before any fault waiting for it
	// fires, with the time and how many events the history held then:
	// how 'prove' learns a run's choice points (prove/). It must not call
	// back into the run.
	OnPoint func(point Point, proc int, now Time, events int)
	// OnState, when set, is told at the same points, after OnPoint, the
	// run's state keys there (statehash.go): equal keys, equal futures.
	// Off, the engine keeps no observations and hashes nothing.
	OnState func(point Point, proc int, keys StateKeys)
	// StateFrom, with OnPoint set, is the first trigger point (the
	// StateFrom-th OnPoint call, from 1) OnState is told of; 0 or 1: every
	// one. The state is hashed only where it is asked for (prove extends
	// a run only after its last choice).
	StateFrom int
	_         struct{} // grows: callers name the fields they set
}

// DefaultMaxEvents bounds a run's history when Config.MaxEvents is 0.
const DefaultMaxEvents = 1_000_000

// NodeSpec is one Redis node.
type NodeSpec struct {
	Clock ClockSpec
	// Persistence is what a node restart keeps (node.Persistence; zero:
	// nothing, every key is lost). RestartDelay keeps a restarted node
	// unavailable that much longer than the restart's own Dur (redis.io's
	// delayed restart). See persist.go.
	Persistence  Persistence
	RestartDelay time.Duration
	// Replicas follow this node's writes (replication.go), each after a lag
	// drawn from ReplicationLag; a failover promotes one of them.
	Replicas       int
	ReplicationLag Latency
}

// ProcSpec is one client process and its workload.
type ProcSpec struct {
	Name       string
	Clock      ClockSpec
	Start      time.Duration // true time at which it starts
	Iterations int           // acquire → critical section → release rounds
	Work       time.Duration // time held between reading and writing the resource
	Think      time.Duration // pause after each round
	// RenewEvery, when the Locker is an Extender, runs a watchdog beside
	// the critical section that extends the lease on this period: a second
	// coroutine of the process, paused and crashed with it. 0: the
	// Locker's own period if it is SelfRenewing, else no watchdog.
	RenewEvery time.Duration
	// Reenter is how many times the holder acquires again inside its
	// critical section (and releases as many before its own release).
	Reenter int
}

// Latency is uniform in [Min, Max]; Min == Max is fixed.
type Latency struct {
	Min, Max time.Duration
}

// Network applies to every command.
type Network struct {
	Request     Latency
	Reply       Latency
	LossRequest float64 // probability that the request never arrives
	LossReply   float64 // probability that the command runs but the reply never arrives
	Timeout     time.Duration
}

// Point is where in a process's life a trigger looks.
type Point uint8

const (
	PointAt       Point = iota // no trigger: the fault fires at Fault.At
	PointSend                  // the process is about to send a command
	PointReply                 // a reply reached the process
	PointAcquired              // Acquire returned held
	PointReleased              // Release returned
)

var pointNames = [...]string{"at", "send", "reply", "acquired", "released"}

func (p Point) String() string {
	if int(p) < len(pointNames) {
		return pointNames[p]
	}
	return "unknown"
}

// Trigger fires a fault on the Nth matching event of one process.
type Trigger struct {
	Point Point
	Proc  int
	Cmd   string // PointSend/PointReply: command name, upper case; "" matches any
	N     int    // 1-based
}

// Fault is one planned fault.
type Fault struct {
	Kind fault.Kind
	Proc int // target of pause, crash, proc clock jump
	Node int // target of node clock jump, node restart
	// At is the true time it fires, unless On says an event triggers it.
	At time.Duration
	On Trigger
	// Dur: pause length; crash: restart a fresh process after Dur (0: stays
	// down); clock jump: how far; node restart: time down; failover: the
	// detection delay, during which the address answers nothing.
	Dur time.Duration
}
