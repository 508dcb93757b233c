package node

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Lua→Redis conversion is bounded: a table that contains itself would
// otherwise recurse until the Go stack runs out, or, held several times,
// expand exponentially.
const (
	maxReplyDepth  = 1000
	maxReplyValues = 1 << 20
)

// toLua converts a command's reply into what redis.call returns: integer →
// number, bulk → string, nil → false, status → {ok=...}, error → {err=...},
// array → table.
func (vm *luaVM) toLua(r Reply) lua.LValue {
	switch r.Kind {
	case Int:
		// Boxing a number allocates; DEL, EXISTS and the like answer 0 or 1.
		switch r.Int {
		case 0:
			return luaZero
		case 1:
			return luaOne
		}
		return lua.LNumber(r.Int)
	case Bulk:
		// A lock's GET answers what the script was given (its token): hand
		// back the value ARGV already boxed rather than box it again.
		if v := vm.argv.boxed(r.Str); v != nil {
			return v
		}
		return lua.LString(r.Str)
	case Status:
		return fieldTable(vm.L, "ok", r.Str)
	case Error:
		return fieldTable(vm.L, "err", errorText(r.Str))
	case Array:
		t := vm.L.CreateTable(len(r.Elems), 0)
		for i, e := range r.Elems {
			t.RawSetInt(i+1, vm.toLua(e))
		}
		return t
	}
	return lua.LFalse
}

var luaZero, luaOne lua.LValue = lua.LNumber(0), lua.LNumber(1)

func fieldTable(L *lua.LState, key, value string) *lua.LTable {
	t := L.CreateTable(0, 1)
	t.RawSetString(key, lua.LString(value))
	return t
}

// toReply converts a script's result the way Redis does: number → integer
// (truncated), string → bulk, true → 1, false and nil → nil, a table with a
// string err or ok field → error or status, any other table → array up to
// its first nil. Fields are read raw: metamethods do not run.
func toReply(v lua.LValue) Reply {
	left := maxReplyValues
	return convert(v, 0, &left)
}

// throughLua is the reply of a script that returns call reply r as it got
// it: toReply(toLua(r)), which is r itself for an integer a Lua number
// holds exactly (a waiter's PTTL, the hash lock's tail call), without
// boxing it.
func (vm *luaVM) throughLua(r Reply) Reply {
	if r.Kind == Int && r.Int > -1<<53 && r.Int < 1<<53 {
		return r
	}
	return toReply(vm.toLua(r))
}

func convert(v lua.LValue, depth int, left *int) Reply {
	if *left--; *left < 0 {
		return errorReply("ERR locksim: script reply has over a million values")
	}
	switch v := v.(type) {
	case lua.LNumber:
		return Reply{Kind: Int, Int: truncate(float64(v))}
	case lua.LString:
		return Reply{Kind: Bulk, Str: string(v)}
	case lua.LBool:
		if v {
			return Reply{Kind: Int, Int: 1}
		}
	case *lua.LTable:
		if depth >= maxReplyDepth {
			return errorReply("ERR reached lua stack limit")
		}
		if s, ok := v.RawGetString("err").(lua.LString); ok {
			return errorReply(oneLine(string(s)))
		}
		if s, ok := v.RawGetString("ok").(lua.LString); ok {
			return Reply{Kind: Status, Str: oneLine(string(s))}
		}
		var elems []Reply
		for i := 1; ; i++ {
			e := v.RawGetInt(i)
			if e == lua.LNil {
				break
			}
			elems = append(elems, convert(e, depth+1, left))
		}
		return Reply{Kind: Array, Elems: elems}
	}
	return Reply{Kind: Nil}
}

// truncate is C's (long long) cast as x86-64 does it: out of range and NaN
// give the minimum integer. Go leaves those cases to the platform.
func truncate(f float64) int64 {
	if math.IsNaN(f) || f >= 1<<63 || f < -(1<<63) {
		return math.MinInt64
	}
	return int64(f)
}

// formatNumber renders a Lua number passed to redis.call as Redis does,
// printf("%.17g"): integral values have no decimals, others keep every
// digit. C prints inf and nan in lower case.
func formatNumber(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}

// oneLine does what RESP does to status and error text: no line breaks.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}
