package locks

import (
	"strings"
	"testing"
	"time"
)

func TestSetNXPXTokenReleasesOnlyItsOwnLock(t *testing.T) {
	w := NewWorld(t, 1)
	c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
	l1 := locker(t, "set-nx-px-token", Params{})
	lease := MustAcquire(t, l1, c1)
	if _, v, ttl := w.Key(0, "resource_name"); v != lease.Token || ttl <= 29*time.Second || ttl > 30*time.Second {
		t.Fatalf("stored %q ttl %s; want the token with PX 30000", v, ttl)
	}
	MustFail(t, locker(t, "set-nx-px-token", Params{Retries: 2}), c2)
	w.Advance(31 * time.Second) // c1 paused past the TTL
	lease2 := MustAcquire(t, locker(t, "set-nx-px-token", Params{}), c2)
	if lease2.Token == lease.Token {
		t.Fatal("tokens must differ")
	}
	MustRelease(t, l1, c1, lease)
	if _, v, _ := w.Key(0, "resource_name"); v != lease2.Token {
		t.Fatalf("c1's late release touched c2's lock: stored %q", v)
	}
}

// A timeout is a try that failed, not an error.
func TestSetNXPXTokenTimeoutIsNotAnError(t *testing.T) {
	w := NewWorld(t, 1)
	c1 := w.Proc("c1", 0)
	c1.Drop = map[string]bool{"SET": true}
	MustFail(t, locker(t, "set-nx-px-token", Params{Retries: 2}), c1)
	c1.Drop = map[string]bool{"EVAL": true}
	l := locker(t, "set-nx-px-token", Params{})
	MustRelease(t, l, c1, MustAcquire(t, l, c1))
}

func TestFencedTokenNumbersIncrease(t *testing.T) {
	w := NewWorld(t, 1)
	var fences []int64
	for i, name := range []string{"c1", "c2", "c1"} {
		p := w.Proc(name, i%2)
		l := locker(t, "fenced-token", Params{})
		lease := MustAcquire(t, l, p)
		fences = append(fences, lease.Fence)
		MustRelease(t, l, p, lease)
	}
	if fences[0] != 1 || fences[1] != 2 || fences[2] != 3 {
		t.Fatalf("fences %v, want 1 2 3", fences)
	}
	if _, v, ttl := w.Key(0, "resource_name:fence"); v != "3" || ttl != -1 {
		t.Fatalf("counter %q ttl %s", v, ttl)
	}
}

// Without a fencing number the lock is given back.
func TestFencedTokenLostIncrReleases(t *testing.T) {
	w := NewWorld(t, 1)
	c1 := w.Proc("c1", 0)
	c1.Drop = map[string]bool{"INCR": true}
	MustFail(t, locker(t, "fenced-token", Params{Retries: 1}), c1)
	if ok, _, _ := w.Key(0, "resource_name"); ok {
		t.Fatal("the lock should have been released")
	}
}

func TestRedlockQuorum(t *testing.T) {
	for _, c := range []struct {
		down []int
		held bool
	}{
		{nil, true},
		{[]int{1, 3}, true},
		{[]int{0, 4}, true},
		{[]int{0, 2, 4}, false},
		{[]int{1, 2, 3}, false},
	} {
		w := NewWorld(t, 5)
		for _, n := range c.down {
			w.Down[n] = true
		}
		c1 := w.Proc("c1", 0)
		l := locker(t, "redlock", Params{})
		lease, err := l.Acquire(c1)
		if err != nil || lease.Held != c.held {
			t.Fatalf("nodes %v down: held %v, %v; want held %v", c.down, lease.Held, err, c.held)
		}
		up := 0
		for n := range 5 {
			if ok, v, _ := w.Key(n, "resource_name"); ok && !w.Down[n] {
				up++
				if v != lease.Token {
					t.Fatalf("node %d holds %q, want the lease token", n, v)
				}
			}
		}
		if c.held {
			if up != 5-len(c.down) {
				t.Fatalf("nodes %v down: %d nodes hold the key, want %d", c.down, up, 5-len(c.down))
			}
			MustRelease(t, l, c1, lease)
			up = 0
			for n := range 5 {
				if ok, _, _ := w.Key(n, "resource_name"); ok {
					up++
				}
			}
		} else {
			// 3 tries, each SET then unlock on all 5 nodes, 2 pauses.
			if n, s := w.Count("c1 "), c1.Sleeps; n != 3*10 || s != 2 {
				t.Fatalf("nodes %v down: %d commands, %d sleeps; want 30 and 2", c.down, n, s)
			}
			if c1.Slept < 200*time.Millisecond || c1.Slept >= 600*time.Millisecond {
				t.Fatalf("slept %s, want two random delays in [100ms, 300ms)", c1.Slept)
			}
		}
		if up != 0 {
			t.Fatalf("nodes %v down: %d nodes still hold the key", c.down, up)
		}
	}
}

// The validity is ttl − elapsed − drift: a majority granted too slowly is
// not a lock.
func TestRedlockValidity(t *testing.T) {
	w := NewWorld(t, 5)
	w.Down[0], w.Down[1] = true, true // 2 × 50 ms of timeouts
	c1 := w.Proc("c1", 0)
	MustFail(t, locker(t, "redlock", Params{TTL: 100 * time.Millisecond, Retries: 1}), c1)
	w2 := NewWorld(t, 5)
	w2.Down[0], w2.Down[1] = true, true
	MustAcquire(t, locker(t, "redlock", Params{TTL: 200 * time.Millisecond, Retries: 1}), w2.Proc("c1", 0))
}

func TestRedlockNeedsItsNodes(t *testing.T) {
	w := NewWorld(t, 3)
	_, err := locker(t, "redlock", Params{}).Acquire(w.Proc("c1", 0))
	if err == nil || !strings.Contains(err.Error(), "needs 5 nodes") {
		t.Fatalf("want a needs-5-nodes error, got %v", err)
	}
	MustAcquire(t, locker(t, "redlock", Params{Nodes: 3}), w.Proc("c1", 0))
}
