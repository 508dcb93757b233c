package golibs_test

import (
	"context"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"

	"github.com/locksim/locksim/examples/golibs/golock"
)

// redsyncLock is redsync v4 as its README uses it (NewMutex, Lock,
// Unlock), one pool per node the run has (pools ≤ 0) or the first pools
// nodes, with the run's TTL as its expiry (WithExpiry) and NewMutex's
// other defaults but two: the value and the retry delay
// come from the process's deterministic source instead of crypto/rand and
// the unseeded math/rand, in the same shapes (22 base64 characters; 50 to
// 250 ms). A failed Unlock is an error, as the README's caller panics.
func redsyncLock(pools int, opts ...redsync.Option) golock.NewLock {
	return func(env *golock.Env) golock.Acquire {
		n := len(env.Clients)
		if pools > 0 {
			n = pools
		}
		var ps []redis.Pool
		for _, c := range env.Clients[:n] {
			ps = append(ps, goredis.NewPool(c))
		}
		all := append([]redsync.Option{
			redsync.WithExpiry(env.TTL),
			redsync.WithGenValueFunc(env.Token),
			redsync.WithRetryDelayFunc(func(int) time.Duration {
				return time.Duration(50+env.Rand.IntN(200)) * time.Millisecond
			}),
		}, opts...)
		m := redsync.New(ps...).NewMutex(env.Key, all...)
		return func(ctx context.Context) (*golock.Lease, error) {
			if err := m.LockContext(ctx); err != nil {
				return nil, err
			}
			return &golock.Lease{Token: m.Value(), Release: func(ctx context.Context) error {
				_, err := m.UnlockContext(ctx)
				return err
			}}, nil
		}
	}
}

// redsyncDefaults is redsync with every default of NewMutex, crypto/rand
// values and math/rand delays included: runs that do not replay.
func redsyncDefaults(env *golock.Env) golock.Acquire {
	m := redsync.New(goredis.NewPool(env.Clients[0])).NewMutex(env.Key)
	return func(ctx context.Context) (*golock.Lease, error) {
		if err := m.LockContext(ctx); err != nil {
			return nil, err
		}
		return &golock.Lease{Token: m.Value(), Release: func(ctx context.Context) error {
			_, err := m.UnlockContext(ctx)
			return err
		}}, nil
	}
}

// bsmLock is bsm/redislock as its README uses it: Obtain with the run's
// TTL and a linear 100 ms backoff (its README's example), the token from
// the process's deterministic source (redislock.Options.Token) instead of
// crypto/rand; Release. Obtain without a deadline gets one of TTL.
func bsmLock(env *golock.Env) golock.Acquire {
	client := redislock.New(env.Clients[0])
	return func(ctx context.Context) (*golock.Lease, error) {
		token, _ := env.Token()
		l, err := client.Obtain(ctx, env.Key, env.TTL, &redislock.Options{
			RetryStrategy: redislock.LinearBackoff(100 * time.Millisecond),
			Token:         token,
		})
		if err != nil {
			return nil, err
		}
		return &golock.Lease{Token: l.Token(), Release: l.Release}, nil
	}
}
