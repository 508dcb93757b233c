package golibs_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/internal/golden"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// verdicts are the catalogue's scenarios run against the real libraries
// (redsync with one pool, with one pool per node, bsm/redislock), next to
// the same library as an algorithm file (examples/redsync.yaml,
// examples/bsm-redislock.yaml, one pool). Every verdict is derived from the
// libraries' source (GOMODCACHE: redsync v4.18.1 mutex.go, redislock
// v0.9.4 redislock.go, go-redis v9 internal/pool): the comments say how.
//
// What every row shares. Both libraries take the lock with one atomic SET
// NX with an expiry (redsync: SET NX EX; redislock: its obtain script) and
// release with a compare-and-delete script, EVALSHA then EVAL on NOSCRIPT.
// Neither fences: a holder that outlives its key (a pause, a node that
// lost the key) overlaps the next one, so every pause, failover and
// restart-without-persistence scenario is unsafe for both. go-redis opens
// each connection with HELLO (answered with an error here: RESP2), which
// an algorithm file does not send: a fault planned on a client's first
// command lands on the handshake for a real library.
//
// The scenarios with client clocks (clock-skew-steal, second-resolution,
// second-resolution-ms) are refused: a library reads time.Now, one clock
// (TestClientClockScenariosAreRefused).
var verdicts = []struct {
	scenario                   string
	redsync1, redsyncN, bsm    string
	fileRedsync, fileRedislock string
}{
	{"checked-release-race", "safe", "safe", "safe", "safe", "safe"},
	// C3 crashes holding: the key expires after its TTL and nobody holds
	// twice. redsync's waiter gives up after 32 tries (about 5 s) and the
	// README's caller panics on ErrFailed; redislock's waiter prints
	// "Could not obtain lock!" and goes on.
	{"crash-deadlock", "client-error", "client-error", "safe", "client-error", "safe"},
	{"del-race", "safe", "safe", "safe", "safe", "safe"},
	{"failover-lost-lock", "unsafe", "unsafe", "unsafe", "unsafe", "unsafe"},
	// Neither library WAITs for a replica: the failover loses the key.
	{"failover-wait", "unsafe", "unsafe", "unsafe", "unsafe", "unsafe"},
	{"failover-wait-lagging", "unsafe", "unsafe", "unsafe", "unsafe", "unsafe"},
	{"fenced-pause", "unsafe", "unsafe", "unsafe", "unsafe", "unsafe"},
	{"getset-race", "safe", "safe", "safe", "safe", "safe"},
	// The lost reply is the first command's: for redislock the HELLO of a
	// new connection, and go-redis's handshake fails after its 5 s dial
	// timeout; Obtain returns that error, not ErrNotObtained, and the
	// README's log.Fatalln ends the program. The file loses its obtain
	// script's reply instead, which its retry covers. The real verdict is
	// the right one for the library as used: it is what a lost handshake
	// reply does. redsync sends SET to a pool whose HELLO went through
	// in the same way, and its lost SET reply is covered by the release
	// it sends after a failed try.
	{"lost-setnx-reply", "safe", "safe", "client-error", "safe", "safe"},
	{"pause-del-release", "safe", "safe", "safe", "safe", "safe"},
	{"php-eval-stale-unlock", "safe", "safe", "safe", "safe", "safe"},
	{"python-none-crash", "safe", "safe", "safe", "safe", "safe"},
	// The redlock-* scenarios restart nodes 1 to 4 of five. One pool uses
	// node 0 only: safe. Five pools: go-redis, by default, does not bound a
	// read by the context redsync gives each pool call (expiry ×
	// timeoutFactor, 400 ms; ContextTimeoutEnabled is off), so a SET sent
	// to a node that is down waits out go-redis's 5 s read timeout. C1's
	// Lock returns 5 s into its 8 s expiry, valid (redsync subtracts the
	// elapsed time: Until is 2.9 s away), and the README's caller, which
	// does not read Until, works 5 s: C2 takes the expired keys and the
	// two overlap. The file bounds every pool call by the scenario's
	// 50 ms timeout, as redsync means its context to: safe. The real
	// verdict is the one a user of redsync over go-redis's defaults gets.
	{"redlock-aof-always", "safe", "unsafe", "safe", "safe", "safe"},
	{"redlock-aof-everysec", "safe", "unsafe", "safe", "safe", "safe"},
	{"redlock-clock-jump", "safe", "unsafe", "safe", "safe", "safe"},
	// The same 5 s waits; C1's Unlock then finds its keys expired
	// (ErrLockAlreadyExpired) and the README's caller panics.
	{"redlock-delayed-restart", "safe", "client-error", "safe", "safe", "safe"},
	{"redlock-node-restart", "safe", "unsafe", "safe", "safe", "safe"},
	// Renewal every TTL/3 (Lease.Extend: redsync's Extend, redislock's
	// Refresh) keeps C1's lock; C2 waits. redsync's waiter gives up after
	// its 32 tries and the README's caller panics; redislock's prints and
	// goes on.
	{"reentrant-watchdog", "client-error", "client-error", "safe", "client-error", "safe"},
	{"set-get-deadlock", "client-error", "client-error", "safe", "client-error", "safe"},
	{"set-get-pause", "unsafe", "unsafe", "unsafe", "unsafe", "unsafe"},
	{"setnx-expire-crash", "safe", "safe", "safe", "safe", "safe"},
	// The pause is planned on a reply: with the handshake counted, it
	// lands on redislock's obtain reply, before Obtain returns. Obtain's
	// context has a deadline of now + TTL, go-redis sets its read deadline
	// to it, and a read whose deadline has passed fails even with the
	// reply there (as Go's net.Conn does): Obtain returns "context
	// deadline exceeded", log.Fatalln. The file pauses after its
	// acquire returned and overlaps. Both are what redislock does for its
	// pause: the real one says where a pause before Obtain returns ends.
	{"token-extend-pause", "unsafe", "unsafe", "client-error", "unsafe", "unsafe"},
	// C2 waits 24 s in the scenario, whose params set retries for ever;
	// a real library keeps its own policy: redsync's 32 tries end in
	// ErrFailed after about 5 s, and the README panics. The file takes
	// the scenario's retries and waits. The real verdict is redsync's.
	{"token-extend-renewed", "client-error", "client-error", "safe", "safe", "safe"},
	{"token-pause", "unsafe", "unsafe", "unsafe", "unsafe", "unsafe"},
	// The slow reply is the handshake's (HELLO), see lost-setnx-reply.
	{"token-scope-retry", "client-error", "client-error", "client-error", "client-error", "safe"},
	{"watchdog-gc-pause", "unsafe", "unsafe", "unsafe", "unsafe", "unsafe"},
	{"watchdog-stalled-holder", "client-error", "client-error", "safe", "client-error", "safe"},
}

// TestCatalogueVerdicts runs every row and compares each real library's
// verdict with the row and its digest with testdata/catalogue-digests.golden:
// a change to the bubble, golock's client or the engine that moves what a
// library sends, or when, moves a digest here (rewrite it with -update only
// when the move is intended, and say why).
func TestCatalogueVerdicts(t *testing.T) {
	var digests strings.Builder
	redsyncFile, err := algofile.LoadFile("../redsync.yaml")
	if err != nil {
		t.Fatal(err)
	}
	redislockFile, err := algofile.LoadFile("../bsm-redislock.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range verdicts {
		t.Run(v.scenario, func(t *testing.T) {
			for _, c := range []struct {
				name string
				lock golock.NewLock
				want string
			}{{"redsync, one pool", redsyncLock(1), v.redsync1}, {"redsync, a pool per node", redsyncLock(0), v.redsyncN}, {"bsm/redislock", bsmLock, v.bsm}} {
				o, err := golock.Run(t, c.lock, v.scenario)
				if err != nil {
					t.Errorf("%s: %v", c.name, err)
					continue
				}
				if o.Verdict.Verdict != c.want {
					t.Errorf("%s: %s, want %s", c.name, o.Verdict.Verdict, c.want)
				}
				fmt.Fprintf(&digests, "%s, %s: %s %s\n", v.scenario, c.name, o.Verdict.Verdict, o.Digest)
			}
			for _, f := range []struct {
				name string
				algo locks.Algorithm
				want string
			}{{"redsync.yaml", redsyncFile, v.fileRedsync}, {"bsm-redislock.yaml", redislockFile, v.fileRedislock}} {
				s, err := scenarios.Lookup(v.scenario)
				if err != nil {
					t.Fatal(err)
				}
				p, err := s.PrepareWith(f.algo)
				if err != nil {
					t.Fatal(err)
				}
				o, err := judge.Prepared(s, p, model.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if o.Verdict.Verdict != f.want {
					t.Errorf("%s: %s, want %s", f.name, o.Verdict.Verdict, f.want)
				}
			}
		})
	}
	golden.Check(t, filepath.Join("testdata", "catalogue-digests.golden"), []byte(digests.String()))
}
