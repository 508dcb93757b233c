package golibs_test

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"

	redigo "github.com/gomodule/redigo/redis"
	"github.com/redis/rueidis/rueidiscompat"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	goredisv8 "github.com/go-redsync/redsync/v4/redis/goredis/v8"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	redsyncredigo "github.com/go-redsync/redsync/v4/redis/redigo"
	redsyncrueidis "github.com/go-redsync/redsync/v4/redis/rueidis"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/golock/goredisenv"
	"github.com/locksim/locksim/golock/goredisv8env"
	"github.com/locksim/locksim/golock/redigoenv"
	"github.com/locksim/locksim/golock/rueidisenv"
	"github.com/locksim/locksim/simtest"
)

// clientPools are redsync's pool packages, one per Go Redis client, each
// over golock's adapter for that client: the same lock (redsyncWith) over
// four clients.
var clientPools = []struct {
	name string
	pool func(env *golock.Env) (redsyncredis.Pool, error)
}{
	{"go-redis", func(env *golock.Env) (redsyncredis.Pool, error) {
		return goredis.NewPool(goredisenv.Client(env, 0)), nil
	}},
	{"go-redis v8", func(env *golock.Env) (redsyncredis.Pool, error) {
		return goredisv8.NewPool(goredisv8env.Client(env, 0)), nil
	}},
	{"redigo", func(env *golock.Env) (redsyncredis.Pool, error) {
		return redsyncredigo.NewPool(redigoenv.Pool(env, 0)), nil
	}},
	{"rueidis", func(env *golock.Env) (redsyncredis.Pool, error) {
		c, err := rueidisenv.Client(env, 0)
		if err != nil {
			return nil, err
		}
		return redsyncrueidis.NewPool(rueidiscompat.NewAdapter(c)), nil
	}},
}

// redsyncWith is redsyncLock(1) (redsync's README, one pool, the run's TTL
// and deterministic values and retry delays) over the pool pool makes,
// without Extend: the README's use. An error is a lock not held, not the
// process's end.
func redsyncWith(pool func(env *golock.Env) (redsyncredis.Pool, error)) golock.NewLock {
	return func(env *golock.Env) golock.Acquire {
		var m *redsync.Mutex
		return func(ctx context.Context) (*golock.Lease, error) {
			if m == nil { // made on the first Acquire: rueidis dials when made
				p, err := pool(env)
				if err != nil {
					return nil, err
				}
				m = redsync.New(p).NewMutex(env.Key, redsyncOptions(env)...)
			}
			if err := m.LockContext(ctx); err != nil {
				return nil, err // not held
			}
			return &golock.Lease{Token: m.Value(), Release: func(ctx context.Context) error {
				if ok, err := m.UnlockContext(ctx); !ok || err != nil {
					return errors.Join(errors.New("unlock failed"), err) // panic("unlock failed")
				}
				return nil
			}}, nil
		}
	}
}

// TestRedsyncOverEachClient: redsync over each client's pool is redsync:
// explore under pause finds the overlap a pause past the TTL causes (no
// fencing), and with no faults it is safe, over go-redis, redigo and
// rueidis alike.
func TestRedsyncOverEachClient(t *testing.T) {
	for _, c := range clientPools {
		t.Run(c.name, func(t *testing.T) {
			lock := redsyncWith(c.pool)
			f, err := golock.Explore(t, lock, golock.Faults("pause"), golock.With(simtest.Runs(2000)), golock.With(simtest.SaveTo("")))
			if err != nil || f == nil || f.Verdict != "unsafe" {
				t.Fatalf("under pause: %v %v, want an overlap found", f, err)
			}
			t.Logf("under pause: %s at run %d: %s", f.Verdict, f.Run, f.Outcome.Verdict)
			if f, err := golock.Explore(t, lock, golock.Faults("none"), golock.With(simtest.Runs(300)), golock.With(simtest.SaveTo(""))); err != nil || f != nil {
				t.Fatalf("under no faults: %v %v, want nothing found", f, err)
			}
		})
	}
}

// TestClientsReplayAtAnyGOMAXPROCS runs each client's redsync on scenarios
// with pauses, lost replies and restarts at GOMAXPROCS 1 and 2 and
// compares the digests: the goroutines each client starts (redigo's none,
// rueidis's reader and writer per connection, go-redis's dialer) must not
// let the Go scheduler decide anything. On token-pause each finds the
// overlap: every client reaches the node.
func TestClientsReplayAtAnyGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range clientPools {
		for _, s := range []string{"token-pause", "lost-setnx-reply", "redlock-node-restart", "crash-deadlock"} {
			var digests []string
			for _, procs := range []int{1, 2} {
				runtime.GOMAXPROCS(procs)
				o, err := golock.Run(t, redsyncWith(c.pool), s)
				if err != nil {
					t.Fatalf("%s on %s at GOMAXPROCS %d: %v", c.name, s, procs, err)
				}
				if s == "token-pause" && o.Verdict.Verdict != "unsafe" {
					t.Errorf("%s on token-pause: %s, want the pause's overlap", c.name, o.Verdict)
				}
				digests = append(digests, o.Digest)
			}
			if digests[0] != digests[1] {
				t.Errorf("%s on %s: digest %.12s at GOMAXPROCS 1, %.12s at 2", c.name, s, digests[0], digests[1])
			}
		}
	}
}

// TestDialOfNoNodeFailsTheRun: a client given an address that is no node
// of the run (a redigo pool pointed at another port, dialing through Env)
// fails the run with one line naming the address, never a verdict.
func TestDialOfNoNodeFailsTheRun(t *testing.T) {
	lock := redsyncWith(func(env *golock.Env) (redsyncredis.Pool, error) {
		return redsyncredigo.NewPool(&redigo.Pool{Dial: func() (redigo.Conn, error) {
			return redigo.Dial("tcp", "127.0.0.1:7000", redigo.DialNetDial(env.NetDial))
		}}), nil
	})
	_, err := golock.Run(t, lock, "token-pause")
	if !errors.Is(err, golock.ErrDialOutside) {
		t.Fatalf("Run: %v, want ErrDialOutside", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, `"127.0.0.1:7000"`) {
		t.Fatalf("not one line naming the address: %q", msg)
	}
	f, err := golock.Explore(t, lock, golock.Faults("pause"), golock.With(simtest.Runs(20)), golock.With(simtest.SaveTo("")))
	if f != nil || !errors.Is(err, golock.ErrDialOutside) {
		t.Fatalf("Explore: %v %v, want ErrDialOutside", f, err)
	}
	t.Log(err)
}

// TestRealDialIsNamed: a redigo pool given a real address dials the real
// network from inside the run (a port just closed: refused). Nothing is
// ever held, and ErrNeverHeld's line says the client dialed outside the
// simulation.
func TestRealDialIsNamed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback listener: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	lock := redsyncWith(func(env *golock.Env) (redsyncredis.Pool, error) {
		return redsyncredigo.NewPool(&redigo.Pool{Dial: func() (redigo.Conn, error) {
			return redigo.Dial("tcp", addr)
		}}), nil
	})
	f, err := golock.Explore(t, lock, golock.Faults("pause"), golock.With(simtest.Runs(20)), golock.With(simtest.SaveTo("")))
	if f != nil || !errors.Is(err, golock.ErrNeverHeld) {
		t.Fatalf("%v %v, want ErrNeverHeld", f, err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "dialed outside the simulation") || !strings.Contains(msg, addr) {
		t.Fatalf("not one line saying the client dialed %s outside the simulation: %q", addr, msg)
	}
	t.Log(err)
}
