package golibs_test

import (
	"context"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"

	"github.com/locksim/locksim/examples/golibs/golock"
)

// redsyncOnePool is redsync v4 as its README uses it, one pool, with the
// defaults of NewMutex but two: the value and the retry delay come from
// the process's deterministic source instead of crypto/rand and the
// unseeded math/rand (same shapes: 16 bytes' worth of base64, 50 to 250 ms).
func redsyncOnePool(opts ...redsync.Option) golock.NewLock {
	return func(env *golock.Env) golock.Acquire {
		rs := redsync.New(goredis.NewPool(env.Clients[0]))
		all := append([]redsync.Option{
			redsync.WithGenValueFunc(env.Token),
			redsync.WithRetryDelayFunc(func(int) time.Duration {
				return time.Duration(50+env.Rand.IntN(200)) * time.Millisecond
			}),
		}, opts...)
		m := rs.NewMutex(env.Key, all...)
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
