package node

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// redisLib builds the redis table scripts call into.
func (vm *luaVM) redisLib() *lua.LTable {
	L := vm.L
	t := L.CreateTable(0, 20)
	for _, f := range []struct {
		name string
		fn   lua.LGFunction
	}{
		{"call", func(L *lua.LState) int { return vm.call(L, true) }},
		{"pcall", func(L *lua.LState) int { return vm.call(L, false) }},
		{"log", vm.log},
		{"error_reply", luaErrorReply},
		{"status_reply", luaStatusReply},
		{"sha1hex", vm.sha1hex},
		{"setresp", vm.setResp},
		{"replicate_commands", func(L *lua.LState) int { L.Push(lua.LTrue); return 1 }},
		{"set_repl", func(*lua.LState) int { return 0 }},
		{"breakpoint", func(L *lua.LState) int { L.Push(lua.LFalse); return 1 }},
		{"debug", func(*lua.LState) int { return 0 }},
	} {
		t.RawSetString(f.name, L.NewFunction(f.fn))
	}
	for _, c := range []struct {
		name string
		v    int
	}{
		{"LOG_DEBUG", 0}, {"LOG_VERBOSE", 1}, {"LOG_NOTICE", 2}, {"LOG_WARNING", 3},
		{"REPL_NONE", 0}, {"REPL_AOF", 1}, {"REPL_SLAVE", 2}, {"REPL_REPLICA", 2}, {"REPL_ALL", 3},
	} {
		t.RawSetString(c.name, lua.LNumber(c.v))
	}
	return t
}

// raise throws a Redis error into Lua as a plain string, the way pcall in
// Redis 7 hands it back; remembering it lets the EVAL reply keep its code.
func (vm *luaVM) raise(L *lua.LState, msg string) {
	vm.raised = msg
	L.Error(lua.LString(msg), 0)
}

// call is redis.call (raise) and redis.pcall (return an error table).
func (vm *luaVM) call(L *lua.LState, raise bool) int {
	cost := callCost(L)
	vm.charge(L, cost, "redis.call arguments")
	entry := vm.budget.used
	args, msg := vm.callArgs(L)
	var r Reply
	var refused bool
	if rp := &vm.replay; rp.preset < len(rp.presets) {
		// A replay that left its known paths made this call already.
		p := rp.presets[rp.preset]
		rp.preset++
		if msg != "" || p.cost != cost || !slices.Equal(p.args, args) {
			panic(fmt.Sprintf("locksim: a script rerun after its replay called %q where the replay called %q", args, p.args))
		}
		r, refused, args = p.reply, p.refused, p.args
	} else {
		var kept []string
		if vm.replaying() && msg == "" {
			kept = slices.Clone(args) // exec upper-cases the name in place
		}
		r, refused = vm.send(args, msg, cost)
		args = kept
	}
	if !refused {
		vm.charge(L, replyCost(r), "a redis.call reply")
	}
	if vm.replaying() {
		vm.record(L, args, cost, r, refused, entry) // nil args (bad ones): the path is not kept
	}
	if r.Kind == Error {
		r.Str = errorText(r.Str)
		if raise {
			vm.raise(L, r.Str)
		}
	}
	L.Push(vm.toLua(r))
	return 1
}

// callCost is what redis.call's arguments count against the script's
// memory budget and the node's MaxScriptWrites.
func callCost(L *lua.LState) int64 {
	var n int64
	for i := 1; i <= L.GetTop(); i++ {
		if s, ok := L.Get(i).(lua.LString); ok {
			n += int64(len(s))
		}
		n += valueCost
	}
	return n
}

// callArgs is redis.call's arguments as strings, or the error for arguments
// Redis refuses.
func (vm *luaVM) callArgs(L *lua.LState) ([]string, string) {
	top := L.GetTop()
	if top == 0 {
		return nil, "ERR Please specify at least one argument for this redis lib call"
	}
	// One list reused for every call: nothing keeps it past the call (the
	// commands that would queue it, MULTI and the blocking ones' callers,
	// are refused in scripts), and its strings are immutable.
	if cap(vm.args) < top {
		vm.args = make([]string, top)
	}
	args := vm.args[:top]
	for i := range args {
		switch v := L.Get(i + 1).(type) {
		case lua.LString:
			args[i] = string(v)
		case lua.LNumber:
			args[i] = formatNumber(float64(v))
		default:
			return nil, "ERR Lua redis lib command arguments must be strings or integers"
		}
	}
	return args, ""
}

// send is one redis.call's command, cost bytes of arguments: refused with
// Redis's OOM error past MaxScriptWrites, else run (or the error msg for
// its arguments). Replays send their kept calls through sendKept, whose
// names were upper-cased when kept.
func (vm *luaVM) send(args []string, msg string, cost int64) (r Reply, refused bool) {
	if !vm.countWrites(cost) {
		return errorReply(oomError), true
	}
	if msg != "" {
		return errorReply(msg), false
	}
	name, common := commandCase(args[0])
	return vm.exec(args, name, common), false
}

// countWrites counts cost against MaxScriptWrites, false past it.
func (vm *luaVM) countWrites(cost int64) bool {
	if vm.n.written+cost > scriptWrites {
		return false
	}
	vm.n.written += cost
	return true
}

// commandCase is a script's command name upper-cased, and whether it is one
// of lockCommands.
func commandCase(cmd string) (name string, common bool) {
	if name, common = lockCommands[cmd]; !common {
		name = strings.ToUpper(cmd)
	}
	return name, common
}

// exec runs a script's command args, whose name it sets to name, args[0]
// upper-cased (commandCase), in place.
func (vm *luaVM) exec(args []string, name string, common bool) Reply {
	n := vm.n
	// args is ours: miniredis upper-cases the name again, which costs nothing
	// on an upper-case one, and answers the same (it only quotes the name as
	// given for an unknown command, refused below).
	args[0] = name
	if r, refused := vm.refused(name, args, common); refused {
		return r
	}
	if n.capture && n.replicated(name) {
		// Effects replication: the script's writes, not the script.
		n.effect(args)
	}
	if r, ok := n.redis7(vm.peer, name, args); ok {
		return r
	}
	if r, ok := n.publish(name, args); ok {
		return r
	}
	if r, ok := n.answerPoll(vm.peer, name, args); ok { // a waiter's poll (poll.go)
		if n.follow.on {
			n.followed(args, r)
		}
		return r
	}
	r := n.dispatchKnown(vm.peer, args, vm.known)
	if r.Kind == Error && strings.HasPrefix(r.Str, "ERR wrong number of arguments for '") {
		// Redis checks a script's command arity itself, with its own words.
		r.Str = "ERR Wrong number of args calling Redis command from script"
	}
	return r
}

// refused is the error for a command a script may not call, in Redis's
// order of checks; a lock command (common) is checked for read-only
// scripts only: it passes the others.
func (vm *luaVM) refused(name string, args []string, common bool) (Reply, bool) {
	n := vm.n
	if !common {
		if msg := refusal(name, args); msg != "" {
			return errorReply(msg), true
		}
	}
	switch {
	case !common && notInScripts[name]:
		return errorReply("ERR This Redis command is not allowed from script"), true
	case !common && !n.srv.IsRegisteredCommand(name):
		return errorReply("ERR Unknown Redis command called from script"), true
	case vm.readOnly && !n.srv.IsReadOnlyCommand(name):
		return errorReply("ERR Write commands are not allowed from read-only scripts."), true
	case !common && name == "SELECT":
		// A script's SELECT would outlive it on the caller's connection;
		// no lock script needs one, so it is refused rather than faked.
		return errorReply("ERR locksim: SELECT inside a script is not simulated"), true
	}
	return Reply{}, false
}

// log is redis.log: checked like Redis, written nowhere.
func (vm *luaVM) log(L *lua.LState) int {
	if L.GetTop() < 2 {
		vm.raise(L, "ERR redis.log() requires two arguments or more.")
	}
	level, ok := toNumber(L.Get(1))
	if !ok {
		vm.raise(L, "ERR First argument must be a number (log level).")
	}
	if l := int(level); l < 0 || l > 3 {
		vm.raise(L, "ERR Invalid debug level.")
	}
	return 0
}

func (vm *luaVM) sha1hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		vm.raise(L, "ERR wrong number of arguments")
	}
	var s string
	switch v := L.Get(1).(type) {
	case lua.LString:
		s = string(v)
	case lua.LNumber:
		s = v.String()
	}
	L.Push(lua.LString(sha1hex(s)))
	return 1
}

func (vm *luaVM) setResp(L *lua.LState) int {
	if L.GetTop() != 1 {
		vm.raise(L, "ERR redis.setresp() requires one argument.")
	}
	switch v, _ := toNumber(L.Get(1)); int(v) {
	case 2:
		return 0
	case 3:
		vm.raise(L, "ERR locksim: RESP3 is not simulated")
	}
	vm.raise(L, "ERR RESP version must be 2 or 3.")
	return 0
}

// luaErrorReply is redis.error_reply: bad arguments give an error table
// rather than a Lua error, as in Redis.
func luaErrorReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(fieldTable(L, "err", "ERR wrong number or type of arguments"))
		return 1
	}
	L.Push(fieldTable(L, "err", errorText(string(s))))
	return 1
}

func luaStatusReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(fieldTable(L, "err", "ERR wrong number or type of arguments"))
		return 1
	}
	L.Push(fieldTable(L, "ok", string(s)))
	return 1
}

// errorText gives an error its code the way Redis does before handing it to
// Lua: "-CODE msg" and "CODE msg" keep CODE, a message without one gets ERR.
func errorText(s string) string {
	s = strings.TrimPrefix(s, "-")
	code, msg, found := strings.Cut(s, " ")
	if !found {
		code, msg = "ERR", s
	}
	return code + " " + strings.Trim(msg, "\r\n")
}

// toNumber is lua_isnumber + lua_tonumber: numbers and numeric strings.
func toNumber(v lua.LValue) (float64, bool) {
	switch v := v.(type) {
	case lua.LNumber:
		return float64(v), true
	case lua.LString:
		f, err := strconv.ParseFloat(strings.TrimSpace(string(v)), 64)
		return f, err == nil
	}
	return 0, false
}

// lockCommands are the names scripts call most, upper case. Each is one
// the node runs in a script (refusal, notInScripts, miniredis's command
// table: TestLockCommandsPassScriptChecks), so a script's call to one skips
// those checks.
var lockCommands = func() map[string]string {
	m := map[string]string{}
	for _, c := range []string{"GET", "SET", "DEL", "EXISTS", "EXPIRE", "PEXPIRE", "TTL", "PTTL",
		"INCR", "DECR", "GETSET", "SETNX", "HGET", "HSET", "HDEL", "HEXISTS", "HINCRBY", "HLEN",
		"PUBLISH", "TIME", "UNLINK", "SETEX", "PSETEX", "LPUSH", "RPUSH", "LPOP", "RPOP", "LLEN"} {
		m[strings.ToLower(c)] = c
		m[c] = c
	}
	return m
}()

// commandName is strings.ToUpper(name) without allocating for the usual
// commands, which scripts write in lower case: redis.call("get", ...).
func commandName(name string) string {
	if up, ok := lockCommands[name]; ok {
		return up
	}
	return strings.ToUpper(name)
}
