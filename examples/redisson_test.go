package examples_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// redissonScenario is two clients (run on redisson-lock.yaml, 10 s lease;
// the algorithm the file names is replaced): c1
// takes the lock at once and works 2 s; c2 starts at 500 ms, finds it held
// and waits on the lock's channel. 1 ms each way, a 1 s client timeout;
// reply is the reply latency, faults the fault plan.
func redissonScenario(t *testing.T, reply, faults string) *scenarios.Scenario {
	t.Helper()
	src := `name: redisson-wait
algorithm: hash-reentrant-watchdog
duration: 30s
clients:
  - {name: c1, iterations: 1, work: 2s}
  - {name: c2, start: 500ms, iterations: 1, work: 100ms}
network: {request: 1ms, reply: ` + reply + `, timeout: 1s}
` + faults
	s, err := scenarios.Parse("redisson-wait.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The verdicts of redisson-lock.yaml, derived by hand. The lock is a hash
// with a 10 s PEXPIRE; a try that fails answers the PTTL, the waiter
// SUBWAITs 10 s on redisson_lock__channel:myLock, and the release that
// deletes the hash PUBLISHes 0 there. The unlock message only wakes a
// waiter: its next try, an atomic script, is what takes the lock. So a
// message lost or late costs the waiter time, never safety: liveness only.
//   - none: c1 holds 1 ms to 2.002 s (its release runs at 2.003 s and
//     publishes); c2's try at 501 ms answers a PTTL, its wait parks at
//     503 ms and gets the message at 2.004 s; its next try takes the lock
//     at 2.005 s: safe, c2 holds from 2.006 s.
//   - late (300 ms replies): c1 holds from 301 ms, its release runs at
//     2.302 s, the message reaches c2 300 ms later (2.602 s); c2's try runs
//     at 2.603 s and holds from 2.903 s: safe.
//   - lost (lose-reply on c2's SUBWAIT): the node delivers the message at
//     the release but the network loses it; c2 waits out its deadline, its
//     1 s timeout plus the wait's 10 s (11.502 s), and its next try takes
//     the free lock: safe, c2 holds from 11.504 s.
//   - crash (c1 crashes holding): no release, no message; c2's wait times
//     out on the node at 10.503 s, after the lease ran out at 10.001 s;
//     the nil is back at 10.504 s and its next try takes the lock: safe,
//     c2 holds from 10.506 s.
//   - restart (node restart at 1 s, down 10 ms, no persistence): the hash
//     and c2's subscribed connection are gone; c1's release at 2.003 s finds
//     no field (nil: Redisson's IllegalMonitorStateException, a client
//     error) and publishes nothing; c2's wait, its connection lost, times
//     out at its deadline (11.502 s) and its next try takes the lock (held
//     from 11.504 s). No overlap: c2's try comes after c1's release.
func TestRedissonLock(t *testing.T) {
	a, err := algofile.LoadFile("redisson-lock.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, reply, faults string
		verdict             string
		message             bool          // c2's SUBWAIT ran with the unlock message
		waitErr             string        // its result's error: "" for the message
		held                time.Duration // c2's acquire returned held, then
	}{
		{"none", "1ms", "", model.VerdictSafe, true, "", 2006 * time.Millisecond},
		{"late", "300ms", "", model.VerdictSafe, true, "", 2903 * time.Millisecond},
		{"lost", "1ms", "faults: [{kind: lose-reply, client: c2, on: {client: c2, point: send, command: SUBWAIT, n: 1}}]\n",
			model.VerdictSafe, true, "timeout: reply lost", 11504 * time.Millisecond},
		{"crash", "1ms", "faults: [{kind: crash, client: c1, on: {client: c1, point: acquired, n: 1}}]\n",
			model.VerdictSafe, false, "", 10506 * time.Millisecond},
		{"restart", "1ms", "faults: [{kind: node-restart, node: 0, at: 1s, for: 10ms}]\n",
			model.VerdictClientError, false, "timeout: connection lost", 11504 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, h := run(t, redissonScenario(t, c.reply, c.faults), a)
			if o.Verdict.Verdict != c.verdict {
				t.Errorf("verdict %s, derived %s", o.Verdict.Verdict, c.verdict)
			}
			if o.Verdict.Broke() != "" {
				t.Errorf("broke %q: a lost or late message must not break safety", o.Verdict.Broke())
			}
			var waits, results []sim.Event
			var held time.Duration
			for _, e := range h.Events {
				if e.Proc != 1 {
					continue
				}
				switch {
				case e.Kind == sim.KindCommand && e.Args[0] == "SUBWAIT":
					waits = append(waits, e)
				case e.Kind == sim.KindCommandResult && e.Args[0] == "SUBWAIT":
					results = append(results, e)
				case e.Kind == sim.KindLockReturn && e.Held:
					held = time.Duration(e.At)
				}
			}
			if len(results) == 0 {
				t.Fatal("c2 never waited")
			}
			// A wait whose connection was lost never ends on its node: no
			// command event, as for a blocking pop.
			msg := `["message", "redisson_lock__channel:myLock", "0"]`
			if got := len(waits) > 0 && waits[0].Reply.String() == msg; got != c.message {
				t.Errorf("c2's wait ran with %v, want the message: %v", waits, c.message)
			}
			if results[0].Err != c.waitErr {
				t.Errorf("c2's wait came back with %q, derived %q", results[0].Err, c.waitErr)
			}
			if held != c.held {
				t.Errorf("c2 held from %v, derived %v", held, c.held)
			}
		})
	}
}

// The unlock message is in the history, and so in the digest: the same run
// with the release publishing elsewhere wakes no one and differs.
func TestRedissonMessageInDigest(t *testing.T) {
	a, err := algofile.LoadFile("redisson-lock.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("redisson-lock.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(data), `keys: ["{key}", "redisson_lock__channel:{key}"]`, `keys: ["{key}", "elsewhere"]`, 1)
	if src == string(data) {
		t.Fatal("redisson-lock.yaml's release names no channel")
	}
	read := func(path string) ([]byte, error) { return os.ReadFile(filepath.Clean(path)) }
	b, err := algofile.ParseFile("redisson-lock.yaml", []byte(src), read)
	if err != nil {
		t.Fatal(err)
	}
	s := redissonScenario(t, "1ms", "")
	oa, _ := run(t, s, a)
	ob, _ := run(t, s, b)
	if oa.Digest == ob.Digest {
		t.Error("a message to no one leaves the digest as it was")
	}
	if again, _ := run(t, s, a); again.Digest != oa.Digest {
		t.Errorf("two runs of one seed differ: %s, %s", oa.Digest, again.Digest)
	}
}

// redisson-lock.yaml under random fault schedules, verdicts derived by
// hand. No fault and crashes: safe (a crashed holder's lease expires and
// the waiter's wait ends at its timeout). Lost and slow replies (net): a
// lost unlock message, or a lost reply to a try or a release, never
// breaks mutual exclusion; a try's or release's timeout throws (Redisson's
// RedisTimeoutException): client errors, never unsafe. Pauses: safe inside
// the lease; past it the key expires under a paused holder, who writes on
// without a fencing number: unsafe outside.
func TestRedissonLockExplore(t *testing.T) {
	a, err := algofile.LoadFile("redisson-lock.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		class    string
		verdicts []string
		inside   bool
		want     string // the worst verdict found in 300 runs; safe: none
	}{
		{"none", nil, false, model.VerdictSafe},
		{"crash", nil, false, model.VerdictSafe},
		{"net", []string{model.VerdictUnsafe}, false, model.VerdictSafe},
		{"net", nil, false, model.VerdictClientError},
		{"pause", nil, true, model.VerdictSafe},
		{"pause", nil, false, model.VerdictUnsafe},
	} {
		e, err := explore.New(explore.Options{Lock: a, Classes: []string{c.class}, Seed: 1, Runs: 300, Workers: 1,
			Verdicts: c.verdicts, Inside: c.inside})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.Search(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got := model.VerdictSafe
		if r.Found != nil {
			got = r.Found.Verdict
		}
		if got != c.want {
			t.Errorf("%s (verdicts %v, inside %v): %s in 300 runs, derived %s", c.class, c.verdicts, c.inside, got, c.want)
		}
	}
}
