package node

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/alicebob/miniredis/v2/server"
	lua "github.com/yuin/gopher-lua"
)

// luaVM is a node's scripting engine: one gopher-lua state kept between
// scripts, sandboxed so that nothing a script does survives it. Scripts see
// an empty environment whose reads fall through to the real globals and
// whose writes fail; the libraries and redis are read-only views too.
type luaVM struct {
	n       *Node
	L       *lua.LState
	env     *lua.LTable   // _G as scripts see it
	globals *lua.LTable   // the real globals, out of scripts' reach
	views   []*lua.LTable // read-only views, which must stay empty
	budget  budget
	mem     memBudget
	pcg     *rand.PCG
	rand    *rand.Rand

	keys, argv argTable       // KEYS and ARGV, kept while scripts leave them alone
	args       []string       // redis.call's arguments, reused (luaredis.go)
	known      []string       // the script's ARGV: bulk replies equal to one reuse it
	fn         *lua.LFunction // the last script's main function
	replay     replayer       // the paths scripts took (replay.go)

	// Set for the script being run.
	peer     *server.Peer
	readOnly bool
	raised   string // the last Redis error raised into Lua, returned verbatim
	spoiled  bool   // the state may hold leftovers: make a new one
	// ids name tables, functions and the like in tostring and string.format
	// by first appearance in the script, where Lua would print a host
	// memory address: replies and digests must not depend on the host.
	ids map[lua.LValue]int
}

// pcgStream is the PCG increment for math.random; the seed picks the state.
const pcgStream = 0x6c6f636b73696d // "locksim"

// libFunc is one entry of a standard library table.
type libFunc struct {
	name  string
	value lua.LValue
}

// stdlib holds what the base, table, string and math libraries define, made
// once per process: opening them costs more than the rest of a state. A Go
// function value holds no state of its own, so every node's state can share
// them; each state still gets its own tables, the only thing a script could
// change.
var stdlib = sync.OnceValues(func() (map[string][]libFunc, error) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
	} {
		err := L.CallByParam(lua.P{Fn: L.NewFunction(lib.open), Protect: true}, lua.LString(lib.name))
		if err != nil {
			return nil, fmt.Errorf("lua: open library %q: %w", lib.name, err)
		}
	}
	libs := map[string][]libFunc{}
	L.G.Global.ForEach(func(k, v lua.LValue) {
		name := k.String()
		if _, isTable := v.(*lua.LTable); !isTable && !slices.Contains(unsafeGlobals, name) {
			libs[""] = append(libs[""], libFunc{name, v})
		}
	})
	for _, lib := range []string{lua.TabLibName, lua.StringLibName, lua.MathLibName} {
		L.G.Global.RawGetString(lib).(*lua.LTable).ForEach(func(k, v lua.LValue) {
			if k.String() != "__index" { // the string library is strings' metatable too
				libs[lib] = append(libs[lib], libFunc{k.String(), v})
			}
		})
	}
	for _, fs := range libs {
		slices.SortFunc(fs, func(a, b libFunc) int { return strings.Compare(a.name, b.name) })
	}
	return libs, nil
})

// unsafeGlobals would reach the host (files, stdout) or load modules.
var unsafeGlobals = []string{
	"print", "dofile", "loadfile", "_printregs", "module", "require",
	"_GOPHER_LUA_VERSION",
}

func newLuaVM(n *Node) (*luaVM, error) {
	libs, err := stdlib()
	if err != nil {
		return nil, err
	}
	// Start small: scripts here are short, and the stacks grow on demand.
	// The data stack grows in big steps (each step copies it) up to a cap
	// that still holds Redis's own limit of 8000 values from one unpack.
	L := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		RegistrySize:        256,
		RegistryGrowStep:    1024,
		RegistryMaxSize:     64 * 1024,
		CallStackSize:       200,
		MinimizeStackMemory: true,
	})
	g := L.G.Global
	for _, f := range libs[""] {
		g.RawSetString(f.name, f.value)
	}
	for _, lib := range []string{lua.TabLibName, lua.StringLibName, lua.MathLibName} {
		t := L.CreateTable(0, len(libs[lib]))
		for _, f := range libs[lib] {
			t.RawSetString(f.name, f.value)
		}
		g.RawSetString(lib, t)
	}
	vm := &luaVM{n: n, L: L, globals: g}
	vm.pcg = rand.NewPCG(uint64(n.seed), pcgStream)
	vm.rand = rand.New(vm.pcg)
	vm.sandbox()
	L.SetContext(&vm.budget)
	return vm, nil
}

func (vm *luaVM) sandbox() {
	L, g := vm.L, vm.globals
	vm.limitMemory(g.RawGetString("string").(*lua.LTable), g.RawGetString("table").(*lua.LTable))
	g.RawSetString(concatName, L.NewFunction(vm.concat))
	g.RawSetString("loadstring", L.NewFunction(vm.loadstring))
	g.RawSetString("load", L.NewFunction(vm.load))
	// collectgarbage("count") would report host memory.
	g.RawSetString("collectgarbage", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	}))
	g.RawSetString("setmetatable", L.NewFunction(luaSetMetatable))
	g.RawSetString("tostring", L.NewFunction(vm.tostring))
	str := g.RawGetString("string").(*lua.LTable)
	str.RawSetString("format", L.NewFunction(vm.stringFormat(str.RawGetString("format"))))

	math := g.RawGetString("math").(*lua.LTable)
	math.RawSetString("random", L.NewFunction(vm.mathRandom))
	math.RawSetString("randomseed", L.NewFunction(vm.mathRandomSeed))
	g.RawSetString("math", vm.view(math))
	g.RawSetString("table", vm.view(g.RawGetString("table").(*lua.LTable)))

	// Strings share one metatable; it hands out only the read-only view.
	strView := vm.view(g.RawGetString("string").(*lua.LTable))
	g.RawSetString("string", strView)
	strMeta := L.CreateTable(0, 2)
	strMeta.RawSetString("__index", strView)
	strMeta.RawSetString("__metatable", vm.view(strMeta))
	L.SetMetatable(lua.LString(""), strMeta)

	redis := vm.view(vm.redisLib())
	g.RawSetString("redis", redis)
	g.RawSetString("server", redis)

	gMeta := L.CreateTable(0, 2)
	gMeta.RawSetString("__index", L.NewFunction(luaNoGlobal))
	gMeta.RawSetString("__metatable", lua.LFalse)
	g.Metatable = gMeta

	vm.env = L.CreateTable(0, 0)
	envMeta := L.CreateTable(0, 3)
	envMeta.RawSetString("__index", g)
	envMeta.RawSetString("__newindex", L.NewFunction(vm.setGlobal))
	envMeta.RawSetString("__metatable", lua.LFalse)
	vm.env.Metatable = envMeta
	vm.views = append(vm.views, vm.env)
	g.RawSetString("_G", vm.env)
	// getfenv hands out L.G.Global for Go functions and L.Env for level 0.
	L.G.Global = vm.env
	L.Env = vm.env
}

// view returns an empty table that reads through to t and refuses writes.
func (vm *luaVM) view(t *lua.LTable) *lua.LTable {
	view := vm.L.CreateTable(0, 0)
	meta := vm.L.CreateTable(0, 3)
	meta.RawSetString("__index", t)
	meta.RawSetString("__newindex", vm.L.NewFunction(luaReadOnly))
	meta.RawSetString("__metatable", lua.LFalse)
	view.Metatable = meta
	vm.views = append(vm.views, view)
	return view
}

func luaReadOnly(L *lua.LState) int {
	L.RaiseError("Attempt to modify a readonly table")
	return 0
}

func luaNoGlobal(L *lua.LState) int {
	L.RaiseError("Script attempted to access nonexistent global variable '%s'", describe(L.Get(2)))
	return 0
}

// describe prints a value for an error message without the memory address
// Lua shows for tables and functions: replies must not depend on the host.
func describe(v lua.LValue) string {
	switch v.(type) {
	case lua.LString, lua.LNumber, lua.LBool, *lua.LNilType:
		return v.String()
	}
	return "a " + v.Type().String()
}

// setGlobal refuses every global assignment, as Redis 7 does (its globals
// table is read-only), so that no state passes from one script run to the
// next.
func (vm *luaVM) setGlobal(L *lua.LState) int {
	L.RaiseError("Attempt to modify a readonly table")
	return 0
}

// luaSetMetatable is Lua 5.1's setmetatable: tables only. gopher-lua's own
// also sets the shared metatable of numbers, booleans or functions, which
// would outlive the script.
func luaSetMetatable(L *lua.LState) int {
	t := L.CheckTable(1)
	mt := L.Get(2)
	if mt != lua.LNil && mt.Type() != lua.LTTable {
		L.ArgError(2, "nil or table expected")
	}
	if cur, ok := t.Metatable.(*lua.LTable); ok && cur.RawGetString("__metatable") != lua.LNil {
		L.RaiseError("cannot change a protected metatable")
	}
	t.Metatable = mt
	L.SetTop(1)
	return 1
}

// mathRandom is Lua 5.1's math.random over a PCG owned by the node.
func (vm *luaVM) mathRandom(L *lua.LState) int {
	vm.replay.random = true
	r := vm.rand.Float64()
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := L.CheckInt(1)
		if u < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(float64(int64(r*float64(u))) + 1))
	case 2:
		l, u := L.CheckInt(1), L.CheckInt(2)
		if l > u {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(float64(int64(r*float64(u-l+1))) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

func (vm *luaVM) mathRandomSeed(L *lua.LState) int {
	vm.replay.random = true
	vm.pcg.Seed(uint64(L.CheckInt(1)), pcgStream)
	return 0
}

func (vm *luaVM) close() { vm.L.Close() }

// name is v as tostring shows it, with a deterministic id instead of a
// memory address for values that have no __tostring.
func (vm *luaVM) name(v lua.LValue) lua.LValue {
	switch v.Type() {
	case lua.LTTable, lua.LTFunction, lua.LTUserData, lua.LTThread, lua.LTChannel:
		if vm.L.GetMetaField(v, "__tostring") == lua.LNil {
			if vm.ids == nil {
				vm.ids = map[lua.LValue]int{}
			}
			id, ok := vm.ids[v]
			if !ok {
				id = len(vm.ids) + 1
				vm.ids[v] = id
			}
			return lua.LString(fmt.Sprintf("%s: %d", v.Type(), id))
		}
	}
	return vm.L.ToStringMeta(v)
}

func (vm *luaVM) tostring(L *lua.LState) int {
	L.Push(vm.name(L.CheckAny(1)))
	return 1
}

// stringFormat wraps string.format so that %s of a table prints its
// deterministic name.
func (vm *luaVM) stringFormat(format lua.LValue) lua.LGFunction {
	return func(L *lua.LState) int {
		args := make([]lua.LValue, L.GetTop())
		for i := range args {
			args[i] = L.Get(i + 1)
			if i > 0 {
				if n, ok := vm.name(args[i]).(lua.LString); ok && args[i].Type() != lua.LTString && args[i].Type() != lua.LTNumber {
					args[i] = n
				}
			}
		}
		L.CallByParam(lua.P{Fn: format, NRet: 1, Protect: false}, args...)
		return 1
	}
}
