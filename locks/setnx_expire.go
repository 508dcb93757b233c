package locks

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// Source: toymoban-java, §5 "死锁" (deadlock)
//
// The alternative the post argues against: give the lock key a TTL with a
// separate EXPIRE after SETNX. "setnx和expire不能作为一个原子性的操作存在"
// (SETNX and EXPIRE cannot be one atomic operation): a client that dies
// between them leaves a key with no TTL, "也就是死锁" (that is, a deadlock).
//
// Departures: the post shows no code for this variant. We keep its Java
// lock() around it: the value is its millisecond expireTime (unused once the
// key has a TTL), the TTL is LOCK_TIMEOUT = 60 s, release DELs if locked.
// Unlike lock(), which tries once, a waiter retries every second (the pause
// redis-setnx-page gives its C4), so the deadlock shows as waiters that never get in.
var setnxExpireAlgorithm = register(Algorithm{
	Name:     "setnx-expire",
	Source:   "toymoban-java",
	Summary:  "SETNX then a separate EXPIRE 60 (the non-atomic pair the post warns of): a crash between them deadlocks",
	Defaults: Params{Key: "foo.lock", TTL: 60 * time.Second, Retries: Forever, RetrySleep: time.Second, Resolution: time.Millisecond},
	Assumes:  Assumptions{Expiry: ExpiryTTL}, // the timestamp is never read
	lifetime: func(p Params) time.Duration { return time.Duration(Units(p.TTL, time.Second)) * time.Second },
}, func(name string, p Params) sim.Locker { return &setnxExpire{name: name, p: p} })

type setnxExpire struct {
	name   string
	p      Params
	locked bool // the Java class's field
}

func (l *setnxExpire) Acquire(p sim.Proc) (sim.Lease, error) {
	key := l.p.Key
	for try := 1; ; try++ {
		// expireTime = System.currentTimeMillis() + LOCK_TIMEOUT * 1000
		expireTime := itoa(Stamp(p.Now(), l.p.Resolution) + Units(l.p.TTL, l.p.Resolution))
		r, err := call(p, l.name, "setnx(key, expireTime)", 0, "SETNX", key, expireTime)
		if err != nil {
			return sim.Lease{}, err
		}
		n, err := integer(l.name, "setnx(key, expireTime)", r)
		if err != nil {
			return sim.Lease{}, err
		}
		if n == 1 {
			// The separate EXPIRE: until it arrives the key has no TTL.
			if _, err := call(p, l.name, "expire(key, LOCK_TIMEOUT)", 0, "EXPIRE", key, seconds(l.p.TTL)); err != nil {
				return sim.Lease{}, err
			}
			l.locked = true
			return sim.Lease{Held: true, Token: expireTime}, nil
		}
		if LastTry(try, l.p.Retries) {
			return sim.Lease{}, nil
		}
		p.Sleep(l.p.RetrySleep)
	}
}

// Release is the post's release(): if (locked) { del(key); locked = false; }
func (l *setnxExpire) Release(p sim.Proc, _ sim.Lease) error {
	if !l.locked {
		return nil
	}
	if _, err := call(p, l.name, "del(key)", 0, "DEL", l.p.Key); err != nil {
		return err
	}
	l.locked = false
	return nil
}
