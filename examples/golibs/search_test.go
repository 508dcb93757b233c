package golibs_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/golock/goredisenv"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/simtest"
)

// counted counts the Extend calls of newLock's leases and the clients and
// TTLs its Env had.
func counted(newLock golock.NewLock, extends *atomic.Int64, clients *atomic.Int64, ttls *[]time.Duration) golock.NewLock {
	return func(env *golock.Env) golock.Acquire {
		if n := int64(env.Nodes); n > clients.Load() {
			clients.Store(n)
		}
		*ttls = append(*ttls, env.TTL)
		acquire := newLock(env)
		return func(ctx context.Context) (*golock.Lease, error) {
			l, err := acquire(ctx)
			if l != nil && l.Extend != nil {
				extend := l.Extend
				l.Extend = func(ctx context.Context) error {
					extends.Add(1)
					return extend(ctx)
				}
			}
			return l, err
		}
	}
}

// TestCheckRenewsALeaseWithExtend: a search over redsync, whose Lease has
// Extend, calls it (the probe finds it, and every client renews), and with
// no faults finds nothing: the renewals cover holds past the TTL.
func TestCheckRenewsALeaseWithExtend(t *testing.T) {
	var extends, clients atomic.Int64
	var ttls []time.Duration
	f, err := golock.Explore(t, counted(redsyncLock(1), &extends, &clients, &ttls), golock.Faults("none"),
		golock.With(simtest.Runs(100)), golock.With(simtest.SaveTo("")))
	if err != nil || f != nil {
		t.Fatalf("redsync renewed, no faults: %v %v", err, f)
	}
	if extends.Load() == 0 {
		t.Fatal("no Extend called in 100 runs")
	}
	t.Logf("%d Extend calls in 100 runs", extends.Load())
}

// brokenExtendLock is bsm/redislock whose Extend reports success whatever
// happened, and sends nothing: the lease is never renewed.
func brokenExtendLock(env *golock.Env) golock.Acquire {
	acquire := bsmLock(env)
	return func(ctx context.Context) (*golock.Lease, error) {
		l, err := acquire(ctx)
		if l != nil {
			l.Extend = func(context.Context) error { return nil }
		}
		return l, err
	}
}

// TestBrokenExtendIsCaught: the same search over a lock whose Extend does
// nothing finds the overlap: a holder working past its TTL, told its
// renewals went through, while the next client holds the expired key.
func TestBrokenExtendIsCaught(t *testing.T) {
	f, err := golock.Explore(t, brokenExtendLock, golock.Faults("none"), golock.With(simtest.Runs(100)), golock.With(simtest.SaveTo("")))
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || f.Verdict != "unsafe" {
		t.Fatalf("an Extend that renews nothing: %+v, want unsafe", f)
	}
	// The correct Refresh passes the same search.
	if f, err := golock.Explore(t, bsmLock, golock.Faults("none"), golock.With(simtest.Runs(100)), golock.With(simtest.SaveTo(""))); err != nil || f != nil {
		t.Fatalf("bsm/redislock's own Refresh: %v %v, want nothing found", err, f)
	}
}

// TestNodesSearchesAQuorum: with Nodes(3) every scenario has three nodes
// and goredisenv.Clients one client each, so redsync with a pool per client is
// searched as a quorum lock through Check directly: safe under crashes,
// unsafe once a node restarts without persistence and forgets its key.
func TestNodesSearchesAQuorum(t *testing.T) {
	var extends, clients atomic.Int64
	var ttls []time.Duration
	lock := counted(withoutExtend(redsyncLock(0)), &extends, &clients, &ttls)
	if f, err := golock.Explore(t, lock, golock.Nodes(3), golock.Faults("crash"), golock.With(simtest.Runs(100)), golock.With(simtest.SaveTo(""))); err != nil || f != nil {
		t.Fatalf("redsync, 3 pools, under crash: %v %+v, want nothing found", err, f)
	}
	if clients.Load() != 3 {
		t.Fatalf("goredisenv.Clients had at most %d clients, want 3", clients.Load())
	}
	f, err := golock.Explore(t, lock, golock.Nodes(3), golock.Faults("restart"), golock.With(simtest.Runs(300)), golock.With(simtest.SaveTo("")))
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || f.Verdict != "unsafe" {
		t.Fatalf("redsync, 3 pools, under restart: %+v, want unsafe", f)
	}
	// Shrinking may drop nodes, as it lowers a Redlock's count: the
	// counterexample runs on as many as its faults name.
	t.Logf("unsafe at run %d, shrunk to %d node(s): %s", f.Run, f.Outcome.Result.History.Nodes, f.Outcome.Verdict)
	if _, err := golock.Explore(t, lock, golock.Nodes(0)); err == nil || !strings.Contains(err.Error(), "golock.Nodes(0)") {
		t.Errorf("Nodes(0): %v, want the option named", err)
	}
}

// TestTTLIsTheLocks: with TTL(2s) every lock is made with a 2 s TTL, and
// the counterexample runs at it.
func TestTTLIsTheLocks(t *testing.T) {
	var extends, clients atomic.Int64
	var ttls []time.Duration
	f, err := golock.Explore(t, counted(withoutExtend(bsmLock), &extends, &clients, &ttls), golock.TTL(2*time.Second),
		golock.Faults("pause"), golock.With(simtest.Runs(200)), golock.With(simtest.SaveTo("")))
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || f.Outcome.Scenario.Params.TTL.D() != 2*time.Second {
		t.Fatalf("%+v, want a counterexample at the 2s TTL", f)
	}
	// Every lock of the search's runs has the 2 s TTL; only the
	// generator's probe runs (a handful of locks) have TTLs of their own.
	other := 0
	for _, d := range ttls {
		if d != 2*time.Second {
			other++
		}
	}
	if other > 10 || len(ttls)-other < 200 {
		t.Fatalf("%d locks made with the 2s TTL, %d with another, want every run's at 2s", len(ttls)-other, other)
	}
	if _, err := golock.Explore(t, bsmLock, golock.TTL(-time.Second)); err == nil || !strings.Contains(err.Error(), "golock.TTL(-1s)") {
		t.Errorf("TTL(-1s): %v, want the option named", err)
	}
}

// refusedLock is bsm/redislock over a go-redis client of its own whose
// every dial is refused, as a client pointed at an address the run does
// not serve (one try a dial, no maintenance notifications, whose set-up
// starts goroutines the run does not end).
func refusedLock(env *golock.Env) golock.Acquire {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6390", PoolSize: 100, MaxRetries: -1, DialerRetries: 1,
		Protocol: 2, DisableIdentity: true, MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
		Dialer: func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 6390},
				Err: &net.OpError{Op: "connect", Err: syscall.ECONNREFUSED}}
		}})
	client := redislock.New(c)
	return func(ctx context.Context) (*golock.Lease, error) {
		lock, err := client.Obtain(ctx, env.Key, env.TTL, nil)
		if err != nil {
			return nil, err
		}
		return &golock.Lease{Release: lock.Release}, nil
	}
}

// TestNeverHeldFails: a search in which no Acquire held the lock fails with
// ErrNeverHeld, in one line naming the first Acquire's error, where it
// found nothing because it tested nothing.
func TestNeverHeldFails(t *testing.T) {
	redis.SetLogger(refusedLog{})
	defer redis.SetLogger(refusedLog{all: true})
	f, err := golock.Explore(t, refusedLock, golock.Faults("pause"), golock.With(simtest.Runs(50)), golock.With(simtest.SaveTo("")))
	if f != nil || !errors.Is(err, golock.ErrNeverHeld) {
		t.Fatalf("%v %v, want ErrNeverHeld", f, err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "connection refused") {
		t.Fatalf("not one line naming the refused dial: %q", msg)
	}
	t.Log(err)
}

// refusedLog drops go-redis's log lines about refusedLock's dials (all:
// none), and prints the others as go-redis's own logger does.
type refusedLog struct{ all bool }

func (l refusedLog) Printf(_ context.Context, format string, v ...any) {
	if msg := fmt.Sprintf(format, v...); l.all || !strings.Contains(msg, "127.0.0.1:6390") {
		log.Print("redis: ", msg)
	}
}

// blockingLock's Acquire pops from a list nobody pushes to, with no
// timeout: a library call that never returns.
func blockingLock(env *golock.Env) golock.Acquire {
	return func(ctx context.Context) (*golock.Lease, error) {
		return nil, goredisenv.Client(env, 0).BLPop(ctx, 0, "never").Err()
	}
}

// TestHangNamesWhereTheCallWaits: a run cut at its duration while a
// library call waits names the call and where its goroutine waits, in
// go-redis and in the lock's code.
func TestHangNamesWhereTheCallWaits(t *testing.T) {
	o, err := golock.Run(t, blockingLock, "del-race")
	if err != nil {
		t.Fatal(err)
	}
	cut := o.Result.Cut
	if !strings.Contains(cut, "'s Acquire has not returned: its goroutine waits") ||
		!strings.Contains(cut, "github.com/redis/go-redis/v9") || !strings.Contains(cut, "blockingLock") {
		t.Fatalf("cut %q, want the Acquire named and where it waits", cut)
	}
	t.Log(cut)
}

// TestRenewedCounterexampleReplays: a counterexample of a search that
// renewed the lease (go_lock: set, renew_every 0 meaning every third of
// the TTL there) replays through Run to the search's history: net's, a
// renewal whose reply is lost, renews.
func TestRenewedCounterexampleReplays(t *testing.T) {
	var extends, clients atomic.Int64
	var ttls []time.Duration
	lock := counted(redsyncLock(1), &extends, &clients, &ttls)
	f, err := golock.Explore(t, lock, golock.Faults("net"), golock.With(simtest.Runs(500)), golock.With(simtest.SaveTo(t.TempDir())))
	if err != nil || f == nil {
		t.Fatalf("redsync renewed under net: %v %v, want a counterexample", err, f)
	}
	before := extends.Load()
	o, err := golock.Run(t, lock, f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !hasExtend(f) {
		t.Fatalf("the counterexample renews nothing: it does not test a renewed replay")
	}
	if o.Digest != f.Outcome.Digest || extends.Load() == before {
		t.Errorf("%s replays to %.12s with %d Extend calls, the search saw %.12s", f.Path, o.Digest, extends.Load()-before, f.Outcome.Digest)
	}
}

// hasExtend says whether the counterexample's run called Extend.
func hasExtend(f *simtest.Failure) bool {
	for _, e := range f.Outcome.Result.History.Events {
		if e.Kind == sim.KindExtendInvoke {
			return true
		}
	}
	return false
}
