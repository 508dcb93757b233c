package locks

import (
	"strings"
	"testing"
	"time"
)

// retryFile is a file whose SET NX always finds the key taken, with retry
// as given.
func retryFileWith(retry string) string {
	return "name: mine\nkey: k\nttl: 10s\nretry: " + retry +
		"\nacquire:\n  command: [SET, \"{key}\", v, NX]\n  success: ok\nrelease:\n  command: [DEL, \"{key}\"]\n"
}

// sleepsOf runs an acquire that never succeeds and returns its sleeps.
type sleepProc struct {
	*proc
	each []time.Duration
}

func (p *sleepProc) Sleep(d time.Duration) {
	p.each = append(p.each, d)
	p.proc.Sleep(d)
}

func sleepsOf(t *testing.T, retry string) ([]time.Duration, int) {
	t.Helper()
	a := mustParse(t, retryFileWith(retry), nil)
	w := newWorld(t, 1)
	w.exec(0, "SET", "k", "taken")
	p := &sleepProc{proc: w.proc("c1", 0)}
	lease, err := a.New(Params{}).Acquire(p)
	if err != nil || lease.Held {
		t.Fatalf("acquire: %+v %v", lease, err)
	}
	return p.each, len(w.log)
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
