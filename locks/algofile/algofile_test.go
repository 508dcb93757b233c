package algofile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/locksim/locksim/internal/locktest"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// scripts is a tiny file system for script_file in tests.
type scripts map[string]string

func (s scripts) read(path string) ([]byte, error) {
	if src, ok := s[path]; ok {
		return []byte(src), nil
	}
	return nil, fs.ErrNotExist
}

// minimal is a valid file that cases below break one field of.
const minimal = `
name: mine
key: k
ttl: 10s
acquire:
  command: [SET, "{key}", "{token}", NX, PX, "{ttl_ms}"]
  success: ok
release:
  command: [DEL, "{key}"]
`

func parse(t *testing.T, src string, sc scripts) (locks.Algorithm, error) {
	t.Helper()
	if sc == nil {
		sc = scripts{}
	}
	return ParseFile("a.yaml", []byte(src), sc.read)
}

func mustParse(t *testing.T, src string, sc scripts) locks.Algorithm {
	t.Helper()
	a, err := parse(t, src, sc)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Every bad file gets one line naming the file and the field.
func TestParseFileErrors(t *testing.T) {
	withAcquire := func(acquire string) string {
		return "name: mine\nkey: k\nttl: 10s\nacquire:\n" + acquire + "\nrelease:\n  command: [DEL, \"{key}\"]\n"
	}
	cases := []struct {
		name, src string
		sc        scripts
		want      string
	}{
		{"empty", "", nil, "a.yaml: empty algorithm file"},
		{"two documents", minimal + "---\nname: x\n", nil, "a.yaml: more than one YAML document"},
		{"not yaml", "name: [", nil, "a.yaml: line 1: did not find expected node content"},
		{"unknown field", minimal + "colour: red\n", nil, `a.yaml: line 10: unknown field "colour"`},
		{"unknown step field", withAcquire("  command: [GET, \"{key}\"]\n  sucess: ok"), nil, `unknown field "sucess"`},
		{"missing name", strings.Replace(minimal, "name: mine", "", 1), nil, "a.yaml: name: missing"},
		{"bad name", strings.Replace(minimal, "name: mine", "name: 'a b'", 1), nil, `a.yaml: name: "a b": want 1 to 64`},
		{"built-in name", strings.Replace(minimal, "name: mine", "name: php-eval", 1), nil, `a.yaml: name: "php-eval" is a built-in algorithm`},
		{"missing key", strings.Replace(minimal, "key: k", "", 1), nil, "a.yaml: key: missing"},
		{"missing ttl", strings.Replace(minimal, "ttl: 10s", "", 1), nil, "a.yaml: ttl: missing"},
		{"bad ttl", strings.Replace(minimal, "ttl: 10s", "ttl: 10", 1), nil, `a.yaml: ttl: "10" is not a duration`},
		{"zero ttl", strings.Replace(minimal, "ttl: 10s", "ttl: 0s", 1), nil, "a.yaml: ttl: 0s: must be more than 0"},
		{"bad resolution", minimal + "resolution: -1s\n", nil, "a.yaml: resolution: -1s: must be more than 0"},
		{"bad expiry", minimal + "assumes: {expiry: never}\n", nil, `a.yaml: assumes.expiry: "never": want ttl, timestamp, both, none`},
		{"bad assumed pause", minimal + "assumes: {pause: -3s}\n", nil, "a.yaml: assumes.pause: -3s: must be more than 0"},
		{"bad wait", minimal + "assumes: {wait: 50}\n", nil, `a.yaml: assumes.wait: "50" is not a duration`},
		{"unknown assumption", minimal + "assumes: {fsnyc: true}\n", nil, `unknown field "fsnyc"`},
		{"bad attempts", minimal + "retry: {attempts: 0}\n", nil, `a.yaml: retry.attempts: "0": want a count`},
		{"bad sleep", minimal + "retry: {sleep: -1s}\n", nil, "a.yaml: retry.sleep: -1s is negative"},
		{"bad jitter", minimal + "retry: {jitter: maybe}\n", nil, `a.yaml: retry.jitter: "maybe": want true (sleep/2 to 3·sleep/2) or a spread such as 100ms`},
		{"bad lifetime", minimal + "lifetime: '{now_s}s'\n", nil, `a.yaml: lifetime: "{now_s}s": want never`},
		{"token uses token", minimal + "token: 'x{token}'\n", nil, "a.yaml: token: cannot use {token}"},
		{"no acquire", "name: mine\nkey: k\nttl: 1s\nrelease: {command: [DEL, k]}\n", nil, "a.yaml: acquire: missing"},
		{"no release", "name: mine\nkey: k\nttl: 1s\nacquire: {command: [SET, k, v], success: ok}\n", nil, "a.yaml: release: missing"},
		{"unknown placeholder", withAcquire("  command: [SET, \"{key}\", \"{tokn}\"]\n  success: ok"), nil,
			`a.yaml: acquire.command[2]: unknown placeholder "{tokn}" (valid: {key}, {token}, {ttl}`},
		{"offset on text", withAcquire("  command: [SET, \"{key+1}\", v]\n  success: ok"), nil,
			`a.yaml: acquire.command[1]: placeholder "{key+1}": only a number takes an offset`},
		{"bad offset", withAcquire("  command: [SET, k, \"{now_s+x}\"]\n  success: ok"), nil,
			`a.yaml: acquire.command[2]: placeholder "{now_s+x}": the offset must be a whole number`},
		{"unclosed brace", withAcquire("  command: [SET, \"{key\", v]\n  success: ok"), nil,
			"a.yaml: acquire.command[1]: unclosed { at byte 1 (write {{ for a literal brace)"},
		{"lone brace", withAcquire("  command: [SET, \"k}\", v]\n  success: ok"), nil,
			"a.yaml: acquire.command[1]: a lone } at byte 2"},
		{"null argument", withAcquire("  command: [SET, ~, v]\n  success: ok"), nil,
			`a.yaml: acquire.command[1]: want text or a number (write "" for an empty argument)`},
		{"empty command", withAcquire("  command: []\n  success: ok"), nil, "a.yaml: acquire.command: empty"},
		{"unsupported command", withAcquire("  command: [SETNXX, k, v]\n  success: ok"), nil,
			`a.yaml: acquire.command[0]: "SETNXX" is not a command locksim's Redis (miniredis) runs`},
		{"unsimulated command", withAcquire("  command: [BRPOPLPUSH, k, j, 0]\n  success: ok"), nil,
			`a.yaml: acquire.command[0]: "BRPOPLPUSH" is not a command`},
		{"placeholder command", withAcquire("  command: [\"{key}\", k]\n  success: ok"), nil,
			"a.yaml: acquire.command[0]: the command name cannot be a placeholder"},
		{"lua syntax error", withAcquire("  script: |\n    local x = 1\n    if x then return 1\n  success: ok"), nil,
			"a.yaml: acquire.script:3: syntax error near <eof>"},
		{"lua syntax error in file", withAcquire("  script_file: lock.lua\n  success: ok"), scripts{"lock.lua": "local x = 1\n\nreturn x +\n"},
			"a.yaml: acquire.script_file: lock.lua:4: "},
		{"missing script file", withAcquire("  script_file: nope.lua\n  success: ok"), nil,
			"a.yaml: acquire.script_file: nope.lua: file does not exist"},
		{"unsupported command in script", withAcquire("  script: |\n    local v = redis.call('GET', KEYS[1])\n    return redis.call('FROB', KEYS[1])\n  keys: [\"{key}\"]\n  success: ok"), nil,
			`a.yaml: acquire: acquire.script:2: "FROB" is not a command locksim's Redis (miniredis) runs`},
		{"command and script", withAcquire("  command: [GET, k]\n  script: return 1\n  success: ok"), nil,
			"a.yaml: acquire: has both command and a script"},
		{"keys without script", withAcquire("  command: [GET, k]\n  keys: [k]\n  success: ok"), nil,
			"a.yaml: acquire: keys and args go with script or script_file"},
		{"steps and fields", withAcquire("  command: [GET, k]\n  steps: [{command: [GET, k], success: ok}]"), nil,
			"a.yaml: acquire: has both steps and a single step's fields"},
		{"empty operation", withAcquire("  errors: retry"), nil, "a.yaml: acquire: empty"},
		{"no rule", withAcquire("  command: [SET, k, v, NX]"), nil,
			"a.yaml: acquire: the last step of acquire needs success: or on:"},
		{"check first", withAcquire("  steps:\n    - on: [{then: held}]"), nil,
			"a.yaml: acquire.steps[0]: has no command or script: a check of the previous reply cannot come first"},
		{"check without rules", withAcquire("  steps:\n    - command: [GET, k]\n    - label: x\n    - command: [GET, k]\n      success: ok"), nil,
			"a.yaml: acquire.steps[1]: a check needs on: or success:"},
		{"unknown outcome", withAcquire("  command: [GET, k]\n  on: [{then: hold}]"), nil,
			`a.yaml: acquire.on[0].then: "hold" is not an outcome of acquire (valid: held, next, retry, retry_now, fail, error)`},
		{"missing then", withAcquire("  command: [GET, k]\n  on: [{if: nil}]"), nil, "a.yaml: acquire.on[0].then: missing"},
		{"next at the end", withAcquire("  command: [GET, k]\n  on: [{then: next}]"), nil,
			"a.yaml: acquire.on[0].then: next: there is no next step"},
		{"bad predicate", withAcquire("  command: [GET, k]\n  success: okay"), nil,
			"a.yaml: acquire.success: want one of ok, nil, not_nil, integer, {equals: V}, {at_least: N}, {less_than: T}"},
		{"two-key predicate", withAcquire("  command: [GET, k]\n  success: {equals: 1, at_least: 2}"), nil, "a.yaml: acquire.success: want one of"},
		{"bad at_least", withAcquire("  command: [GET, k]\n  success: {at_least: one}"), nil, `a.yaml: acquire.success.at_least: "one" is not a whole number`},
		{"bad less_than", withAcquire("  command: [GET, k]\n  success: {less_than: 'x{now}'}"), nil,
			`a.yaml: acquire.success.less_than: "x{now}": want a whole number or one numeric placeholder`},
		{"bad errors", withAcquire("  command: [GET, k]\n  success: ok\n  errors: ignore"), nil,
			`a.yaml: acquire.errors: "ignore" is not an outcome of acquire`},
		{"errors next", withAcquire("  command: [GET, k]\n  success: ok\n  errors: next"), nil,
			"a.yaml: acquire.errors: next: an error ends the operation (use retry or error)"},
		{"fence on release", "name: mine\nkey: k\nttl: 1s\nacquire: {command: [SET, k, v], success: ok}\nrelease: {command: [INCR, k], fence: true}\n", nil,
			"a.yaml: release.fence: only an acquire step carries the fencing number"},
		{"held in release", "name: mine\nkey: k\nttl: 1s\nacquire: {command: [SET, k, v], success: ok}\nrelease: {command: [DEL, k], on: [{then: held}]}\n", nil,
			`a.yaml: release.on[0].then: "held" is not an outcome of release (valid: done, next, error)`},
		{"release success", "name: mine\nkey: k\nttl: 1s\nacquire: {command: [SET, k, v], success: ok}\nrelease: {command: [DEL, k], success: ok}\n", nil,
			"a.yaml: release.success: a release has no success rule"},
		{"token never set", "name: mine\nkey: k\nttl: 1s\nacquire: {command: [SET, k, v], success: ok}\nrelease: {command: [DEL, k, \"{token}\"]}\n", nil,
			"a.yaml: release: uses {token}, which the acquire never sets"},
		{"label with token", withAcquire("  command: [GET, k]\n  label: '{token}'\n  success: ok"), nil, "a.yaml: acquire.label: cannot use {token}"},
		{"too big", strings.Repeat(" ", MaxFileSize+1), nil, "a.yaml: file is 1048577 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, c.src, c.sc)
			if err == nil {
				t.Fatalf("no error; want %q", c.want)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "a.yaml: ") || !strings.Contains(msg, c.want) {
				t.Errorf("error\n got %q\nwant %q", msg, c.want)
			}
			if strings.ContainsAny(msg, "\r\n") {
				t.Errorf("error is not one line: %q", msg)
			}
		})
	}
}

// LoadFile names the file it could not read, and reads script files
// relative to the algorithm file.
func TestLoadFile(t *testing.T) {
	if _, err := LoadFile(filepath.Join(t.TempDir(), "nope.yaml")); err == nil || !strings.Contains(err.Error(), "nope.yaml: no such file") {
		t.Errorf("missing file: %v", err)
	}
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "lua"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "lua", "release.lua"), []byte("return redis.call('DEL', KEYS[1])"), 0o644))
	src := strings.Replace(minimal, "  command: [DEL, \"{key}\"]", "  script_file: lua/release.lua\n  keys: [\"{key}\"]", 1)
	must(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(src), 0o644))
	a, err := LoadFile(filepath.Join(dir, "a.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "mine" || a.Source != filepath.Join(dir, "a.yaml") || a.Defaults.TTL != 10*time.Second || a.Defaults.Retries != 1 {
		t.Errorf("loaded %+v", a)
	}
}

// LoadFileSum's sum is `cat FILE SCRIPTS | sha256sum`: the file's own
// sha256 without script files, and it changes when a script file does.
func TestLoadFileSum(t *testing.T) {
	sumOf := func(parts ...string) string {
		h := sha256.New()
		for _, p := range parts {
			data, err := os.ReadFile(p)
			must(t, err)
			h.Write(data)
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	ex := filepath.Join("..", "..", "examples")
	for _, c := range []struct {
		file  string
		parts []string
	}{
		{"set-nx-px-token.yaml", nil},
		{"php-eval.yaml", []string{"php-eval/acquire.lua", "php-eval/unlock.lua"}},
	} {
		parts := []string{filepath.Join(ex, c.file)}
		for _, p := range c.parts {
			parts = append(parts, filepath.Join(ex, p))
		}
		_, got, err := LoadFileSum(parts[0])
		if err != nil || got != sumOf(parts...) {
			t.Errorf("%s: sum %s (%v), want %s", c.file, got, err, sumOf(parts...))
		}
	}
	dir := t.TempDir()
	src := strings.Replace(minimal, "  command: [DEL, \"{key}\"]", "  script_file: release.lua\n  keys: [\"{key}\"]", 1)
	must(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(src), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "release.lua"), []byte("return redis.call('DEL', KEYS[1])"), 0o644))
	_, before, err := LoadFileSum(filepath.Join(dir, "a.yaml"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "release.lua"), []byte("return redis.call('UNLINK', KEYS[1])"), 0o644))
	if _, after, err := LoadFileSum(filepath.Join(dir, "a.yaml")); err != nil || after == before {
		t.Errorf("an edited script file: sum %s (%v), before %s", after, err, before)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestTemplateExpand(t *testing.T) {
	// 2026-01-01T00:00:05.250Z on the local clock.
	now := sim.Epoch.Add(5250 * time.Millisecond)
	p := locks.Params{Key: "lock:{x}", TTL: 2500 * time.Millisecond, Resolution: time.Second}
	s := now.Unix()
	cases := []struct{ in, want string }{
		{"{key}", "lock:{x}"},
		{"{token}", "tok"},
		{"a{{b}}c", "a{b}c"},
		{"{ttl}", "3"},
		{"{ttl_s}", "3"},
		{"{ttl_ms}", "2500"},
		{"{now}", fmt.Sprint(s)},
		{"{now_s}", fmt.Sprint(s)},
		{"{now_ms}", fmt.Sprint(s*1000 + 250)},
		{"{expire_at}", fmt.Sprint(s + 3)},
		{"{expire_at_s+1}", fmt.Sprint(s + 4)},
		{"{expire_at_ms-500}", fmt.Sprint(s*1000 + 250 + 2500 - 500)},
		{"v={now_s}:{key}", fmt.Sprintf("v=%d:lock:{x}", s)},
		{"", ""},
	}
	for _, c := range cases {
		tp, err := parseTemplate(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		e := &env{p: p, now: now, tok: func() string { return "tok" }}
		if got := tp.expand(e); got != c.want {
			t.Errorf("%q = %q, want %q", c.in, got, c.want)
		}
		if back, _ := parseTemplate(tp.String()); back.expand(e) != c.want {
			t.Errorf("%q: String() %q does not read back", c.in, tp.String())
		}
	}
	// {now} counts in the resolution.
	p.Resolution = time.Millisecond
	tp, _ := parseTemplate("{now}/{ttl}/{expire_at}")
	if got, want := tp.expand(&env{p: p, now: now}), fmt.Sprintf("%d/2500/%d", s*1000+250, s*1000+250+2500); got != want {
		t.Errorf("ms resolution: %q, want %q", got, want)
	}
}

// rulesFile acquires with one command and the rules given, and releases with
// DEL.
func rulesFile(acquire string) string {
	return "name: mine\nkey: k\nttl: 10s\nretry: {attempts: 3, sleep: 100ms}\nacquire:\n" + acquire +
		"\nrelease:\n  command: [DEL, \"{key}\"]\n"
}

// The interpreter on the fake world: outcomes, tries, sleeps and the lease.
func TestFileAcquire(t *testing.T) {
	cases := []struct {
		name    string
		acquire string
		setup   []string // a command run on the node first
		drop    string   // a command whose request is lost
		held    bool
		err     string // a client error containing this
		sends   int    // commands sent
		sleeps  int
		token   string // the lease's token ("random": 40 hex digits)
		fence   int64
	}{
		{name: "ok", acquire: "  command: [SET, \"{key}\", \"{token}\", NX]\n  success: ok",
			held: true, sends: 1, token: "random"},
		{name: "taken: 3 tries, 2 sleeps", acquire: "  command: [SET, \"{key}\", \"{token}\", NX]\n  success: ok",
			setup: []string{"SET", "k", "x"}, sends: 3, sleeps: 2},
		{name: "retry_now does not sleep", acquire: "  command: [SETNX, \"{key}\", v]\n  on: [{if: {equals: 1}, then: held}, {then: retry_now}]",
			setup: []string{"SET", "k", "x"}, sends: 3},
		{name: "at_least", acquire: "  command: [INCR, \"{key}\"]\n  success: {at_least: 2}",
			setup: []string{"SET", "k", "1"}, held: true, sends: 1},
		{name: "not_nil", acquire: "  command: [GET, \"{key}\"]\n  success: not_nil",
			setup: []string{"SET", "k", "1"}, held: true, sends: 1},
		{name: "nil", acquire: "  command: [GET, \"{key}\"]\n  success: nil", held: true, sends: 1},
		{name: "equals a placeholder", acquire: "  command: [GET, \"{key}\"]\n  success: {equals: \"{key}\"}",
			setup: []string{"SET", "k", "k"}, held: true, sends: 1},
		{name: "no rule matches", acquire: "  command: [GET, \"{key}\"]\n  on: [{if: nil, then: held}]",
			setup: []string{"SET", "k", "1"}, err: `mine: GET k: no rule matches the reply "1"`, sends: 1},
		{name: "rule says error", acquire: "  command: [GET, \"{key}\"]\n  on: [{if: not_nil, then: error}, {then: held}]",
			setup: []string{"SET", "k", "1"}, err: `mine: GET k: reply "1": the file's rule says error`, sends: 1},
		{name: "less_than on text throws", acquire: "  command: [GET, \"{key}\"]\n  success: {less_than: 5}",
			setup: []string{"SET", "k", "abc"}, err: `mine: GET k: value "abc" is not an integer`, sends: 1},
		{name: "less_than on nil throws", acquire: "  command: [GET, \"{key}\"]\n  success: {less_than: 5}",
			err: "mine: GET k: want an integer, got (nil)", sends: 1},
		{name: "error reply raises", acquire: "  command: [INCR, \"{key}\"]\n  success: integer",
			setup: []string{"SET", "k", "x"}, err: "mine: INCR k: ERR value is not an integer", sends: 1},
		{name: "error reply retries", acquire: "  command: [INCR, \"{key}\"]\n  success: integer\n  errors: retry",
			setup: []string{"SET", "k", "x"}, sends: 3, sleeps: 2},
		{name: "timeout raises", acquire: "  command: [SET, \"{key}\", v, NX]\n  success: ok",
			drop: "SET", err: "mine: SET k: timeout", sends: 1},
		{name: "timeout retries", acquire: "  command: [SET, \"{key}\", v, NX]\n  success: ok\n  errors: retry",
			drop: "SET", sends: 3, sleeps: 2},
		{name: "label", acquire: "  label: lock({key})\n  command: [SET, \"{key}\", v, NX]\n  success: ok",
			drop: "SET", err: "mine: lock(k): timeout", sends: 1},
		{name: "script", acquire: "  script: return redis.call('SET', KEYS[1], ARGV[1], 'NX')\n  keys: [\"{key}\"]\n  args: [\"{token}\"]\n  success: ok",
			held: true, sends: 1, token: "random"},
		{name: "steps with fence", acquire: "  steps:\n    - command: [SET, \"{key}\", \"{token}\", NX]\n      on: [{if: ok, then: next}, {then: retry}]\n    - command: [INCR, fence]\n      fence: true\n      success: integer",
			setup: []string{"SET", "fence", "41"}, held: true, sends: 2, token: "random", fence: 42},
		{name: "locksim refusal always raises", acquire: "  script: |\n    local c = 'BL' .. 'POP'\n    return redis.call(c, KEYS[1], 0)\n  keys: [\"{key}\"]\n  success: ok\n  errors: retry",
			err: "not simulated", sends: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := mustParse(t, rulesFile(c.acquire), nil)
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
			case err != nil:
				var ce *locks.ClientError
				if !errors.As(err, &ce) {
					t.Errorf("%T is not a *locks.ClientError", err)
				}
			}
			if lease.Held != c.held || lease.Fence != c.fence {
				t.Errorf("lease %+v, want held %v fence %d", lease, c.held, c.fence)
			}
			if c.token == "random" && len(lease.Token) != 40 || c.token == "" && lease.Token != "" {
				t.Errorf("token %q, want %s", lease.Token, c.token)
			}
			if len(w.Log) != c.sends || p.Sleeps != c.sleeps {
				t.Errorf("%d commands, %d sleeps; want %d, %d: %q", len(w.Log), p.Sleeps, c.sends, c.sleeps, w.Log)
			}
		})
	}
}

// The random token and the jitter come from the process's source in the
// built-ins' order, so a file and set-nx-px-token send the same commands.
func TestFileRandomnessMatchesBuiltin(t *testing.T) {
	a := mustParse(t, `
name: mine
key: resource_name
ttl: 30s
retry: {attempts: 4, sleep: 200ms, jitter: true}
acquire:
  command: [SET, "{key}", "{token}", NX, PX, "{ttl_ms}"]
  success: ok
release:
  command: [DEL, "{key}"]
`, nil)
	logs := map[string][]string{}
	slept := map[string]time.Duration{}
	for _, l := range []struct {
		name string
		lk   sim.Locker
	}{{"file", a.New(locks.Params{})}, {"built-in", locker(t, "set-nx-px-token", locks.Params{Retries: 4})}} {
		w := locktest.NewWorld(t, 1)
		w.Exec(0, "SET", "resource_name", "taken")
		p := w.Proc("c1", 0)
		locktest.MustFail(t, l.lk, p)
		logs[l.name], slept[l.name] = w.Log, p.Slept
	}
	if fmt.Sprint(logs["file"]) != fmt.Sprint(logs["built-in"]) || slept["file"] != slept["built-in"] {
		t.Errorf("file sent %q, slept %s\nbuilt-in sent %q, slept %s", logs["file"], slept["file"], logs["built-in"], slept["built-in"])
	}
}

// A template token is evaluated in each step that uses it; the lease keeps
// the last one, and release sees it as {token}.
func TestFileTemplateToken(t *testing.T) {
	a := mustParse(t, `
name: mine
key: k
ttl: 3s
token: "{expire_at_ms}"
acquire:
  steps:
    - command: [SET, "{key}", "{token}"]
      on: [{then: next}]
    - command: [GETSET, "{key}", "{token}"]
      on: [{if: {less_than: "{expire_at_ms}"}, then: held}, {then: retry_now}]
release:
  command: [DEL, "{key}", "{token}"]
`, scripts{})
	w := locktest.NewWorld(t, 1)
	p := w.Proc("c1", 0)
	lease := locktest.MustAcquire(t, a.New(locks.Params{}), p)
	second := fmt.Sprint(p.Now().Add(-2*time.Millisecond).UnixMilli() + 3000) // before GETSET's round trip
	if lease.Token != second {
		t.Errorf("lease token %q, want GETSET's value %q (log %q)", lease.Token, second, w.Log)
	}
	locktest.MustRelease(t, a.New(locks.Params{}), p, lease)
	if last := w.Log[len(w.Log)-1]; last != "c1 0 DEL k "+second {
		t.Errorf("release sent %q", last)
	}
}

// Extend runs the file's extend with the lease's token.
func TestFileExtend(t *testing.T) {
	a := mustParse(t, minimal+`extend:
  script: |-
    if redis.call("get", KEYS[1]) == ARGV[1] then
      return redis.call("pexpire", KEYS[1], ARGV[2])
    end
    return 0
  keys: ["{key}"]
  args: ["{token}", "{ttl_ms}"]
  success: {equals: 1}
`, nil)
	w := locktest.NewWorld(t, 1)
	p := w.Proc("c1", 0)
	l := a.New(locks.Params{}).(extendingLocker)
	lease := locktest.MustAcquire(t, l, p)
	w.Advance(5 * time.Second)
	if ok, err := l.Extend(p, lease); !ok || err != nil {
		t.Fatalf("extend: %v %v", ok, err)
	}
	if _, _, ttl := w.Key(0, "k"); ttl < 9*time.Second {
		t.Errorf("ttl %s after extend", ttl)
	}
	if ok, err := l.Extend(p, sim.Lease{Held: true, Token: "other"}); ok || err != nil {
		t.Errorf("extend with another token: %v %v", ok, err)
	}
	if _, ok := mustParse(t, minimal, nil).New(locks.Params{}).(sim.Extender); ok {
		t.Errorf("a file without extend is a sim.Extender: renew_every would report its lock lost")
	}
}

// Scenario params override the file's constants; a file runs on one node.
func TestFileParams(t *testing.T) {
	a := mustParse(t, minimal+"retry: {attempts: forever, sleep: 1s}\nresolution: 1ms\nlifetime: '{ttl_s+1}s'\n", nil)
	want := locks.Params{Key: "k", TTL: 10 * time.Second, Retries: locks.Forever, RetrySleep: time.Second, Resolution: time.Millisecond}
	if a.Defaults != want {
		t.Errorf("defaults %+v, want %+v", a.Defaults, want)
	}
	if got := a.Lifetime(locks.Params{TTL: 2500 * time.Millisecond}); got != 4*time.Second {
		t.Errorf("lifetime %s, want 4s", got)
	}
	if err := a.Validate(locks.Params{Nodes: 5}); err == nil || !strings.Contains(err.Error(), "one node") {
		t.Errorf("nodes 5: %v", err)
	}
	for _, c := range []struct {
		lifetime string
		want     time.Duration
	}{{"", 10 * time.Second}, {"never", 0}, {"1m", time.Minute}, {"'{ttl_ms-500}ms'", 9500 * time.Millisecond}} {
		src := minimal
		if c.lifetime != "" {
			src += "lifetime: " + c.lifetime + "\n"
		}
		if got := mustParse(t, src, nil).Lifetime(locks.Params{}); got != c.want {
			t.Errorf("lifetime %q: %s, want %s", c.lifetime, got, c.want)
		}
	}
}

// A script that loops for ever is cut off by the node's instruction budget:
// the acquire returns a client error, the process ends, and the verdict is
// client-error. No hang, whatever the file's errors policy says.
func TestRunawayScriptIsClientError(t *testing.T) {
	for _, errorsPolicy := range []string{"", "  errors: retry\n"} {
		a := mustParse(t, `
name: spin
key: k
ttl: 10s
retry: {attempts: forever, sleep: 10ms}
acquire:
  script: |
    local n = 0
    while true do n = n + 1 end
  keys: ["{key}"]
  success: ok
`+errorsPolicy+`release:
  command: [DEL, "{key}"]
`, nil)
		res, err := sim.Run(sim.Config{
			Seed: 1, Duration: time.Minute,
			Nodes:     make([]sim.NodeSpec, 1),
			Procs:     []sim.ProcSpec{{Name: "c1", Iterations: 2}, {Name: "c2", Iterations: 2}},
			Network:   sim.Network{Request: sim.Latency{Min: time.Millisecond, Max: time.Millisecond}, Reply: sim.Latency{Min: time.Millisecond, Max: time.Millisecond}, Timeout: time.Second},
			NewLocker: func(int) sim.Locker { return a.New(locks.Params{}) },
			WatchKey:  "k",
		})
		if err != nil {
			t.Fatal(err)
		}
		v := model.Check(res.History, model.Options{TTL: a.Lifetime(locks.Params{})})
		if v.Verdict != model.VerdictClientError {
			t.Errorf("errors %q: verdict %s, want client-error", errorsPolicy, v.Verdict)
		}
		ends := 0
		for _, e := range res.History.Events {
			if e.Kind == sim.KindProcEnd {
				if !strings.Contains(e.Err, "acquire: spin: EVAL: ERR locksim: script exceeded its budget") {
					t.Errorf("process end: %q", e.Err)
				}
				ends++
			}
		}
		if ends != 2 {
			t.Errorf("%d processes ended, want 2", ends)
		}
	}
}

// Release: steps until done, errors raise unless errors: done, and the
// lease's token as {token}.
func TestFileRelease(t *testing.T) {
	checked := `
  steps:
    - command: [GET, "{key}"]
      on: [{if: {equals: "{token}"}, then: next}, {then: done}]
    - command: [DEL, "{key}"]`
	cases := []struct {
		name, release string
		value         string // the key's value before release ("": absent)
		drop          string
		err           string
		sends         int
		left          bool // the key is still there after
	}{
		{name: "plain", release: "  command: [DEL, \"{key}\"]", value: "mine", sends: 1},
		{name: "checked, ours", release: checked, value: "mine", sends: 2},
		{name: "checked, another's", release: checked, value: "theirs", sends: 1, left: true},
		{name: "timeout raises", release: "  command: [DEL, \"{key}\"]", value: "mine", drop: "DEL", err: "mine: DEL k: timeout", sends: 1, left: true},
		{name: "timeout done", release: "  command: [DEL, \"{key}\"]\n  errors: done", value: "mine", drop: "DEL", sends: 1, left: true},
		{name: "rule says error", release: "  command: [DEL, \"{key}\"]\n  on: [{if: {equals: 0}, then: error}, {then: done}]",
			err: "mine: DEL k: reply (integer) 0: the file's rule says error", sends: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "name: mine\nkey: k\nttl: 10s\nacquire:\n  command: [SET, \"{key}\", \"{token}\", NX]\n  success: ok\nrelease:\n" + c.release + "\n"
			a := mustParse(t, src, nil)
			w := locktest.NewWorld(t, 1)
			if c.value != "" {
				w.Exec(0, "SET", "k", c.value)
			}
			p := w.Proc("c1", 0)
			if c.drop != "" {
				p.Drop = map[string]bool{c.drop: true}
			}
			err := a.New(locks.Params{}).Release(p, sim.Lease{Held: true, Token: "mine"})
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Errorf("error %v, want %q", err, c.err)
			}
			if exists, _, _ := w.Key(0, "k"); exists != c.left || len(w.Log) != c.sends {
				t.Errorf("key left %v after %q; want %v after %d commands", exists, w.Log, c.left, c.sends)
			}
		})
	}
}

// An assumes: section becomes the lock's assumptions; without one it is a
// TTL lock's.
func TestParseAssumes(t *testing.T) {
	a := mustParse(t, minimal+"assumes: {expiry: timestamp, pause: 5s, fsync: true, wait: 50ms}\n", nil)
	want := locks.Assumptions{Expiry: locks.ExpiryTimestamp, Pause: 5 * time.Second, Fsync: true, Wait: 50 * time.Millisecond}
	if a.Assumes != want {
		t.Errorf("assumes %+v, want %+v", a.Assumes, want)
	}
	if a := mustParse(t, minimal, nil); a.Assumes != (locks.Assumptions{}) || a.Assumes.Expiry != locks.ExpiryTTL {
		t.Errorf("no assumes: %+v, want a TTL lock's", a.Assumes)
	}
}
