package locks

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// Source: redis-setnx-page, "Design pattern: Implementing locking with SETNX"
//
// The naive lock: SETNX a timestamp, DEL to release. Nobody ever reads the
// timestamp, so a holder that crashes leaves lock.foo behind for ever and
// every waiter waits for ever: the deadlock "Handling deadlocks" opens with.
//
// Departures: the document names no lock timeout; we take 3 s, the
// LOCK_TIMEOUT of lihao21-python, which retells this page. It
// names no pause for the retry loop either; we take the one second it gives
// C4 in "Handling deadlocks" ("sleep one second (for instance)").
var setnxDelAlgorithm = register(Algorithm{
	Name:     "setnx-del",
	Source:   "redis-setnx-page",
	Summary:  "SETNX a Unix timestamp, DEL to release; the timestamp is never checked, so a crashed holder deadlocks everyone",
	Defaults: Params{Key: "lock.foo", TTL: 3 * time.Second, Retries: Forever, RetrySleep: time.Second, Resolution: time.Second},
	Assumes:  Assumptions{Expiry: ExpiryNone},         // the timestamp is never read
	lifetime: func(Params) time.Duration { return 0 }, // never expires
}, func(name string, p Params) sim.Locker { return &setnxDel{name: name, p: p} })

type setnxDel struct {
	name string
	p    Params
}

func (l *setnxDel) Acquire(p sim.Proc) (sim.Lease, error) {
	for try := 1; ; try++ {
		// "SETNX lock.foo <current UNIX time + lock timeout + 1>"
		value := itoa(Stamp(p.Now(), l.p.Resolution) + Units(l.p.TTL, l.p.Resolution) + 1)
		r, err := call(p, l.name, "SETNX "+l.p.Key, 0, "SETNX", l.p.Key, value)
		if err != nil {
			return sim.Lease{}, err
		}
		n, err := integer(l.name, "SETNX "+l.p.Key, r)
		if err != nil {
			return sim.Lease{}, err
		}
		// "If SETNX returns 1 the client acquired the lock"
		if n == 1 {
			return sim.Lease{Held: true, Token: value}, nil
		}
		// "If SETNX returns 0 the key is already locked by some other
		// client. We can either return to the caller if it's a non blocking
		// lock, or enter a loop retrying to hold the lock until we succeed"
		if LastTry(try, l.p.Retries) {
			return sim.Lease{}, nil
		}
		p.Sleep(l.p.RetrySleep)
	}
}

// Release: "The client will later use DEL lock.foo in order to release the
// lock."
func (l *setnxDel) Release(p sim.Proc, _ sim.Lease) error {
	_, err := call(p, l.name, "DEL "+l.p.Key, 0, "DEL", l.p.Key)
	return err
}
