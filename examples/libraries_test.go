package examples_test

import (
	"testing"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
)

// libraryFiles are the example files that write real libraries' locks.
var libraryFiles = []string{"redis-py-lock.yaml", "redsync.yaml", "bsm-redislock.yaml"}

// libraryVerdicts is each library file's verdict on each built-in scenario,
// derived by hand from the scenario and the library's behaviour (the
// comment on each row), in the order of libraryFiles. What they share: a
// SET NX PX (or a script that does it) with a random token and a
// compare-and-delete release, so every scenario whose fault needs a lock
// without a TTL or without a token (the setnx-*, getset, php and python
// documents) leaves them safe. Where they part:
//   - redis-py gives up after blocking_timeout (10 s) and raises LockError,
//     and raises LockNotOwnedError from a release whose token is gone:
//     client errors;
//   - redsync's TTL is 8 s, it gives up after 32 tries (about 5 s) with
//     ErrFailed, and the README's caller panics when Unlock fails: client
//     errors; a failed try releases its own key;
//   - bsm/redislock tries 4 times in 300 ms (the scenario's retries: -1
//     makes it try until the TTL), returns ErrNotObtained (not held, no
//     error), ignores a failed release, and re-takes its own key after a
//     lost reply.
//
// unsafe is the worst verdict: a client error next to an overlap shows as
// unsafe.
var libraryVerdicts = []struct {
	scenario string
	want     [3]string
}{
	// C0's check-then-DEL race needs a DEL without a token: none here.
	{"checked-release-race", [3]string{"safe", "safe", "safe"}},
	// C1 works 10 s, C2's clock is 61 s ahead: a PX TTL runs on the node's
	// clock. redis-py: C2 gets the lock when C1 releases, within its 10 s.
	// redsync: C1's 8 s key expires while it works (its Unlock finds nothing
	// and panics), and C2 has given up after its 32 tries (ErrFailed): two
	// client errors, no overlap. bsm: C2's 4 tries fail, not held.
	{"clock-skew-steal", [3]string{"safe", "client-error", "safe"}},
	// C3 crashes holding: its key lives its TTL, longer than the waiters'
	// patience: redis-py's 10 s and redsync's 32 tries end in errors; bsm's
	// 4 tries end not held.
	{"crash-deadlock", [3]string{"client-error", "client-error", "safe"}},
	// Two waiters DEL a crashed holder's expired timestamp: no DEL here.
	{"del-race", [3]string{"safe", "safe", "safe"}},
	// The failover drops C1's key; C2 takes it on the promoted replica:
	// overlap and a lost update (C1's failing release adds a client error
	// in redis-py and redsync).
	{"failover-lost-lock", [3]string{"unsafe", "unsafe", "unsafe"}},
	// The same failover: none of the three WAITs for the replica.
	{"failover-wait", [3]string{"unsafe", "unsafe", "unsafe"}},
	{"failover-wait-lagging", [3]string{"unsafe", "unsafe", "unsafe"}},
	// C1 pauses 35 s, past every TTL here; C2 takes the key; no fencing.
	{"fenced-pause", [3]string{"unsafe", "unsafe", "unsafe"}},
	// C3 crashes holding at 0 s; C4 and C5 start at 5 s. redis-py: the 30 s
	// key outlives their 10 s: LockError. redsync: the 8 s key expires
	// within their 32 tries; one takes it, then the other. bsm: 4 tries.
	{"getset-race", [3]string{"client-error", "safe", "safe"}},
	// C3's first write's reply is lost. redis-py resends the SET, which
	// finds C3's own key: nil, and C3 waits on itself past blocking_timeout
	// (so does C1). redsync: the resent SET fails, the failed try's release
	// deletes C3's own key, the next try takes it. bsm: the resent script
	// recognises C3's token and re-takes the key.
	{"lost-setnx-reply", [3]string{"client-error", "safe", "safe"}},
	// A holder paused past a timestamp's timeout DELs the next lock: the
	// release here compares the token.
	{"pause-del-release", [3]string{"safe", "safe", "safe"}},
	{"php-eval-stale-unlock", [3]string{"safe", "safe", "safe"}},
	// int(None) on a vanished key: nothing here parses a value.
	{"python-none-crash", [3]string{"safe", "safe", "safe"}},
	// Redlock's five nodes: these files lock on node 0 only, which neither
	// restarts nor jumps: C2 waits until C1 releases.
	{"redlock-aof-always", [3]string{"safe", "safe", "safe"}},
	{"redlock-aof-everysec", [3]string{"safe", "safe", "safe"}},
	{"redlock-clock-jump", [3]string{"safe", "safe", "safe"}},
	{"redlock-delayed-restart", [3]string{"safe", "safe", "safe"}},
	{"redlock-node-restart", [3]string{"safe", "safe", "safe"}},
	// Three clients, 3 s TTL renewed every second, each re-enters twice.
	// None of the three is re-entrant: the inner acquire draws a new token
	// and waits on its own key, which the watchdog keeps alive. redis-py:
	// LockError after 10 s (and the others give up too); redsync: ErrFailed
	// after 32 tries; bsm: not held after 4 tries, and the holder goes on
	// under its renewed key: safe.
	{"reentrant-watchdog", [3]string{"client-error", "client-error", "safe"}},
	// Whole-second timestamps compared by clocks that disagree: a PX TTL
	// expires on the node.
	{"second-resolution", [3]string{"safe", "safe", "safe"}},
	{"second-resolution-ms", [3]string{"safe", "safe", "safe"}},
	// C1 crashes holding; its key lives its TTL; C2 waits: redis-py 10 s and
	// redsync 32 tries run out first (errors); bsm's C2 is not held.
	{"set-get-deadlock", [3]string{"client-error", "client-error", "safe"}},
	// C1 pauses 40 s holding: the key expires, C2 takes it: overlap.
	{"set-get-pause", [3]string{"unsafe", "unsafe", "unsafe"}},
	// The crash between SETNX and EXPIRE: one command here.
	{"setnx-expire-crash", [3]string{"safe", "safe", "safe"}},
	// An 8 s lease renewed every 4 s, a 10 s pause between renewals.
	// redis-py's extend adds 8 s to what is left, so the key outlives the
	// pause: safe. redsync's and bsm's set the TTL to 8 s: the key expires
	// and C2 takes it; redsync's holder writes before its renewal answers
	// (unsafe, lost update), bsm's renewal tells its holder first (overlap).
	{"token-extend-pause", [3]string{"safe", "unsafe", "unsafe"}},
	// C1 works 24 s renewing every 4 s; C2 waits. redis-py: C2's 10 s run
	// out: LockError. redsync (retries: -1 from the scenario): C2 gets the
	// lock when C1 releases. bsm: C2 tries until its 8 s deadline: not held.
	{"token-extend-renewed", [3]string{"client-error", "safe", "safe"}},
	// C1's first write's reply is too slow. redis-py's resent SET finds its
	// own key and C1 waits on it past blocking_timeout: LockError. redsync:
	// the failed try's release frees the key and the next try takes it, but
	// the Unlock's reply is late too and its resend finds nothing: panic.
	// bsm: the resent script re-takes its own key.
	{"token-scope-retry", [3]string{"client-error", "client-error", "safe"}},
	// C1 pauses 35 s holding, past every TTL here: C2 takes the key.
	{"token-pause", [3]string{"unsafe", "unsafe", "unsafe"}},
	// A 40 s pause: the key expires and C2 takes it.
	{"watchdog-gc-pause", [3]string{"unsafe", "unsafe", "unsafe"}},
	// C1 works 600 s under a 30 s TTL, nothing renews (no renew_every, no
	// library period). C2 (from 1 s) gives up before the key expires:
	// redis-py after 10 s, redsync after 32 tries, both with errors, and
	// C1's release at 600 s finds no key (another error); bsm: C2 not held,
	// C1's failed release ignored.
	{"watchdog-stalled-holder", [3]string{"client-error", "client-error", "safe"}},
}

// TestLibraryFiles runs every built-in scenario against each library file
// and compares the verdict with the one derived by hand above.
func TestLibraryFiles(t *testing.T) {
	var algos []locks.Algorithm
	for _, f := range libraryFiles {
		a, err := locks.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		algos = append(algos, a)
	}
	want := map[string][3]string{}
	for _, v := range libraryVerdicts {
		want[v.scenario] = v.want
	}
	for _, s := range scenarios.Builtins() {
		w, ok := want[s.Name]
		if !ok {
			t.Errorf("%s: no verdict derived for this scenario", s.Name)
			continue
		}
		for i, a := range algos {
			o, _ := run(t, s, a)
			if o.Verdict.Verdict != w[i] {
				t.Errorf("%s on %s: %s, derived %s", libraryFiles[i], s.Name, o.Verdict.Verdict, w[i])
			}
		}
	}
	if len(want) != len(scenarios.Builtins()) {
		t.Errorf("%d verdicts derived, %d scenarios", len(want), len(scenarios.Builtins()))
	}
}
