package node

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// chunkName is what runtime errors name the script, as Redis does.
const chunkName = "user_script"

// compiled is a script ready to run on any node's Lua state.
type compiled struct {
	proto *lua.FunctionProto
	sha   string
}

// protos caches compiled scripts by their text, process-wide. Compiling is
// pure and a FunctionProto is never written after compilation, so states on
// different goroutines can share one.
var protos sync.Map // string -> *compiled

// compileError is a script that does not compile, with the line to blame.
type compileError struct {
	line int
	msg  string
}

func (e *compileError) format(name string) string {
	// oneLine: a token gopher-lua quotes may hold a newline ("near '0e\n'").
	return fmt.Sprintf("%s:%d: %s", name, e.line, oneLine(e.msg))
}

func compileScript(src string) (*compiled, *compileError) {
	if c, ok := protos.Load(src); ok {
		return c.(*compiled), nil
	}
	chunk, err := parse.Parse(strings.NewReader(src), chunkName)
	if err != nil {
		return nil, parseProblem(src, err)
	}
	rewriteConcat(chunk) // .. is counted against ScriptMemory: concat.go
	proto, err := lua.Compile(chunk, chunkName)
	if err != nil {
		return nil, parseProblem(src, err)
	}
	// The main chunk would get Lua 5.0's implicit arg table on every call,
	// though no name can reach it there: skip making it.
	proto.IsVarArg &^= lua.VarArgNeedsArg
	c, _ := protos.LoadOrStore(src, &compiled{proto: proto, sha: sha1hex(src)})
	return c.(*compiled), nil
}

// parseProblem turns gopher-lua's multi-line messages into one line.
func parseProblem(src string, err error) *compileError {
	var pe *parse.Error
	var ce *lua.CompileError
	switch {
	case errors.As(err, &pe):
		if pe.Pos.Line == parse.EOF {
			return &compileError{strings.Count(src, "\n") + 1, pe.Message + " near <eof>"}
		}
		return &compileError{pe.Pos.Line, fmt.Sprintf("%s near '%s'", pe.Message, pe.Token)}
	case errors.As(err, &ce):
		return &compileError{ce.Line, ce.Message}
	}
	return &compileError{1, strings.Join(strings.Fields(err.Error()), " ")}
}

// Compile checks that script is valid Lua, for validating user script files
// when they are loaded. The error is one line naming name and the line, for
// example "release.lua:3: syntax error near 'then'".
func Compile(name, script string) error {
	if _, ce := compileScript(script); ce != nil {
		return errors.New(ce.format(name))
	}
	return nil
}

func sha1hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}
