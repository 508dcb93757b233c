package locks

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// epochSec is true time zero in Unix seconds: 2026-01-01T00:00:00Z.
var epochSec = sim.Epoch.Unix()

func sameLines(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("commands:\n got %q\nwant %q", got, want)
	}
}

// 003: the naive lock never looks at its timestamp: a holder that crashes
// leaves the key for ever.
func TestSetnxDelCrashedHolderDeadlocks(t *testing.T) {
	w := NewWorld(t, 1)
	c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
	lease := MustAcquire(t, locker(t, "setnx-del", Params{}), c1)
	if want := itoa(epochSec + 3 + 1); lease.Token != want {
		t.Fatalf("value %s, want <now + lock timeout + 1> = %s", lease.Token, want)
	}
	// c1 crashes holding it. An hour later c2 still cannot get in.
	w.Advance(time.Hour)
	MustFail(t, locker(t, "setnx-del", Params{Retries: 5}), c2)
	if n := w.Count("c2 0 SETNX lock.foo"); n != 5 || c2.Slept != 4*time.Second {
		t.Fatalf("c2: %d SETNX, slept %s; want 5 tries one second apart", n, c2.Slept)
	}
	if _, _, ttl := w.Key(0, "lock.foo"); ttl != -1 {
		t.Fatalf("lock.foo has a TTL %s; the naive lock sets none", ttl)
	}
}

func TestSetnxDelReleaseDeletes(t *testing.T) {
	w := NewWorld(t, 1)
	c1 := w.Proc("c1", 0)
	l := locker(t, "setnx-del", Params{})
	lease := MustAcquire(t, l, c1)
	MustRelease(t, l, c1, lease)
	if ok, _, _ := w.Key(0, "lock.foo"); ok {
		t.Fatal("DEL did not remove lock.foo")
	}
}

// 003 "Handling deadlocks": C1 and C2 both read the expired timestamp; C1
// DELs and SETNXs, then C2 DELs C1's lock and SETNXs: both hold.
func TestSetnxDelRecoverDelThenSetnxRace(t *testing.T) {
	w := NewWorld(t, 1)
	w.Exec(0, "SET", "lock.foo", itoa(epochSec-10)) // C3 crashed holding it; it has expired
	c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
	l1, l2 := locker(t, "setnx-del-recover", Params{}), locker(t, "setnx-del-recover", Params{})
	var lease1 sim.Lease
	// C2 has read the expired value; before its DEL, C1 runs all the way.
	c2.Before("DEL", 1, func() { lease1 = MustAcquire(t, l1, c1) })
	lease2 := MustAcquire(t, l2, c2)
	if !lease1.Held || !lease2.Held {
		t.Fatalf("want both to hold: c1 %+v, c2 %+v", lease1, lease2)
	}
	sameLines(t, w.Commands("lock.foo"), []string{
		"c2 0 SETNX lock.foo 1767225604",
		"c2 0 GET lock.foo",
		"c1 0 SETNX lock.foo 1767225604",
		"c1 0 GET lock.foo",
		"c1 0 DEL lock.foo",
		"c1 0 SETNX lock.foo 1767225604",
		"c2 0 DEL lock.foo",
		"c2 0 SETNX lock.foo 1767225604",
	})
}

// A timestamp that is still valid makes the waiter sleep one second.
func TestSetnxDelRecoverWaitsWhileValid(t *testing.T) {
	w := NewWorld(t, 1)
	c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
	MustAcquire(t, locker(t, "setnx-del-recover", Params{}), c1)
	MustFail(t, locker(t, "setnx-del-recover", Params{Retries: 2}), c2)
	if c2.Slept != time.Second || w.Count("c2 0 DEL") != 0 {
		t.Fatalf("c2 slept %s and sent %d DEL; want one 1 s sleep, no DEL", c2.Slept, w.Count("c2 0 DEL"))
	}
}

// 003's C4 and C5: both see the expired lock; C5's GETSET wins, so C4's
// GETSET returns a timestamp that has not expired and C4 does not hold it.
func TestSetnxGetsetC5WinsTheRace(t *testing.T) {
	w := NewWorld(t, 1)
	w.Exec(0, "SET", "lock.foo", itoa(epochSec-10))
	c4, c5 := w.Proc("c4", 0), w.Proc("c5", 1)
	l4, l5 := locker(t, "setnx-getset", Params{Retries: 1}), locker(t, "setnx-getset", Params{})
	var lease5 sim.Lease
	c4.Before("GETSET", 1, func() { lease5 = MustAcquire(t, l5, c5) })
	MustFail(t, l4, c4)
	if !lease5.Held {
		t.Fatal("c5 should hold the lock")
	}
	sameLines(t, w.Commands("GETSET"), []string{
		"c5 0 GETSET lock.foo 1767225604",
		"c4 0 GETSET lock.foo 1767225604",
	})
}

// A lock that has not expired: "sleep one second (for instance) and retry
// from the start".
func TestSetnxGetsetSleepsOneSecond(t *testing.T) {
	w := NewWorld(t, 1)
	c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
	MustAcquire(t, locker(t, "setnx-getset", Params{}), c1)
	MustFail(t, locker(t, "setnx-getset", Params{Retries: 3}), c2)
	if c2.Slept != 2*time.Second || w.Count("c2 0 GETSET") != 0 {
		t.Fatalf("c2 slept %s, %d GETSET; want 2 s, none", c2.Slept, w.Count("c2 0 GETSET"))
	}
}

// The IMPORTANT NOTE: a holder that blocked past its timeout must not DEL.
// setnx-getset DELs the next holder's lock; setnx-getset-checked does not.
func TestReleaseAfterTimeout(t *testing.T) {
	for _, c := range []struct {
		name        string
		survives    bool
		releaseDELs int
	}{
		{"setnx-getset", false, 1},
		{"setnx-getset-checked", true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := NewWorld(t, 1)
			c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
			l1 := locker(t, c.name, Params{})
			lease := MustAcquire(t, l1, c1)
			w.Advance(10 * time.Second) // c1 blocks a long time
			MustAcquire(t, locker(t, c.name, Params{}), c2)
			MustRelease(t, l1, c1, lease)
			if ok, _, _ := w.Key(0, "lock.foo"); ok != c.survives {
				t.Fatalf("c2's lock exists = %v after c1's late release, want %v", ok, c.survives)
			}
			if n := w.Count("c1 0 DEL"); n != c.releaseDELs {
				t.Fatalf("c1 sent %d DEL, want %d", n, c.releaseDELs)
			}
		})
	}
}

func TestSetnxGetsetCheckedReleasesLiveLock(t *testing.T) {
	w := NewWorld(t, 1)
	c1 := w.Proc("c1", 0)
	l := locker(t, "setnx-getset-checked", Params{})
	MustRelease(t, l, c1, MustAcquire(t, l, c1))
	if ok, _, _ := w.Key(0, "lock.foo"); ok {
		t.Fatal("a live lock must be DELed")
	}
}

// 000 §5: a client that dies between SETNX and EXPIRE leaves a key with no
// TTL: deadlock.
func TestSetnxExpireCrashBetweenLeavesNoTTL(t *testing.T) {
	w := NewWorld(t, 1)
	c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
	c1.Drop = map[string]bool{"EXPIRE": true}
	_, err := locker(t, "setnx-expire", Params{}).Acquire(c1)
	var ce *ClientError
	if !errors.As(err, &ce) || !errors.Is(err, sim.ErrTimeout) || ce.Algorithm != "setnx-expire" {
		t.Fatalf("lost EXPIRE: want a setnx-expire client error wrapping the timeout, got %v", err)
	}
	if ok, _, ttl := w.Key(0, "foo.lock"); !ok || ttl != -1 {
		t.Fatalf("foo.lock exists %v ttl %s; want a key with no TTL", ok, ttl)
	}
	w.Advance(time.Hour)
	MustFail(t, locker(t, "setnx-expire", Params{Retries: 3}), c2)
}

func TestSetnxExpireSetsTTL(t *testing.T) {
	w := NewWorld(t, 1)
	c1 := w.Proc("c1", 0)
	MustAcquire(t, locker(t, "setnx-expire", Params{}), c1)
	sameLines(t, w.Commands("c1"), []string{"c1 0 SETNX foo.lock 1767225660000", "c1 0 EXPIRE foo.lock 60"})
	if _, _, ttl := w.Key(0, "foo.lock"); ttl <= 59*time.Second || ttl > 60*time.Second {
		t.Fatalf("ttl %s, want just under 60s", ttl)
	}
}
