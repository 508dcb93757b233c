package locks

import (
	"strings"
	"testing"
	"time"
)

func TestSetNXPXTokenReleasesOnlyItsOwnLock(t *testing.T) {
	w := newWorld(t, 1)
	c1, c2 := w.proc("c1", 0), w.proc("c2", 1)
	l1 := locker(t, "set-nx-px-token", Params{})
	lease := mustAcquire(t, l1, c1)
	if _, v, ttl := w.key(0, "resource_name"); v != lease.Token || ttl <= 29*time.Second || ttl > 30*time.Second {
		t.Fatalf("stored %q ttl %s; want the token with PX 30000", v, ttl)
	}
	mustFail(t, locker(t, "set-nx-px-token", Params{Retries: 2}), c2)
	w.advance(31 * time.Second) // c1 paused past the TTL
	lease2 := mustAcquire(t, locker(t, "set-nx-px-token", Params{}), c2)
	if lease2.Token == lease.Token {
		t.Fatal("tokens must differ")
	}
	mustRelease(t, l1, c1, lease)
	if _, v, _ := w.key(0, "resource_name"); v != lease2.Token {
		t.Fatalf("c1's late release touched c2's lock: stored %q", v)
	}
}

// A timeout is a try that failed, not an error.
func TestSetNXPXTokenTimeoutIsNotAnError(t *testing.T) {
	w := newWorld(t, 1)
	c1 := w.proc("c1", 0)
	c1.drop = map[string]bool{"SET": true}
	mustFail(t, locker(t, "set-nx-px-token", Params{Retries: 2}), c1)
	c1.drop = map[string]bool{"EVAL": true}
	l := locker(t, "set-nx-px-token", Params{})
	mustRelease(t, l, c1, mustAcquire(t, l, c1))
}

func TestFencedTokenNumbersIncrease(t *testing.T) {
	w := newWorld(t, 1)
	var fences []int64
	for i, name := range []string{"c1", "c2", "c1"} {
		p := w.proc(name, i%2)
		l := locker(t, "fenced-token", Params{})
		lease := mustAcquire(t, l, p)
		fences = append(fences, lease.Fence)
		mustRelease(t, l, p, lease)
	}
	if fences[0] != 1 || fences[1] != 2 || fences[2] != 3 {
		t.Fatalf("fences %v, want 1 2 3", fences)
	}
	if _, v, ttl := w.key(0, "resource_name:fence"); v != "3" || ttl != -1 {
		t.Fatalf("counter %q ttl %s", v, ttl)
	}
}

// Without a fencing number the lock is given back.
func TestFencedTokenLostIncrReleases(t *testing.T) {
	w := newWorld(t, 1)
	c1 := w.proc("c1", 0)
	c1.drop = map[string]bool{"INCR": true}
	mustFail(t, locker(t, "fenced-token", Params{Retries: 1}), c1)
	if ok, _, _ := w.key(0, "resource_name"); ok {
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
		w := newWorld(t, 5)
		for _, n := range c.down {
			w.down[n] = true
		}
		c1 := w.proc("c1", 0)
		l := locker(t, "redlock", Params{})
		lease, err := l.Acquire(c1)
		if err != nil || lease.Held != c.held {
			t.Fatalf("nodes %v down: held %v, %v; want held %v", c.down, lease.Held, err, c.held)
		}
		up := 0
		for n := range 5 {
			if ok, v, _ := w.key(n, "resource_name"); ok && !w.down[n] {
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
			mustRelease(t, l, c1, lease)
			up = 0
			for n := range 5 {
				if ok, _, _ := w.key(n, "resource_name"); ok {
					up++
				}
			}
		} else {
			// 3 tries, each SET then unlock on all 5 nodes, 2 pauses.
			if n, s := w.count("c1 "), c1.sleeps; n != 3*10 || s != 2 {
				t.Fatalf("nodes %v down: %d commands, %d sleeps; want 30 and 2", c.down, n, s)
			}
			if c1.slept < 200*time.Millisecond || c1.slept >= 600*time.Millisecond {
				t.Fatalf("slept %s, want two random delays in [100ms, 300ms)", c1.slept)
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
	w := newWorld(t, 5)
	w.down[0], w.down[1] = true, true // 2 × 50 ms of timeouts
	c1 := w.proc("c1", 0)
	mustFail(t, locker(t, "redlock", Params{TTL: 100 * time.Millisecond, Retries: 1}), c1)
	w2 := newWorld(t, 5)
	w2.down[0], w2.down[1] = true, true
	mustAcquire(t, locker(t, "redlock", Params{TTL: 200 * time.Millisecond, Retries: 1}), w2.proc("c1", 0))
}

func TestRedlockNeedsItsNodes(t *testing.T) {
	w := newWorld(t, 3)
	_, err := locker(t, "redlock", Params{}).Acquire(w.proc("c1", 0))
	if err == nil || !strings.Contains(err.Error(), "needs 5 nodes") {
		t.Fatalf("want a needs-5-nodes error, got %v", err)
	}
	mustAcquire(t, locker(t, "redlock", Params{Nodes: 3}), w.proc("c1", 0))
}
