package node

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/fuzzing"
)

// TestGlobalsProtected checks that scripts cannot create or change globals,
// and that nothing one script does is visible to the next.
func TestGlobalsProtected(t *testing.T) {
	tests := []struct {
		script  string
		wantErr string // substring of the error reply, or "" for success
		probe   string // run next on the same node
		want    Reply
	}{
		{"x = 1", "Attempt to modify a readonly table",
			"return type(rawget(_G, 'x'))", bulk("nil")},
		{"function f() end", "Attempt to modify a readonly table",
			"return type(rawget(_G, 'f'))", bulk("nil")},
		{"return x", "Script attempted to access nonexistent global variable 'x'",
			"return 1", integer(1)},
		{"redis = nil", "Attempt to modify a readonly table",
			"return type(redis)", bulk("table")},
		{"KEYS = {}", "Attempt to modify a readonly table",
			"return #KEYS", integer(0)},
		{"string.rep = nil", "Attempt to modify a readonly table",
			"return string.rep('a', 2)", bulk("aa")},
		{"getmetatable('').__index.upper = nil", "Attempt to modify a readonly table",
			"return ('a'):upper()", bulk("A")},
		{"math.random = function() return 4 end", "Attempt to modify a readonly table",
			"return math.random(1000000) ~= 4", integer(1)},
		{"setmetatable(_G, nil)", "cannot change a protected metatable",
			"x = 1", errr("ERR user_script:1: Attempt to modify a readonly table script: " + sha1hex("x = 1") + ", on @user_script:1.")},
		{"setmetatable(true, {__index = function() return 1 end})", "table expected",
			"return type(getmetatable(true))", bulk("nil")},
		{"rawset(_G, 'y', 1) return y", "",
			"return type(rawget(_G, 'y'))", bulk("nil")},
		{"rawset(string, 'evil', 1) return string.evil", "",
			"return type(rawget(string, 'evil'))", bulk("nil")},
		{"table.insert(math, 1)", "",
			"return #math", integer(0)},
		{"setfenv(0, {x = 1})", "",
			"return loadstring('return x')()", errr("ERR <string>:1: Script attempted to access nonexistent global variable 'x'")},
		{"return print", "nonexistent global variable 'print'", "return 1", integer(1)},
		{"return dofile", "nonexistent global variable 'dofile'", "return 1", integer(1)},
		{"return loadfile", "nonexistent global variable 'loadfile'", "return 1", integer(1)},
		{"return os", "nonexistent global variable 'os'", "return 1", integer(1)},
		{"return io", "nonexistent global variable 'io'", "return 1", integer(1)},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			n := New(1)
			got := n.Exec(0, t0, eval(tt.script, nil))
			switch {
			case tt.wantErr == "" && got.Kind == Error:
				t.Errorf("got %s, want success", got)
			case tt.wantErr != "" && (got.Kind != Error || !strings.Contains(got.Str, tt.wantErr)):
				t.Errorf("got %s, want an error with %q", got, tt.wantErr)
			}
			mustExec(t, n, t0, eval(tt.probe, nil), tt.want)
		})
	}
}

func TestBudget(t *testing.T) {
	tests := []struct {
		name   string
		budget int64
		script string
		want   Reply
	}{
		{"default, empty loop", 0, "while true do end",
			errr("ERR locksim: script exceeded its budget of 1000000 Lua instructions")},
		{"redis.call forever", 10_000, "while true do redis.call('INCR', 'n') end",
			errr("ERR locksim: script exceeded its budget of 10000 Lua instructions")},
		{"pcall cannot swallow it", 10_000, "while true do pcall(function() while true do end end) end",
			errr("ERR locksim: script exceeded its budget of 10000 Lua instructions")},
		{"recursion", 10_000, "local function f() return f() end return f()",
			errr("ERR locksim: script exceeded its budget of 10000 Lua instructions")},
		{"fits", 10_000, "local s = 0 for i = 1, 1000 do s = s + i end return s", integer(500500)},
		{"does not fit", 1_000, "local s = 0 for i = 1, 1000 do s = s + i end return s",
			errr("ERR locksim: script exceeded its budget of 1000 Lua instructions")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := New(1)
			n.ScriptBudget = tt.budget
			start := time.Now()
			mustExec(t, n, t0, eval(tt.script, nil), tt.want)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			// The count starts again for the next script.
			mustExec(t, n, t0, eval("return 1", nil), integer(1))
		})
	}
}

// TestBudgetDeterministic: where a script stops depends on nothing but it.
func TestBudgetDeterministic(t *testing.T) {
	var counts []string
	for range 3 {
		n := New(1)
		n.ScriptBudget = 5_000
		n.Exec(0, t0, eval("while true do redis.call('INCR', 'n') end", nil))
		counts = append(counts, n.Exec(0, t0, cmd("GET", "n")).Str)
	}
	if counts[0] == "" || counts[0] != counts[1] || counts[1] != counts[2] {
		t.Errorf("INCR counts %q, want three equal", counts)
	}
}

func TestScriptCache(t *testing.T) {
	n := New(1)
	src := "return ARGV[1]"
	sha := sha1hex(src)
	mustExec(t, n, t0, cmd("EVALSHA", sha, "0", "x"), errr("NOSCRIPT No matching script. Please use EVAL."))
	mustExec(t, n, t0, cmd("SCRIPT", "LOAD", src), bulk(sha))
	mustExec(t, n, t0, cmd("EVALSHA", sha, "0", "x"), bulk("x"))
	mustExec(t, n, t0, cmd("evalsha", strings.ToUpper(sha), "0", "y"), bulk("y"))
	mustExec(t, n, t0, cmd("SCRIPT", "EXISTS", sha, "nope"), array(integer(1), integer(0)))

	n.Flush()
	mustExec(t, n, t0, cmd("EVALSHA", sha, "0", "x"), errr("NOSCRIPT No matching script. Please use EVAL."))
	mustExec(t, n, t0, cmd("SCRIPT", "EXISTS", sha), array(integer(0)))

	// EVAL remembers what it ran.
	mustExec(t, n, t0, eval(src, nil, "z"), bulk("z"))
	mustExec(t, n, t0, cmd("EVALSHA", sha, "0", "w"), bulk("w"))
	mustExec(t, n, t0, cmd("SCRIPT", "FLUSH", "ASYNC"), status("OK"))
	mustExec(t, n, t0, cmd("EVALSHA", sha, "0", "x"), errr("NOSCRIPT No matching script. Please use EVAL."))

	mustExec(t, n, t0, cmd("SCRIPT", "LOAD", "return +"),
		errr("ERR Error compiling script (new function): user_script:1: syntax error near '+'"))
	mustExec(t, n, t0, eval("if then", nil),
		errr("ERR Error compiling script (new function): user_script:1: syntax error near 'then'"))
	mustExec(t, n, t0, cmd("SCRIPT", "KILL"), errr("NOTBUSY No scripts in execution right now."))
}

// raised is the reply to a one-line script whose error escapes it: Redis 7
// appends where it was raised. Other replies are left as they are.
func raised(script string, r Reply) Reply {
	if r.Kind == Error {
		r.Str += " script: " + sha1hex(script) + ", on @user_script:1."
	}
	return r
}

// TestScriptErrors covers what Redis 7 does and miniredis words otherwise:
// an error raised by redis.call keeps its code, Lua's own errors get ERR.
func TestScriptErrors(t *testing.T) {
	tests := []struct {
		script string
		want   Reply
	}{
		{"return redis.call('INCR', KEYS[1])", errr("ERR value is not an integer or out of range")},
		{"return redis.call('LPUSH', KEYS[1], 'x')", errr("WRONGTYPE Operation against a key holding the wrong kind of value")},
		{"return {pcall(redis.call, 'INCR', KEYS[1])}", array(nilReply, bulk("ERR value is not an integer or out of range"))},
		{"return redis.call('NOPE')", errr("ERR Unknown Redis command called from script")},
		{"return redis.call()", errr("ERR Please specify at least one argument for this redis lib call")},
		{"return redis.call('GET', {})", errr("ERR Lua redis lib command arguments must be strings or integers")},
		{"return redis.call('MULTI')", errr("ERR This Redis command is not allowed from script")},
		{"return redis.call('EVAL', 'return 1', 0)", errr("ERR This Redis command is not allowed from script")},
		{"return redis.pcall('WATCH', 'k')", errr("ERR This Redis command is not allowed from script")},
		{"error('boom')", errr("ERR user_script:1: boom")},
		{"error({err = 'LOCKED by someone'})", errr("LOCKED by someone")},
		{"error({})", errr("ERR a table")},
		{"error(tostring)", errr("ERR a function")},
		{"error(12)", errr("ERR 12")},
		{"_G[{}] = 1", errr("ERR user_script:1: Attempt to modify a readonly table")},
		{"return 'a' .. nil", errr("ERR user_script:1: cannot perform concat operation between string and nil")},
		{"redis.log(1)", errr("ERR redis.log() requires two arguments or more.")},
		{"redis.log('x', 'y')", errr("ERR First argument must be a number (log level).")},
		{"redis.log(9, 'y')", errr("ERR Invalid debug level.")},
		{"return redis.sha1hex()", errr("ERR wrong number of arguments")},
		{"return redis.error_reply()", errr("ERR wrong number or type of arguments")},
		{"return setmetatable({}, {__index = function() return 1 end})", array()},
		{"return 2^63", integer(-1 << 63)},
		{"return 0/0", integer(-1 << 63)},
		{"return redis.call('SET', KEYS[1], 0.1) and redis.call('GET', KEYS[1])", bulk("0.10000000000000001")},
	}
	// Errors these scripts return rather than raise get no place appended.
	returned := map[string]bool{"return redis.pcall('WATCH', 'k')": true, "return redis.error_reply()": true}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			n := New(1)
			n.Exec(0, t0, cmd("SET", "s", "str"))
			got := n.Exec(0, t0, eval(tt.script, []string{"s"}))
			want := tt.want
			if !returned[tt.script] {
				want = raised(tt.script, want)
			}
			if !got.Equal(want) {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

// TestBoundedReplies: tables that hold themselves convert to a bounded
// reply with an error inside, not a crash or an endless expansion.
func TestBoundedReplies(t *testing.T) {
	tests := []struct{ script, want string }{
		{"local t = {} t[1] = t return t", "ERR reached lua stack limit"},
		{"local t = {} for i = 1, 8 do t[i] = t end return t", "ERR locksim: script reply has over a million values"},
	}
	for _, tt := range tests {
		got := New(1).Exec(0, t0, eval(tt.script, nil))
		if !hasError(got, tt.want) {
			t.Errorf("%s: no %q inside the reply", tt.script, tt.want)
		}
	}
}

func hasError(r Reply, msg string) bool {
	if r.Kind == Error {
		return r.Str == msg
	}
	for _, e := range r.Elems {
		if hasError(e, msg) {
			return true
		}
	}
	return false
}

func TestReadOnlyScripts(t *testing.T) {
	n := New(1)
	mustExec(t, n, t0, cmd("SET", "k", "v"), status("OK"))
	mustExec(t, n, t0, cmd("EVAL_RO", "return redis.call('GET', KEYS[1])", "1", "k"), bulk("v"))
	mustExec(t, n, t0, cmd("EVAL_RO", "return redis.call('DEL', KEYS[1])", "1", "k"),
		raised("return redis.call('DEL', KEYS[1])", errr("ERR Write commands are not allowed from read-only scripts.")))
	mustExec(t, n, t0, cmd("SCRIPT", "LOAD", "return redis.call('GET', KEYS[1])"), bulk(sha1hex("return redis.call('GET', KEYS[1])")))
	mustExec(t, n, t0, cmd("EVALSHA_RO", sha1hex("return redis.call('GET', KEYS[1])"), "1", "k"), bulk("v"))
}

func TestMathRandomDeterministic(t *testing.T) {
	const script = "return {math.random(1000000), math.random(1000000), math.random(5, 10), math.floor(math.random() * 1e9)}"
	a, b, c := New(7), New(7), New(8)
	ra := a.Exec(0, t0, eval(script, nil))
	if ra.Kind != Array || len(ra.Elems) != 4 {
		t.Fatalf("got %s", ra)
	}
	if rb := b.Exec(0, t0, eval(script, nil)); !ra.Equal(rb) {
		t.Errorf("same seed: %s vs %s", ra, rb)
	}
	// Redis restarts the sequence for every script.
	if again := a.Exec(0, t0, eval(script, nil)); !ra.Equal(again) {
		t.Errorf("second run: %s vs %s", ra, again)
	}
	if rc := c.Exec(0, t0, eval(script, nil)); ra.Equal(rc) {
		t.Errorf("seeds 7 and 8 both gave %s", ra)
	}
	seeded := "math.randomseed(42) return math.random(1000000)"
	if ra, rc := a.Exec(0, t0, eval(seeded, nil)), c.Exec(0, t0, eval(seeded, nil)); !ra.Equal(rc) {
		t.Errorf("randomseed(42): %s vs %s", ra, rc)
	}
	mustExec(t, a, t0, eval("return math.random(0)", nil), raised("return math.random(0)", errr("ERR user_script:1: bad argument #1 to random (interval is empty)")))
}

// TestScriptConnection: redis.call runs as the calling client (its selected
// DB), and SELECT inside a script is refused rather than leaking out of it.
func TestScriptConnection(t *testing.T) {
	n := New(1)
	n.Exec(1, t0, cmd("SELECT", "3"))
	n.Exec(1, t0, cmd("SET", "k", "db3"))
	if got := n.Exec(1, t0, eval("return redis.call('GET', KEYS[1])", []string{"k"})); !got.Equal(bulk("db3")) {
		t.Errorf("conn 1 sees %s, want \"db3\"", got)
	}
	if got := n.Exec(0, t0, eval("return redis.call('GET', KEYS[1])", []string{"k"})); got.Kind != Nil {
		t.Errorf("conn 0 sees %s, want nil", got)
	}
	sel := "redis.call('SELECT', 5) return redis.call('SET', KEYS[1], 'db5')"
	mustExec(t, n, t0, eval(sel, []string{"k"}), raised(sel, errr("ERR locksim: SELECT inside a script is not simulated")))
	if got := n.Exec(1, t0, cmd("GET", "k")); !got.Equal(bulk("db3")) {
		t.Errorf("conn 1 after the refused script sees %s, want its own DB 3", got)
	}
}

func TestCompile(t *testing.T) {
	tests := []struct {
		script, want string
	}{
		{releaseScript, ""},
		{phpAcquireScript, ""},
		{"local a = 1\nif a then\n  return a +\nend\n", "release.lua:4: syntax error near 'end'"},
		{"if then", "release.lua:1: syntax error near 'then'"},
		{"local a = 1\nlocal b =\n", "release.lua:3: syntax error near <eof>"},
		{"local s = 'abc", "release.lua:1: unterminated string near <eof>"},
		{"break", "release.lua:1: no loop to break"},
	}
	for _, tt := range tests {
		err := Compile("release.lua", tt.script)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("Compile(%q) = %q, want %q", tt.script, got, tt.want)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{1767225604, "1767225604"},
		{0, "0"},
		{-7, "-7"},
		{1.5, "1.5"},
		{0.1, "0.10000000000000001"},
		{1e16, "10000000000000000"},
		{1e17, "1e+17"},
		{1e20, "1e+20"},
		{1e-5, "1.0000000000000001e-05"},
		{123456789.25, "123456789.25"},
	}
	for _, tt := range tests {
		if got := formatNumber(tt.f); got != tt.want {
			t.Errorf("formatNumber(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func FuzzCompile(f *testing.F) {
	fuzzing.ShortMinimize(f)
	for _, s := range []string{releaseScript, phpAcquireScript, "if then", "local s = 'abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		if err := Compile("f.lua", script); err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "f.lua:") || strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("error not one line naming the file: %q", msg)
			}
		}
	})
}

// FuzzEval runs arbitrary scripts: none may crash or hang the node, or leave
// anything behind for the next script. The budget counts VM instructions,
// not work inside library calls, and gopher-lua's gsub is quadratic: scripts
// that could build or scan long strings are left out. One node runs them
// all, Reset between scripts as between runs: New per script cost a
// millisecond, and a reused Lua state is what a run's scripts share.
func FuzzEval(f *testing.F) {
	fuzzing.ShortMinimize(f)
	for _, s := range []string{releaseScript, "x = 1", "rawset(_G, 'redis', 1)", "while true do end",
		"table.insert(string, 1)", "setfenv(0, {})", "return redis.call('SET', KEYS[1], ARGV[1])"} {
		f.Add(s)
	}
	probe := eval("return {type(redis.call), type(string.format), #KEYS, #ARGV, type(rawget(_G, 'x'))}", nil)
	want := array(bulk("function"), bulk("function"), integer(0), integer(0), bulk("nil"))
	n := New(1)
	f.Fuzz(func(t *testing.T, script string) {
		for _, slow := range []string{"rep", "sub", "find", "match", "format", "concat", ".."} {
			if strings.Contains(script, slow) {
				t.Skip()
			}
		}
		n.Reset(1)
		n.ScriptBudget = 10_000
		n.Exec(0, t0, eval(script, []string{"k"}, "v"))
		if got := n.Exec(0, t0, probe); !got.Equal(want) {
			t.Fatalf("after %q the probe gives %s", script, got)
		}
	})
}

// TestNodesInParallel: nodes on different goroutines share compiled scripts
// and library functions, never state (run with -race).
func TestNodesInParallel(t *testing.T) {
	for i := range 4 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			n := New(int64(i))
			for j := range 50 {
				tok := strconv.Itoa(j)
				mustExec(t, n, t0, cmd("SET", "lock", tok), status("OK"))
				mustExec(t, n, t0, eval(releaseScript, []string{"lock"}, tok), integer(1))
				mustExec(t, n, t0, eval("return string.format('%s-%d', ARGV[1], math.random(10)) ~= ''", nil, tok), integer(1))
			}
		})
	}
}

// Lua prints tables and functions with their memory address; the node names
// them by first appearance instead, so a reply never depends on the host.
func TestToStringIsDeterministic(t *testing.T) {
	script := `local a, b = {}, function() end
return {tostring(a), tostring(b), tostring(a), string.format("%s|%s|%d", a, "x", 7),
  tostring(setmetatable({}, {__tostring = function() return "mine" end})), tostring(12)}`
	want := Reply{Kind: Array, Elems: []Reply{
		{Kind: Bulk, Str: "table: 1"}, {Kind: Bulk, Str: "function: 2"}, {Kind: Bulk, Str: "table: 1"},
		{Kind: Bulk, Str: "table: 1|x|7"}, {Kind: Bulk, Str: "mine"}, {Kind: Bulk, Str: "12"},
	}}
	for run := 0; run < 2; run++ { // ids start again with every script
		n := New(1)
		if got := n.Exec(0, t0, eval(script, nil)); !got.Equal(want) {
			t.Fatalf("run %d: got %s, want %s", run, got, want)
		}
		if got := n.Exec(0, t0, eval(script, nil)); !got.Equal(want) {
			t.Fatalf("second script on one node: got %s, want %s", got, want)
		}
	}
}

// TestKeysArgvFreshEachScript: KEYS and ARGV are kept between scripts only
// while scripts leave them alone; whatever one script does to them, the next
// sees its own keys and arguments and nothing else.
func TestKeysArgvFreshEachScript(t *testing.T) {
	tests := []struct {
		name, script string
	}{
		{"untouched", "return 1"},
		{"element changed", "KEYS[1] = 'x' ARGV[1] = 'y' return 1"},
		{"field added", "KEYS.extra = 1 ARGV.extra = 1 return 1"},
		{"element appended", "table.insert(KEYS, 'k3') table.insert(ARGV, 'a3') return 1"},
		{"element removed", "table.remove(KEYS) ARGV[1] = nil return 1"},
		{"index past the end", "KEYS[3] = 'x' ARGV[2] = 'y' return 1"},
		{"sparse index", "KEYS[10] = 'x' ARGV[10] = 'y' KEYS[0] = 'z' return 1"},
		{"metatable set", "setmetatable(KEYS, {__index = function() return 'meta' end}) setmetatable(ARGV, {}) return 1"},
	}
	probe := "return {KEYS[1], KEYS[2], ARGV[1], tostring(KEYS.extra), tostring(ARGV.extra), #KEYS, #ARGV, tostring(KEYS[3]), tostring(getmetatable(ARGV))}"
	want := array(bulk("p1"), bulk("p2"), bulk("q1"), bulk("nil"), bulk("nil"), integer(2), integer(1), bulk("nil"), bulk("nil"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := New(1)
			mustExec(t, n, t0, eval(tt.script, []string{"k1", "k2"}, "a1"), integer(1))
			mustExec(t, n, t0, eval("return {tostring(KEYS[10]), tostring(ARGV[10]), tostring(KEYS[0]), tostring(ARGV[2])}",
				[]string{"p1", "p2"}, "q1"), array(bulk("nil"), bulk("nil"), bulk("nil"), bulk("nil")))
			mustExec(t, n, t0, eval(tt.script, []string{"k1", "k2"}, "a1"), integer(1))
			mustExec(t, n, t0, eval(probe, []string{"p1", "p2"}, "q1"), want)
			// And again: the probe itself left the tables as it got them.
			mustExec(t, n, t0, eval(probe, []string{"p1", "p2"}, "q1"), want)
			// Other lengths get their own tables.
			mustExec(t, n, t0, eval("return {#KEYS, #ARGV, KEYS[1], ARGV[2]}", []string{"z"}, "b1", "b2"),
				array(integer(1), integer(2), bulk("z"), bulk("b2")))
		})
	}
}

// TestScriptEnvFreshEachRun: a script's main function is kept between runs
// of the same script, and the environment one run gives it with setfenv is
// gone in the next.
func TestScriptEnvFreshEachRun(t *testing.T) {
	n := New(1)
	src := "local r = KEYS[1] if r == 'a' then setfenv(1, {KEYS = {'evil'}}) end return r"
	mustExec(t, n, t0, eval(src, []string{"a"}), bulk("a"))
	mustExec(t, n, t0, eval(src, []string{"b"}), bulk("b"))
	mustExec(t, n, t0, eval("return KEYS[1]", []string{"c"}), bulk("c"))
	mustExec(t, n, t0, eval(src, []string{"d"}), bulk("d"))
}

// A script's call to one of lockCommands skips the checks that refuse a
// command (luaVM.refused): each must pass them, on a node as it starts and
// after a reset, under any case the table knows it by.
func TestLockCommandsPassScriptChecks(t *testing.T) {
	n := New(1)
	for round := range 2 {
		for given, name := range lockCommands {
			if name != strings.ToUpper(given) {
				t.Errorf("lockCommands[%q] = %q, not its upper case", given, name)
			}
			if msg := refusal(name, []string{name, "k", "v", "x"}); msg != "" {
				t.Errorf("%s is refused: %s", name, msg)
			}
			if notInScripts[name] || name == "SELECT" {
				t.Errorf("%s is kept out of scripts", name)
			}
			if !n.srv.IsRegisteredCommand(name) {
				t.Errorf("%s is not a command of the node's miniredis (round %d)", name, round)
			}
		}
		n.Reset(2)
	}
}
