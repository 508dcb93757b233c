package golibs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/golock/goredisenv"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// Redisson's RLock with a lease time, written over go-redis v9 as a Go
// library would: the hash of owner → count with PEXPIRE, and waiters that
// subscribe to the lock's channel before their first try and wait for the
// unlock message (or the PTTL the failed try answered), then try again.
// The scripts are examples/redisson-lock's.
var (
	redissonTry    = redis.NewScript(redissonScript("lock.lua"))
	redissonUnlock = redis.NewScript(redissonScript("unlock.lua"))
)

// redissonScript is one of examples/redisson-lock's scripts, the file's
// own text: the algorithm file and this library run the same Lua.
func redissonScript(name string) string {
	b, err := os.ReadFile(filepath.Join("..", "redisson-lock", name))
	if err != nil {
		panic(fmt.Sprintf("redisson-lock's %s: %v", name, err)) // the repository's own file: missing is a broken checkout
	}
	return string(b)
}

// redissonLock counts its waiters' wake-ups by message in woken.
func redissonLock(woken *int) golock.NewLock {
	return func(env *golock.Env) golock.Acquire {
		c := goredisenv.Client(env, 0)
		channel := "redisson_lock__channel:{" + env.Key + "}"
		ttl := env.TTL.Milliseconds()
		return func(ctx context.Context) (*golock.Lease, error) {
			field, _ := env.Token()
			sub := c.Subscribe(ctx, channel)
			defer sub.Close()
			for {
				left, err := redissonTry.Run(ctx, c, []string{env.Key}, ttl, field).Int64()
				if errors.Is(err, redis.Nil) {
					return &golock.Lease{Token: field, Release: func(ctx context.Context) error {
						_, err := redissonUnlock.Run(ctx, c, []string{env.Key, channel}, 0, ttl, field).Result()
						if errors.Is(err, redis.Nil) {
							return errors.New("attempt to unlock lock, not locked by current thread")
						}
						return err
					}}, nil
				}
				if err != nil {
					return nil, err
				}
				wait, cancel := context.WithTimeout(ctx, time.Duration(left)*time.Millisecond)
				_, err = sub.ReceiveMessage(wait)
				cancel()
				if err == nil {
					*woken++
				}
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
			}
		}
	}
}

// The go-redis Redisson-style lock, verdicts derived by hand: c1 holds at
// once and works 2 s under a 10 s lease; c2 starts at 500 ms, subscribes,
// fails its try (PTTL about 9.5 s) and waits on go-redis's PubSub. With no
// fault, the unlock message c1's release publishes wakes c2 at once (its
// release runs at about 2 s) and c2 holds: safe, one wake-up by message.
// With 300 ms replies the message is late: each command of go-redis's
// costs 301 ms (a HELLO on each new connection, refused and ignored; a
// script's EVALSHA, NOSCRIPT and EVAL the first time), so c1 holds from
// 1.204 s and its release's EVAL runs at 3.506 s; the message takes 300 ms
// and c2's EVALSHA (its script loaded by then) another round trip: held at
// 4.107 s, safe. With c1 crashed holding
// no message comes: c2 waits out the PTTL, the lease has expired, and its
// next try holds (about 10 s): safe, no wake-up. (A lost message and a
// lost connection are SUBWAIT's and sim/bubble's tests.)
func TestRedissonOverGoRedis(t *testing.T) {
	for _, c := range []struct {
		name, faults string
		reply        string
		woken        int
		heldAfter    time.Duration // c2's acquire returned held after this
		heldBefore   time.Duration // and before this
	}{
		{"none", "", "1ms", 1, 2 * time.Second, 2100 * time.Millisecond},
		{"late", "", "300ms", 1, 4100 * time.Millisecond, 4200 * time.Millisecond},
		{"crash", "faults: [{kind: crash, client: c1, on: {client: c1, point: acquired, n: 1}}]\n", "1ms", 0, 10 * time.Second, 10200 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "redisson-wait.yaml")
			src := `name: redisson-wait
algorithm: hash-reentrant-watchdog
duration: 30s
params: {ttl: 10s}
clients:
  - {name: c1, iterations: 1, work: 2s}
  - {name: c2, start: 500ms, iterations: 1, work: 100ms}
network: {request: 1ms, reply: ` + c.reply + `, timeout: 1s}
` + c.faults
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			woken := 0
			o, err := golock.Run(t, redissonLock(&woken), path)
			if err != nil {
				t.Fatal(err)
			}
			if o.Verdict.Verdict != model.VerdictSafe {
				t.Errorf("verdict %s, derived safe", o.Verdict)
			}
			if woken != 2*c.woken { // Run runs the scenario twice
				t.Errorf("%d wake-ups by message over two runs, derived %d", woken, 2*c.woken)
			}
			var held time.Duration
			for _, e := range o.Result.History.Events {
				if e.Kind == sim.KindLockReturn && e.Proc == 1 && e.Held {
					held = time.Duration(e.At)
				}
			}
			if held < c.heldAfter || held > c.heldBefore {
				t.Errorf("c2 held from %v, derived between %v and %v", held, c.heldAfter, c.heldBefore)
			}
		})
	}
}
