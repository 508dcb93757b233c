package locks

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// Source: reference, written from Redisson's public documentation of its
// RLock (the Redisson wiki, "Distributed locks and synchronizers": a
// re-entrant lock; "if Redisson instance which acquired lock crashes then
// such lock could hang forever in acquired state. To avoid this Redisson
// maintains lock watchdog, it prolongs lock expiration while lock holder
// Redisson instance is alive. By default lock watchdog timeout is 30
// seconds"; the lease is renewed every third of that timeout), not from its
// code.
//
// The lock is a hash: field = the owner (Redisson's "UUID:threadId"; here
// the process's name and a random id kept for the process's life), value =
// how many times that owner holds it. Acquire: if the key is absent or the
// owner's field exists, HINCRBY the field and PEXPIRE the key, in one
// script. The watchdog: while the owner's field exists, PEXPIRE the key,
// every TTL/3. Release: if the owner's field exists, HINCRBY it by -1; at
// zero delete the key, above zero PEXPIRE it. A re-entrant Acquire by the
// same owner only counts up, and its Release only counts down.
//
// What the watchdog cannot know: it renews for as long as its process
// lives, not for as long as the holder's work makes progress. A holder that
// stalls while its process stays up keeps the lock for ever; one whose
// process pauses longer than the TTL (watchdog included) loses it to the
// next holder and learns only at its next renewal.
//
// Choices: Redisson waits for an unlock message (pub/sub) before retrying;
// locksim polls every 100 ms ± 50% instead, with no bound (lock()). A
// renewal that times out is an error: the holder assumes the lock lost.
var hashReentrantWatchdogAlgorithm = register(Algorithm{
	Name:     "hash-reentrant-watchdog",
	Source:   Reference,
	Summary:  "Redisson-style re-entrant lock: a hash of owner → count with PEXPIRE, a watchdog renewing every TTL/3, unlock counts down and deletes at zero",
	Defaults: Params{Key: "myLock", TTL: 30 * time.Second, Retries: Forever, RetrySleep: 100 * time.Millisecond},
	Scripts: map[string]string{hashLockScript: "re-entrant acquire script", hashRenewScript: "watchdog renewal script",
		hashUnlockScript: "re-entrant release script"},
	Assumes:  Assumptions{Expiry: ExpiryTTL},
	lifetime: func(p Params) time.Duration { return p.TTL },
}, func(name string, p Params) sim.Locker { return &hashReentrant{name: name, p: p} })

// hashLockScript takes the lock for owner ARGV[2] or counts up its hold:
// nil when held, else the key's remaining TTL.
const hashLockScript = `if redis.call("exists",KEYS[1]) == 0 or redis.call("hexists",KEYS[1],ARGV[2]) == 1 then
    redis.call("hincrby",KEYS[1],ARGV[2],1)
    redis.call("pexpire",KEYS[1],ARGV[1])
    return nil
end
return redis.call("pttl",KEYS[1])`

// hashRenewScript is the watchdog's: renew only while the owner holds it.
const hashRenewScript = `if redis.call("hexists",KEYS[1],ARGV[2]) == 1 then
    redis.call("pexpire",KEYS[1],ARGV[1])
    return 1
end
return 0`

// hashUnlockScript counts the owner's hold down and deletes the key at zero:
// nil if the owner did not hold it, 0 if still held, 1 if released.
const hashUnlockScript = `if redis.call("hexists",KEYS[1],ARGV[2]) == 0 then
    return nil
end
if redis.call("hincrby",KEYS[1],ARGV[2],-1) > 0 then
    redis.call("pexpire",KEYS[1],ARGV[1])
    return 0
end
redis.call("del",KEYS[1])
return 1`

type hashReentrant struct {
	name  string
	p     Params
	owner string // drawn at first use; this process incarnation's id
}

func (l *hashReentrant) ownerID(p sim.Proc) string {
	if l.owner == "" {
		l.owner = fmt.Sprintf("%s:%016x", p.Name(), p.Rand().Uint64())
	}
	return l.owner
}

// RenewEvery is Redisson's watchdog period: a third of the lease.
func (l *hashReentrant) RenewEvery() time.Duration { return l.p.TTL / 3 }

func (l *hashReentrant) Acquire(p sim.Proc) (sim.Lease, error) {
	owner := l.ownerID(p)
	leaseMillis := millis(l.p.TTL) // the script's ARGV[1], the same at every try
	for try := 1; ; try++ {
		r, err := sim.Do(p, 0, "EVAL", hashLockScript, "1", l.p.Key, leaseMillis, owner)
		if err == nil && r.Kind == node.Nil {
			return sim.Lease{Held: true, Token: owner}, nil
		}
		if LastTry(try, l.p.Retries) {
			return sim.Lease{}, nil
		}
		p.Sleep(Jitter(p, l.p.RetrySleep))
	}
}

// Extend is the watchdog's renewal.
func (l *hashReentrant) Extend(p sim.Proc, lease sim.Lease) (bool, error) {
	r, err := sim.Do(p, 0, "EVAL", hashRenewScript, "1", l.p.Key, millis(l.p.TTL), lease.Token)
	if err != nil {
		return false, err
	}
	return r.Kind == node.Int && r.Int == 1, nil
}

// Release counts down; a failure is left to the TTL, as for the others.
func (l *hashReentrant) Release(p sim.Proc, lease sim.Lease) error {
	_, _ = sim.Do(p, 0, "EVAL", hashUnlockScript, "1", l.p.Key, millis(l.p.TTL), lease.Token)
	return nil
}
