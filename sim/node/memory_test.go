package node

import (
	"runtime"
	"strings"
	"testing"
)

// Scripts that would build strings, tables or replies past ScriptMemory stop
// with an error reply that says so, at a point fixed by counting, before the
// memory is taken: each runs in well under a second and allocates a bounded
// amount, checked here with the runtime's own count of allocated bytes.
func TestScriptMemoryBudget(t *testing.T) {
	const budgetMsg = "ERR locksim: script exceeded its memory budget of 67108864 bytes"
	tests := []struct {
		name, script, want string // want: a prefix of the error reply
	}{
		{"doubling", `local s = 'x' for i=1,40 do s = s .. s end return 1`, budgetMsg + " (.. would make 67108864 bytes, after 67108862)"},
		{"doubling-chain", `local s = 'x' for i=1,40 do s = s .. '' .. s .. '' end return 1`, budgetMsg},
		{"rep", `return string.rep('x', 2^31)`, budgetMsg + " (string.rep would make 2147483648 bytes, after 0)"},
		{"rep-method", `return ('xy'):rep(2^40)`, budgetMsg},
		{"copies", `local s = string.rep('x', 2^20) local t = {} for i=1,1e9 do t[i] = s .. i end`, budgetMsg},
		{"table-concat", `local s = string.rep('x', 2^20) local t = {} for i=1,1000 do t[i] = s end return table.concat(t)`, budgetMsg + " (table.concat would make"},
		{"unpack", `local t = {} for i=1,1000 do t[i] = i end local all = {} for i=1,1e9 do all[i] = {unpack(t)} end`, budgetMsg + " (unpack would make"},
		{"unpack-range", `return {unpack({}, 1, 2^31)}`, budgetMsg},
		{"byte", `local s = string.rep('x', 60000) local all = {} for i=1,1e9 do all[i] = {s:byte(1, -1)} end`, budgetMsg + " (string.byte would make"},
		{"gsub", `local s = string.rep('x', 1e5) return s:gsub('x', 'xx')`, budgetMsg + " (string.gsub would make"},
		{"gsub-function", `local s = string.rep('x', 2^24) return ('abcde'):gsub('.', function() return s end)`, budgetMsg + " (string.gsub would make"},
		{"gsub-table", `local s = string.rep('x', 2^24) return ('abcde'):gsub('.', {a = s, b = s, c = s, d = s, e = s})`, budgetMsg + " (string.gsub would make"},
		{"format-width", `return string.format('%999999999d', 1)`, "ERR user_script:1: invalid format (width or precision too long)"},
		{"upper", `local s = string.rep('x', 2^24) for i=1,100 do local u = s:upper() end`, budgetMsg},
		{"loadstring", `return loadstring("local s = 'x' for i=1,40 do s = s .. s end")()`, budgetMsg},
		{"load", `local n = 0 return load(function() n = n + 1 if n < 3 then return "local s = 'x' for i=1,40 do s = s .. s end " end end)()`, budgetMsg},
		{"pcall-caught", `pcall(function() return string.rep('x', 2^31) end) return 1`, budgetMsg},
		{"redis-call", `local s = string.rep('x', 2^25) redis.call('SET', 'a', s) redis.call('SET', 'b', s) return 1`, budgetMsg + " (redis.call arguments would make"},
		// A table grown one slot per turn is bounded by the instruction budget.
		{"table-loop", `local t = {} for i=1,1e9 do t[i] = i end`, "ERR locksim: script exceeded its budget of 1000000 Lua instructions"},
		{"table-of-tables", `local t = {} for i=1,1e9 do t[i] = {} end`, "ERR locksim: script exceeded its budget of 1000000 Lua instructions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := New(1)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got := n.Exec(0, t0, eval(tt.script, nil))
			runtime.ReadMemStats(&after)
			if got.Kind != Error || !strings.HasPrefix(got.Str, tt.want) {
				t.Errorf("got %s\nwant an error starting %q", short(got), tt.want)
			}
			// 64 MiB counted, plus what the instruction budget allows, plus
			// Go's slack: far below the terabytes the scripts ask for.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 400<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}
}

// The same script stops at the same point every time: the reply, which
// names what went over and by how much, is the same on a fresh node, a
// reused one, and again.
func TestScriptMemoryBudgetDeterministic(t *testing.T) {
	script := `local s = 'ab' local n = 0 while true do s = s .. s n = n + 1 redis.call('SET', 'n', n) end`
	first := New(1).Exec(0, t0, eval(script, nil))
	n := New(1)
	for range 3 {
		if got := n.Exec(0, t0, eval(script, nil)); got.String() != first.String() {
			t.Fatalf("%s, then %s", first, got)
		}
	}
	// Doublings 1 to 23 build 2^2 + … + 2^24 bytes, just under 32 MiB; the
	// 24th would build 32 MiB more, and with the arguments to SET the count
	// would pass 64 MiB.
	if got := n.Exec(0, t0, []string{"GET", "n"}); got.Str != "23" {
		t.Errorf("the script stopped after %s doublings, want 23", got.Str)
	}
}

// What .. means is unchanged by the rewrite that counts it.
func TestConcatSemantics(t *testing.T) {
	tests := []struct {
		script string
		want   Reply
	}{
		{`return 'a' .. 1 .. 'b' .. 2.5`, bulk("a1b2.5")},
		{`return ('a' .. 'b') .. ('c' .. 'd')`, bulk("abcd")},
		{`local t = setmetatable({}, {__concat = function(a, b) return 'T' end}) return 'x' .. t .. 'y'`, bulk("xT")},
		{`local t = setmetatable({}, {__concat = function(a, b) return type(a) .. type(b) end}) return t .. 'y'`, bulk("tablestring")},
		{`local function f() return 'a', 'b' end return {f() .. 'c'}`, Reply{Kind: Array, Elems: []Reply{bulk("ac")}}},
		{`local s = '' for i = 1, 3 do s = s .. i end return s`, bulk("123")},
		{`return 'a' ..
		nil`, errr("ERR user_script:1: cannot perform concat operation between string and nil script: " +
			sha1hex("return 'a' ..\n\t\tnil") + ", on @user_script:1.")},
	}
	for _, tt := range tests {
		if got := New(1).Exec(0, t0, eval(tt.script, nil)); got.String() != tt.want.String() {
			t.Errorf("%s\n got %s\nwant %s", tt.script, short(got), tt.want)
		}
	}
}

// Scripts on one node may pass at most MaxScriptWrites bytes to redis.call
// in a run; past it Redis's own OOM error comes back, and a Reset clears it.
func TestMaxScriptWrites(t *testing.T) {
	defer func(w int64) { scriptWrites = w }(scriptWrites)
	scriptWrites = 8 << 20 // 256 MiB of test data would weigh on a shared machine
	n := New(1)
	script := `return redis.pcall('SET', KEYS[1], string.rep('x', 2^20))`
	var last Reply
	for i := 0; i < 9; i++ {
		last = n.Exec(0, t0, eval(script, []string{"k" + string(rune('0'+i))}))
		if i < 7 && last.Kind == Error {
			t.Fatalf("script %d: %s", i, last)
		}
	}
	if last.Kind != Error || !strings.HasPrefix(last.Str, "OOM ") {
		t.Errorf("the 9th 1 MiB write: %s, want the OOM error", short(last))
	}
	n.Reset(1)
	if got := n.Exec(0, t0, eval(script, []string{"k"})); got.Kind == Error {
		t.Errorf("after Reset: %s", got)
	}
}

// short keeps a failing test's message readable when a reply is huge.
func short(r Reply) string {
	s := r.String()
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// A short command cannot make a huge value by its offset.
func TestOffsetBombs(t *testing.T) {
	for _, args := range [][]string{
		{"SETRANGE", "k", "536870911", "x"},
		{"SETBIT", "k", "4294967295", "1"},
	} {
		n := New(1)
		got := n.Exec(0, t0, args)
		if got.Kind != Error || !strings.Contains(got.Str, "past 64 MiB is not simulated") {
			t.Errorf("%v: %s", args, short(got))
		}
		if got := n.Exec(0, t0, eval("return redis.pcall(unpack(ARGV))", nil, args...)); got.Kind != Error || !strings.Contains(got.Str, "past 64 MiB") {
			t.Errorf("%v from a script: %s", args, short(got))
		}
	}
	n := New(1)
	for _, args := range [][]string{
		{"SETRANGE", "k", "10", "x"}, {"SETBIT", "k", "100", "1"},
	} {
		if got := n.Exec(0, t0, args); got.Kind == Error {
			t.Errorf("%v: %s", args, got)
		}
	}
}
