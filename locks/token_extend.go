package locks

import (
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// Source: reference, written from two public descriptions, not from their
// code: redis.io/topics/distlock ("Making the algorithm more reliable:
// extending the lock": a client "may extend the lock by sending a Lua script
// to all the instances that extends the TTL of the key if the key exists and
// its value is still the random value the client assigned when the lock was
// acquired") and the README of go-redsync/redsync (Mutex.Lock, Unlock and
// Extend: an expiry of 8 s, 32 tries, a random retry delay of 50 to 250 ms).
//
// Acquire is set-nx-px-token's SET NX PX with a random token; release is
// the compare-and-delete script; Extend runs a compare-and-PEXPIRE script:
// the TTL is reset only while the key still holds our token. A client that
// extends on a period (the workload's watchdog; TTL/2 unless the scenario
// sets renew_every) can work for longer than one TTL. What renewal cannot
// fix: a pause longer than the TTL between two renewals lets the key expire
// and the next holder in before the paused one learns, at its next
// (failed) extend, that the lock is gone.
//
// Choices: redsync's constants; its retry delay, uniform in [50, 250) ms,
// is approximated by the built-ins' jitter around 150 ms ([75, 225) ms).
// One node (redsync's quorum over several is redlock's business). A timeout
// of an extend is an error (redsync returns one): the holder must assume the
// lock lost. With token_scope: acquire, a retry whose SET NX fails runs the
// extend script with the kept token, so a retry after a lost reply re-takes
// its own key, as bsm/redislock's Obtain does.
var tokenExtendAlgorithm = register(Algorithm{
	Name:     "token-extend",
	Source:   Reference,
	Summary:  "SET NX PX with a random token, renewed by a compare-and-PEXPIRE script (redsync's Extend); compare-and-delete release",
	Defaults: Params{Key: "resource_name", TTL: 8 * time.Second, Retries: 32, RetrySleep: 150 * time.Millisecond},
	Scripts:  map[string]string{unlockScript: "compare-and-delete release script", extendScript: "compare-and-pexpire extend script"},
	Assumes:  Assumptions{Expiry: ExpiryTTL},
	lifetime: func(p Params) time.Duration { return p.TTL },
}, func(name string, p Params) sim.Locker {
	l := &tokenExtend{setNXPXToken{name: name, p: p}}
	l.retake = func(pr sim.Proc, tok string) bool {
		ok, err := l.Extend(pr, sim.Lease{Held: true, Token: tok})
		return ok && err == nil
	}
	return l
})

// extendScript resets the key's TTL only while it holds our token.
const extendScript = `if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("pexpire",KEYS[1],ARGV[2])
else
    return 0
end`

type tokenExtend struct{ setNXPXToken }

// RenewEvery is the period a client renews on when the scenario sets none:
// half the TTL, what redsync's users are told to leave themselves.
func (l *tokenExtend) RenewEvery() time.Duration { return l.p.TTL / 2 }

// Extend resets the TTL if the key still holds the lease's token.
func (l *tokenExtend) Extend(p sim.Proc, lease sim.Lease) (bool, error) {
	r, err := sim.Do(p, 0, "EVAL", extendScript, "1", l.p.Key, lease.Token, millis(l.p.TTL))
	if err != nil {
		return false, err
	}
	return r.Kind == node.Int && r.Int == 1, nil
}
