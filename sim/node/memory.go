package node

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/pm"
)

// ScriptMemory is how many bytes one script may create: every string it
// builds (with .., string.rep, string.format, string.gsub, string.upper,
// lower, reverse, char, table.concat), every value that unpack and
// string.byte spread on the stack (valueCost each), every argument it passes
// to redis.call and every reply it gets back. It is counted where the value
// is about to be made, before any memory is taken, so a script stops at the
// same point on every machine: a host's heap is never read. Redis itself
// refuses a bulk string over 512 MB; a lock script handles tokens and
// timestamps, and 64 MiB keeps a run well under 1 GB even when a script
// reaches it on every call.
//
// Why counting and not a bound on string lengths alone: a string of the
// largest allowed length can be copied again and again (t[i] = s .. i), and
// every copy costs memory and time the instruction budget does not see, so
// the count is cumulative over the script. What else a script can do costs
// a bounded amount per instruction (a table slot, a small table, a number),
// so DefaultScriptBudget bounds it: a table grown one slot per loop turn
// stops at the instruction budget with at most a few hundred thousand slots.
//
// gopher-lua has no allocation hook. Its string library is wrapped here;
// the one string operation that lives inside the VM, .., is rewritten when
// a script is compiled into a call of concatName (concat.go).
const ScriptMemory = 64 << 20

// MaxScriptWrites bounds the bytes scripts may pass to redis.call on one
// node over a whole run: each script is inside ScriptMemory, but thousands
// of scripts could still fill a node with data. Past it, redis.call answers
// as Redis does at maxmemory: an OOM error.
const MaxScriptWrites = 256 << 20

// scriptWrites is MaxScriptWrites, lowered by a test.
var scriptWrites int64 = MaxScriptWrites

// valueCost is what one value spread on the stack counts: a Lua value is 16
// bytes, and the stack holds it while a table built from it grows by
// doubling, so each costs about four times that before it settles.
const valueCost = 64

// memBudget counts the bytes one script has made.
type memBudget struct {
	used int64
	over string // what went over the budget, "" while within it
}

func (m *memBudget) message() string {
	return fmt.Sprintf("ERR locksim: script exceeded its memory budget of %d bytes (%s)", ScriptMemory, m.over)
}

// charge counts n bytes that what is about to make, and stops the script
// when they would take it past ScriptMemory. The error cannot be caught for
// good: a pcall that catches it leaves the budget spent, and run reports it.
func (vm *luaVM) charge(L *lua.LState, n int64, what string) {
	if n < 0 || n > ScriptMemory || vm.mem.used+n > ScriptMemory {
		if vm.mem.over == "" {
			vm.mem.over = fmt.Sprintf("%s would make %d bytes, after %d", what, n, vm.mem.used)
		}
		L.RaiseError("%s", vm.mem.message())
	}
	vm.mem.used += n
}

// mul is a·b, saturated at a value over any budget.
func mul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > (1<<62)/b {
		return 1 << 62
	}
	return a * b
}

// limitMemory wraps the library functions that build strings or spread
// values, in the state's own library tables.
func (vm *luaVM) limitMemory(str, tab *lua.LTable) {
	L := vm.L
	wrap := func(t *lua.LTable, name string, cost func(L *lua.LState) int64) {
		orig := t.RawGetString(name).(*lua.LFunction)
		label := name
		if t == str {
			label = "string." + name
		} else if t == tab {
			label = "table." + name
		}
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			vm.charge(L, cost(L), label)
			return orig.GFunction(L)
		}))
	}
	strLen := func(L *lua.LState) int64 { return int64(len(L.CheckString(1))) }
	wrap(str, "rep", func(L *lua.LState) int64 {
		return mul(int64(len(L.CheckString(1))), int64(max(L.CheckInt(2), 0)))
	})
	wrap(str, "upper", strLen)
	wrap(str, "lower", strLen)
	wrap(str, "reverse", strLen)
	wrap(str, "char", func(L *lua.LState) int64 { return int64(L.GetTop()) })
	wrap(str, "byte", func(L *lua.LState) int64 {
		n := len(L.CheckString(1))
		i, j := L.OptInt(2, 1), L.OptInt(3, L.OptInt(2, 1))
		if i < 0 {
			i += n + 1
		}
		if j < 0 {
			j += n + 1
		}
		return mul(int64(min(j, n)-max(i, 1)+1), valueCost)
	})
	wrap(str, "format", vm.formatCost)
	wrap(tab, "concat", tableConcatCost)
	wrap(vm.globals, "unpack", func(L *lua.LState) int64 {
		t := L.CheckTable(1)
		i, j := L.OptInt(2, 1), L.OptInt(3, t.Len())
		return mul(int64(j)-int64(i)+1, valueCost)
	})
	gsub := str.RawGetString("gsub").(*lua.LFunction)
	str.RawSetString("gsub", L.NewFunction(func(L *lua.LState) int { return vm.gsub(L, gsub) }))
}

// formatCost bounds string.format's result: the format, plus each argument
// as a string, plus what a width or precision can add. Lua 5.1 allows two
// digits of each; larger ones are refused, as Lua does, before Go's fmt is
// asked to pad a string to a billion spaces.
func (vm *luaVM) formatCost(L *lua.LState) int64 {
	f := L.CheckString(1)
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		j, digits := i+1, 0
		for ; j < len(f) && strings.IndexByte("-+ #0", f[j]) >= 0; j++ {
		}
		for ; j < len(f) && (f[j] >= '0' && f[j] <= '9' || f[j] == '.'); j++ {
			if f[j] == '.' {
				digits = 0
				continue
			}
			if digits++; digits > 2 {
				L.RaiseError("invalid format (width or precision too long)")
			}
		}
		i = j
	}
	n := int64(len(f))
	for k := 2; k <= L.GetTop(); k++ {
		n += 256 // the widest number %f of 1e308 can print, with padding
		if s, ok := L.Get(k).(lua.LString); ok {
			n += int64(len(s))
		}
	}
	return n
}

// tableConcatCost is the length of table.concat's result, counted over the
// elements it will join; it stops at the first one table.concat refuses,
// which then raises its own error.
func tableConcatCost(L *lua.LState) int64 {
	t := L.CheckTable(1)
	sep := int64(len(L.OptString(2, "")))
	i, j := L.OptInt(3, 1), L.OptInt(4, t.Len())
	i, j = max(i, 1), min(j, t.Len())
	var n int64
	for k := i; k <= j; k++ {
		v := t.RawGetInt(k)
		if !lua.LVCanConvToString(v) {
			break
		}
		n += int64(len(lua.LVAsString(v))) + sep
		if n > ScriptMemory {
			break
		}
	}
	return n
}

// gsub is string.gsub counted: gopher-lua builds its result by copying the
// whole string once per match, so a match costs the string's length plus
// its replacement. A string replacement's size is known before; a function
// or table replacement is counted as each value comes back.
func (vm *luaVM) gsub(L *lua.LState, orig *lua.LFunction) int {
	s, pat := L.CheckString(1), L.CheckString(2)
	L.CheckTypes(3, lua.LTString, lua.LTTable, lua.LTFunction)
	limit := L.OptInt(4, -1)
	mds, err := pm.Find(pat, []byte(s), 0, limit)
	if err != nil {
		return orig.GFunction(L) // it raises the pattern's error itself
	}
	matches := int64(len(mds))
	switch repl := L.Get(3).(type) {
	case lua.LString:
		per := int64(len(repl)) + mul(int64(strings.Count(string(repl), "%")), int64(len(s)))
		vm.charge(L, mul(matches, int64(len(s))+mul(matches, per)), "string.gsub")
	case *lua.LFunction, *lua.LTable:
		vm.charge(L, mul(matches, int64(len(s))), "string.gsub")
		L.Replace(3, L.NewFunction(func(L *lua.LState) int {
			var v lua.LValue
			if t, ok := repl.(*lua.LTable); ok {
				v = L.GetTable(t, L.Get(1))
			} else {
				args := make([]lua.LValue, L.GetTop())
				for k := range args {
					args[k] = L.Get(k + 1)
				}
				L.CallByParam(lua.P{Fn: repl, NRet: 1}, args...)
				v = L.Get(-1)
				L.Pop(1)
			}
			if lua.LVCanConvToString(v) {
				vm.charge(L, mul(matches, int64(len(lua.LVAsString(v)))), "string.gsub")
			}
			L.Push(v)
			return 1
		}))
	}
	return orig.GFunction(L)
}

// oomError is Redis's answer to a write past maxmemory.
const oomError = "OOM command not allowed when used memory > 'maxmemory'."

// replyCost is what converting r into Lua values makes.
func replyCost(r Reply) int64 {
	n := int64(len(r.Str)) + valueCost
	for _, e := range r.Elems {
		n += replyCost(e)
	}
	return n
}
