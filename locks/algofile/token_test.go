package algofile

import (
	"github.com/locksim/locksim/internal/locktest"
	"regexp"
	"strings"
	"testing"

	"github.com/locksim/locksim/locks"
)

// tokenFile is a file whose acquire takes a SET NX with {token} and retries
// twice against a held key, so that the tokens of three tries show.
func tokenFile(token string) string {
	return "name: mine\nkey: k\nttl: 10s\nretry: {attempts: 3}\n" + token +
		"\nacquire:\n  command: [SET, \"{key}\", \"{token}\", NX]\n  success: ok\nrelease:\n  command: [DEL, \"{key}\", \"{token}\"]\n"
}

// setValues are the values of the SETs the process sent.
func setValues(log []string) []string {
	var out []string
	for _, l := range log {
		if f := strings.Fields(l); len(f) > 4 && f[2] == "SET" {
			out = append(out, f[4])
		}
	}
	return out
}

// Each shape draws its random part from the process's source, in its
// length and alphabet; the scope says how long a draw lives.
func TestFileTokenShapes(t *testing.T) {
	cases := []struct {
		name, token string
		want        *regexp.Regexp
		same        bool // the three tries send one token
	}{
		{"default", "", regexp.MustCompile(`^[0-9a-f]{40}$`), false},
		{"random", "token: random", regexp.MustCompile(`^[0-9a-f]{40}$`), false},
		{"hex 16", "token: {hex: 16}", regexp.MustCompile(`^[0-9a-f]{32}$`), false},
		{"hex 3", "token: {hex: 3}", regexp.MustCompile(`^[0-9a-f]{6}$`), false},
		{"base64url 16", "token: {base64url: 16}", regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`), false},
		{"base64 16", "token: {base64: 16}", regexp.MustCompile(`^[A-Za-z0-9+/]{22}==$`), false},
		{"uuid", "token: uuid", regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), false},
		{"uuid:pid per process", "token: {uuid: true, format: \"{token}:{pid}\", scope: process}",
			regexp.MustCompile(`^[0-9a-f-]{36}:[0-9]{1,5}$`), true},
		{"acquire scope", "token: {hex: 16, scope: acquire}", regexp.MustCompile(`^[0-9a-f]{32}$`), true},
		{"prefix", "token: {base64url: 16, format: \"lock-{token}\"}", regexp.MustCompile(`^lock-[A-Za-z0-9_-]{22}$`), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := mustParse(t, tokenFile(c.token), nil)
			w := locktest.NewWorld(t, 1)
			w.Exec(0, "SET", "k", "taken")
			p := w.Proc("c1", 0)
			locktest.MustFail(t, a.New(locks.Params{}), p)
			vals := setValues(w.Log)
			if len(vals) != 3 {
				t.Fatalf("sent %q", w.Log)
			}
			for _, v := range vals {
				if !c.want.MatchString(v) {
					t.Errorf("token %q does not match %s", v, c.want)
				}
			}
			if got := vals[0] == vals[1] && vals[1] == vals[2]; got != c.same {
				t.Errorf("tokens %q: one for all tries %v, want %v", vals, got, c.same)
			}
			// The same process source gives the same tokens: drawn, not read
			// from anywhere else.
			w2 := locktest.NewWorld(t, 1)
			w2.Exec(0, "SET", "k", "taken")
			locktest.MustFail(t, a.New(locks.Params{}), w2.Proc("c1", 0))
			if strings.Join(setValues(w2.Log), " ") != strings.Join(vals, " ") {
				t.Errorf("a second run drew %q, the first %q", setValues(w2.Log), vals)
			}
		})
	}
}

// Scope process keeps one token across acquire calls of one locker (one
// incarnation), and the release sends the lease's; a scenario's token_scope
// overrides the file's scope.
func TestFileTokenScopes(t *testing.T) {
	a := mustParse(t, tokenFile("token: {uuid: true, format: \"{token}:{pid}\", scope: process}"), nil)
	w := locktest.NewWorld(t, 1)
	p := w.Proc("c1", 0)
	l := a.New(locks.Params{})
	first := locktest.MustAcquire(t, l, p)
	locktest.MustRelease(t, l, p, first)
	second := locktest.MustAcquire(t, l, p)
	if first.Token != second.Token {
		t.Errorf("scope process: tokens %q then %q", first.Token, second.Token)
	}
	// A new incarnation draws its own.
	w2 := locktest.NewWorld(t, 1)
	again := locktest.MustAcquire(t, a.New(locks.Params{}), w2.Proc("c1", 5))
	if again.Token == first.Token {
		t.Errorf("another process source drew the same token %q", again.Token)
	}

	b := mustParse(t, tokenFile("token: {hex: 8, scope: acquire}"), nil)
	w3 := locktest.NewWorld(t, 1)
	w3.Exec(0, "SET", "k", "taken")
	locktest.MustFail(t, b.New(locks.Params{TokenScope: locks.TokenTry}), w3.Proc("c1", 0))
	if v := setValues(w3.Log); v[0] == v[1] {
		t.Errorf("token_scope try over the file's acquire: tries sent %q", v)
	}
}

// Each way to get token: wrong is one line naming the field.
func TestFileTokenErrors(t *testing.T) {
	cases := []struct{ token, want string }{
		{"token: {hex: 0}", `a.yaml: token.hex: "0": want a count of random bytes from 1 to 64`},
		{"token: {base64url: 65}", `a.yaml: token.base64url: "65": want a count`},
		{"token: {hex: x}", `a.yaml: token.hex: "x": want a count`},
		{"token: {uuid: false}", `a.yaml: token.uuid: "false": want true`},
		{"token: {hex: 16, uuid: true}", "a.yaml: token: give one shape: hex, base64url, base64 or uuid"},
		{"token: {hex: 16, scope: call}", `a.yaml: token.scope: "call": want try`},
		{"token: {hex: 16, colour: red}", "a.yaml: token.colour: unknown field (valid: hex, base64url, base64, uuid, format, scope)"},
		{"token: {hex: [1]}", "a.yaml: token.hex: want a single value"},
		{"token: {hex: 16, format: \"{now_s}\"}", "a.yaml: token.format: does not use {token}"},
		{"token: {format: \"{tokn}\"}", `a.yaml: token.format: unknown placeholder "{tokn}"`},
		{"token: [a]", "a.yaml: token: want random, uuid, a template, or a mapping"},
		{"token: \"x{token}\"", "a.yaml: token: cannot use {token}: it defines it"},
		{"token: \"{pid+1}\"", `a.yaml: token: placeholder "{pid+1}": only a number takes an offset`},
	}
	for _, c := range cases {
		_, err := parse(t, tokenFile(c.token), nil)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want %q", c.token, err, c.want)
		}
	}
}
