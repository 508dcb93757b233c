package golibs_test

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/scenarios"
)

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// libraries are the locks the determinism tests run.
var libraries = []struct {
	name string
	lock golock.NewLock
}{{"redsync-1", redsyncLock(1)}, {"redsync-N", redsyncLock(0)}, {"redislock", bsmLock}}

// replayScenarios touch every path of a library's run: pauses on a reply,
// lost and slow replies, five pools at once, node restarts, failover,
// renewal, crashes.
var replayScenarios = []string{"token-pause", "token-extend-pause", "lost-setnx-reply", "token-scope-retry",
	"redlock-node-restart", "redlock-delayed-restart", "failover-lost-lock", "reentrant-watchdog", "crash-deadlock"}

// TestSameSeedSameDigest runs each library on each scenario with one
// processor, then again with four in parallel subtests (each Run runs its
// scenario twice and compares too), and compares the digests: the
// goroutines the libraries start (redsync's one per pool, go-redis's
// dialer) must not let the Go scheduler decide anything.
func TestSameSeedSameDigest(t *testing.T) {
	type key struct{ lib, scenario string }
	first := map[key]string{}
	prev := runtime.GOMAXPROCS(1)
	for _, l := range libraries {
		for _, s := range replayScenarios {
			o, err := golock.Run(t, l.lock, s)
			if err != nil {
				t.Fatalf("%s on %s: %v", l.name, s, err)
			}
			first[key{l.name, s}] = o.Digest
		}
	}
	runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	var mu sync.Mutex
	second := map[key]string{}
	t.Run("parallel", func(t *testing.T) {
		for _, l := range libraries {
			for _, s := range replayScenarios {
				t.Run(l.name+"/"+s, func(t *testing.T) {
					t.Parallel()
					o, err := golock.Run(t, l.lock, s)
					if err != nil {
						t.Fatal(err)
					}
					mu.Lock()
					second[key{l.name, s}] = o.Digest
					mu.Unlock()
				})
			}
		}
	})
	for k, d := range first {
		if second[k] != d {
			t.Errorf("%s on %s: digest %.12s with GOMAXPROCS 1, %.12s with 4 in parallel", k.lib, k.scenario, d, second[k])
		}
	}
}

// TestNondeterministicLibraryIsNamed runs redsync with all of NewMutex's
// defaults: its value comes from crypto/rand, so two runs of one scenario
// send different SETs. Run says so instead of giving a verdict.
func TestNondeterministicLibraryIsNamed(t *testing.T) {
	_, err := golock.Run(t, redsyncDefaults, "token-pause")
	if !errors.Is(err, golock.ErrNondeterministic) {
		t.Fatalf("redsync with crypto/rand values: %v, want ErrNondeterministic", err)
	}
	if !contains(err.Error(), "crypto/rand") {
		t.Errorf("the error does not say what to look for: %v", err)
	}
}

// TestManyReplaysInOneBubble replays, 100 times in one bubble, five-pool
// redsync where five reads time out at one instant and where a pool's node
// restarts (the scheduler's order among redsync's pool goroutines, which
// dials first and whose timeout is seen first, once leaked into the errors
// redsync joins, one run in a few dozen), and bsm/redislock paused on its
// reply with its context's deadline and its read deadline at one instant
// (which of the two go-redis saw first was the scheduler's choice).
func TestManyReplaysInOneBubble(t *testing.T) {
	for _, c := range []struct {
		name string
		lock golock.NewLock
	}{{"redlock-delayed-restart", redsyncLock(0)}, {"redlock-aof-always", redsyncLock(0)}, {"token-extend-pause", bsmLock}} {
		name := c.name
		synctest.Test(t, func(t *testing.T) {
			s, err := scenarios.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			first, err := golock.RunInBubble(c.lock, s)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 100 {
				o, err := golock.RunInBubble(c.lock, s)
				if err != nil {
					t.Fatal(err)
				}
				if o.Digest != first.Digest {
					t.Fatalf("%s: replay %d: digest %.12s, first %.12s", name, i, o.Digest, first.Digest)
				}
			}
		})
	}
}
