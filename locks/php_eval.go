package locks

import (
	_ "embed"
	"fmt"
	"time"

	"github.com/locksim/locksim/sim"
)

// Source: predis-lua, "锁算法" (the algorithm) and "实现" (Lock.php)
//
// PHP + predis. lock() EVALs the acquire script (php_eval_acquire.lua, the
// post's getLockScript() verbatim) with the post's arguments
// time()+LOCK_EXPIRE+1, LOCK_EXPIRE, time(). The script answers 0 (locked:
// SETNX won, or a GETSET takeover of an expired timestamp), 1 (the key
// vanished: retry), 2 (not expired: sleep, then retry) or 3 (another client
// won the GETSET: retry). A lock gets EXPIRE LOCK_EXPIRE+1 = 4 s; a GETSET
// takeover writes expired+LOCK_EXPIRE+1 (8 s ahead) yet also expires in 4 s.
//
// lock() tries at most LOCK_RETRY_MAX = 3 times; after an answer of 2 it
// calls sleep(LOCK_SLEEP) with LOCK_SLEEP = 0.3, but PHP's sleep() takes
// whole seconds, so it sleeps 0 s and the three tries come back to back.
//
// unlock() EVALs the unlock script (php_eval_unlock.lua, verbatim): it DELs
// the key only when its timestamp is <= now, that is only an expired lock,
// the inverse of the text's "如果 string_key 键未被删除且还未过期,执行删除键操作"
// (if the key still exists and has not expired, delete it). A live lock is
// never released: it lingers until its 4 s TTL.
//
// Departures: none in the steps. Resolution is fixed at PHP's time(), whole
// seconds: the script hands the same LOCK_EXPIRE to EXPIRE, which takes
// seconds.
var phpEvalAlgorithm = register(Algorithm{
	Name:    "php-eval",
	Source:  "predis-lua",
	Summary: "PHP: Lua SETNX/GET/GETSET script with EXPIRE 4, 3 tries with a sleep(0.3) that sleeps 0 s; unlock deletes only an expired lock",
	Scripts: map[string]string{
		phpEvalLockScript:   "getLockScript() (php_eval_acquire.lua)",
		phpEvalUnlockScript: "getUnLockScript() (php_eval_unlock.lua)",
	},
	Defaults: Params{Key: "lock_goods:300", TTL: 3 * time.Second, Retries: 3, RetrySleep: 300 * time.Millisecond, Resolution: time.Second},
	// The key's TTL, LOCK_EXPIRE + 1, bounds it; the timestamp agrees.
	Assumes:  Assumptions{Expiry: ExpiryBoth}, // a timestamp in the value and EXPIRE on the key
	lifetime: func(p Params) time.Duration { return time.Duration(Units(p.TTL, time.Second)+1) * time.Second },
	check: func(p Params) error {
		if p.Resolution != time.Second {
			return fmt.Errorf("php-eval: resolution %s: the script hands LOCK_EXPIRE to EXPIRE, so timestamps are PHP's time(), whole seconds", p.Resolution)
		}
		return nil
	},
}, func(name string, p Params) sim.Locker { return &phpEval{name: name, p: p} })

// The post's two heredocs, byte for byte.
var (
	//go:embed php_eval_acquire.lua
	phpEvalLockScript string
	//go:embed php_eval_unlock.lua
	phpEvalUnlockScript string
)

type phpEval struct {
	name string
	p    Params
}

// acquire is private function acquire(): $this->client->eval($this->getLockScript(),
// 1, $this->lockKey, time()+self::LOCK_EXPIRE+1, self::LOCK_EXPIRE, time());
func (l *phpEval) acquire(p sim.Proc) (int64, error) {
	const step = "eval(getLockScript())"
	expire := Units(l.p.TTL, time.Second)
	expired := Stamp(p.Now(), time.Second) + expire + 1 // time()+self::LOCK_EXPIRE+1
	now := Stamp(p.Now(), time.Second)                  // time(), read again
	r, err := call(p, l.name, step, 0, "EVAL", phpEvalLockScript, "1", l.p.Key, itoa(expired), itoa(expire), itoa(now))
	if err != nil {
		return 0, err
	}
	return integer(l.name, step, r)
}

// Acquire is public function lock().
func (l *phpEval) Acquire(p sim.Proc) (sim.Lease, error) {
	retry := 1 // "加锁申请次数": the number of tries so far
	for {
		// while (0 != ($res = $this->acquire()) && (self::LOCK_RETRY_MAX > $retry))
		res, err := l.acquire(p)
		if err != nil {
			return sim.Lease{}, err
		}
		if res == 0 || (l.p.Retries != Forever && l.p.Retries <= retry) {
			return sim.Lease{Held: res == 0}, nil // return 0 == $res;
		}
		// "其他线程加的锁还未过期,休眠一段时间后再重试加锁": the other lock has not
		// expired, sleep a while and retry: 2 == $res && sleep(self::LOCK_SLEEP);
		// sleep() takes an int, 0.3 becomes 0, and sleep(0) does not sleep.
		if res == 2 {
			p.Sleep(l.p.RetrySleep.Truncate(time.Second))
		}
		retry++
	}
}

// Release is public function unlock(): $this->client->eval($this->getUnLockScript(),
// 1, $this->lockKey, time()); its reply is not looked at.
func (l *phpEval) Release(p sim.Proc, _ sim.Lease) error {
	now := Stamp(p.Now(), time.Second)
	_, err := call(p, l.name, "eval(getUnLockScript())", 0, "EVAL", phpEvalUnlockScript, "1", l.p.Key, itoa(now))
	return err
}
