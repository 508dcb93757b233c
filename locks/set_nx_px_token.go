package locks

import (
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// Source: reference (redis.io SET command page, "Patterns", and the
// single-instance part of redis.io/topics/distlock).
//
// SET resource_name my_random_value NX PX 30000; release with the
// compare-and-delete script, so a client only ever deletes its own lock.
// It still has no answer to a holder that pauses past the TTL (the next
// holder overlaps it) or to a node that loses its data: fenced-token and
// the checkers show those.
//
// Choices (no document sets them): key and TTL from distlock's example, a
// fresh random token per try, a retry every 200 ms ± 50% (the retry delay
// of redlock-rb), no bound on tries. A timeout is not an error: the SET may
// or may not have run, so the try counts as failed and a lock it did take
// expires with its TTL. A failed release is left to the TTL too.
var setNXPXTokenAlgorithm = register(Algorithm{
	Name:     "set-nx-px-token",
	Source:   Reference,
	Summary:  "SET key random-token NX PX ttl; release with the Lua compare-and-delete script",
	Defaults: Params{Key: "resource_name", TTL: 30 * time.Second, Retries: Forever, RetrySleep: 200 * time.Millisecond},
	Scripts:  unlockScripts,
	Assumes:  Assumptions{Expiry: ExpiryTTL},
	lifetime: func(p Params) time.Duration { return p.TTL },
}, func(name string, p Params) sim.Locker { return &setNXPXToken{name: name, p: p} })

// unlockScript is distlock's release: delete the key only if it still holds
// our token.
const unlockScript = `if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end`

// unlockScripts names unlockScript for the algorithms that release with it.
var unlockScripts = map[string]string{unlockScript: "compare-and-delete release script"}

type setNXPXToken struct {
	name string
	p    Params
	// granted, if set, runs once SET has granted the lock with tok and says
	// whether to keep it (fenced-token takes its fencing number here).
	granted func(p sim.Proc, tok string) (lease sim.Lease, keep bool)
	// retake, if set, runs after a SET NX that failed with a token kept
	// across tries (token_scope: acquire) and says whether the key is ours
	// after all (token-extend: a retry after a lost reply).
	retake func(p sim.Proc, tok string) bool
}

func (l *setNXPXToken) Acquire(p sim.Proc) (sim.Lease, error) {
	toks := tokenSource{scope: l.p.TokenScope}
	px := millis(l.p.TTL) // PX's argument, the same at every try
	for try := 1; ; try++ {
		tok := toks.next(p)
		if setNXPX(p, 0, l.p.Key, tok, px) || try > 1 && l.retake != nil && toks.kept() && l.retake(p, tok) {
			if l.granted == nil {
				return sim.Lease{Held: true, Token: tok}, nil
			}
			if lease, keep := l.granted(p, tok); keep {
				return lease, nil
			}
		}
		if LastTry(try, l.p.Retries) {
			return sim.Lease{}, nil
		}
		p.Sleep(Jitter(p, l.p.RetrySleep))
	}
}

func (l *setNXPXToken) Release(p sim.Proc, lease sim.Lease) error {
	unlock(p, 0, l.p.Key, lease.Token)
	return nil
}

// setNXPX tries SET key tok NX PX px on node n, px the TTL in milliseconds
// (millis). An error (timeout, error reply) is a lock not granted.
func setNXPX(p sim.Proc, n int, key, tok, px string) bool {
	r, err := sim.Do(p, n, "SET", key, tok, "NX", "PX", px)
	return err == nil && r.Kind == node.Status && r.Str == "OK"
}

// unlock runs the compare-and-delete script on node n; failures are left to
// the TTL.
func unlock(p sim.Proc, n int, key, tok string) {
	if tok == "" {
		return
	}
	_, _ = sim.Do(p, n, "EVAL", unlockScript, "1", key, tok)
}
