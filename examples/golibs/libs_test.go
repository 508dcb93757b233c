package golibs_test

import (
	"context"
	"errors"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/golock/goredisenv"
)

// The two libraries as their READMEs use them, the same uses that
// examples/redsync.yaml and examples/bsm-redislock.yaml write as algorithm
// files, so that verdicts compare.

// redsyncLock is redsync v4's README:
//
//	mutex := rs.NewMutex("test-redsync")
//	if err := mutex.Lock(); err != nil { panic(err) }
//	if ok, err := mutex.Unlock(); !ok || err != nil { panic("unlock failed") }
//
// with one pool per node the run has (pools ≤ 0) or the first pools nodes,
// the run's TTL as its expiry (WithExpiry; 8 s, NewMutex's own, unless the
// scenario sets one) and NewMutex's other defaults but two: the value and
// the retry delay come from the process's deterministic source instead of
// crypto/rand and the unseeded math/rand, in the same shapes (22 base64
// characters; 50 to 250 ms).
func redsyncLock(pools int, opts ...redsync.Option) golock.NewLock {
	return func(env *golock.Env) golock.Acquire {
		n := env.Nodes
		if pools > 0 {
			n = pools
		}
		var ps []redis.Pool
		for _, c := range goredisenv.Clients(env)[:n] {
			ps = append(ps, goredis.NewPool(c))
		}
		m := redsync.New(ps...).NewMutex(env.Key, append(redsyncOptions(env), opts...)...)
		return func(ctx context.Context) (*golock.Lease, error) {
			if err := m.LockContext(ctx); err != nil {
				return nil, golock.Fatal(err) // panic(err)
			}
			return &golock.Lease{Token: m.Value(), Release: func(ctx context.Context) error {
				if ok, err := m.UnlockContext(ctx); !ok || err != nil {
					return errors.Join(errors.New("unlock failed"), err) // panic("unlock failed")
				}
				return nil
			}, Extend: func(ctx context.Context) error {
				if ok, err := m.ExtendContext(ctx); !ok || err != nil {
					return errors.Join(redsync.ErrExtendFailed, err)
				}
				return nil
			}}, nil
		}
	}
}

// redsyncOptions are redsyncLock's options: the run's TTL as the expiry,
// the value and the retry delay from the process's deterministic source.
func redsyncOptions(env *golock.Env) []redsync.Option {
	return []redsync.Option{
		redsync.WithExpiry(env.TTL),
		redsync.WithGenValueFunc(env.Token),
		redsync.WithRetryDelayFunc(func(int) time.Duration {
			return time.Duration(50+env.Rand.IntN(200)) * time.Millisecond
		}),
	}
}

// redsyncDefaults is redsync with every default of NewMutex, crypto/rand
// values and math/rand retry delays included: runs that do not replay.
func redsyncDefaults(env *golock.Env) golock.Acquire {
	m := redsync.New(goredis.NewPool(goredisenv.Client(env, 0))).NewMutex(env.Key)
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

// bsmLock is bsm/redislock v0.9's README:
//
//	backoff := redislock.LimitRetry(redislock.LinearBackoff(100*time.Millisecond), 3)
//	lock, err := locker.Obtain(ctx, "my-key", 30*time.Second, &redislock.Options{RetryStrategy: backoff})
//	if err == redislock.ErrNotObtained { fmt.Println("Could not obtain lock!") } else if err != nil { log.Fatalln(err) }
//	defer lock.Release(ctx)
//
// with the run's TTL and the token from the process's deterministic source
// (Options.Token, the shape of its own) instead of crypto/rand.
func bsmLock(env *golock.Env) golock.Acquire {
	client := redislock.New(goredisenv.Client(env, 0))
	return func(ctx context.Context) (*golock.Lease, error) {
		token, _ := env.Token()
		backoff := redislock.LimitRetry(redislock.LinearBackoff(100*time.Millisecond), 3)
		lock, err := client.Obtain(ctx, env.Key, env.TTL, &redislock.Options{RetryStrategy: backoff, Token: token})
		if errors.Is(err, redislock.ErrNotObtained) {
			return nil, err // "Could not obtain lock!"
		} else if err != nil {
			return nil, golock.Fatal(err) // log.Fatalln(err)
		}
		return &golock.Lease{Token: lock.Token(), Release: func(ctx context.Context) error {
			_ = lock.Release(ctx) // defer lock.Release(ctx): its error is dropped
			return nil
		}, Extend: func(ctx context.Context) error {
			return lock.Refresh(ctx, env.TTL, nil)
		}}, nil
	}
}

// withoutExtend is the lock with a Lease that cannot be extended: the
// READMEs' use, which renews nothing.
func withoutExtend(newLock golock.NewLock) golock.NewLock {
	return func(env *golock.Env) golock.Acquire {
		acquire := newLock(env)
		return func(ctx context.Context) (*golock.Lease, error) {
			l, err := acquire(ctx)
			if l != nil {
				l.Extend = nil
			}
			return l, err
		}
	}
}
