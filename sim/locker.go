package sim

import (
	"errors"
	"math/rand/v2"
	"slices"
	"time"
)

// Proc is what an algorithm sees of its simulated client process.
type Proc interface {
	Name() string
	// Now reads this process's local clock. It does not yield.
	Now() time.Time
	// Do sends one command to node and waits for the reply. It yields. An
	// error reply from Redis comes back as a *RedisError; a lost request or
	// reply, or a slow one, as ErrTimeout (the command may still have run).
	Do(node int, args ...string) (Reply, error)
	// Sleep waits d of true time. It yields.
	Sleep(d time.Duration)
	// Rand is this process's deterministic random source (tokens, jitter).
	Rand() *rand.Rand
	// Nodes is how many Redis nodes the run has.
	Nodes() int
}

// Do is p.Do(node, args...), without the allocation a variadic call through
// the Proc interface makes: the compiler cannot see that the callee keeps
// no reference to args, so every such call puts its argument list on the
// heap (two of a run's allocations in three above its commands'). The
// engine's processes copy the list into their run's memory; another Proc
// is given a copy. Lock code sends its commands through it.
func Do(p Proc, node int, args ...string) (Reply, error) {
	if sp, ok := p.(*process); ok {
		return sp.do(node, args)
	}
	return p.Do(node, slices.Clone(args)...)
}

// ErrTimeout is the client-side timeout: the caller cannot know whether the
// command ran.
var ErrTimeout = errors.New("timeout")

// RedisError is an error reply from a node.
type RedisError struct{ Msg string }

func (e *RedisError) Error() string { return e.Msg }

// Lease is what Acquire hands back.
type Lease struct {
	Held  bool
	Token string // the value that identifies this holder, if the algorithm has one
	Fence int64  // fencing number carried into resource writes; 0 = none
}

// Locker is one lock algorithm as one process runs it. The engine makes a new
// Locker for every process incarnation, so instance fields are process memory.
type Locker interface {
	// Acquire runs the algorithm's own acquire with its own retry policy. An
	// error means the algorithm's code failed (it would have thrown): the
	// process stops.
	Acquire(p Proc) (Lease, error)
	Release(p Proc, l Lease) error
}

// Extender is a Locker whose lease can be renewed (redsync's Extend,
// Redisson's watchdog, bsm/redislock's Refresh). The workload's watchdog
// calls it every ProcSpec.RenewEvery while the holder works; false or an
// error tells the holder it has lost the lock, and it stops writing.
type Extender interface {
	Extend(p Proc, l Lease) (bool, error)
}

// SilentRenewal is an Extender whose failed renewal its holder is not told
// of, as python-redis-lock's renewal thread dies on the exception and
// nobody hears of it: the watchdog ends, and the holder works on, writes
// and releases as if it still held the lock.
type SilentRenewal interface {
	Extender
	RenewalFailsSilently() bool
}

// SelfRenewing is an Extender whose library runs the watchdog itself, as
// Redisson's lock does: a client with no RenewEvery of its own renews every
// RenewEvery() of the algorithm's.
type SelfRenewing interface {
	Extender
	RenewEvery() time.Duration
}

// CallBudgeter is a lock whose client bounds each command by timeouts and
// retries of its own rather than the scenario's network timeout (go-redis:
// a read timeout per try, and retries): CallBudget is the longest one
// command may take before the client gives up. The generator's run lengths
// budget it, so that a run cut at its duration is a real hang, not a client
// still waiting out its timeouts; and a renewal whose reply is lost is
// known to have failed only when it runs out (scenarios.Scenario.InsideOf).
type CallBudgeter interface {
	CallBudget() time.Duration
}
