package locks

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// wantClientError checks err is a ClientError of algo whose text names step
// and says why.
func wantClientError(t *testing.T, err error, algo, step, why string) {
	t.Helper()
	var ce *ClientError
	if !errors.As(err, &ce) || ce.Algorithm != algo {
		t.Fatalf("want a %s client error, got %v", algo, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, algo+": "+step+": ") || !strings.Contains(msg, why) {
		t.Fatalf("error %q: want %q then a message containing %q", msg, algo+": "+step, why)
	}
}

// 000: lock() tries once: SETNX, GET, and no retry, no sleep.
func TestJavaGetsetGivesUpAfterOneAttempt(t *testing.T) {
	w := newWorld(t, 1)
	c1, c2 := w.proc("c1", 0), w.proc("c2", 1)
	mustAcquire(t, locker(t, "java-getset", Params{}), c1)
	mustFail(t, locker(t, "java-getset", Params{}), c2)
	sameLines(t, w.commands("c2"), []string{"c2 0 SETNX foo.lock 1767225660002", "c2 0 GET foo.lock"})
	if c2.sleeps != 0 {
		t.Fatalf("c2 slept %d times; lock() has no loop", c2.sleeps)
	}
}

// System.currentTimeMillis(): milliseconds, truncated.
func TestJavaGetsetMillisecondTimestamps(t *testing.T) {
	w := newWorld(t, 1)
	c1 := w.proc("c1", 0)
	c1.offset = 1500*time.Millisecond + 999*time.Microsecond
	lease := mustAcquire(t, locker(t, "java-getset", Params{}), c1)
	if want := itoa(epochSec*1000 + 1500 + 60_000); lease.Token != want {
		t.Fatalf("expireTime %s, want %s", lease.Token, want)
	}
}

// An expired lock is taken over by GETSET when the old value equals the one
// read.
func TestJavaGetsetTakeover(t *testing.T) {
	w := newWorld(t, 1)
	w.exec(0, "SET", "foo.lock", itoa(epochSec*1000-1))
	c1 := w.proc("c1", 0)
	mustAcquire(t, locker(t, "java-getset", Params{}), c1)
	if w.count("c1 0 GETSET foo.lock 1767225660000") != 1 {
		t.Fatalf("want a GETSET takeover, log %q", w.log)
	}
}

// Long.parseLong(null) and oldValueStr.equals on null throw.
func TestJavaGetsetThrowsOnVanishedKey(t *testing.T) {
	t.Run("parseLong", func(t *testing.T) {
		w := newWorld(t, 1)
		w.exec(0, "SET", "foo.lock", itoa(epochSec*1000+5000))
		c1 := w.proc("c1", 0)
		c1.before("GET", 1, func() { w.exec(0, "DEL", "foo.lock") })
		_, err := locker(t, "java-getset", Params{}).Acquire(c1)
		wantClientError(t, err, "java-getset", "Long.parseLong(redisClient.get(key))", "null")
	})
	t.Run("equals", func(t *testing.T) {
		w := newWorld(t, 1)
		w.exec(0, "SET", "foo.lock", itoa(epochSec*1000-1))
		c1 := w.proc("c1", 0)
		c1.before("GETSET", 1, func() { w.exec(0, "DEL", "foo.lock") })
		_, err := locker(t, "java-getset", Params{}).Acquire(c1)
		wantClientError(t, err, "java-getset", "oldValueStr.equals(currentExpireTime)", "NullPointerException")
	})
}

// §8: C0 holds too long, C1 takes the lock over, C0 wakes and deletes it.
func TestJavaGetsetReleaseDeletesSuccessorsLock(t *testing.T) {
	w := newWorld(t, 1)
	c0, c1 := w.proc("c0", 0), w.proc("c1", 1)
	l0 := locker(t, "java-getset", Params{})
	lease := mustAcquire(t, l0, c0)
	w.advance(61 * time.Second)
	mustAcquire(t, locker(t, "java-getset", Params{}), c1)
	mustRelease(t, l0, c0, lease)
	if ok, _, _ := w.key(0, "foo.lock"); ok {
		t.Fatal("c0's release should have deleted c1's lock")
	}
	// locked is false now: a second release sends nothing.
	mustRelease(t, l0, c0, lease)
	if n := w.count("c0 0 DEL"); n != 1 {
		t.Fatalf("c0 sent %d DEL, want 1", n)
	}
}

// 001: unlock deletes only an expired lock, so a released live lock lingers
// until its TTL (LOCK_EXPIRE + 1 = 4 s) and nobody gets in before that.
func TestPHPEvalLockOutlivesUnlock(t *testing.T) {
	w := newWorld(t, 1)
	c1, c2 := w.proc("c1", 0), w.proc("c2", 1)
	l1, l2 := locker(t, "php-eval", Params{}), locker(t, "php-eval", Params{})
	start := w.now
	lease := mustAcquire(t, l1, c1)
	if ok, v, ttl := w.key(0, "lock_goods:300"); !ok || v != itoa(epochSec+4) || ttl <= 3*time.Second || ttl > 4*time.Second {
		t.Fatalf("after lock(): exists %v value %s ttl %s; want time()+4 with EXPIRE 4", ok, v, ttl)
	}
	mustRelease(t, l1, c1, lease)
	if ok, _, _ := w.key(0, "lock_goods:300"); !ok {
		t.Fatal("unlock() deleted a live lock; the script deletes only expired ones")
	}
	mustFail(t, l2, c2)
	// Just before the TTL runs out it is still there; at 4 s it is gone.
	w.now = start + 4*time.Second - 10*time.Millisecond
	mustFail(t, l2, c2)
	w.now = start + 4*time.Second + time.Millisecond
	mustAcquire(t, l2, c2)
}

// lock() tries LOCK_RETRY_MAX = 3 times; sleep(0.3) sleeps 0 s.
func TestPHPEvalRetriesThreeTimesWithoutSleeping(t *testing.T) {
	w := newWorld(t, 1)
	c1, c2 := w.proc("c1", 0), w.proc("c2", 1)
	mustAcquire(t, locker(t, "php-eval", Params{}), c1)
	before := w.now
	mustFail(t, locker(t, "php-eval", Params{}), c2)
	if n := w.count("c2 0 EVAL"); n != 3 {
		t.Fatalf("c2 sent %d EVAL, want 3", n)
	}
	if c2.slept != 0 || w.now-before != 3*w.latency {
		t.Fatalf("c2 slept %s, took %s; want no sleep, 3 round trips", c2.slept, w.now-before)
	}
	// A LOCK_SLEEP of whole seconds does sleep: 1.3 → sleep(1).
	c3 := w.proc("c3", 2)
	mustFail(t, locker(t, "php-eval", Params{RetrySleep: 1300 * time.Millisecond}), c3)
	if c3.slept != 2*time.Second {
		t.Fatalf("sleep(1.3) twice: slept %s, want 2s", c3.slept)
	}
}

// The GETSET branch writes expired + expire + 1 (8 s ahead) and EXPIRE 4.
func TestPHPEvalGetsetTakeover(t *testing.T) {
	w := newWorld(t, 1)
	w.exec(0, "SET", "lock_goods:300", itoa(epochSec)) // expired: <= time()
	c1 := w.proc("c1", 0)
	mustAcquire(t, locker(t, "php-eval", Params{}), c1)
	if ok, v, ttl := w.key(0, "lock_goods:300"); !ok || v != itoa(epochSec+8) || ttl <= 3*time.Second || ttl > 4*time.Second {
		t.Fatalf("after takeover: exists %v value %s ttl %s; want time()+8 with EXPIRE 4", ok, v, ttl)
	}
	// The unlock script does delete an expired timestamp.
	w.exec(0, "SET", "lock_goods:300", itoa(epochSec))
	mustRelease(t, locker(t, "php-eval", Params{}), c1, sim.Lease{Held: true})
	if ok, _, _ := w.key(0, "lock_goods:300"); ok {
		t.Fatal("unlock() should delete an expired timestamp")
	}
}

// 002: int(time.time()) is whole seconds, in the value and in the
// comparison.
func TestPythonSetnxWholeSecondTimestamps(t *testing.T) {
	w := newWorld(t, 1)
	c1 := w.proc("c1", 0)
	c1.offset = 999 * time.Millisecond
	lease := mustAcquire(t, locker(t, "python-setnx", Params{}), c1)
	if want := itoa(epochSec + 3 + 1); lease.Token != want {
		t.Fatalf("lock_timeout %s, want int(time.time()) + LOCK_TIMEOUT + 1 = %s", lease.Token, want)
	}
	if _, v, _ := w.key(0, "lock.foo"); v != lease.Token {
		t.Fatalf("stored %s, want %s", v, lease.Token)
	}
	// A lock stamped v is not expired while int(now) == v, even at v.9.
	v := epochSec + 4
	c2 := w.proc("c2", 1)
	c2.offset = 4*time.Second + 900*time.Millisecond
	mustFail(t, locker(t, "python-setnx", Params{Retries: 1}), c2)
	if w.count("c2 0 GETSET") != 0 {
		t.Fatal("now == v must not try GETSET")
	}
	c3 := w.proc("c3", 2)
	c3.offset = 5 * time.Second
	lease3 := mustAcquire(t, locker(t, "python-setnx", Params{Retries: 1}), c3)
	if lease3.Token != itoa(v+1+4) {
		t.Fatalf("c3 took it with %s, want %d", lease3.Token, v+5)
	}
}

// int(None): the key vanished between SETNX and GET.
func TestPythonSetnxIntNone(t *testing.T) {
	w := newWorld(t, 1)
	c1, c2 := w.proc("c1", 0), w.proc("c2", 1)
	l1 := locker(t, "python-setnx", Params{})
	lease := mustAcquire(t, l1, c1)
	c2.before("GET", 1, func() { mustRelease(t, l1, c1, lease) })
	_, err := locker(t, "python-setnx", Params{}).Acquire(c2)
	wantClientError(t, err, "python-setnx", "int(redis_client.get(lock_key))", "key vanished (None)")
}

// The release checks its own lock_timeout, then DELs.
func TestPythonSetnxReleaseChecksTimeout(t *testing.T) {
	w := newWorld(t, 1)
	c1 := w.proc("c1", 0)
	l := locker(t, "python-setnx", Params{})
	lease := mustAcquire(t, l, c1)
	w.advance(4 * time.Second) // now == lock_timeout: not < it
	mustRelease(t, l, c1, lease)
	if w.count("c1 0 DEL") != 0 {
		t.Fatal("release after lock_timeout must not DEL")
	}
	w.advance(time.Second)
	mustAcquire(t, l, c1) // takes its own stale lock over with GETSET
	mustRelease(t, l, c1, lease)
	if w.count("c1 0 DEL") != 1 {
		t.Fatal("release before lock_timeout must DEL")
	}
}

// 004: an expired value is taken over with SET key value GET.
func TestPHPSetGetTakeover(t *testing.T) {
	w := newWorld(t, 1)
	w.exec(0, "SET", "your_lock_prefix_1", itoa(epochSec-1))
	c1 := w.proc("c1", 0)
	lease := mustAcquire(t, locker(t, "php-set-get", Params{}), c1)
	sameLines(t, w.commands("c1"), []string{
		"c1 0 SETNX your_lock_prefix_1 1767225630",
		"c1 0 GET your_lock_prefix_1",
		"c1 0 SET your_lock_prefix_1 1767225630 GET",
	})
	if _, v, _ := w.key(0, "your_lock_prefix_1"); v != lease.Token || v != itoa(epochSec+30) {
		t.Fatalf("stored %s, want now + 30", v)
	}
}

func TestPHPSetGetEdges(t *testing.T) {
	t.Run("not expired: usleep(200000) and retry", func(t *testing.T) {
		w := newWorld(t, 1)
		w.exec(0, "SET", "your_lock_prefix_1", itoa(epochSec+1))
		c1 := w.proc("c1", 0)
		mustFail(t, locker(t, "php-set-get", Params{Retries: 3}), c1)
		if c1.slept != 400*time.Millisecond || w.count("c1 0 SET ") != 0 {
			t.Fatalf("slept %s, %d SET GET; want 400ms, none", c1.slept, w.count("c1 0 SET "))
		}
	})
	t.Run("(int)null is 0: a vanished key counts as expired", func(t *testing.T) {
		w := newWorld(t, 1)
		w.exec(0, "SET", "your_lock_prefix_1", itoa(epochSec+1))
		c1 := w.proc("c1", 0)
		c1.before("GET", 1, func() { w.exec(0, "DEL", "your_lock_prefix_1") })
		mustAcquire(t, locker(t, "php-set-get", Params{Retries: 1}), c1)
	})
	t.Run("an error reply is false, and (int)false is 0", func(t *testing.T) {
		// The key holds a hash: SETNX answers 0, GET and SET ... GET answer
		// WRONGTYPE, which the post's client returns as false; (int)false is 0 < now,
		// so the lock counts as taken, with no client error.
		w := newWorld(t, 1)
		w.exec(0, "HSET", "your_lock_prefix_1", "f", "v")
		c1 := w.proc("c1", 0)
		mustAcquire(t, locker(t, "php-set-get", Params{Retries: 1}), c1)
		if w.count("c1 0 SET your_lock_prefix_1") != 1 {
			t.Fatalf("commands %q: want the takeover SET sent once", w.commands("c1"))
		}
	})
	t.Run("old == now fails but has overwritten the lock", func(t *testing.T) {
		w := newWorld(t, 1)
		w.exec(0, "SET", "your_lock_prefix_1", itoa(epochSec))
		c1 := w.proc("c1", 0)
		mustFail(t, locker(t, "php-set-get", Params{Retries: 1}), c1)
		if _, v, _ := w.key(0, "your_lock_prefix_1"); v != itoa(epochSec+30) {
			t.Fatalf("stored %s, want c1's now + 30", v)
		}
	})
	t.Run("unlock DELs whoever holds it", func(t *testing.T) {
		w := newWorld(t, 1)
		c1, c2 := w.proc("c1", 0), w.proc("c2", 1)
		l1 := locker(t, "php-set-get", Params{})
		lease := mustAcquire(t, l1, c1)
		w.advance(32 * time.Second)
		mustAcquire(t, locker(t, "php-set-get", Params{}), c2)
		mustRelease(t, l1, c1, lease)
		if ok, _, _ := w.key(0, "your_lock_prefix_1"); ok {
			t.Fatal("c1's unlock should have deleted c2's lock")
		}
	})
}
