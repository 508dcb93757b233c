package node

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// concatName is the global through which compiled scripts concatenate. It
// is no Lua name, so no script writes it by accident; a script that looks it
// up through _G only gets the same counted concatenation.
const concatName = "locksim concat"

// rewriteConcat replaces every a .. b .. c in the chunk by a call
// concatName(a, b, c), so that ScriptMemory counts what .. builds before it
// is built: inside gopher-lua's VM, OP_CONCAT allocates with no hook, and
// 's = s .. s' forty times asks for a terabyte in 200 instructions. The
// call keeps the semantics: operands are evaluated left to right as before,
// a right-nested chain becomes one call as it was one OP_CONCAT, and the
// result is adjusted to one value. The cost is two instructions per
// concatenation (fetch the function, call it), against DefaultScriptBudget.
func rewriteConcat(stmts []ast.Stmt) {
	for _, s := range stmts {
		rewriteStmt(s)
	}
}

func rewriteStmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		rewriteExprs(s.Lhs)
		rewriteExprs(s.Rhs)
	case *ast.LocalAssignStmt:
		rewriteExprs(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = rewriteExpr(s.Expr)
	case *ast.DoBlockStmt:
		rewriteConcat(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = rewriteExpr(s.Condition)
		rewriteConcat(s.Stmts)
	case *ast.RepeatStmt:
		s.Condition = rewriteExpr(s.Condition)
		rewriteConcat(s.Stmts)
	case *ast.IfStmt:
		s.Condition = rewriteExpr(s.Condition)
		rewriteConcat(s.Then)
		rewriteConcat(s.Else)
	case *ast.NumberForStmt:
		s.Init, s.Limit = rewriteExpr(s.Init), rewriteExpr(s.Limit)
		if s.Step != nil {
			s.Step = rewriteExpr(s.Step)
		}
		rewriteConcat(s.Stmts)
	case *ast.GenericForStmt:
		rewriteExprs(s.Exprs)
		rewriteConcat(s.Stmts)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			s.Name.Func = rewriteExpr(s.Name.Func)
			s.Name.Receiver = rewriteExpr(s.Name.Receiver)
		}
		rewriteExpr(s.Func)
	case *ast.ReturnStmt:
		rewriteExprs(s.Exprs)
	}
}

func rewriteExprs(es []ast.Expr) {
	for i := range es {
		es[i] = rewriteExpr(es[i])
	}
}

func rewriteExpr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.StringConcatOpExpr:
		// The chain a .. (b .. (c .. d)) is what the parser builds for
		// a .. b .. c .. d; OP_CONCAT takes it whole, and so does the call.
		args := []ast.Expr{rewriteExpr(e.Lhs)}
		rhs := e.Rhs
		for {
			next, ok := rhs.(*ast.StringConcatOpExpr)
			if !ok {
				break
			}
			args = append(args, rewriteExpr(next.Lhs))
			rhs = next.Rhs
		}
		args = append(args, rewriteExpr(rhs))
		fn := &ast.IdentExpr{Value: concatName}
		fn.SetLine(e.Line())
		fn.SetLastLine(e.LastLine())
		call := &ast.FuncCallExpr{Func: fn, Args: args, AdjustRet: true}
		call.SetLine(e.Line())
		call.SetLastLine(e.LastLine())
		return call
	case *ast.AttrGetExpr:
		e.Object, e.Key = rewriteExpr(e.Object), rewriteExpr(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil {
				f.Key = rewriteExpr(f.Key)
			}
			f.Value = rewriteExpr(f.Value)
		}
	case *ast.FuncCallExpr:
		if e.Func != nil {
			e.Func = rewriteExpr(e.Func)
		}
		if e.Receiver != nil {
			e.Receiver = rewriteExpr(e.Receiver)
		}
		rewriteExprs(e.Args)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = rewriteExpr(e.Lhs), rewriteExpr(e.Rhs)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = rewriteExpr(e.Lhs), rewriteExpr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = rewriteExpr(e.Lhs), rewriteExpr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		e.Expr = rewriteExpr(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = rewriteExpr(e.Expr)
	case *ast.UnaryLenOpExpr:
		e.Expr = rewriteExpr(e.Expr)
	case *ast.FunctionExpr:
		rewriteConcat(e.Stmts)
	}
	return e
}

// concat is what concatName calls: Lua 5.1's concatenation of its
// arguments, right to left, runs of strings and numbers joined at once and
// __concat metamethods called pairwise, as gopher-lua's OP_CONCAT does,
// with each joined string counted against ScriptMemory before it is built.
func (vm *luaVM) concat(L *lua.LState) int {
	n := L.GetTop()
	rhs := L.Get(n)
	for i := n - 1; i >= 1; {
		lhs := L.Get(i)
		if !lua.LVCanConvToString(lhs) || !lua.LVCanConvToString(rhs) {
			op := L.GetMetaField(lhs, "__concat")
			if op == lua.LNil {
				op = L.GetMetaField(rhs, "__concat")
			}
			if op.Type() != lua.LTFunction {
				L.RaiseError("cannot perform concat operation between %v and %v", lhs.Type().String(), rhs.Type().String())
			}
			L.Push(op)
			L.Push(lhs)
			L.Push(rhs)
			L.Call(2, 1)
			rhs = L.Get(-1)
			L.Pop(1)
			i--
			continue
		}
		j := i
		for j >= 1 && lua.LVCanConvToString(L.Get(j)) {
			j--
		}
		parts := make([]string, 0, i-j+1)
		size := int64(0)
		for k := j + 1; k <= i; k++ {
			parts = append(parts, lua.LVAsString(L.Get(k)))
			size += int64(len(parts[len(parts)-1]))
		}
		parts = append(parts, lua.LVAsString(rhs))
		size += int64(len(parts[len(parts)-1]))
		vm.charge(L, size, "..")
		rhs = lua.LString(strings.Join(parts, ""))
		i = j
	}
	L.Push(rhs)
	return 1
}

// loadstring and load compile at run time, so they rewrite .. too: without
// it a script could hand its memory bomb to loadstring. The text they
// compile is counted, as load joins it from pieces.
func (vm *luaVM) loadstring(L *lua.LState) int {
	src := L.CheckString(1)
	vm.charge(L, int64(len(src)), "loadstring")
	return vm.loadChunk(L, src, L.OptString(2, "<string>"))
}

func (vm *luaVM) load(L *lua.LState) int {
	fn := L.CheckFunction(1)
	name := L.OptString(2, "?")
	var b strings.Builder
	for {
		L.Push(fn)
		L.Call(0, 1)
		piece := L.Get(-1)
		L.Pop(1)
		if piece == lua.LNil {
			break
		}
		if !lua.LVCanConvToString(piece) {
			L.Push(lua.LNil)
			L.Push(lua.LString("reader function must return a string"))
			return 2
		}
		s := lua.LVAsString(piece)
		if s == "" {
			break
		}
		vm.charge(L, int64(len(s)), "load")
		b.WriteString(s)
	}
	return vm.loadChunk(L, b.String(), name)
}

// loadChunk is gopher-lua's loadaux with the rewrite: a function, or nil and
// the error's text.
func (vm *luaVM) loadChunk(L *lua.LState, src, name string) int {
	chunk, err := parse.Parse(strings.NewReader(src), name)
	var proto *lua.FunctionProto
	if err == nil {
		rewriteConcat(chunk)
		proto, err = lua.Compile(chunk, name)
	}
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(L.NewFunctionFromProto(proto))
	return 1
}
