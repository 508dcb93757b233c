package locks

import (
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// Source: lihao21-python, "程序代码" (the code)
//
// The Python loop, whole-second timestamps (int(time.time())),
// LOCK_TIMEOUT = 3:
//
//	while lock != 1:
//	    now = int(time.time())
//	    lock_timeout = now + LOCK_TIMEOUT + 1
//	    lock = redis_client.setnx(lock_key, lock_timeout)
//	    if lock == 1 or (now > int(redis_client.get(lock_key))) and now > int(redis_client.getset(lock_key, lock_timeout)):
//	        break
//	    else:
//	        time.sleep(0.001)
//
// "and" binds tighter than "or", so the GET/GETSET takeover runs only when
// SETNX failed. int(None) raises TypeError when the key vanished between the
// commands: the program dies there. Release: "now = int(time.time()); if now
// < lock_timeout: redis_client.delete(lock_key)": check, then DEL, not
// atomic.
//
// Departures: the post's code is a script that runs once; each Acquire runs
// it from the top, so lock starts at 0 every time (lock_timeout, which
// release reads, is kept as this process's memory). Retries other than
// Forever (not the document's) stop the loop after that many passes. A
// lost or slow reply is a timeout after the scenario's network timeout,
// which raises; the post's redis_client (redis-py, socket_timeout None by
// default) would wait for it for ever: lost-setnx-reply and
// token-scope-retry differ so from the post's own code (docs/foreign.md).
var pythonSetnxAlgorithm = register(Algorithm{
	Name:     "python-setnx",
	Source:   "lihao21-python",
	Summary:  "Python: SETNX whole-second timestamp, GET/GETSET takeover, sleep(0.001) loop; int(None) raises; release checks then DELs",
	Defaults: Params{Key: "lock.foo", TTL: 3 * time.Second, Retries: Forever, RetrySleep: time.Millisecond, Resolution: time.Second},
	Assumes:  Assumptions{Expiry: ExpiryTimestamp},
	lifetime: getsetLifetime, // taken over when now > value, value = now + LOCK_TIMEOUT + 1
}, func(name string, p Params) sim.Locker { return &pythonSetnx{name: name, p: p} })

type pythonSetnx struct {
	name        string
	p           Params
	lockTimeout int64 // lock_timeout: the script's global, read by release
}

func (l *pythonSetnx) Acquire(p sim.Proc) (sim.Lease, error) {
	key := l.p.Key
	lock := false // lock = 0
	for try := 1; !lock; try++ {
		now := Stamp(p.Now(), l.p.Resolution)                    // now = int(time.time())
		l.lockTimeout = now + Units(l.p.TTL, l.p.Resolution) + 1 // lock_timeout = now + LOCK_TIMEOUT + 1
		// lock = redis_client.setnx(lock_key, lock_timeout)
		r, err := call(p, l.name, "redis_client.setnx(lock_key, lock_timeout)", 0, "SETNX", key, itoa(l.lockTimeout))
		if err != nil {
			return sim.Lease{}, err
		}
		n, err := integer(l.name, "redis_client.setnx(lock_key, lock_timeout)", r)
		if err != nil {
			return sim.Lease{}, err
		}
		lock = n == 1
		if lock {
			break
		}
		// now > int(redis_client.get(lock_key))
		stored, err := l.int(p, "int(redis_client.get(lock_key))", "GET", key)
		if err != nil {
			return sim.Lease{}, err
		}
		if now > stored {
			// and now > int(redis_client.getset(lock_key, lock_timeout))
			old, err := l.int(p, "int(redis_client.getset(lock_key, lock_timeout))", "GETSET", key, itoa(l.lockTimeout))
			if err != nil {
				return sim.Lease{}, err
			}
			if now > old {
				break
			}
		}
		if LastTry(try, l.p.Retries) {
			return sim.Lease{}, nil
		}
		p.Sleep(l.p.RetrySleep) // time.sleep(0.001)
	}
	return sim.Lease{Held: true, Token: itoa(l.lockTimeout)}, nil
}

// int runs a command and applies Python's int() to its reply.
func (l *pythonSetnx) int(p sim.Proc, step string, args ...string) (int64, error) {
	r, err := call(p, l.name, step, 0, args...)
	if err != nil {
		return 0, err
	}
	s, ok, err := bulk(l.name, step, r)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, clientErr(l.name, step, "key vanished (None): TypeError: int() argument must be a string, a bytes-like object or a real number, not 'NoneType'")
	}
	v, perr := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if perr != nil {
		return 0, clientErr(l.name, step, "ValueError: invalid literal for int() with base 10: %q", s)
	}
	return v, nil
}

func (l *pythonSetnx) Release(p sim.Proc, _ sim.Lease) error {
	// now = int(time.time())
	// if now < lock_timeout: redis_client.delete(lock_key)
	if now := Stamp(p.Now(), l.p.Resolution); now < l.lockTimeout {
		_, err := call(p, l.name, "redis_client.delete(lock_key)", 0, "DEL", l.p.Key)
		return err
	}
	return nil
}
