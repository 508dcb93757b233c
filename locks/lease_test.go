package locks

import (
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// token-extend: Extend renews the key only while it holds the lease's token.
func TestTokenExtendRenewsOwnKeyOnly(t *testing.T) {
	w := NewWorld(t, 1)
	c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
	l1 := locker(t, "token-extend", Params{Retries: 1})
	l2 := locker(t, "token-extend", Params{Retries: 1})
	lease := MustAcquire(t, l1, c1)
	w.Advance(6 * time.Second)
	x := l1.(sim.Extender)
	if ok, err := x.Extend(c1, lease); !ok || err != nil {
		t.Fatalf("extend: %v %v", ok, err)
	}
	if _, _, ttl := w.Key(0, "resource_name"); ttl < 7*time.Second {
		t.Fatalf("ttl %s after extend, want about 8s", ttl)
	}
	MustFail(t, l2, c2)
	if ok, _ := x.Extend(c1, sim.Lease{Held: true, Token: "not-ours"}); ok {
		t.Fatal("extend with another token renewed the key")
	}
	w.Advance(9 * time.Second) // expired
	lease2 := MustAcquire(t, l2, c2)
	if ok, _ := x.Extend(c1, lease); ok {
		t.Fatal("c1 renewed c2's lock")
	}
	MustRelease(t, l2, c2, lease2)
	if s, ok := l1.(sim.SelfRenewing); !ok || s.RenewEvery() != 4*time.Second {
		t.Fatalf("token-extend renews every TTL/2 by default")
	}
}

// hash-reentrant-watchdog: the owner re-enters and counts down; nobody else
// gets in until the count reaches zero; the watchdog renews only the owner's.
func TestHashReentrantCounts(t *testing.T) {
	w := NewWorld(t, 1)
	c1, c2 := w.Proc("c1", 0), w.Proc("c2", 1)
	l1 := locker(t, "hash-reentrant-watchdog", Params{})
	l2 := locker(t, "hash-reentrant-watchdog", Params{Retries: 1})
	outer := MustAcquire(t, l1, c1)
	inner := MustAcquire(t, l1, c1)
	if inner.Token != outer.Token {
		t.Fatalf("owner changed between acquisitions: %q, %q", outer.Token, inner.Token)
	}
	if got := w.Exec(0, "HGET", "myLock", outer.Token); got.Str != "2" {
		t.Fatalf("count %v after re-entering, want 2", got)
	}
	MustFail(t, l2, c2)
	MustRelease(t, l1, c1, inner)
	if ex, _, _ := w.Key(0, "myLock"); !ex {
		t.Fatal("the inner release deleted the lock")
	}
	MustFail(t, l2, c2)
	w.Advance(25 * time.Second)
	if ok, err := l1.(sim.Extender).Extend(c1, outer); !ok || err != nil {
		t.Fatalf("watchdog renewal: %v %v", ok, err)
	}
	if _, _, ttl := w.Key(0, "myLock"); ttl < 29*time.Second {
		t.Fatalf("ttl %s after renewal, want about 30s", ttl)
	}
	if ok, _ := l2.(sim.Extender).Extend(c2, sim.Lease{Held: true, Token: "c2:x"}); ok {
		t.Fatal("the watchdog renewed for an owner that does not hold the lock")
	}
	MustRelease(t, l1, c1, outer)
	if ex, _, _ := w.Key(0, "myLock"); ex {
		t.Fatal("the last release left the key")
	}
	MustAcquire(t, l2, c2)
	if s := l1.(sim.SelfRenewing).RenewEvery(); s != 10*time.Second {
		t.Fatalf("watchdog period %s, want TTL/3 = 10s", s)
	}
}

func TestTokenScopeValidated(t *testing.T) {
	a, _ := Lookup("token-extend")
	if err := a.Validate(Params{TokenScope: "call"}); err == nil {
		t.Fatal("token_scope call accepted")
	}
	for _, s := range []string{"", TokenTry, TokenAcquire} {
		if err := a.Validate(Params{TokenScope: s}); err != nil {
			t.Fatalf("token_scope %q: %v", s, err)
		}
	}
}
