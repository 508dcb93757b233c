// Package codesteps reads a built-in lock algorithm's source file the way
// a reader compares it with its document: the comment above its
// registration (where it comes from, what it does, where it departs from
// the text), then each function cut into steps at its comments. In
// locks/, a comment on its own line quotes the document's step or says
// why the code departs from it, and the code under it does that step; so
// a step is that comment beside the code it governs.
package codesteps

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Source is one algorithm's code, cut into steps.
type Source struct {
	Algorithm string
	File      string
	// Header is the comment above the registration, in paragraphs.
	Header  []string
	Funcs   []Func
	Scripts []Script // files the algorithm's file embeds (its Lua scripts), whole
}

// Func is one function or method of the algorithm's file.
type Func struct {
	Name  string // "Acquire", "(*setnxDel).Acquire" is shown as its receiver's method
	Steps []Step
}

// Step is a comment and the code under it, up to the next comment.
type Step struct {
	Line int    // the code's first line in File
	Says string // the comment; "" for code before a function's first comment
	Code string // the lines, de-indented; trailing comments stay in it
}

// Script is a file embedded by the algorithm's file.
type Script struct{ File, Text string }

// Find reads the Go files at the top of fsys and returns the one that
// registers the algorithm name (register(Algorithm{Name: "name", …})).
func Find(fsys fs.FS, name string) (*Source, error) {
	files, err := fs.Glob(fsys, "*.go")
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	for _, file := range files {
		src, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("codesteps: %w", err)
		}
		decl := registration(f, name)
		if decl == nil {
			continue
		}
		s := &Source{Algorithm: name, File: file, Header: paragraphs(decl.Doc.Text())}
		lines := strings.Split(string(src), "\n")
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				s.Funcs = append(s.Funcs, Func{Name: funcName(fd), Steps: steps(fset, f, fd, lines)})
			}
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				rest, ok := strings.CutPrefix(c.Text, "//go:embed ")
				if !ok {
					continue
				}
				for _, p := range strings.Fields(rest) {
					text, err := fs.ReadFile(fsys, path.Clean(p))
					if err != nil {
						return nil, fmt.Errorf("codesteps: %s embeds %s: %w", file, p, err)
					}
					s.Scripts = append(s.Scripts, Script{File: p, Text: string(text)})
				}
			}
		}
		return s, nil
	}
	return nil, fmt.Errorf("codesteps: no file registers algorithm %q", name)
}

// registration finds `var x = register(Algorithm{Name: "name", …}, …)`.
func registration(f *ast.File, name string) *ast.GenDecl {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok || len(vs.Values) != 1 {
				continue
			}
			call, ok := vs.Values[0].(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				continue
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "register" {
				continue
			}
			lit, ok := call.Args[0].(*ast.CompositeLit)
			if !ok {
				continue
			}
			for _, el := range lit.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				k, _ := kv.Key.(*ast.Ident)
				v, _ := kv.Value.(*ast.BasicLit)
				if k != nil && k.Name == "Name" && v != nil && v.Kind == token.STRING {
					if s, err := strconv.Unquote(v.Value); err == nil && s == name {
						return gd
					}
				}
			}
		}
	}
	return nil
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	var b bytes.Buffer
	t := fd.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		b.WriteString("*")
		t = st.X
	}
	if id, ok := t.(*ast.Ident); ok {
		b.WriteString(id.Name)
	}
	return "(" + b.String() + ")." + fd.Name.Name
}

// steps cuts a function at its own-line comments: the doc comment says
// what the signature line does, each comment inside the body what the
// lines under it do.
func steps(fset *token.FileSet, f *ast.File, fd *ast.FuncDecl, lines []string) []Step {
	line := func(p token.Pos) int { return fset.Position(p).Line }
	type cut struct{ from, to int } // a comment's lines, 1-based, inclusive
	var cuts []cut
	var says []string
	for _, cg := range f.Comments {
		if cg.Pos() <= fd.Body.Lbrace || cg.End() >= fd.Body.Rbrace {
			continue
		}
		p := fset.Position(cg.Pos())
		if strings.TrimSpace(lines[p.Line-1][:p.Column-1]) != "" {
			continue // a trailing comment: part of its line's code
		}
		cuts = append(cuts, cut{p.Line, line(cg.End())})
		says = append(says, oneParagraph(cg.Text()))
	}
	var out []Step
	add := func(says string, from, to int) { // code lines [from, to], 1-based
		for from <= to && strings.TrimSpace(lines[from-1]) == "" {
			from++
		}
		for to >= from && strings.TrimSpace(lines[to-1]) == "" {
			to--
		}
		if from > to && says == "" {
			return
		}
		out = append(out, Step{Line: from, Says: says, Code: dedent(lines[from-1 : max(to, from-1)])})
	}
	doc := ""
	if fd.Doc != nil {
		doc = oneParagraph(fd.Doc.Text())
	}
	start, end := line(fd.Pos()), line(fd.End())
	if len(cuts) == 0 {
		add(doc, start, end)
		return out
	}
	add(doc, start, cuts[0].from-1)
	for i, c := range cuts {
		next := end
		if i+1 < len(cuts) {
			next = cuts[i+1].from - 1
		}
		add(says[i], c.to+1, next)
	}
	return out
}

// dedent removes the indentation the lines share, tabs shown as 4 spaces.
func dedent(lines []string) string {
	common := -1
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.ReplaceAll(l, "\t", "    ")
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(out[i]) - len(strings.TrimLeft(out[i], " "))
		if common < 0 || n < common {
			common = n
		}
	}
	for i := range out {
		if len(out[i]) >= common && common > 0 {
			out[i] = out[i][common:]
		}
		out[i] = strings.TrimRight(out[i], " ")
	}
	return strings.Join(out, "\n")
}

// paragraphs splits comment text at blank lines and joins each paragraph's
// lines: comments wrap where the source is narrow, not where the sense
// breaks.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if p = oneParagraph(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func oneParagraph(text string) string {
	return strings.Join(strings.Fields(text), " ")
}
