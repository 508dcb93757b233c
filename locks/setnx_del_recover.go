package locks

import (
	"strconv"
	"time"

	"github.com/locksim/locksim/sim"
)

// Source: redis-setnx-page, "Handling deadlocks"
//
// The wrong recovery the page warns against: a waiter that finds an expired
// timestamp DELs the key and SETNXs again. C1 and C2 both read the expired
// value; C1 DELs and SETNXs (success), then C2 DELs C1's fresh lock and
// SETNXs (success): "both C1 and C2 acquired the lock because of the race
// condition."
//
// Departures: the page gives this variant as prose, not code. Lock timeout
// 3 s (lihao21-python's LOCK_TIMEOUT, as in setnx-del) and a one-second pause while the
// lock is live (C4's "sleep one second" on the same page). Where the prose
// is silent we start over at once: GET finding no key (it was released
// between our SETNX and GET) and our second SETNX losing to another client.
var setnxDelRecoverAlgorithm = register(Algorithm{
	Name:     "setnx-del-recover",
	Source:   "redis-setnx-page",
	Summary:  "SETNX a Unix timestamp; a waiter that sees it expired DELs the key and SETNXs again (the race the page warns of)",
	Defaults: Params{Key: "lock.foo", TTL: 3 * time.Second, Retries: Forever, RetrySleep: time.Second, Resolution: time.Second},
	// Expired when value <= now: value = floor(t0) + TTL + 1 unit.
	Assumes:  Assumptions{Expiry: ExpiryTimestamp},
	lifetime: func(p Params) time.Duration { return p.TTL + p.Resolution },
}, func(name string, p Params) sim.Locker { return &setnxDelRecover{name: name, p: p} })

type setnxDelRecover struct {
	name string
	p    Params
}

func (l *setnxDelRecover) value(p sim.Proc) string {
	return itoa(Stamp(p.Now(), l.p.Resolution) + Units(l.p.TTL, l.p.Resolution) + 1)
}

func (l *setnxDelRecover) setnx(p sim.Proc, value string) (bool, error) {
	step := "SETNX " + l.p.Key
	r, err := call(p, l.name, step, 0, "SETNX", l.p.Key, value)
	if err != nil {
		return false, err
	}
	n, err := integer(l.name, step, r)
	return n == 1, err
}

func (l *setnxDelRecover) Acquire(p sim.Proc) (sim.Lease, error) {
	for try := 1; ; try++ {
		lease, wait, err := l.attempt(p)
		if err != nil || lease.Held || LastTry(try, l.p.Retries) {
			return lease, err
		}
		if wait {
			p.Sleep(l.p.RetrySleep)
		}
	}
}

// attempt is one pass from SETNX; wait says the lock is live and the caller
// should pause before the next pass.
func (l *setnxDelRecover) attempt(p sim.Proc) (lease sim.Lease, wait bool, err error) {
	key := l.p.Key
	// "SETNX lock.foo <current UNIX time + lock timeout + 1>"; 1: held.
	value := l.value(p)
	if ok, err := l.setnx(p, value); err != nil || ok {
		return held(ok, value), false, err
	}
	// SETNX returned 0: "C1 and C2 read lock.foo to check the timestamp"
	r, err := call(p, l.name, "GET "+key, 0, "GET", key)
	if err != nil {
		return sim.Lease{}, false, err
	}
	s, ok, err := bulk(l.name, "GET "+key, r)
	if err != nil || !ok {
		return sim.Lease{}, false, err // gone since our SETNX: start over
	}
	ts, perr := strconv.ParseInt(s, 10, 64)
	if perr != nil {
		return sim.Lease{}, false, clientErr(l.name, "GET "+key, "value %q is not a Unix timestamp", s)
	}
	// "If such a timestamp is <= the current Unix time the lock is no
	// longer valid." Still valid: wait, then start over.
	if ts > Stamp(p.Now(), l.p.Resolution) {
		return sim.Lease{}, true, nil
	}
	// "C1 sends DEL lock.foo"
	if _, err := call(p, l.name, "DEL "+key, 0, "DEL", key); err != nil {
		return sim.Lease{}, false, err
	}
	// "C1 sends SETNX => success!" (0: another client got in between;
	// start over)
	value = l.value(p)
	ok, err = l.setnx(p, value)
	return held(ok, value), false, err
}

// Release: "The client will later use DEL lock.foo in order to release the
// lock."
func (l *setnxDelRecover) Release(p sim.Proc, _ sim.Lease) error {
	_, err := call(p, l.name, "DEL "+l.p.Key, 0, "DEL", l.p.Key)
	return err
}
