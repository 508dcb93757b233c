package golibs_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/golock/goredisenv"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/simtest"
)

// tickerLock is the smallest lock with a watchdog of its own, as libraries
// that renew in the background have: Acquire is SET NX PX and starts a
// goroutine that renews every third of the TTL on a time.Ticker and stops
// only when ctx (the process's life) is cancelled, never on Release. The
// run's end cancels every process's ctx, so the goroutine unwinds and the
// bubble ends clean; renewals counts the ticks that renewed, to show it ran.
func tickerLock(renewals *atomic.Int64) golock.NewLock { return tickingEvery(3, 1, renewals) }

// tickingEvery is tickerLock renewing every num/den of the TTL.
func tickingEvery(den, num time.Duration, renewals *atomic.Int64) golock.NewLock {
	return func(env *golock.Env) golock.Acquire {
		c := goredisenv.Client(env, 0)
		return func(ctx context.Context) (*golock.Lease, error) {
			token, _ := env.Token()
			ok, err := c.SetNX(ctx, env.Key, token, env.TTL).Result()
			if err != nil || !ok {
				return nil, errors.Join(errors.New("not obtained"), err)
			}
			go func() {
				t := time.NewTicker(env.TTL * num / den)
				defer t.Stop()
				for {
					select {
					case <-ctx.Done():
						return
					case <-t.C:
						if c.PExpire(ctx, env.Key, env.TTL).Val() {
							renewals.Add(1)
						}
					}
				}
			}()
			return &golock.Lease{Token: token, Release: func(ctx context.Context) error {
				return c.Del(ctx, env.Key).Err()
			}}, nil
		}
	}
}

// TestWatchdogGoroutineUnwindsAtRunEnd: a run whose lock leaves a ticking
// goroutine behind after every Acquire ends without synctest's deadlock
// panic, twice with the same digest, and the goroutine did tick (the runs
// last several TTLs after the first Acquire).
func TestWatchdogGoroutineUnwindsAtRunEnd(t *testing.T) {
	var renewals atomic.Int64
	o, err := golock.Run(t, tickerLock(&renewals), "token-pause")
	if err != nil {
		t.Fatal(err)
	}
	if o.Digest == "" {
		t.Fatal("no digest")
	}
	if renewals.Load() == 0 {
		t.Fatal("the watchdog goroutine never renewed: the test does not test a ticking goroutine")
	}
}

// leakyLock's watchdog ticks on context.Background(): nothing the run's
// end does stops it.
func leakyLock(env *golock.Env) golock.Acquire {
	c := goredisenv.Client(env, 0)
	return func(ctx context.Context) (*golock.Lease, error) {
		token, _ := env.Token()
		if ok, err := c.SetNX(ctx, env.Key, token, env.TTL).Result(); err != nil || !ok {
			return nil, errors.Join(errors.New("not obtained"), err)
		}
		go func() {
			for range time.Tick(env.TTL / 3) {
				c.PExpire(context.Background(), env.Key, env.TTL)
			}
		}()
		return &golock.Lease{Token: token, Release: func(ctx context.Context) error {
			return c.Del(ctx, env.Key).Err()
		}}, nil
	}
}

// TestGoroutineLeftIsNamedInOneLine: a goroutine that outlives the run is
// ErrGoroutineLeft, one line naming the function that started it, not
// synctest's panic with every stack.
func TestGoroutineLeftIsNamedInOneLine(t *testing.T) {
	_, err := golock.Run(t, leakyLock, "token-pause")
	if !errors.Is(err, golock.ErrGoroutineLeft) {
		t.Fatalf("got %v, want ErrGoroutineLeft", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "leakyLock") {
		t.Fatalf("not one line naming leakyLock: %q", msg)
	}
	t.Log(err)
}

// TestNewLockWithoutAcquire: a NewLock that returns no Acquire ends every
// process with a client error naming it, made in the first Acquire's call.
func TestNewLockWithoutAcquire(t *testing.T) {
	o, err := golock.Run(t, func(*golock.Env) golock.Acquire { return nil }, "del-race")
	if err != nil {
		t.Fatal(err)
	}
	if o.Verdict.Verdict != "client-error" {
		t.Errorf("verdict %s, want client-error", o.Verdict.Verdict)
	}
	ends := 0
	for _, e := range o.Result.History.Events {
		if e.Kind == sim.KindProcEnd {
			ends++
			if !strings.Contains(e.Err, "NewLock returned no Acquire") {
				t.Errorf("%s ended with %q, want NewLock's missing Acquire named", o.Result.History.Procs[e.Proc], e.Err)
			}
		}
	}
	if ends == 0 {
		t.Error("no process ended")
	}
}

// TestReleaseDuringAnExtendReturns: a holder whose work ends while its
// renewal's Extend is in flight (testdata/extend-inflight.yaml: both at
// 724 ms, the Extend's EVALSHA answered NOSCRIPT) releases, and the run
// ends safe. Stopping the renewal used to close the process's whole
// library: its Release then waited on closed connections until the run
// was cut at 10 s, for redsync and bsm/redislock alike.
func TestReleaseDuringAnExtendReturns(t *testing.T) {
	for _, l := range []struct {
		name string
		lock golock.NewLock
	}{{"redsync", redsyncLock(1)}, {"bsm/redislock", bsmLock}} {
		o, err := golock.Run(t, l.lock, "testdata/extend-inflight.yaml")
		if err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		var invoked, released bool
		for _, e := range o.Result.History.Events {
			invoked = invoked || e.Kind == sim.KindExtendInvoke
			released = released || e.Kind == sim.KindReleaseReturn && e.Err == ""
		}
		if o.Result.Cut != "" || o.Verdict.Verdict != "safe" || !invoked || !released {
			t.Errorf("%s: %s, cut %q, extend invoked %v, released %v; want safe, an Extend in flight and the Release returned",
				l.name, o.Verdict.Verdict, o.Result.Cut, invoked, released)
		}
	}
}

// TestPauseOfALibraryCallActed: a pause that held a library call's reply
// (redsync's SET, 2.5 s, past the 2 s TTL) acted, and the run is not
// vacuous; a pause inside the work, with no call under way and nothing
// due, held nothing.
func TestPauseOfALibraryCallActed(t *testing.T) {
	for _, c := range []struct {
		file  string
		acted bool
	}{{"testdata/pause-held-reply.yaml", true}, {"testdata/pause-held-nothing.yaml", false}} {
		o, err := golock.Run(t, redsyncLock(1), c.file)
		if err != nil {
			t.Fatal(err)
		}
		u := o.Result.Faults[0]
		if !u.Fired || u.Acted != c.acted || o.Result.Vacuous() == c.acted {
			t.Errorf("%s: fired %v, acted %v (%s), vacuous %v; want acted %v", c.file, u.Fired, u.Acted, u.Why, o.Result.Vacuous(), c.acted)
		}
	}
}

// TestWatchdogOptionDrawsHoldsPastTheTTL: with Watchdog(), a library that
// renews by itself (tickerLock: every third of the TTL) is searched with
// holds past the TTL, which its renewals cover; the same library renewing
// only every two TTLs is caught, where without the option no hold outlasts
// the TTL.
func TestWatchdogOptionDrawsHoldsPastTheTTL(t *testing.T) {
	var renewals atomic.Int64
	f, err := golock.Explore(t, tickerLock(&renewals), golock.Watchdog(), golock.Faults("none"),
		golock.With(simtest.Runs(100)), golock.With(simtest.SaveTo("")))
	if err != nil || f != nil {
		t.Fatalf("a watchdog every TTL/3: %v %v, want nothing found", err, f)
	}
	if renewals.Load() == 0 {
		t.Fatal("the library's watchdog never renewed in 100 runs")
	}
	f, err = golock.Explore(t, tickingEvery(1, 2, &renewals), golock.Watchdog(), golock.Faults("none"),
		golock.With(simtest.Runs(100)), golock.With(simtest.SaveTo("")))
	if err != nil || f == nil || f.Verdict != "unsafe" {
		t.Fatalf("a watchdog every 2 TTLs: %v %+v, want unsafe", err, f)
	}
	// Without the option every hold stays below the TTL: nothing to find.
	f, err = golock.Explore(t, tickingEvery(1, 2, &renewals), golock.Faults("none"), golock.With(simtest.Runs(100)), golock.With(simtest.SaveTo("")))
	if err != nil || f != nil {
		t.Fatalf("a watchdog every 2 TTLs, no Watchdog(): %v %v, want nothing found", err, f)
	}
}
