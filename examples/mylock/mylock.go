// Package mylock is the worked example of simtest: a team's own Redis lock,
// written against sim.Proc so that locksim can run it. Lock is correct under
// its assumptions (a holder finishes inside the TTL; no pauses past it, no
// node restarts). OptimisticLock has a one-line shortcut that a lossy
// network breaks, and simtest catches it (mylock_test.go).
package mylock

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// RetrySleep is the pause between tries of Acquire.
const RetrySleep = 50 * time.Millisecond

// Lock is SET key token NX PX ttl, released by a compare-and-delete script.
type Lock struct {
	Key string
	TTL time.Duration
}

// New makes the lock for one process: simtest calls it for every process
// incarnation, so its fields are that process's memory.
func New(key string, ttl time.Duration) *Lock { return &Lock{Key: key, TTL: ttl} }

// Acquire tries until it gets the lock, with a fresh token every try.
func (l *Lock) Acquire(p sim.Proc) (sim.Lease, error) {
	for {
		tok, ok, err := l.try(p)
		switch {
		case ok:
			return sim.Lease{Held: true, Token: tok}, nil
		case errors.Is(err, sim.ErrTimeout):
			// The SET may have run: a lock we took expires with its TTL.
		case err != nil:
			return sim.Lease{}, err
		}
		p.Sleep(RetrySleep)
	}
}

// try sends one SET NX PX with a fresh token; ok is an +OK reply.
func (l *Lock) try(p sim.Proc) (tok string, ok bool, err error) {
	// Tokens come from p.Rand, never math/rand: the run replays exactly.
	r := p.Rand()
	tok = fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64())
	reply, err := p.Do(0, "SET", l.Key, tok, "NX", "PX", strconv.FormatInt(l.TTL.Milliseconds(), 10))
	if err != nil {
		return tok, false, fmt.Errorf("SET %s: %w", l.Key, err)
	}
	return tok, reply.Kind == node.Status && reply.Str == "OK", nil
}

const unlock = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end
return 0`

// Release deletes the key only if it still holds our token, in one step.
func (l *Lock) Release(p sim.Proc, lease sim.Lease) error {
	_, err := p.Do(0, "EVAL", unlock, "1", l.Key, lease.Token)
	if err != nil && !errors.Is(err, sim.ErrTimeout) { // a lost release is left to the TTL
		return fmt.Errorf("EVAL unlock %s: %w", l.Key, err)
	}
	return nil
}

// OptimisticLock is Lock with a shortcut: a SET that times out counts as
// acquired, since "it most likely ran". When the request was lost it never
// ran, and another client takes the lock while this one thinks it holds it.
type OptimisticLock struct{ Lock }

// NewOptimistic makes the buggy lock for one process.
func NewOptimistic(key string, ttl time.Duration) *OptimisticLock {
	return &OptimisticLock{Lock{Key: key, TTL: ttl}}
}

// Acquire is Lock's, but for the timeout.
func (l *OptimisticLock) Acquire(p sim.Proc) (sim.Lease, error) {
	for {
		tok, ok, err := l.try(p)
		switch {
		case ok, errors.Is(err, sim.ErrTimeout): // the bug
			return sim.Lease{Held: true, Token: tok}, nil
		case err != nil:
			return sim.Lease{}, err
		}
		p.Sleep(RetrySleep)
	}
}
