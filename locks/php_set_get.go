package locks

import (
	"errors"
	"time"

	"github.com/locksim/locksim/sim"
)

// Source: php-setnx-mutex, "PHP伪代码实现" (PHP pseudo-code)
//
// The duplicate-order mutex. _getLock(): value = time() + 30; SETNX wins the
// lock. Otherwise (int)get(key): greater than now means not expired, fail.
// Otherwise (int)set(key, value, 'GET') (SET with the GET option, Redis ≥
// 6.2, which answers the old value) and the lock is ours iff that old value
// < now. (int)null is 0, so a key that vanished on the way counts as
// expired. getLock() retries for ever with usleep(200000); unlock() DELs
// unconditionally, even a lock that expired and was taken by someone else.
//
// Departures: none in the steps. The post is pseudo-code and never names
// its client ($this->redis); its text gives the takeover as SET(ResourceId,
// now + expiry, "GET"), so set($key, $value, 'GET') is SET with the GET
// option. Read here as the usual PHP client: a network error throws, which
// ends the program; an error reply returns false, which (int) turns into 0.
var phpSetGetAlgorithm = register(Algorithm{
	Name:     "php-set-get",
	Source:   "php-setnx-mutex",
	Summary:  "PHP: SETNX now+30, (int)GET, SET key value GET takeover iff old < now, usleep(200000) retry for ever, unconditional DEL",
	Defaults: Params{Key: "your_lock_prefix_1", TTL: 30 * time.Second, Retries: Forever, RetrySleep: 200 * time.Millisecond, Resolution: time.Second},
	// Taken over when old < now, old = floor(t0) + 30.
	Assumes:  Assumptions{Expiry: ExpiryTimestamp},
	lifetime: func(p Params) time.Duration { return p.TTL + p.Resolution },
}, func(name string, p Params) sim.Locker { return &phpSetGet{name: name, p: p} })

type phpSetGet struct {
	name string
	p    Params
}

// Acquire is private function getLock($resourceId):
// while (!$this->_getLock($resourceId)) { usleep(200000); }
func (l *phpSetGet) Acquire(p sim.Proc) (sim.Lease, error) {
	for try := 1; ; try++ {
		lease, err := l.getLock(p)
		if err != nil || lease.Held || LastTry(try, l.p.Retries) {
			return lease, err
		}
		p.Sleep(l.p.RetrySleep) // "等待获得锁": wait for the lock
	}
}

// getLock is private function _getLock($resourceId).
func (l *phpSetGet) getLock(p sim.Proc) (sim.Lease, error) {
	key := l.p.Key
	now := Stamp(p.Now(), l.p.Resolution)               // $now = time();
	value := itoa(now + Units(l.p.TTL, l.p.Resolution)) // "设置锁过期时间为当前系统时间 + 30秒"
	// $success = (int)$this->redis->setnx($key, $value);
	// if ($success > 0) { return true; } — "无锁状态": nobody held it.
	r, err := l.do(p, "$this->redis->setnx($key, $value)", "SETNX", key, value)
	if err != nil {
		return sim.Lease{}, err
	}
	if phpInt(r) > 0 {
		return sim.Lease{Held: true, Token: value}, nil
	}
	// "有锁状态": locked. $oldValue = (int)$this->redis->get($key);
	r, err = l.do(p, "$this->redis->get($key)", "GET", key)
	if err != nil {
		return sim.Lease{}, err
	}
	// if ($oldValue > $now) { return false; } — "锁未过期": not expired.
	if phpInt(r) > now {
		return sim.Lease{}, nil
	}
	// "锁已过期": expired. $oldValue = (int)$this->redis->set($key, $value, 'GET');
	r, err = l.do(p, "$this->redis->set($key, $value, 'GET')", "SET", key, value, "GET")
	if err != nil {
		return sim.Lease{}, err
	}
	// return $oldValue < $now;
	return held(phpInt(r) < now, value), nil
}

// do runs a command as the post's $this->redis is read here: a network
// error throws, an error reply comes back as false.
func (l *phpSetGet) do(p sim.Proc, step string, args ...string) (sim.Reply, error) {
	r, err := sim.Do(p, 0, args...)
	if _, ok := errors.AsType[*sim.RedisError](err); ok { // AsType: no error variable on the heap at every command
		return sim.Reply{}, nil // false
	}
	if err != nil {
		return r, &ClientError{Algorithm: l.name, Step: step, Err: err}
	}
	return r, nil
}

// Release is private function unlock($resourceId): $this->redis->del($key);
func (l *phpSetGet) Release(p sim.Proc, _ sim.Lease) error {
	_, err := l.do(p, "$this->redis->del($key)", "DEL", l.p.Key)
	return err
}
