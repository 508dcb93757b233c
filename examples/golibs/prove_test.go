package golibs_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/prove"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/simtest"
)

// goAlgorithm is a library's lock as an unregistered locks.Algorithm with
// an 8 s TTL, for prove.
func goAlgorithm(name string, newLock golock.NewLock) locks.Algorithm {
	newLocker := golock.Locker(newLock)
	a := locks.Algorithm{Name: name, Source: "Go code checked by golock", Summary: name,
		Defaults: locks.Params{Key: "lock", TTL: 8 * time.Second, Resolution: time.Millisecond}}
	a.New = func(o locks.Params) sim.Locker {
		p := a.With(o)
		return newLocker(simtest.Params{Key: p.Key, TTL: p.TTL})
	}
	return a
}

// quiet makes a library's lock a caller that neither panics nor exits: an
// error from acquire is "not held", one from release is dropped; its
// Extend is kept when keepExtend (an error from it says the lease is lost),
// else the lease cannot be extended. prove stops at the first violation of
// any kind, a client error included, and the READMEs' callers make every
// lost race one.
func quiet(newLock golock.NewLock, keepExtend bool) golock.NewLock {
	return func(env *golock.Env) golock.Acquire {
		acquire := newLock(env)
		return func(ctx context.Context) (*golock.Lease, error) {
			l, err := acquire(ctx)
			if err != nil || l == nil {
				return nil, errors.New("not held")
			}
			release := l.Release
			q := &golock.Lease{Token: l.Token, Release: func(ctx context.Context) error {
				_ = release(ctx)
				return nil
			}}
			if keepExtend {
				q.Extend = l.Extend
			}
			return q, nil
		}
	}
}

// TestProveOverRealLibraries enumerates every schedule of at most one
// fault at each send and reply of two clients, one round each, inside a
// bubble:
//
//   - crash and net: proved, for both. A crash or a lost request or reply
//     at any command never makes two holders: the key expires, and a
//     client that did not read its SET's reply does not hold (redsync then
//     releases with its value; redislock's retry finds its own token,
//     which its obtain script re-takes, or gives up).
//   - long-pause (3·TTL/2): unsafe for redsync: c1 paused 12 s when its
//     Lock returns outlives its 8 s key, and c2, still in its 32 tries
//     50 to 250 ms apart (about 5 s), takes it; c1 then writes. Proved for
//     redislock within this bound: the README's LimitRetry(…, 3) gives up
//     after four tries in 300 ms, long before the paused holder's key
//     expires, and two rounds each leave c2 no try after it. A waiter
//     that comes later overlaps (token-pause, explore under pause).
func TestProveOverRealLibraries(t *testing.T) {
	for _, c := range []struct {
		name    string
		lock    golock.NewLock
		classes []string
		want    string // "" proved
	}{
		{"redsync", quiet(redsyncLock(1), false), []string{"crash", "net"}, ""},
		{"redislock", quiet(bsmLock, false), []string{"crash", "net"}, ""},
		{"redsync", quiet(redsyncLock(1), false), []string{"long-pause"}, "unsafe"},
		{"redislock", quiet(bsmLock, false), []string{"long-pause"}, ""},
	} {
		var r *prove.Result
		synctest.Test(t, func(t *testing.T) {
			p, err := prove.New(prove.Options{Lock: goAlgorithm(c.name, c.lock), Classes: c.classes, MaxFaults: 1, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if r, err = p.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
		got := ""
		if r.Found != nil {
			got = r.Found.Verdict
		} else if !r.Proved() {
			got = "incomplete"
		}
		if got != c.want {
			t.Errorf("%s under %v: %q (%d schedules, %d cut), want %q", c.name, c.classes, got, r.Explored, r.Incomplete, c.want)
		}
		t.Logf("%s under %v: %q after %d schedules", c.name, c.classes, got, r.Explored)
		if r.Found != nil {
			t.Logf("schedule %v", r.Found.Schedule)
		}
	}
}
