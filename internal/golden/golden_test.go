package golden

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const importPath = "github.com/locksim/locksim/internal/golden"

// root is the repository's root, seen from this package.
const root = "../.."

// goFile is one Go file of the tree, parsed.
type goFile struct {
	path string // from the root, slash-separated
	file *ast.File
}

// treeFiles parses every Go file of the tree (nested modules, such as
// examples/golibs, too), skipping testdata and hidden directories as the go
// command does.
func treeFiles(t *testing.T) []goFile {
	t.Helper()
	var files []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		files = append(files, goFile{filepath.ToSlash(rel), f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found %d Go files under %s: not the repository", len(files), root)
	}
	return files
}

func imports(f *ast.File, path string) bool {
	for _, im := range f.Imports {
		if p, err := strconv.Unquote(im.Path.Value); err == nil && p == path {
			return true
		}
	}
	return false
}

// constrained says whether f has a build constraint: a test binary built
// without its tag would not see what the file imports.
func constrained(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() >= f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build") {
				return true
			}
		}
	}
	return false
}

// Every package with tests links this package in, from a file every build
// compiles, so that its test binary accepts -update: `go test ./... -update`
// stops at the first binary that does not know the flag. And no program
// imports it, so that no program has the flag.
func TestEveryTestPackageImportsGolden(t *testing.T) {
	tested := map[string]bool{} // directory: imports golden from a test file
	for _, f := range treeFiles(t) {
		dir := filepath.ToSlash(filepath.Dir(f.path))
		if !strings.HasSuffix(f.path, "_test.go") {
			if imports(f.file, importPath) {
				t.Errorf("%s imports internal/golden: only tests may (it defines -update)", f.path)
			}
			continue
		}
		if dir == "internal/golden" {
			tested[dir] = true
			continue
		}
		tested[dir] = tested[dir] || imports(f.file, importPath) && !constrained(f.file)
	}
	var missing []string
	for dir, ok := range tested {
		if !ok {
			missing = append(missing, dir)
		}
	}
	slices.Sort(missing)
	for _, dir := range missing {
		t.Errorf("%s has tests but none of its test files (without a build constraint) imports %s: "+
			"`go test ./... -update` fails there; add `_ %q` to one", dir, importPath, importPath)
	}
	if len(tested) < 20 {
		t.Errorf("%d packages with tests: the walk missed some", len(tested))
	}
}

// No test defines its own -update: there is one, this package's.
func TestOneUpdateFlag(t *testing.T) {
	for _, f := range treeFiles(t) {
		if f.path == "internal/golden/golden.go" {
			continue
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "flag" {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && strings.Contains(strings.ToLower(lit.Value), "update") {
				t.Errorf("%s: flag.%s(%s): use internal/golden's -update", f.path, sel.Sel.Name, lit.Value)
			}
			return true
		})
	}
}

// benchFile is how a file holding benchmarks is named: bench_test.go, or
// bench_TOPIC_test.go beside it when a package needs two (one in the
// package, one in its external test package).
var benchFile = regexp.MustCompile(`^bench(_[a-z0-9]+)?_test\.go$`)

// Benchmarks live in their package's bench_test.go (or bench_TOPIC_test.go),
// and those files hold benchmarks: a reader finds a package's speed figures
// by one name.
func TestBenchmarkFilesHaveOneName(t *testing.T) {
	for _, f := range treeFiles(t) {
		base := filepath.Base(f.path)
		if !strings.HasSuffix(base, "_test.go") {
			continue
		}
		n := 0
		for _, d := range f.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Benchmark") {
				n++
				if !benchFile.MatchString(base) {
					t.Errorf("%s: %s belongs in its package's bench_test.go", f.path, fd.Name.Name)
				}
			}
		}
		if n == 0 && benchFile.MatchString(base) {
			t.Errorf("%s holds no benchmark", f.path)
		}
	}
}

// Golden files live under a testdata/ directory.
func TestGoldenFilesUnderTestdata(t *testing.T) {
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".golden") {
			n++
			if !slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "testdata") {
				t.Errorf("%s: a golden file belongs under its package's testdata/", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("no golden file found: the walk is wrong")
	}
}

func TestCheckAndDiff(t *testing.T) {
	if Diff([]byte("a\nb\n"), []byte("a\nb\n")) != "" {
		t.Error("equal bytes differ")
	}
	if d := Diff([]byte("a\nx\n"), []byte("a\nb\n")); !strings.Contains(d, "line 2:") || !strings.Contains(d, "got x") || !strings.Contains(d, "want b") {
		t.Errorf("Diff = %q, want line 2 named", d)
	}
	if d := Diff([]byte("a"), []byte("a\n")); !strings.Contains(d, "line 2") {
		t.Errorf("Diff of a missing newline = %q", d)
	}
	if got := Command(); got != "go test ./internal/golden -update" {
		t.Errorf("Command() = %q", got)
	}
	path := filepath.Join(t.TempDir(), "testdata", "x.golden")
	Write(t, path, []byte("x\n"))
	if data, err := os.ReadFile(path); err != nil || string(data) != "x\n" {
		t.Errorf("Write: %q %v", data, err)
	}
	Check(t, path, []byte("x\n")) // equal: passes
	if !*update {
		ft := &fakeT{TB: t}
		Check(ft, path, []byte("y\n"))
		if !ft.failed {
			t.Error("Check passed a different output")
		}
	}
}

// fakeT records a failure instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }
func (f *fakeT) Helper()               {}
