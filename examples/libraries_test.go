package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// libraryFiles are the example files that write real libraries' locks.
var libraryFiles = []string{"redis-py-lock.yaml", "redsync.yaml", "bsm-redislock.yaml", "python-redis-lock.yaml"}

// libraryVerdicts is each library file's verdict on each built-in scenario,
// derived by hand from the scenario and the library's behaviour (the
// comment on each row), in the order of libraryFiles. What they share: a
// SET NX (or a script that does it) with a random token and a
// compare-and-delete release, so every scenario whose fault needs a lock
// without a TTL or without a token (the setnx-*, getset, php and python
// documents) leaves them safe. Where they part:
//   - redis-py (TTL 30 s) gives up after blocking_timeout (10 s) and raises
//     LockError, and raises LockNotOwnedError from a release whose token is
//     gone: client errors;
//   - redsync's TTL is 8 s, it gives up after 32 tries (about 5 s) with
//     ErrFailed, and the README's caller panics when Unlock fails: client
//     errors; a failed try releases its own key;
//   - bsm/redislock (TTL 30 s) tries 4 times in 300 ms (a scenario's
//     retries: -1 makes it try until the TTL), returns ErrNotObtained (not
//     held, no error), ignores a failed release, and re-takes its own key
//     after a lost reply;
//   - python-redis-lock (TTL 60 s, renewed every 40 s by its own thread)
//     waits on BLPOP for the release's signal or 60 s, for ever, and raises
//     NotAcquired from a release whose token is gone. Its renewal fails
//     silently (extend.silent), which moves none of its verdicts: no
//     renewal fails in any of these scenarios (their 60 s key outlives
//     every pause and failover here, and token-extend-pause's pause never
//     fires); TestPythonRedisLockSilentRenewal makes one fail.
//
// Scripts go by EVALSHA: redis-py and python-redis-lock never send EVAL,
// redsync and bsm only after a NOSCRIPT, so a fault planned on "c1's first
// EVAL reply" fires elsewhere for them, or never. The verdict is the worst
// one met: a client error beside an overlap shows as unsafe.
var libraryVerdicts = []struct {
	scenario string
	want     [4]string
}{
	// C0's check-then-DEL race needs a DEL without a token: none here.
	{"checked-release-race", [4]string{"safe", "safe", "safe", "safe"}},
	// C1 works 10 s; C2 (from 1 s, its clock 61 s ahead) waits: a TTL runs on
	// the node's clock. redis-py: C2 gets the lock at C1's release (10 s),
	// inside its 10 s. redsync: C1's 8 s key expires while it works (its
	// Unlock finds nothing: panic) and C2 has given up at about 6 s
	// (ErrFailed): client errors, no overlap. bsm: C2's 4 tries fail, not
	// held. python-redis-lock: C2's BLPOP wakes on C1's release.
	{"clock-skew-steal", [4]string{"safe", "client-error", "safe", "safe"}},
	// C3 crashes holding; C1 waits from 1 s; the run lasts 20 s. redis-py's
	// 30 s key outlives C1's 10 s: LockError; redsync's 32 tries end before
	// the 8 s key does: ErrFailed; bsm: not held after 4 tries;
	// python-redis-lock: C1 is still in its 60 s BLPOP at the end.
	{"crash-deadlock", [4]string{"client-error", "client-error", "safe", "incomplete"}},
	// Two waiters DEL a crashed holder's expired timestamp: no DEL here.
	{"del-race", [4]string{"safe", "safe", "safe", "safe"}},
	// The failover drops C1's key; C2 takes it on the promoted replica:
	// overlap and a lost update (C1's failing release adds a client error
	// in redis-py, redsync and python-redis-lock).
	{"failover-lost-lock", [4]string{"unsafe", "unsafe", "unsafe", "unsafe"}},
	// The same failover: none of the four WAITs for the replica.
	{"failover-wait", [4]string{"unsafe", "unsafe", "unsafe", "unsafe"}},
	{"failover-wait-lagging", [4]string{"unsafe", "unsafe", "unsafe", "unsafe"}},
	// C1 pauses 35 s holding: past the 30 s and 8 s TTLs, C2 (31 s) takes
	// the key; no fencing. python-redis-lock's 60 s key outlives the pause.
	{"fenced-pause", [4]string{"unsafe", "unsafe", "unsafe", "safe"}},
	// C3 crashes holding at 0 s; C4 and C5 start at 5 s; 30 s run. redis-py:
	// the 30 s key outlives their 10 s: LockError. redsync: the 8 s key
	// expires within their 32 tries; one takes it, then the other. bsm: 4
	// tries, not held. python-redis-lock: both still in BLPOP at the end.
	{"getset-race", [4]string{"client-error", "safe", "safe", "incomplete"}},
	// C3's first write's reply is lost. redis-py resends the SET, which
	// finds C3's own key: nil, and C3 waits on itself past blocking_timeout
	// (so does C1). redsync: the resent SET fails, the failed try's release
	// deletes C3's own key, the next try takes it. bsm: the resent script
	// recognises C3's token and re-takes the key. python-redis-lock: C3's
	// resent SET fails the same way and C3 BLPOPs on its own 60 s key past
	// the 20 s run.
	{"lost-setnx-reply", [4]string{"client-error", "safe", "safe", "incomplete"}},
	// A holder paused past a timestamp's timeout DELs the next lock: the
	// release here compares the token.
	{"pause-del-release", [4]string{"safe", "safe", "safe", "safe"}},
	{"php-eval-stale-unlock", [4]string{"safe", "safe", "safe", "safe"}},
	// int(None) on a vanished key: nothing here parses a value.
	{"python-none-crash", [4]string{"safe", "safe", "safe", "safe"}},
	// Redlock's five nodes: these files lock on node 0 only, which neither
	// restarts nor jumps: C2 waits until C1 releases.
	{"redlock-aof-always", [4]string{"safe", "safe", "safe", "safe"}},
	{"redlock-aof-everysec", [4]string{"safe", "safe", "safe", "safe"}},
	{"redlock-clock-jump", [4]string{"safe", "safe", "safe", "safe"}},
	{"redlock-delayed-restart", [4]string{"safe", "safe", "safe", "safe"}},
	{"redlock-node-restart", [4]string{"safe", "safe", "safe", "safe"}},
	// Three clients, a 3 s TTL renewed every second, each re-enters twice.
	// None of the four is re-entrant: the inner acquire draws a new token
	// and waits on its own key, which the watchdog keeps alive. redis-py:
	// LockError after 10 s (the others give up too); redsync: ErrFailed
	// after 32 tries; bsm: not held after 4 tries, no error, and the run
	// stays safe; python-redis-lock: the inner acquire waits for ever
	// (BLPOP, SET, BLPOP…), C1 still holds at the end.
	{"reentrant-watchdog", [4]string{"client-error", "client-error", "safe", "incomplete"}},
	// Whole-second timestamps compared by clocks that disagree: a TTL
	// expires on the node.
	{"second-resolution", [4]string{"safe", "safe", "safe", "safe"}},
	{"second-resolution-ms", [4]string{"safe", "safe", "safe", "safe"}},
	// C1 crashes holding; C2 waits from 1 s; 100 s run. redis-py's 10 s and
	// redsync's 32 tries run out first (errors); bsm's C2 is not held;
	// python-redis-lock's C2 BLPOPs 60 s, then its SET finds the key expired.
	{"set-get-deadlock", [4]string{"client-error", "client-error", "safe", "safe"}},
	// C1 pauses 40 s holding: past 30 s and 8 s, C2 (31 s) takes the key:
	// overlap; python-redis-lock's 60 s key outlives it.
	{"set-get-pause", [4]string{"unsafe", "unsafe", "unsafe", "safe"}},
	// The crash between SETNX and EXPIRE: one command here.
	{"setnx-expire-crash", [4]string{"safe", "safe", "safe", "safe"}},
	// An 8 s lease renewed every 4 s; C1 pauses 10 s on its first EVAL
	// reply. redis-py and python-redis-lock send no EVAL: no pause, safe.
	// redsync's first EVAL is its first renewal's fallback (4 s): as in the
	// built-in, the key expires, C2 takes it at 12.5 s and C1 writes before
	// its next renewal answers: unsafe (lost update). bsm's first EVAL is
	// its obtain's fallback: C1 pauses right after acquiring, C2 takes the
	// expired key at 12.5 s, C1's renewal at 14 s fails and tells it before
	// it writes: an overlap, no lost update.
	{"token-extend-pause", [4]string{"safe", "unsafe", "unsafe", "safe"}},
	// C1 works 24 s renewing every 4 s; C2 waits from 1 s. redis-py: C2's
	// 10 s run out: LockError. redsync (retries: -1 from the scenario): C2
	// gets the lock at C1's release. bsm: C2 tries until its 8 s deadline:
	// not held. python-redis-lock: C2's BLPOP (8 s each) wakes on the
	// release.
	{"token-extend-renewed", [4]string{"client-error", "safe", "safe", "safe"}},
	// C1 pauses 35 s holding: past 30 s and 8 s, C2 (31 s) takes the key;
	// python-redis-lock's 60 s key outlives it.
	{"token-pause", [4]string{"unsafe", "unsafe", "unsafe", "safe"}},
	// C1's first write's reply is too slow. redis-py's resent SET finds its
	// own key and C1 waits on it past blocking_timeout: LockError. redsync:
	// the failed try's release frees the key and the next try takes it, but
	// the Unlock's reply is late too and its resend finds nothing: panic.
	// bsm: the resent script re-takes its own key. python-redis-lock: the
	// resent SET fails and C1 BLPOPs on its own 60 s key past the 30 s run.
	{"token-scope-retry", [4]string{"client-error", "client-error", "safe", "incomplete"}},
	// C1 works 90 s, C2 starts at 41 s, no renew_every. redis-py, redsync
	// and bsm renew nothing by themselves: the key expires under C1 and C2
	// takes it. python-redis-lock renews its 60 s key every 40 s: C2 waits
	// for C1's release (the 40 s pause, planned on a second EVAL, never
	// fires).
	{"watchdog-gc-pause", [4]string{"unsafe", "unsafe", "unsafe", "safe"}},
	// C1 works 600 s under a 30 s TTL with no renew_every; C2 waits from 1 s.
	// redis-py (10 s) and redsync (32 tries) give up with errors before the
	// key expires, and C1's release at 600 s finds no key (another error);
	// bsm: C2 not held, C1's failed release ignored. python-redis-lock
	// renews every 40 s: C2 waits in BLPOP and gets it at C1's release.
	{"watchdog-stalled-holder", [4]string{"client-error", "client-error", "safe", "safe"}},
}

// TestLibraryFiles runs every built-in scenario against each library file
// and compares the verdict with the one derived by hand above.
func TestLibraryFiles(t *testing.T) {
	var algos []locks.Algorithm
	for _, f := range libraryFiles {
		a, err := algofile.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		algos = append(algos, a)
	}
	want := map[string][4]string{}
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

// python-redis-lock's renewal fails silently (extend.silent): with a 30 s
// expiry (renewed every 20 s), token-pause's 35 s pause after acquiring
// stops the renewal thread with its process; the key expires at 30 s, C2
// takes it at 31 s, and C1's renewal at 35 s fails. Never told, C1 reads
// the counter, works and writes over C2's: a lost update, the library's
// bug. The same file with a told failure stops C1 from writing: the two
// holds still overlap, the counter is intact.
func TestPythonRedisLockSilentRenewal(t *testing.T) {
	data, err := os.ReadFile("python-redis-lock.yaml")
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) ([]byte, error) { return os.ReadFile(filepath.Clean(path)) }
	told := strings.Replace(string(data), "  silent: true\n", "", 1)
	if told == string(data) {
		t.Fatal("python-redis-lock.yaml has no extend.silent")
	}
	for _, c := range []struct {
		src, broke string
	}{{string(data), model.BrokeLostUpdate}, {told, model.BrokeOverlap}} {
		a, err := algofile.ParseFile("python-redis-lock.yaml", []byte(c.src), read)
		if err != nil {
			t.Fatal(err)
		}
		b, err := scenarios.Lookup("token-pause")
		if err != nil {
			t.Fatal(err)
		}
		s := b.Clone()
		s.Params.TTL = scenarios.Duration(30 * time.Second)
		o, h := run(t, s, a)
		if o.Verdict.Verdict != model.VerdictUnsafe || o.Verdict.Broke() != c.broke {
			t.Errorf("silent %v: %s, %q; want unsafe, %q", c.src == string(data), o.Verdict.Verdict, o.Verdict.Broke(), c.broke)
		}
		failed := 0
		for _, e := range h.Events {
			if e.Kind == sim.KindExtendReturn && !e.Held {
				failed++
				if e.Silent != (c.src == string(data)) {
					t.Errorf("the failed renewal's Silent is %v", e.Silent)
				}
			}
		}
		if failed != 1 {
			t.Errorf("%d failed renewals, want 1", failed)
		}
	}
}
