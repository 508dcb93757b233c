package locks

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
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
	w := NewWorld(t, 1)
	c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
	MustAcquire(t, locker(t, "java-getset", Params{}), c1)
	MustFail(t, locker(t, "java-getset", Params{}), c2)
	sameLines(t, w.Commands("c2"), []string{"c2 0 SETNX foo.lock 1767225660002", "c2 0 GET foo.lock"})
	if c2.Sleeps != 0 {
		t.Fatalf("c2 slept %d times; lock() has no loop", c2.Sleeps)
	}
}

// System.currentTimeMillis(): milliseconds, truncated.
func TestJavaGetsetMillisecondTimestamps(t *testing.T) {
	w := NewWorld(t, 1)
	c1 := w.Proc("c1", 0)
	c1.Offset = 1500*time.Millisecond + 999*time.Microsecond
	lease := MustAcquire(t, locker(t, "java-getset", Params{}), c1)
	if want := itoa(epochSec*1000 + 1500 + 60_000); lease.Token != want {
		t.Fatalf("expireTime %s, want %s", lease.Token, want)
	}
}

// An expired lock is taken over by GETSET when the old value equals the one
// read.
func TestJavaGetsetTakeover(t *testing.T) {
	w := NewWorld(t, 1)
	w.Exec(0, "SET", "foo.lock", itoa(epochSec*1000-1))
	c1 := w.Proc("c1", 0)
	MustAcquire(t, locker(t, "java-getset", Params{}), c1)
	if w.Count("c1 0 GETSET foo.lock 1767225660000") != 1 {
		t.Fatalf("want a GETSET takeover, log %q", w.Log)
	}
}

// Long.parseLong(null) and oldValueStr.equals on null throw.
func TestJavaGetsetThrowsOnVanishedKey(t *testing.T) {
	t.Run("parseLong", func(t *testing.T) {
		w := NewWorld(t, 1)
		w.Exec(0, "SET", "foo.lock", itoa(epochSec*1000+5000))
		c1 := w.Proc("c1", 0)
		c1.Before("GET", 1, func() { w.Exec(0, "DEL", "foo.lock") })
		_, err := locker(t, "java-getset", Params{}).Acquire(c1)
		wantClientError(t, err, "java-getset", "Long.parseLong(redisClient.get(key))", "null")
	})
	t.Run("equals", func(t *testing.T) {
		w := NewWorld(t, 1)
		w.Exec(0, "SET", "foo.lock", itoa(epochSec*1000-1))
		c1 := w.Proc("c1", 0)
		c1.Before("GETSET", 1, func() { w.Exec(0, "DEL", "foo.lock") })
		_, err := locker(t, "java-getset", Params{}).Acquire(c1)
		wantClientError(t, err, "java-getset", "oldValueStr.equals(currentExpireTime)", "NullPointerException")
	})
}

// §8: C0 holds too long, C1 takes the lock over, C0 wakes and deletes it.
func TestJavaGetsetReleaseDeletesSuccessorsLock(t *testing.T) {
	w := NewWorld(t, 1)
	c0, c1 := w.Proc("c0", 0), w.Proc("c1", 1)
	l0 := locker(t, "java-getset", Params{})
	lease := MustAcquire(t, l0, c0)
	w.Advance(61 * time.Second)
	MustAcquire(t, locker(t, "java-getset", Params{}), c1)
	MustRelease(t, l0, c0, lease)
	if ok, _, _ := w.Key(0, "foo.lock"); ok {
		t.Fatal("c0's release should have deleted c1's lock")
	}
	// locked is false now: a second release sends nothing.
	MustRelease(t, l0, c0, lease)
	if n := w.Count("c0 0 DEL"); n != 1 {
		t.Fatalf("c0 sent %d DEL, want 1", n)
	}
}

// 001: unlock deletes only an expired lock, so a released live lock lingers
// until its TTL (LOCK_EXPIRE + 1 = 4 s) and nobody gets in before that.
func TestPHPEvalLockOutlivesUnlock(t *testing.T) {
	w := NewWorld(t, 1)
	c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
	l1, l2 := locker(t, "php-eval", Params{}), locker(t, "php-eval", Params{})
	start := w.Now
	lease := MustAcquire(t, l1, c1)
	if ok, v, ttl := w.Key(0, "lock_goods:300"); !ok || v != itoa(epochSec+4) || ttl <= 3*time.Second || ttl > 4*time.Second {
		t.Fatalf("after lock(): exists %v value %s ttl %s; want time()+4 with EXPIRE 4", ok, v, ttl)
	}
	MustRelease(t, l1, c1, lease)
	if ok, _, _ := w.Key(0, "lock_goods:300"); !ok {
		t.Fatal("unlock() deleted a live lock; the script deletes only expired ones")
	}
	MustFail(t, l2, c2)
	// Just before the TTL runs out it is still there; at 4 s it is gone.
	w.Now = start + 4*time.Second - 10*time.Millisecond
	MustFail(t, l2, c2)
	w.Now = start + 4*time.Second + time.Millisecond
	MustAcquire(t, l2, c2)
}

// lock() tries LOCK_RETRY_MAX = 3 times; sleep(0.3) sleeps 0 s.
func TestPHPEvalRetriesThreeTimesWithoutSleeping(t *testing.T) {
	w := NewWorld(t, 1)
	c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
	MustAcquire(t, locker(t, "php-eval", Params{}), c1)
	before := w.Now
	MustFail(t, locker(t, "php-eval", Params{}), c2)
	if n := w.Count("c2 0 EVAL"); n != 3 {
		t.Fatalf("c2 sent %d EVAL, want 3", n)
	}
	if c2.Slept != 0 || w.Now-before != 3*w.Latency {
		t.Fatalf("c2 slept %s, took %s; want no sleep, 3 round trips", c2.Slept, w.Now-before)
	}
	// A LOCK_SLEEP of whole seconds does sleep: 1.3 → sleep(1).
	c3 := w.Proc("c3", 2)
	MustFail(t, locker(t, "php-eval", Params{RetrySleep: 1300 * time.Millisecond}), c3)
	if c3.Slept != 2*time.Second {
		t.Fatalf("sleep(1.3) twice: slept %s, want 2s", c3.Slept)
	}
}

// The GETSET branch writes expired + expire + 1 (8 s ahead) and EXPIRE 4.
func TestPHPEvalGetsetTakeover(t *testing.T) {
	w := NewWorld(t, 1)
	w.Exec(0, "SET", "lock_goods:300", itoa(epochSec)) // expired: <= time()
	c1 := w.Proc("c1", 0)
	MustAcquire(t, locker(t, "php-eval", Params{}), c1)
	if ok, v, ttl := w.Key(0, "lock_goods:300"); !ok || v != itoa(epochSec+8) || ttl <= 3*time.Second || ttl > 4*time.Second {
		t.Fatalf("after takeover: exists %v value %s ttl %s; want time()+8 with EXPIRE 4", ok, v, ttl)
	}
	// The unlock script does delete an expired timestamp.
	w.Exec(0, "SET", "lock_goods:300", itoa(epochSec))
	MustRelease(t, locker(t, "php-eval", Params{}), c1, sim.Lease{Held: true})
	if ok, _, _ := w.Key(0, "lock_goods:300"); ok {
		t.Fatal("unlock() should delete an expired timestamp")
	}
}

// 002: int(time.time()) is whole seconds, in the value and in the
// comparison.
func TestPythonSetnxWholeSecondTimestamps(t *testing.T) {
	w := NewWorld(t, 1)
	c1 := w.Proc("c1", 0)
	c1.Offset = 999 * time.Millisecond
	lease := MustAcquire(t, locker(t, "python-setnx", Params{}), c1)
	if want := itoa(epochSec + 3 + 1); lease.Token != want {
		t.Fatalf("lock_timeout %s, want int(time.time()) + LOCK_TIMEOUT + 1 = %s", lease.Token, want)
	}
	if _, v, _ := w.Key(0, "lock.foo"); v != lease.Token {
		t.Fatalf("stored %s, want %s", v, lease.Token)
	}
	// A lock stamped v is not expired while int(now) == v, even at v.9.
	v := epochSec + 4
	c2 := w.Proc("c2", 1)
	c2.Offset = 4*time.Second + 900*time.Millisecond
	MustFail(t, locker(t, "python-setnx", Params{Retries: 1}), c2)
	if w.Count("c2 0 GETSET") != 0 {
		t.Fatal("now == v must not try GETSET")
	}
	c3 := w.Proc("c3", 2)
	c3.Offset = 5 * time.Second
	lease3 := MustAcquire(t, locker(t, "python-setnx", Params{Retries: 1}), c3)
	if lease3.Token != itoa(v+1+4) {
		t.Fatalf("c3 took it with %s, want %d", lease3.Token, v+5)
	}
}

// int(None): the key vanished between SETNX and GET.
func TestPythonSetnxIntNone(t *testing.T) {
	w := NewWorld(t, 1)
	c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
	l1 := locker(t, "python-setnx", Params{})
	lease := MustAcquire(t, l1, c1)
	c2.Before("GET", 1, func() { MustRelease(t, l1, c1, lease) })
	_, err := locker(t, "python-setnx", Params{}).Acquire(c2)
	wantClientError(t, err, "python-setnx", "int(redis_client.get(lock_key))", "key vanished (None)")
}

// The release checks its own lock_timeout, then DELs.
func TestPythonSetnxReleaseChecksTimeout(t *testing.T) {
	w := NewWorld(t, 1)
	c1 := w.Proc("c1", 0)
	l := locker(t, "python-setnx", Params{})
	lease := MustAcquire(t, l, c1)
	w.Advance(4 * time.Second) // now == lock_timeout: not < it
	MustRelease(t, l, c1, lease)
	if w.Count("c1 0 DEL") != 0 {
		t.Fatal("release after lock_timeout must not DEL")
	}
	w.Advance(time.Second)
	MustAcquire(t, l, c1) // takes its own stale lock over with GETSET
	MustRelease(t, l, c1, lease)
	if w.Count("c1 0 DEL") != 1 {
		t.Fatal("release before lock_timeout must DEL")
	}
}

// 004: an expired value is taken over with SET key value GET.
func TestPHPSetGetTakeover(t *testing.T) {
	w := NewWorld(t, 1)
	w.Exec(0, "SET", "your_lock_prefix_1", itoa(epochSec-1))
	c1 := w.Proc("c1", 0)
	lease := MustAcquire(t, locker(t, "php-set-get", Params{}), c1)
	sameLines(t, w.Commands("c1"), []string{
		"c1 0 SETNX your_lock_prefix_1 1767225630",
		"c1 0 GET your_lock_prefix_1",
		"c1 0 SET your_lock_prefix_1 1767225630 GET",
	})
	if _, v, _ := w.Key(0, "your_lock_prefix_1"); v != lease.Token || v != itoa(epochSec+30) {
		t.Fatalf("stored %s, want now + 30", v)
	}
}

func TestPHPSetGetEdges(t *testing.T) {
	t.Run("not expired: usleep(200000) and retry", func(t *testing.T) {
		w := NewWorld(t, 1)
		w.Exec(0, "SET", "your_lock_prefix_1", itoa(epochSec+1))
		c1 := w.Proc("c1", 0)
		MustFail(t, locker(t, "php-set-get", Params{Retries: 3}), c1)
		if c1.Slept != 400*time.Millisecond || w.Count("c1 0 SET ") != 0 {
			t.Fatalf("slept %s, %d SET GET; want 400ms, none", c1.Slept, w.Count("c1 0 SET "))
		}
	})
	t.Run("(int)null is 0: a vanished key counts as expired", func(t *testing.T) {
		w := NewWorld(t, 1)
		w.Exec(0, "SET", "your_lock_prefix_1", itoa(epochSec+1))
		c1 := w.Proc("c1", 0)
		c1.Before("GET", 1, func() { w.Exec(0, "DEL", "your_lock_prefix_1") })
		MustAcquire(t, locker(t, "php-set-get", Params{Retries: 1}), c1)
	})
	t.Run("an error reply is false, and (int)false is 0", func(t *testing.T) {
		// The key holds a hash: SETNX answers 0, GET and SET ... GET answer
		// WRONGTYPE, which the post's client returns as false; (int)false is 0 < now,
		// so the lock counts as taken, with no client error.
		w := NewWorld(t, 1)
		w.Exec(0, "HSET", "your_lock_prefix_1", "f", "v")
		c1 := w.Proc("c1", 0)
		MustAcquire(t, locker(t, "php-set-get", Params{Retries: 1}), c1)
		if w.Count("c1 0 SET your_lock_prefix_1") != 1 {
			t.Fatalf("commands %q: want the takeover SET sent once", w.Commands("c1"))
		}
	})
	t.Run("old == now fails but has overwritten the lock", func(t *testing.T) {
		w := NewWorld(t, 1)
		w.Exec(0, "SET", "your_lock_prefix_1", itoa(epochSec))
		c1 := w.Proc("c1", 0)
		MustFail(t, locker(t, "php-set-get", Params{Retries: 1}), c1)
		if _, v, _ := w.Key(0, "your_lock_prefix_1"); v != itoa(epochSec+30) {
			t.Fatalf("stored %s, want c1's now + 30", v)
		}
	})
	t.Run("unlock DELs whoever holds it", func(t *testing.T) {
		w := NewWorld(t, 1)
		c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
		l1 := locker(t, "php-set-get", Params{})
		lease := MustAcquire(t, l1, c1)
		w.Advance(32 * time.Second)
		MustAcquire(t, locker(t, "php-set-get", Params{}), c2)
		MustRelease(t, l1, c1, lease)
		if ok, _, _ := w.Key(0, "your_lock_prefix_1"); ok {
			t.Fatal("c1's unlock should have deleted c2's lock")
		}
	})
}
