package golock_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/simtest"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// rawLock is a token lock written on Env's connections alone, with no
// client library: SET key token NX PX ttl to take it, a compare-and-delete
// script to release it, each a RESP command on a connection dial makes.
// Any client that takes a dialer sees what it sees.
func rawLock(dial func(env *golock.Env) (net.Conn, error)) golock.NewLock {
	return func(env *golock.Env) golock.Acquire {
		do := func(ctx context.Context, args ...string) (string, error) {
			c, err := dial(env)
			if err != nil {
				return "", err
			}
			defer c.Close()
			if d, ok := ctx.Deadline(); ok {
				c.SetDeadline(d)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "*%d\r\n", len(args))
			for _, a := range args {
				fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
			}
			if _, err := c.Write([]byte(b.String())); err != nil {
				return "", err
			}
			line, err := bufio.NewReader(c).ReadString('\n')
			return strings.TrimSpace(line), err
		}
		return func(ctx context.Context) (*golock.Lease, error) {
			token, _ := env.Token()
			rep, err := do(ctx, "SET", env.Key, token, "NX", "PX", fmt.Sprint(env.TTL.Milliseconds()))
			if err != nil || rep != "+OK" {
				return nil, err
			}
			return &golock.Lease{Token: token, Release: func(ctx context.Context) error {
				_, err := do(ctx, "EVAL", `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`,
					"1", env.Key, token)
				return err
			}}, nil
		}
	}
}

// TestRawConnectionsRunTheLock: a lock on Env.Dial and on Env's dialer
// functions given Env.Addr runs as any client would: the pause overlap of
// a lock that does not fence, the same digest each way.
func TestRawConnectionsRunTheLock(t *testing.T) {
	var digests []string
	for _, dial := range []func(env *golock.Env) (net.Conn, error){
		func(env *golock.Env) (net.Conn, error) { return env.Dial(0) },
		func(env *golock.Env) (net.Conn, error) {
			return env.DialContext(context.Background(), "tcp", env.Addr(0))
		},
		func(env *golock.Env) (net.Conn, error) { return env.NetDial("tcp", env.Addr(0)) },
		func(env *golock.Env) (net.Conn, error) { return env.DialFn(env.Addr(0), nil, nil) },
	} {
		o, err := golock.Run(t, rawLock(dial), "token-pause")
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict.Verdict != "unsafe" {
			t.Fatalf("token-pause: %s, want the pause's overlap", o.Verdict)
		}
		digests = append(digests, o.Digest)
	}
	for i, d := range digests[1:] {
		if d != digests[0] {
			t.Errorf("dialer %d: digest %.12s, Dial's %.12s", i+1, d, digests[0])
		}
	}
}

// TestDialOfNoNodeIsOneLine: an address that is no node's fails the run
// with ErrDialOutside, in one line naming it, under Run, Check and Compare
// alike.
func TestDialOfNoNodeIsOneLine(t *testing.T) {
	lock := rawLock(func(env *golock.Env) (net.Conn, error) {
		return env.DialContext(context.Background(), "tcp", "redis.internal:6379")
	})
	_, err := golock.Run(t, lock, "token-pause")
	if !errors.Is(err, golock.ErrDialOutside) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), `"redis.internal:6379"`) {
		t.Fatalf("Run: %v, want one line of ErrDialOutside naming redis.internal:6379", err)
	}
	f, _, err := golock.Answer(t, lock, golock.Faults("pause"), golock.TTL(2*time.Second), golock.With(simtest.Runs(20)))
	if f != nil || !errors.Is(err, golock.ErrDialOutside) {
		t.Fatalf("Answer: %v %v, want ErrDialOutside", f, err)
	}
	// The same lock on both sides: nothing is worse, and still no pass.
	if _, err := golock.CompareResult(t, lock, lock, golock.Faults("pause"), golock.With(simtest.Runs(10))); !errors.Is(err, golock.ErrDialOutside) {
		t.Fatalf("Compare: %v, want ErrDialOutside", err)
	}
}
