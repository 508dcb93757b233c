package algofile

import (
	"github.com/locksim/locksim/internal/locktest"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
)

func extendFile(extra string) string {
	return minimal + `extend:
  script: |-
    if redis.call("get", KEYS[1]) == ARGV[1] then
      return redis.call("pexpire", KEYS[1], ARGV[2])
    end
    return 0
  keys: ["{key}"]
  args: ["{token}", "{ttl_ms}"]
  success: {equals: 1}
` + extra
}

// extend.every is the lock's own period, a share of its TTL (moving with a
// scenario's ttl) or a duration; without it the file renews only on the
// scenario's renew_every.
func TestFileRenewEvery(t *testing.T) {
	cases := []struct {
		every string
		ttl   time.Duration
		want  time.Duration
	}{
		{"", 10 * time.Second, 0},
		{"  every: ttl*2/3\n", 10 * time.Second, 6666666666},
		{"  every: ttl*2/3\n", 3 * time.Second, 2 * time.Second},
		{"  every: ttl-500ms\n", 10 * time.Second, 9500 * time.Millisecond},
		{"  every: ttl/3\n", 30 * time.Second, 10 * time.Second},
		{"  every: 4s\n", 30 * time.Second, 4 * time.Second},
	}
	for _, c := range cases {
		a := mustParse(t, extendFile(c.every), nil)
		l, ok := a.New(locks.Params{TTL: c.ttl}).(sim.SelfRenewing)
		if !ok {
			t.Fatalf("%q: not a sim.SelfRenewing", c.every)
		}
		if got := l.RenewEvery(); got != c.want {
			t.Errorf("%q with ttl %s: every %s, want %s", c.every, c.ttl, got, c.want)
		}
	}
	for _, c := range []struct{ extra, want string }{
		{"  every: ttl*3/2\n", `a.yaml: extend.every: "ttl*3/2": renew before the lease runs out`},
		{"  every: ttl\n", `a.yaml: extend.every: "ttl": renew before`},
		{"  every: ttl/0\n", `a.yaml: extend.every: "ttl/0": renew before`},
		{"  every: soon\n", `a.yaml: extend.every: "soon": want a duration (10s) or a share of the TTL`},
		{"  every: 0s\n", "a.yaml: extend.every: 0s: must be more than 0"},
	} {
		if _, err := parse(t, extendFile(c.extra), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.extra, err, c.want)
		}
	}
	src := strings.Replace(minimal, "release:\n", "release:\n  every: 1s\n", 1)
	if _, err := parse(t, src, nil); err == nil || !strings.Contains(err.Error(), "a.yaml: release: every and check_valid belong to extend") {
		t.Errorf("every on release: %v", err)
	}
}

// check_valid: the client refuses to extend a lease whose validity (TTL
// less valid_if's drift, from the start of the acquire or last extend) has
// run out on its own clock, without sending anything (node-redlock).
func TestFileExtendCheckValid(t *testing.T) {
	a := mustParse(t, extendFile("  check_valid: true\nvalid_if: {drift_factor: 0.01, drift: 2ms}\n"), nil)
	w := locktest.NewWorld(t, 1)
	p := w.Proc("c1", 0)
	l := a.New(locks.Params{}).(extendingLocker)
	lease := locktest.MustAcquire(t, l, p)
	// Valid until 10s − 102ms after the acquire began.
	w.Advance(9800 * time.Millisecond)
	if ok, err := l.Extend(p, lease); !ok || err != nil {
		t.Fatalf("extend in time: %v %v", ok, err)
	}
	sent := len(w.Log)
	w.Advance(9900 * time.Millisecond) // past the extend's start + 9898ms
	if ok, err := l.Extend(p, lease); ok || err != nil || len(w.Log) != sent {
		t.Errorf("extend past validity: %v %v, sent %q", ok, err, w.Log[sent:])
	}
	// Without check_valid the same extend is sent, and the key (PX 10s,
	// extended at 9.8s) still holds the token.
	b := mustParse(t, extendFile(""), nil)
	w = locktest.NewWorld(t, 1)
	p = w.Proc("c1", 0)
	lb := b.New(locks.Params{}).(extendingLocker)
	lease = locktest.MustAcquire(t, lb, p)
	w.Advance(9800 * time.Millisecond)
	if ok, _ := lb.Extend(p, lease); !ok {
		t.Fatal("extend in time")
	}
	w.Advance(9900 * time.Millisecond)
	if ok, err := lb.Extend(p, lease); !ok || err != nil {
		t.Errorf("no check_valid: %v %v", ok, err)
	}
}

// Keys derived from the lock key follow a scenario's key: override, and the
// lock key may be any of a script's KEYS.
func TestFileDerivedKeys(t *testing.T) {
	a := mustParse(t, `
name: mine
key: lock:orders
ttl: 10s
acquire:
  script: |-
    if redis.call("set", KEYS[2], ARGV[1], "NX", "PX", ARGV[2]) then
      redis.call("del", KEYS[1])
      return 1
    end
    return 0
  keys: ["{key}:signal", "{key}"]
  args: ["{token}", "{ttl_ms}"]
  success: {equals: 1}
release:
  script: |-
    if redis.call("get", KEYS[1]) == ARGV[1] then
      redis.call("del", KEYS[1])
      redis.call("lpush", KEYS[2], 1)
      return 1
    end
    return 0
  keys: ["{key}", "{key}:signal"]
  args: ["{token}"]
`, nil)
	w := locktest.NewWorld(t, 1)
	p := w.Proc("c1", 0)
	l := a.New(locks.Params{Key: "lock:users"})
	lease := locktest.MustAcquire(t, l, p)
	if ok, v, _ := w.Key(0, "lock:users"); !ok || v != lease.Token {
		t.Errorf("the lock key lock:users holds %q, want the token", v)
	}
	locktest.MustRelease(t, l, p, lease)
	if n := w.Exec(0, "LLEN", "lock:users:signal"); n.Int != 1 {
		t.Errorf("signal list lock:users:signal has %d elements, want 1 (log %q)", n.Int, w.Log)
	}
	if ok, _, _ := w.Key(0, "lock:orders:signal"); ok {
		t.Errorf("the file's own key was used")
	}
}

// extend.silent: the lock says its renewal failures are not told to the
// holder (sim.SilentRenewal); only extend takes it.
func TestFileExtendSilent(t *testing.T) {
	for _, c := range []struct {
		extra string
		want  bool
	}{{"", false}, {"  silent: true\n", true}, {"  silent: false\n", false}} {
		a := mustParse(t, extendFile(c.extra), nil)
		s, ok := a.New(locks.Params{}).(sim.SilentRenewal)
		if !ok || s.RenewalFailsSilently() != c.want {
			t.Errorf("%q: a sim.SilentRenewal %v, silent want %v", c.extra, ok, c.want)
		}
	}
	for _, c := range []struct{ src, want string }{
		{strings.Replace(minimal, "release:\n", "release:\n  silent: true\n", 1), "a.yaml: release.silent: belongs to extend"},
		{minimal + "cleanup:\n  command: [DEL, \"{key}\"]\n  silent: true\n", "a.yaml: cleanup.silent: belongs to extend"},
		{extendFile("  silent: yes please\n"), "a.yaml: "},
	} {
		if _, err := parse(t, c.src, nil); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}
