package locks

import (
	"strconv"
	"time"

	"github.com/locksim/locksim/sim"
)

// Source: redis-setnx-page, "Handling deadlocks"
//
// The "sane" client C4: SETNX; if that fails, GET the timestamp; still valid
// → sleep one second and start over; expired → GETSET a new timestamp and
// hold the lock iff the old value GETSET returns is still expired (else C5
// won the race: start over; C4 having pushed the timestamp a little further
// "is not a problem"). Release is a plain DEL, without the IMPORTANT NOTE's
// check (setnx-getset-checked adds it).
//
// Departures: lock timeout 3 s (the page names none; lihao21-python, which retells it,
// uses 3). Where the prose is silent we start over at once: GET finding no
// key, and GETSET returning nil (the prose only accepts "an expired
// timestamp", so nil is not taken as success, though our value is now set).
var setnxGetsetAlgorithm = register(Algorithm{
	Name:     "setnx-getset",
	Source:   "redis-setnx-page",
	Summary:  "the page's C4 client: SETNX, GET, GETSET takeover of an expired timestamp, retry after 1 s; plain DEL to release",
	Defaults: Params{Key: "lock.foo", TTL: 3 * time.Second, Retries: Forever, RetrySleep: time.Second, Resolution: time.Second},
	Assumes:  Assumptions{Expiry: ExpiryTimestamp},
	lifetime: getsetLifetime,
}, func(name string, p Params) sim.Locker { return &setnxGetset{name: name, p: p} })

// getsetLifetime: taken over when value < now, value = floor(t0) + TTL + 1
// unit, so up to TTL + 2 units after t0.
func getsetLifetime(p Params) time.Duration { return p.TTL + 2*p.Resolution }

type setnxGetset struct {
	name string
	p    Params
}

func (l *setnxGetset) value(now int64) string {
	return itoa(now + Units(l.p.TTL, l.p.Resolution) + 1)
}

func (l *setnxGetset) Acquire(p sim.Proc) (sim.Lease, error) {
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

func (l *setnxGetset) attempt(p sim.Proc) (lease sim.Lease, wait bool, err error) {
	key := l.p.Key
	// "C4 sends SETNX lock.foo in order to acquire the lock"
	value := l.value(Stamp(p.Now(), l.p.Resolution))
	r, err := call(p, l.name, "SETNX "+key, 0, "SETNX", key, value)
	if err != nil {
		return sim.Lease{}, false, err
	}
	n, err := integer(l.name, "SETNX "+key, r)
	if err != nil || n == 1 {
		return held(n == 1, value), false, err
	}
	// "The crashed C3 client still holds it, so Redis will reply with 0 to
	// C4. C4 GET lock.foo to check if the lock expired."
	r, err = call(p, l.name, "GET "+key, 0, "GET", key)
	if err != nil {
		return sim.Lease{}, false, err
	}
	s, ok, err := bulk(l.name, "GET "+key, r)
	if err != nil || !ok {
		return sim.Lease{}, false, err
	}
	ts, err := l.parse("GET "+key, s)
	if err != nil {
		return sim.Lease{}, false, err
	}
	// "If not it will sleep one second (for instance) and retry from the
	// start." Expired means "the UNIX time at lock.foo is older than the
	// current UNIX time".
	now := Stamp(p.Now(), l.p.Resolution)
	if !(ts < now) {
		return sim.Lease{}, true, nil
	}
	// "C4 tries to perform GETSET lock.foo <current unix timestamp + lock
	// timeout + 1>"
	value = l.value(now)
	r, err = call(p, l.name, "GETSET "+key, 0, "GETSET", key, value)
	if err != nil {
		return sim.Lease{}, false, err
	}
	s, ok, err = bulk(l.name, "GETSET "+key, r)
	if err != nil || !ok {
		return sim.Lease{}, false, err
	}
	old, err := l.parse("GETSET "+key, s)
	if err != nil {
		return sim.Lease{}, false, err
	}
	// "C4 can check if the old value stored at key is still an expired
	// timestamp. If so we acquired the lock!" Otherwise C5 was faster:
	// "C4 will simply restart from the first step."
	return held(old < now, value), false, nil
}

func (l *setnxGetset) parse(step, s string) (int64, error) {
	ts, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, clientErr(l.name, step, "value %q is not a Unix timestamp", s)
	}
	return ts, nil
}

// Release: "The client will later use DEL lock.foo in order to release the
// lock."
func (l *setnxGetset) Release(p sim.Proc, _ sim.Lease) error {
	_, err := call(p, l.name, "DEL "+l.p.Key, 0, "DEL", l.p.Key)
	return err
}
