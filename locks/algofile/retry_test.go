package algofile

import (
	"crypto/sha1"
	"encoding/hex"
	"github.com/locksim/locksim/internal/locktest"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/locks"
)

// retryFile is a file whose SET NX always finds the key taken, with retry
// as given.
func retryFileWith(retry string) string {
	return "name: mine\nkey: k\nttl: 10s\nretry: " + retry +
		"\nacquire:\n  command: [SET, \"{key}\", v, NX]\n  success: ok\nrelease:\n  command: [DEL, \"{key}\"]\n"
}

// sleepsOf runs an acquire that never succeeds and returns its sleeps.
type sleepProc struct {
	*locktest.Proc
	each []time.Duration
}

func (p *sleepProc) Sleep(d time.Duration) {
	p.each = append(p.each, d)
	p.Proc.Sleep(d)
}

func sleepsOf(t *testing.T, retry string) ([]time.Duration, int) {
	t.Helper()
	a := mustParse(t, retryFileWith(retry), nil)
	w := locktest.NewWorld(t, 1)
	w.Exec(0, "SET", "k", "taken")
	p := &sleepProc{Proc: w.Proc("c1", 0)}
	lease, err := a.New(locks.Params{}).Acquire(p)
	if err != nil || lease.Held {
		t.Fatalf("acquire: %+v %v", lease, err)
	}
	return p.each, len(w.Log)
}

// Backoff grows each sleep by its factor up to max; for: ends the tries
// when the next would begin past it, as redis-py's blocking_timeout does;
// a spread jitters each sleep by up to ± it, from the process's source.
func TestFileRetry(t *testing.T) {
	ms := time.Millisecond
	got, _ := sleepsOf(t, "{attempts: 6, sleep: 100ms, backoff: {factor: 2, max: 1s}}")
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1000 * ms}
	if len(got) != len(want) {
		t.Fatalf("sleeps %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sleeps %v, want %v", got, want)
			break
		}
	}

	// The fake world's round trip is 2 ms: tries at 0, 302, 604, 906 ms
	// (reply at 908); a fourth sleep would end at 1208 > 1 s.
	got, sent := sleepsOf(t, "{attempts: forever, sleep: 300ms, for: 1s}")
	if len(got) != 3 || sent != 4 {
		t.Errorf("for 1s: sleeps %v, %d tries; want 3 sleeps, 4 tries", got, sent)
	}

	// for: ttl is the lock's TTL, a scenario's override included.
	a := mustParse(t, retryFileWith("{attempts: forever, sleep: 300ms, for: ttl}"), nil)
	w := locktest.NewWorld(t, 1)
	w.Exec(0, "SET", "k", "taken")
	locktest.MustFail(t, a.New(locks.Params{TTL: time.Second}), w.Proc("c1", 0))
	if len(w.Log) != 4 {
		t.Errorf("for: ttl with ttl 1s: %d tries, want 4", len(w.Log))
	}

	got, _ = sleepsOf(t, "{attempts: 200, sleep: 150ms, jitter: 100ms}")
	lo, hi := time.Hour, time.Duration(0)
	for _, d := range got {
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < 50*ms || hi >= 250*ms || hi-lo < 150*ms {
		t.Errorf("jitter 150ms ± 100ms: sleeps from %s to %s", lo, hi)
	}
	again, _ := sleepsOf(t, "{attempts: 200, sleep: 150ms, jitter: 100ms}")
	for i := range got {
		if got[i] != again[i] {
			t.Fatalf("jitter is not drawn from the process's source: %s then %s", got[i], again[i])
		}
	}
}

func TestFileRetryErrors(t *testing.T) {
	cases := []struct{ retry, want string }{
		{"{for: 0s}", "a.yaml: retry.for: 0s: must be more than 0"},
		{"{for: soon}", `a.yaml: retry.for: "soon" is not a duration`},
		{"{backoff: {max: 1s}}", "a.yaml: retry.backoff.factor: missing"},
		{"{backoff: {factor: 0.5}}", `a.yaml: retry.backoff.factor: "0.5": want a number from 1 to 1000`},
		{"{backoff: {factor: 2, max: -1s}}", "a.yaml: retry.backoff.max: -1s: must be more than 0"},
		{"{backoff: {factor: 2, cap: 1s}}", `unknown field "cap"`},
		{"{jitter: -5ms}", `a.yaml: retry.jitter: "-5ms": want true`},
		{"{jitter: [1]}", "a.yaml: retry.jitter: want true"},
	}
	for _, c := range cases {
		_, err := parse(t, retryFileWith(c.retry), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want %q", c.retry, err, c.want)
		}
	}
}

// resend: a timed-out command is sent again, the same bytes, by the library
// itself: a lost reply followed by a resend that answers is the answer, not
// a failed try; resends stop at the first answer and at N.
func TestFileResend(t *testing.T) {
	file := func(resend string) locks.Algorithm {
		return mustParse(t, "name: mine\nkey: k\nttl: 10s\nacquire:\n  command: [SET, \"{key}\", \"{token}\", NX]\n  success: ok\n"+resend+
			"release:\n  command: [DEL, \"{key}\"]\n  resend: 2\n", nil)
	}
	// The first SET is lost, the second answers OK.
	w := locktest.NewWorld(t, 1)
	p := w.Proc("c1", 0)
	p.Drop = map[string]bool{}
	p.Before("SET", 1, func() { p.Drop["SET"] = true })
	p.Before("SET", 2, func() { p.Drop["SET"] = false })
	lease := locktest.MustAcquire(t, file("  resend: 3\n").New(locks.Params{}), p)
	if len(w.Log) != 2 || w.Log[0] != w.Log[1] || !strings.Contains(w.Log[0], lease.Token) {
		t.Errorf("sent %q, want the same SET twice with the lease's token %s", w.Log, lease.Token)
	}
	// Without resend the lost reply is the step's error: a client error.
	w = locktest.NewWorld(t, 1)
	p = w.Proc("c1", 0)
	p.Drop = map[string]bool{"SET": true}
	if _, err := file("").New(locks.Params{}).Acquire(p); err == nil || len(w.Log) != 1 {
		t.Errorf("no resend: %v after %q", err, w.Log)
	}
	// Every resend lost: 1 + N sends, then the step's error.
	w = locktest.NewWorld(t, 1)
	p = w.Proc("c1", 0)
	p.Drop = map[string]bool{"SET": true}
	if _, err := file("  resend: 3\n").New(locks.Params{}).Acquire(p); err == nil || !strings.Contains(err.Error(), "timeout") || len(w.Log) != 4 {
		t.Errorf("all lost: %v after %d sends, want a timeout after 4", err, len(w.Log))
	}
	// An error reply is an answer: not resent.
	w = locktest.NewWorld(t, 1)
	w.Exec(0, "LPUSH", "k", "x")
	p = w.Proc("c1", 0)
	a := mustParse(t, "name: mine\nkey: k\nttl: 10s\nacquire:\n  command: [INCR, \"{key}\"]\n  success: integer\n  resend: 3\nrelease:\n  command: [DEL, \"{key}\"]\n", nil)
	if _, err := a.New(locks.Params{}).Acquire(p); err == nil || len(w.Log) != 1 {
		t.Errorf("error reply: %v after %d sends, want 1", err, len(w.Log))
	}

	for _, c := range []struct{ step, want string }{
		{"  resend: -1\n", `a.yaml: acquire.resend: "-1": want a count of resends from 0 to 100`},
		{"  resend: 101\n", `a.yaml: acquire.resend: "101": want`},
		{"  resend: x\n", `a.yaml: acquire.resend: "x": want a count`},
		{"  resend: [1]\n", "a.yaml: acquire.resend: want a count, or {times: N, base: 10ms, cap: 1s}"},
		{"  resend: {times: 3, base: 10ms}\n", "a.yaml: acquire.resend: base and cap go together"},
		{"  resend: {times: 3, base: 0s, cap: 1s}\n", "a.yaml: acquire.resend.base: 0s: must be more than 0"},
		{"  resend: {times: 3, every: 1s}\n", "a.yaml: acquire.resend.every: unknown field (valid: times, base, cap)"},
		{"  evalsha: eval\n", "a.yaml: acquire.evalsha: only a script is sent by its SHA1"},
		{"  evalsha: yes\n", `a.yaml: acquire.evalsha: "yes": want eval`},
	} {
		_, err := parse(t, "name: mine\nkey: k\nttl: 10s\nacquire:\n  command: [SET, \"{key}\", v, NX]\n  success: ok\n"+c.step+"release:\n  command: [DEL, \"{key}\"]\n", nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.step, err, c.want)
		}
	}
	_, err := parse(t, "name: mine\nkey: k\nttl: 10s\nacquire:\n  steps:\n    - command: [GET, k]\n    - resend: 1\n      success: ok\nrelease:\n  command: [DEL, \"{key}\"]\n", nil)
	if err == nil || !strings.Contains(err.Error(), "a.yaml: acquire.steps[1].resend: a check sends nothing to resend") {
		t.Errorf("resend on a check: %v", err)
	}
}

// resend's pause: redis-py's full jitter, uniform in [0, base × 2^k) and at
// most cap, drawn from the process's source.
func TestFileResendBackoff(t *testing.T) {
	a := mustParse(t, "name: mine\nkey: k\nttl: 10s\nacquire:\n  command: [SET, \"{key}\", v, NX]\n  success: ok\n"+
		"  resend: {times: 10, base: 10ms, cap: 1s}\nrelease:\n  command: [DEL, \"{key}\"]\n", nil)
	w := locktest.NewWorld(t, 1)
	p := &sleepProc{Proc: w.Proc("c1", 0)}
	p.Drop = map[string]bool{"SET": true}
	if _, err := a.New(locks.Params{}).Acquire(p); err == nil || len(w.Log) != 11 || len(p.each) != 10 {
		t.Fatalf("%v after %d sends and %d pauses", err, len(w.Log), len(p.each))
	}
	for k, d := range p.each {
		if bound := min(10*time.Millisecond<<(k+1), time.Second); d < 0 || d > bound {
			t.Errorf("pause %d is %s, above %s", k+1, d, bound)
		}
	}
	if p.each[0] == p.each[1] {
		t.Errorf("pauses %v are not drawn", p.each)
	}
}

// evalsha: eval is go-redis's Script.Run (EVALSHA, EVAL on NOSCRIPT); load
// is redis-py's Script (EVALSHA, SCRIPT LOAD, EVALSHA). A node that has the
// script answers the EVALSHA.
func TestFileEvalsha(t *testing.T) {
	for _, c := range []struct {
		mode  string
		first []string
	}{
		{"eval", []string{"EVALSHA", "EVAL", "EVALSHA"}},
		{"load", []string{"EVALSHA", "SCRIPT", "EVALSHA", "EVALSHA"}},
	} {
		a := mustParse(t, "name: mine\nkey: k\nttl: 10s\nacquire:\n  script: return redis.call('SET', KEYS[1], ARGV[1], 'NX')\n"+
			"  keys: [\"{key}\"]\n  args: [\"{token}\"]\n  evalsha: "+c.mode+"\n  success: ok\nrelease:\n  command: [DEL, \"{key}\"]\n", nil)
		w := locktest.NewWorld(t, 1)
		p := w.Proc("c1", 0)
		l := a.New(locks.Params{})
		lease := locktest.MustAcquire(t, l, p)
		locktest.MustRelease(t, l, p, lease)
		locktest.MustAcquire(t, l, p) // the node has the script now (EVAL caches it too)
		var cmds []string
		for _, line := range w.Log {
			if f := strings.Fields(line); f[2] != "DEL" {
				cmds = append(cmds, f[2])
			}
		}
		if strings.Join(cmds, " ") != strings.Join(c.first, " ") {
			t.Errorf("evalsha %s: sent %q, want %q", c.mode, cmds, c.first)
		}
		sum := sha1.Sum([]byte("return redis.call('SET', KEYS[1], ARGV[1], 'NX')"))
		if f := strings.Fields(w.Log[0]); f[3] != hex.EncodeToString(sum[:]) {
			t.Errorf("EVALSHA %s, want the script's SHA1", f[3])
		}
	}
}
