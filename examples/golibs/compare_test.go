package golibs_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/diff"
	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/golock/goredisenv"
	"github.com/locksim/locksim/simtest"
)

// compareAndDelete is the release a token lock needs: delete the key only
// while it holds this holder's token.
var compareAndDelete = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then
    return redis.call("del", KEYS[1])
end
return 0`)

// tokenLock is a redsync-like lock on go-redis: SET NX PX with a random
// token, tried every 50 ms for two TTLs; checked says whether its release
// checks the token (the correct lock) or deletes the key whoever holds it
// (the classic mistake a change may bring in).
func tokenLock(checked bool) golock.NewLock {
	return func(env *golock.Env) golock.Acquire {
		c := goredisenv.Client(env, 0)
		return func(ctx context.Context) (*golock.Lease, error) {
			for range int(2 * env.TTL / (50 * time.Millisecond)) {
				token, _ := env.Token()
				ok, err := c.SetNX(ctx, env.Key, token, env.TTL).Result()
				if err == nil && ok {
					release := func(ctx context.Context) error {
						if checked {
							return compareAndDelete.Run(ctx, c, []string{env.Key}, token).Err()
						}
						return c.Del(ctx, env.Key).Err()
					}
					return &golock.Lease{Token: token, Release: release}, nil
				}
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(50 * time.Millisecond):
				}
			}
			return nil, errors.New("not obtained")
		}
	}
}

// TestCompareFindsBrokenRelease: the release without the ownership check
// is worse than the correct one (outside the TTL's assumptions: a holder
// paused past its TTL deletes the next holder's key), and the scenario
// Compare writes replays through golock.Run to the two verdicts it names.
func TestCompareFindsBrokenRelease(t *testing.T) {
	dir := t.TempDir()
	c, err := golock.CompareResult(t, tokenLock(true), tokenLock(false), golock.Faults("pause"),
		golock.With(simtest.Runs(400)), golock.With(simtest.SaveTo(dir)), golock.With(simtest.Name("plain-del")))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Worse() || c.Message() == "" {
		t.Fatalf("no run worse for the broken release: %+v", c.Result.Halves)
	}
	for _, h := range c.Result.Halves {
		if h.Found == nil {
			continue
		}
		path := c.Paths[h.Half]
		if path == "" {
			t.Fatalf("%s: not written", h.Half)
		}
		old, err := golock.Run(t, tokenLock(true), path)
		if err != nil {
			t.Fatal(err)
		}
		nw, err := golock.Run(t, tokenLock(false), path)
		if err != nil {
			t.Fatal(err)
		}
		if old.Verdict.Verdict != h.Old.Verdict.Verdict || nw.Verdict.Verdict != h.New.Verdict.Verdict ||
			!diff.Worse(nw.Verdict.Verdict, old.Verdict.Verdict) {
			t.Errorf("%s: replayed old %s, new %s; Compare said old %s, new %s", path,
				old.Verdict.Verdict, nw.Verdict.Verdict, h.Old.Verdict.Verdict, h.New.Verdict.Verdict)
		}
	}
	if h := c.Result.Halves[1]; h.Half != diff.Outside || h.Found == nil {
		t.Errorf("the outside half found nothing: %+v", h)
	}
}

// TestCompareIdenticalNeverDiffer: a lock compared with itself is never
// worse or better in any run, the hand-written ones and real redsync (whose
// runs under net may be cut at a cap: that is Compare's failure to report,
// not a difference); and Compare passes the correct lock.
func TestCompareIdenticalNeverDiffer(t *testing.T) {
	runs := 100
	if testing.Short() {
		runs = 30
	}
	for _, c := range []struct {
		name string
		lock golock.NewLock
	}{{"token-lock", tokenLock(true)}, {"plain-del", tokenLock(false)}, {"redsync", redsyncLock(1)}} {
		r, err := golock.CompareResult(t, c.lock, c.lock, golock.Faults("pause", "crash", "net"), golock.With(simtest.Runs(runs)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, h := range r.Result.Halves {
			if h.Found != nil || h.Better > 0 || h.Runs != runs {
				t.Errorf("%s against itself, %s half: %d runs, worse at %v, %d better", c.name, h.Half, h.Runs, h.Found, h.Better)
			}
		}
	}
	if !golock.Compare(t, tokenLock(true), tokenLock(true), golock.Faults("pause", "crash"), golock.With(simtest.Runs(runs))) {
		t.Error("the token lock differs from itself")
	}
}

// TestCompareOptions: the options Compare shares with Check take effect.
func TestCompareOptions(t *testing.T) {
	c, err := golock.CompareResult(t, tokenLock(true), tokenLock(true), golock.Faults("crash"),
		golock.With(simtest.Runs(7)), golock.With(simtest.Seed(9)))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Result
	if r.Limit != 7 || r.Seed != 9 || !slices.Equal(r.Classes, []string{"crash"}) || len(r.Halves) != 2 || r.Halves[0].Runs != 7 {
		t.Errorf("options not taken: limit %d, seed %d, classes %v, %d halves", r.Limit, r.Seed, r.Classes, len(r.Halves))
	}
	if _, err := golock.CompareResult(t, tokenLock(true), tokenLock(true), golock.Faults("skew")); err == nil {
		t.Error("client clock skew accepted")
	}
}
