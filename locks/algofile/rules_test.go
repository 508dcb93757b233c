package algofile

import (
	"errors"
	"github.com/locksim/locksim/internal/locktest"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/locks"
)

// onFile is a file with acquire's step body given, 3 tries, a release that
// deletes the key only with the token, and extra top-level fields.
func onFile(acquire, extra string) string {
	retry := "retry: {attempts: 3, sleep: 100ms}\n"
	if strings.Contains(extra, "retry:") {
		retry = ""
	}
	return "name: mine\nkey: k\nttl: 10s\n" + retry + extra + "acquire:\n" + acquire +
		"\nrelease:\n  command: [DEL, \"{key}\"]\n"
}

// Rules route a timeout and error replies; arrays and statuses are matched
// by kind, length and element.
func TestFileFailureRules(t *testing.T) {
	set := "  command: [SET, \"{key}\", \"{token}\", NX]\n  on:\n"
	cases := []struct {
		name, acquire string
		setup         []string
		drop          string
		held          bool
		err           string
		sends         int
	}{
		{name: "timeout held", acquire: set + "    - {if: ok, then: held}\n    - {if: timeout, then: held}\n    - {then: retry}",
			drop: "SET", held: true, sends: 1},
		{name: "timeout fail", acquire: set + "    - {if: ok, then: held}\n    - {if: timeout, then: fail}\n    - {then: retry}",
			drop: "SET", sends: 1},
		{name: "timeout retry", acquire: set + "    - {if: ok, then: held}\n    - {if: timeout, then: retry}",
			drop: "SET", sends: 3},
		{name: "timeout error", acquire: set + "    - {if: ok, then: held}\n    - {if: timeout, then: error}\n  errors: retry",
			drop: "SET", err: "mine: SET k: timeout", sends: 1},
		{name: "a catch-all does not take a timeout", acquire: set + "    - {then: held}\n  errors: retry",
			drop: "SET", sends: 3},
		{name: "error by prefix", acquire: "  command: [INCR, \"{key}\"]\n  on:\n    - {if: {error: WRONGTYPE}, then: fail}\n    - {if: error, then: error}\n    - {then: held}",
			setup: []string{"LPUSH", "k", "x"}, sends: 1},
		{name: "another error", acquire: "  command: [INCR, \"{key}\"]\n  on:\n    - {if: {error: NOSCRIPT}, then: fail}\n    - {if: error, then: retry}\n    - {then: held}",
			setup: []string{"SET", "k", "x"}, sends: 3},
		{name: "NOSCRIPT then EVAL", acquire: "  steps:\n    - command: [EVALSHA, 0123456789012345678901234567890123456789, \"1\", \"{key}\"]\n      on: [{if: {error: NOSCRIPT}, then: next}, {then: held}]\n" +
			"    - script: return redis.call('SET', KEYS[1], 'v', 'NX')\n      keys: [\"{key}\"]\n      success: ok",
			held: true, sends: 2},
		{name: "status", acquire: "  command: [SET, \"{key}\", \"{token}\", NX]\n  success: status", held: true, sends: 1},
		{name: "array length", acquire: "  command: [LRANGE, \"{key}\", \"0\", \"-1\"]\n  success: {length: 2}",
			setup: []string{"RPUSH", "k", "a", "b"}, held: true, sends: 1},
		{name: "array length no", acquire: "  command: [LRANGE, \"{key}\", \"0\", \"-1\"]\n  success: {length: 1}",
			setup: []string{"RPUSH", "k", "a", "b"}, sends: 3},
		{name: "element", acquire: "  command: [LRANGE, \"{key}\", \"0\", \"-1\"]\n  success: {element: {index: -1, is: {equals: b}}}",
			setup: []string{"RPUSH", "k", "a", "b"}, held: true, sends: 1},
		{name: "element out of range", acquire: "  command: [LRANGE, \"{key}\", \"0\", \"-1\"]\n  success: {element: {index: 2, is: not_nil}}",
			setup: []string{"RPUSH", "k", "a", "b"}, sends: 3},
		{name: "array", acquire: "  command: [LRANGE, \"{key}\", \"0\", \"-1\"]\n  success: array", held: true, sends: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := mustParse(t, onFile(c.acquire, ""), nil)
			w := locktest.NewWorld(t, 1)
			if c.setup != nil {
				w.Exec(0, c.setup...)
			}
			p := w.Proc("c1", 0)
			if c.drop != "" {
				p.Drop = map[string]bool{c.drop: true}
			}
			lease, err := a.New(locks.Params{}).Acquire(p)
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("error %v, want %q", err, c.err)
			case c.err == "" && err != nil:
				t.Fatalf("error %v", err)
			}
			if lease.Held != c.held || len(w.Log) != c.sends {
				t.Errorf("held %v after %d sends, want %v after %d: %q", lease.Held, len(w.Log), c.held, c.sends, w.Log)
			}
		})
	}
}

// Giving up: not held by default; retry.exhausted: error throws after the
// last try and after fail; cleanup runs after each failed try or once.
func TestFileGiveUpAndCleanup(t *testing.T) {
	set := "  command: [SET, \"{key}\", \"{token}\", NX]\n  success: ok"
	run := func(extra string) (error, []string) {
		a := mustParse(t, onFile(set, extra), nil)
		w := locktest.NewWorld(t, 1)
		w.Exec(0, "SET", "k", "taken")
		_, err := a.New(locks.Params{}).Acquire(w.Proc("c1", 0))
		return err, w.Log
	}
	if err, log := run(""); err != nil || len(log) != 3 {
		t.Errorf("default: %v after %q", err, log)
	}
	err, log := run("retry: {attempts: 3, exhausted: error}\n")
	var ce *locks.ClientError
	if !errors.As(err, &ce) || err.Error() != "mine: acquire: not acquired after 3 tries: the library throws" || len(log) != 3 {
		t.Errorf("exhausted error: %v after %q", err, log)
	}
	// The cleanup names the try's token; EXISTS leaves the key alone.
	cleanup := "cleanup:\n  command: [EXISTS, \"{token}\"]\n"
	tokenOf := func(set string) string { return strings.Fields(set)[4] }
	err, log = run(cleanup + "  after: try\n")
	if err != nil || len(log) != 6 || log[1] != "c1 0 EXISTS "+tokenOf(log[0]) || log[5] != "c1 0 EXISTS "+tokenOf(log[4]) {
		t.Errorf("cleanup after each try: %v after %q", err, log)
	}
	err, log = run(cleanup)
	if err != nil || len(log) != 4 || log[3] != "c1 0 EXISTS "+tokenOf(log[2]) {
		t.Errorf("cleanup once, with the last try's token: %v after %q", err, log)
	}
	err, log = run(cleanup + "retry: {attempts: 3, exhausted: error}\n")
	if !errors.As(err, &ce) || len(log) != 4 {
		t.Errorf("cleanup, then the exception: %v after %q", err, log)
	}
}

// valid_if: a lock taken in more than ttl − drift is released and the try
// counts failed (redsync); one taken in time is held.
func TestFileValidIf(t *testing.T) {
	// The fake round trip is 2 ms; with ttl 100ms the drift is 0.5 × 100ms
	// + plus: 47ms leaves 2+97 < 100 (valid), 48ms gives 2+98 = 100 (not).
	for _, c := range []struct {
		plus string
		held bool
	}{{"47ms", true}, {"48ms", false}} {
		a := mustParse(t, "name: mine\nkey: k\nttl: 100ms\nretry: {attempts: 2}\nvalid_if: {drift_factor: 0.5, drift: "+c.plus+"}\n"+
			"acquire:\n  command: [SET, \"{key}\", \"{token}\", NX, PX, \"{ttl_ms}\"]\n  success: ok\nrelease:\n  command: [DEL, \"{key}\"]\n", nil)
		w := locktest.NewWorld(t, 1)
		lease, err := a.New(locks.Params{}).Acquire(w.Proc("c1", 0))
		if err != nil || lease.Held != c.held {
			t.Errorf("drift %s: %+v %v after %q", c.plus, lease, err, w.Log)
		}
		if !c.held && (len(w.Log) != 4 || !strings.Contains(w.Log[1], "DEL k")) {
			t.Errorf("drift %s: sent %q, want SET, DEL twice", c.plus, w.Log)
		}
	}
	v := validity{factor: 0.01, plus: 2 * time.Millisecond}
	if !v.ok(97*time.Millisecond, 10*time.Second) || v.ok(9898*time.Millisecond, 10*time.Second) {
		t.Errorf("redsync's drift: 0.01 × 10s + 2ms = 102ms")
	}
}

// Each misuse of on:, retry.exhausted, cleanup and valid_if is one line.
func TestFileRuleErrors(t *testing.T) {
	step := func(on string) string { return onFile("  command: [GET, \"{key}\"]\n  on: "+on, "") }
	cases := []struct{ src, want string }{
		{step("[{if: {length: -1}, then: held}]"), `a.yaml: acquire.on[0].if.length: "-1": want a count of elements`},
		{step("[{if: {error: ''}, then: held}]"), "a.yaml: acquire.on[0].if.error: empty"},
		{step("[{if: {element: {index: 0}}, then: held}]"), "a.yaml: acquire.on[0].if.element: want {index: I, is: PREDICATE}"},
		{step("[{if: {element: {index: x, is: nil}}, then: held}]"), `a.yaml: acquire.on[0].if.element.index: "x": want an index`},
		{step("[{if: {element: {index: 0, is: timeout}}, then: held}]"), "a.yaml: acquire.on[0].if.element.is: an element is a reply"},
		{step("[{if: {element: {at: 0, is: nil}}, then: held}]"), "a.yaml: acquire.on[0].if.element.at: unknown field (valid: index, is)"},
		{step("[{if: {element: {index: 0, is: nope}}, then: held}]"), "a.yaml: acquire.on[0].if.element.is: want one of"},
		{step("[{if: timeout, then: done}]"), `a.yaml: acquire.on[0].then: "done" is not an outcome of acquire`},
		{onFile("  command: [GET, k]\n  success: ok", "retry: {exhausted: throw}\n"), `a.yaml: retry.exhausted: "throw": want not_held`},
		{onFile("  command: [GET, k]\n  success: ok", "cleanup: {command: [DEL, k], after: each}\n"), `a.yaml: cleanup.after: "each": want try`},
		{onFile("  command: [GET, k]\n  success: ok", "cleanup: {command: [DEL, k], on: [{then: held}]}\n"), `a.yaml: cleanup.on[0].then: "held" is not an outcome of cleanup`},
		{onFile("  command: [GET, k]\n  success: ok\n  after: try", ""), "a.yaml: acquire.after: only cleanup runs after something"},
		{onFile("  command: [GET, k]\n  success: ok", "cleanup: {command: [DEL, \"{token}\"]}\n"), "a.yaml: cleanup: uses {token}, which the acquire never sets"},
		{onFile("  command: [GET, k]\n  success: ok", "valid_if: {}\n"), "a.yaml: valid_if: give drift_factor, drift or both"},
		{onFile("  command: [GET, k]\n  success: ok", "valid_if: {drift_factor: 1}\n"), `a.yaml: valid_if.drift_factor: "1": want a fraction`},
		{onFile("  command: [GET, k]\n  success: ok", "valid_if: {drift: -2ms}\n"), "a.yaml: valid_if.drift: -2ms is negative"},
		{onFile("  command: [GET, k]\n  success: ok", "valid_if: {drift: 2ms, skew: 1}\n"), `unknown field "skew"`},
	}
	for _, c := range cases {
		_, err := parse(t, c.src, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %v\nwant %q", err, c.want)
		}
	}
}

// A try that fails valid_if is released once: by the cleanup after each try
// when the file has one (redsync), not by release and cleanup both.
func TestFileValidIfWithCleanup(t *testing.T) {
	a := mustParse(t, "name: mine\nkey: k\nttl: 100ms\nretry: {attempts: 2}\nvalid_if: {drift_factor: 0.5, drift: 48ms}\n"+
		"acquire:\n  command: [SET, \"{key}\", \"{token}\", NX, PX, \"{ttl_ms}\"]\n  success: ok\n"+
		"cleanup:\n  after: try\n  command: [DEL, \"{key}\", cleanup]\nrelease:\n  command: [DEL, \"{key}\"]\n", nil)
	w := locktest.NewWorld(t, 1)
	lease, err := a.New(locks.Params{}).Acquire(w.Proc("c1", 0))
	if err != nil || lease.Held || len(w.Log) != 4 || !strings.HasSuffix(w.Log[1], "DEL k cleanup") || !strings.HasSuffix(w.Log[3], "DEL k cleanup") {
		t.Errorf("%+v %v after %q", lease, err, w.Log)
	}
}
