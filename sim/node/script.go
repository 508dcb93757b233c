package node

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/alicebob/miniredis/v2/server"
	lua "github.com/yuin/gopher-lua"
)

func isScripting(name string) bool {
	switch name {
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "SCRIPT":
		return true
	}
	return false
}

// scripting runs EVAL, EVALSHA, their _RO forms and SCRIPT for client p.
func (n *Node) scripting(p *server.Peer, name string, args []string) Reply {
	if name == "SCRIPT" {
		return n.scriptCommand(args[1:])
	}
	if len(args) < 3 {
		return errorReply(wrongArgs(name))
	}
	keys, argv, msg := splitKeys(args[2], args[3:])
	if msg != "" {
		return errorReply(msg)
	}
	src := args[1]
	if name == "EVALSHA" || name == "EVALSHA_RO" {
		var ok bool
		if src, ok = n.scripts[strings.ToLower(args[1])]; !ok {
			return errorReply("NOSCRIPT No matching script. Please use EVAL.")
		}
	}
	c, ce := n.compile(src)
	if ce != nil {
		return errorReply("ERR Error compiling script (new function): " + ce.format(chunkName))
	}
	if n.vm == nil {
		vm, err := newLuaVM(n)
		if err != nil {
			return errorReply("ERR locksim: " + oneLine(err.Error()))
		}
		n.vm = vm
	}
	r := n.vm.run(p, c, keys, argv, strings.HasSuffix(name, "_RO"))
	if n.vm.spoiled {
		n.vm.close()
		n.vm = nil
	}
	return r
}

// splitKeys checks EVAL's numkeys the way miniredis words it.
func splitKeys(numkeys string, rest []string) (keys, argv []string, msg string) {
	k, err := strconv.Atoi(numkeys)
	switch {
	case err != nil:
		return nil, nil, "ERR value is not an integer or out of range"
	case k < 0:
		return nil, nil, "ERR Number of keys can't be negative"
	case k > len(rest):
		return nil, nil, "ERR Number of keys can't be greater than number of args"
	}
	return rest[:k], rest[k:], ""
}

// compile returns the compiled script and remembers it for EVALSHA. A lock
// sends the same script again and again, usually the very same string: the
// node keeps the last one, which spares hashing the source into the
// process-wide cache and the sha into the node's on every EVAL.
func (n *Node) compile(src string) (*compiled, *compileError) {
	if n.last != nil && n.lastSrc == src {
		return n.last, nil
	}
	c, ce := compileScript(src)
	if ce != nil {
		return nil, ce
	}
	if n.scripts == nil {
		n.scripts = map[string]string{}
	}
	n.scripts[c.sha] = src
	n.last, n.lastSrc = c, src
	return c, nil
}

// forgetScripts drops every script EVALSHA could run. The emptied map is
// kept: a node forgets its scripts at every Reset, and a new map for the
// next run's first EVAL was two allocations of each.
func (n *Node) forgetScripts() {
	clear(n.scripts)
	n.last, n.lastSrc = nil, ""
}

// scriptCommand is SCRIPT LOAD, EXISTS, FLUSH and KILL.
func (n *Node) scriptCommand(args []string) Reply {
	if len(args) == 0 {
		return errorReply(wrongArgs("SCRIPT"))
	}
	sub, args := strings.ToUpper(args[0]), args[1:]
	switch sub {
	case "LOAD":
		if len(args) != 1 {
			return errorReply(wrongArgs("script|load"))
		}
		c, ce := n.compile(args[0])
		if ce != nil {
			return errorReply("ERR Error compiling script (new function): " + ce.format(chunkName))
		}
		return Reply{Kind: Bulk, Str: c.sha}
	case "EXISTS":
		if len(args) == 0 {
			return errorReply(wrongArgs("script|exists"))
		}
		r := Reply{Kind: Array, Elems: make([]Reply, len(args))}
		for i, sha := range args {
			r.Elems[i].Kind = Int
			if _, ok := n.scripts[strings.ToLower(sha)]; ok {
				r.Elems[i].Int = 1
			}
		}
		return r
	case "FLUSH":
		if len(args) == 1 && (strings.EqualFold(args[0], "SYNC") || strings.EqualFold(args[0], "ASYNC")) {
			args = nil
		}
		if len(args) != 0 {
			return errorReply("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
		}
		n.forgetScripts()
		if n.vm != nil {
			n.vm.close()
			n.vm = nil
		}
		return Reply{Kind: Status, Str: "OK"}
	case "KILL":
		// Scripts run to completion inside one simulated instant.
		return errorReply("NOTBUSY No scripts in execution right now.")
	}
	return errorReply(fmt.Sprintf("ERR unknown subcommand '%s'. Try SCRIPT HELP.", sub))
}

func wrongArgs(cmd string) string {
	return fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(cmd))
}

// run executes one compiled script for client p with fresh KEYS, ARGV,
// random sequence and instruction budget.
func (vm *luaVM) run(p *server.Peer, c *compiled, keys, argv []string, readOnly bool) Reply {
	L := vm.L
	vm.peer, vm.readOnly, vm.raised, vm.known = p, readOnly, "", argv
	limit := vm.n.ScriptBudget
	if limit <= 0 {
		limit = DefaultScriptBudget
	}
	// A known path needs none of the Lua state's preparation below.
	var known *scriptPaths
	if vm.replaying() {
		if known = vm.replay.find(c.proto, keys, argv, readOnly, limit); known != nil {
			if r, ok := vm.replayed(known); ok {
				vm.peer, vm.known = nil, nil
				return r
			}
		}
	}
	// Redis restarts the PRNG for every script, so no sequence spans calls.
	vm.pcg.Seed(uint64(vm.n.seed), pcgStream)
	// The globals are out of scripts' reach: a kept table is still there.
	if t, isNew := vm.keys.fill(L, keys); isNew {
		vm.globals.RawSetString("KEYS", t)
	}
	if t, isNew := vm.argv.fill(L, argv); isNew {
		vm.globals.RawSetString("ARGV", t)
	}
	vm.beginRun(known)
	vm.budget.reset(limit)
	vm.mem = memBudget{}
	L.Env = vm.env // setfenv(0, t) must not reach the next script

	L.Push(vm.function(c))
	err := L.PCall(0, 1, nil)
	var r Reply
	normal := false // the script returned
	switch {
	case vm.budget.exceeded():
		r = errorReply(vm.budget.message())
	case vm.mem.over != "":
		r = errorReply(vm.mem.message())
	case err != nil:
		r = vm.failure(err)
		if r.Kind == Error && !vm.spoiled {
			r.Str += errorPlace(err, c.sha)
		}
	default:
		r, normal = toReply(L.Get(-1)), true
	}
	L.SetTop(0)
	vm.keys.check(keys)
	vm.argv.check(argv)
	vm.known = nil
	vm.finish()
	vm.keep(normal, c, keys, argv, readOnly, limit, r)
	vm.endRun()
	return r
}

// failure turns a script's error into its reply. Errors from redis.call and
// error({err=...}) keep their code; Lua's own errors become ERR.
func (vm *luaVM) failure(err error) Reply {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		vm.spoiled = true
		return errorReply("ERR locksim: " + oneLine(err.Error()))
	}
	if ae.Type == lua.ApiErrorPanic {
		// A Go panic may have stopped the state halfway through a change.
		vm.spoiled = true
	}
	switch v := ae.Object.(type) {
	case lua.LString:
		if string(v) == vm.raised {
			return errorReply(oneLine(string(v)))
		}
	case *lua.LTable:
		if s, ok := v.RawGetString("err").(lua.LString); ok {
			return errorReply(oneLine(string(s)))
		}
	}
	return errorReply("ERR " + oneLine(describe(ae.Object)))
}

// errorPlace is what Redis 7 appends to the error of a script that fails:
// " script: SHA, on @user_script:LINE.", LINE being where the innermost Lua
// function of the script stood when the error was raised. Empty when no
// frame of the script is on the stack.
func errorPlace(err error, sha string) string {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return ""
	}
	for _, line := range strings.Split(ae.StackTrace, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimLeft(line, "\t"), chunkName+":")
		if !ok {
			continue
		}
		if n, _, ok := strings.Cut(rest, ":"); ok {
			if _, err := strconv.Atoi(n); err == nil {
				return " script: " + sha + ", on @" + chunkName + ":" + n + "."
			}
		}
	}
	return ""
}

// finish undoes what a script may have changed outside itself.
func (vm *luaVM) finish() {
	vm.peer = nil
	clear(vm.ids)
	// rawset and table.insert can still write into a read-only view.
	for _, v := range vm.views {
		if k, _ := v.Next(lua.LNil); k != lua.LNil {
			vm.spoiled = true
		}
	}
}

// function returns the script's main function, kept from the last run of the
// same script. A script cannot reach its own function value (no debug
// library, no upvalues in a main chunk); the one thing it can change is the
// function's environment (setfenv(1, t)), which is set afresh here.
func (vm *luaVM) function(c *compiled) *lua.LFunction {
	if vm.fn == nil || vm.fn.Proto != c.proto {
		vm.fn = vm.L.NewFunctionFromProto(c.proto)
	}
	vm.fn.Env = vm.env
	return vm.fn
}

// argTable is KEYS or ARGV, kept from one script to the next when the script
// left it as it got it: a lock sends the same number of keys and arguments
// each time, and making both tables was a sixth of a script's allocations.
// Nothing a script does outlives it (the globals and libraries are read-only),
// so a table it did not change is as good as a new one.
type argTable struct {
	t *lua.LTable
	n int
}

// fill returns a table holding list as a sequence: the kept one when it has
// the same length, else a new one (isNew).
func (a *argTable) fill(L *lua.LState, list []string) (t *lua.LTable, isNew bool) {
	if a.t == nil || a.n != len(list) {
		a.t, a.n, isNew = L.CreateTable(len(list), 0), len(list), true
	}
	for i, s := range list {
		// A kept table already holding s keeps its value: boxing a string
		// into a Lua value allocates, and a lock's key is the same every time.
		if !isNew {
			if v, ok := a.t.RawGetInt(i + 1).(lua.LString); ok && string(v) == s {
				continue
			}
		}
		a.t.RawSetInt(i+1, lua.LString(s))
	}
	return a.t, isNew
}

// boxed returns the table's element equal to s, or nil: Lua strings are
// values, so any boxing of s is as good as another.
func (a *argTable) boxed(s string) lua.LValue {
	if a.t == nil {
		return nil
	}
	for i := 1; i <= min(a.n, 4); i++ {
		if x := a.t.RawGetInt(i); x.Type() == lua.LTString && string(x.(lua.LString)) == s {
			return x // the interface as stored: converting v back would box it again
		}
	}
	return nil
}

// check drops the table unless it still holds exactly list, with no
// metatable: then the next script gets a new one.
func (a *argTable) check(list []string) {
	if a.t == nil {
		return
	}
	clean := a.t.Metatable == lua.LNil
	for i := 0; clean && i < len(list); i++ {
		clean = a.t.RawGetInt(i+1) == lua.LString(list[i])
	}
	// And no key past the list: Next from its last index finds none. (Next
	// boxes every index it returns, and walking the table with it was an
	// allocation per element.)
	if clean {
		k, _ := a.t.Next(luaIndex(len(list)))
		clean = k == lua.LNil
	}
	if !clean {
		a.t = nil
	}
}

// luaIndexes are small table indexes boxed once.
var luaIndexes = [...]lua.LValue{lua.LNil, lua.LNumber(1), lua.LNumber(2), lua.LNumber(3), lua.LNumber(4)}

// luaIndex is i as a key for Next: 0 is LNil, where Next starts.
func luaIndex(i int) lua.LValue {
	if i < len(luaIndexes) {
		return luaIndexes[i]
	}
	return lua.LNumber(i)
}
