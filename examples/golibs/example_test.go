package golibs_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/golock/goredisenv"
	"github.com/locksim/locksim/simtest"
)

// golock.Check runs redsync, unmodified, through 2,000 scenarios with
// pauses. Copy the function into a _test.go file of your repository (its
// module requires golock, golock/goredisenv and redsync) and run `go
// test`. Inside the lock's assumptions (pauses that leave the TTL room)
// redsync is safe, so the test passes and logs the breaking point outside
// them: the overlap a pause past the TTL causes. With
// golock.With(simtest.FailOnAnyFault()) it fails with that shrunk overlap
// instead, written to testdata/simtest/, which golock.Replay(t, newLock,
// FILE) replays as a test that fails while redsync still breaks there
// (golock.Run returns a run's outcome and never fails the test).
func Example_redsync() {
	newLock := func(env *golock.Env) golock.Acquire {
		pool := goredis.NewPool(goredisenv.Client(env, 0)) // node 0's go-redis client
		m := redsync.New(pool).NewMutex(env.Key,
			redsync.WithExpiry(env.TTL),
			// Its value and retry delay from the run's seed: crypto/rand
			// and math/rand would make runs that do not replay.
			redsync.WithGenValueFunc(env.Token),
			redsync.WithRetryDelayFunc(func(int) time.Duration {
				return time.Duration(50+env.Rand.IntN(200)) * time.Millisecond
			}))
		return func(ctx context.Context) (*golock.Lease, error) {
			if err := m.LockContext(ctx); err != nil {
				return nil, err // not held
			}
			return &golock.Lease{Token: m.Value(), Release: func(ctx context.Context) error {
				_, err := m.UnlockContext(ctx)
				return err
			}}, nil
		}
	}
	TestRedsync := func(t *testing.T) {
		golock.Check(t, newLock, golock.Faults("pause"), golock.TTL(8*time.Second),
			golock.With(simtest.Runs(2000)))
	}
	_ = TestRedsync
}
