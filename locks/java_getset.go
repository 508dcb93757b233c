package locks

import (
	"strconv"
	"time"

	"github.com/locksim/locksim/sim"
)

// Source: toymoban-java, §4 "实现" (implementation), DistributeLockUtil
//
// The Java lock: the value is an expiry time in milliseconds
// (System.currentTimeMillis() + LOCK_TIMEOUT * 1000, LOCK_TIMEOUT = 60).
// lock() tries once: SETNX, else GET the expiry and, if it has passed, GETSET
// our expiry and hold the lock iff the old value equals the one we read.
// release() DELs unconditionally when the instance's locked flag is set, so
// a holder that outlived its timeout deletes the next holder's lock (§8,
// which the post leaves unsolved). Every client compares the timestamp with
// its own clock (§7).
//
// Departures: Retries > 1 (not the document's) calls lock() again after
// RetrySleep, as a caller looping on it would; the default is one call.
var javaGetsetAlgorithm = register(Algorithm{
	Name:     "java-getset",
	Source:   "toymoban-java",
	Summary:  "Java: SETNX a millisecond expiry, GETSET takeover iff old.equals(current), one attempt, unconditional DEL",
	Defaults: Params{Key: "foo.lock", TTL: 60 * time.Second, Retries: 1, Resolution: time.Millisecond},
	// Taken over when expiry < now, expiry = floor(t0) + TTL.
	Assumes:  Assumptions{Expiry: ExpiryTimestamp},
	lifetime: func(p Params) time.Duration { return p.TTL + p.Resolution },
}, func(name string, p Params) sim.Locker { return &javaGetset{name: name, p: p} })

type javaGetset struct {
	name   string
	p      Params
	locked bool // private boolean locked = false;
}

func (l *javaGetset) Acquire(p sim.Proc) (sim.Lease, error) {
	for try := 1; ; try++ {
		lease, err := l.lock(p)
		if err != nil || lease.Held || LastTry(try, l.p.Retries) {
			return lease, err
		}
		p.Sleep(l.p.RetrySleep)
	}
}

// lock is public boolean lock(String key).
func (l *javaGetset) lock(p sim.Proc) (sim.Lease, error) {
	key := l.p.Key
	// String expireTime = String.valueOf(System.currentTimeMillis() + LOCK_TIMEOUT * 1000);
	expireTime := itoa(Stamp(p.Now(), l.p.Resolution) + Units(l.p.TTL, l.p.Resolution))
	// "setnx 返回1 … 也就是get锁": SETNX returned 1, we hold the lock.
	r, err := call(p, l.name, "redisClient.setnx(key, expireTime)", 0, "SETNX", key, expireTime)
	if err != nil {
		return sim.Lease{}, err
	}
	n, err := integer(l.name, "redisClient.setnx(key, expireTime)", r)
	if err != nil {
		return sim.Lease{}, err
	}
	if n == 1 {
		l.locked = true
		return sim.Lease{Held: true, Token: expireTime}, nil
	}
	// "没有get锁, 下面进入判断锁超时逻辑": no lock; check whether it timed out.
	r, err = call(p, l.name, "redisClient.get(key)", 0, "GET", key)
	if err != nil {
		return sim.Lease{}, err
	}
	current, ok, err := bulk(l.name, "redisClient.get(key)", r)
	if err != nil {
		return sim.Lease{}, err
	}
	// "锁生存时间已经过了, 说明锁已经超时": the lock's time has passed.
	// Long.parseLong(currentExpireTime) < System.currentTimeMillis(), the
	// clock read afresh.
	if !ok {
		return sim.Lease{}, clientErr(l.name, "Long.parseLong(redisClient.get(key))",
			"NumberFormatException: Cannot parse null string: null (the key vanished)")
	}
	expiry, perr := strconv.ParseInt(current, 10, 64)
	if perr != nil {
		return sim.Lease{}, clientErr(l.name, "Long.parseLong(redisClient.get(key))",
			"NumberFormatException: For input string: %q", current)
	}
	if expiry < Stamp(p.Now(), l.p.Resolution) {
		r, err = call(p, l.name, "redisClient.getSet(key, expireTime)", 0, "GETSET", key, expireTime)
		if err != nil {
			return sim.Lease{}, err
		}
		oldValueStr, ok, err := bulk(l.name, "redisClient.getSet(key, expireTime)", r)
		if err != nil {
			return sim.Lease{}, err
		}
		// "判断锁生存时间和你改的写那个时间是否相等 相当于你竞争了一个更新锁":
		// the old value equal to the one we read means we won the update.
		if !ok {
			return sim.Lease{}, clientErr(l.name, "oldValueStr.equals(currentExpireTime)",
				"NullPointerException: getSet returned null (the key vanished)")
		}
		if oldValueStr == current {
			l.locked = true
			return sim.Lease{Held: true, Token: expireTime}, nil
		}
	}
	return sim.Lease{}, nil
}

// Release is public void release(String key): if (locked) { del; locked = false; }
func (l *javaGetset) Release(p sim.Proc, _ sim.Lease) error {
	if !l.locked {
		return nil
	}
	if _, err := call(p, l.name, "redisClient.del(key)", 0, "DEL", l.p.Key); err != nil {
		return err
	}
	l.locked = false
	return nil
}
