// Package golden is the module's one convention for golden files: each
// lives under its package's testdata/, and one flag, -update, rewrites
// every one of them:
//
//	go test ./... -update
//
// The flag is this package's, so a test binary knows it only if the package
// is linked in: every package with tests imports it, a blank import where
// the package has no golden file (TestEveryTestPackageImportsGolden holds
// them to it), and `go test ./... -update` is accepted everywhere.
//
// Only tests import it: the flag would otherwise land in a program's own.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (and the copies checked against them) from the output")

// Update says whether the test binary runs with -update: a test whose
// golden file is not one file compared whole (a directory of them, a copy
// published elsewhere) rewrites it itself when this is true.
func Update() bool { return *update }

// Check compares got with the golden file at path (under testdata/), or
// rewrites the file with got under -update. A difference fails t with the
// first lines that differ and the command that rewrites it.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		Write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s creates it)", err, Command())
	}
	if d := Diff(got, want); d != "" {
		t.Errorf("%s differs from the output (%s rewrites it):\n%s", path, Command(), d)
	}
}

// Write writes data to path, making its directory: what -update does.
func Write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// maxDiffLines is how many differing lines Diff shows.
const maxDiffLines = 20

// Diff is "" when got and want are the same bytes, otherwise the first
// lines that differ, each with its number, got then want.
func Diff(got, want []byte) string {
	if bytes.Equal(got, want) {
		return ""
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	at := func(lines []string, i int) string {
		if i < len(lines) {
			return lines[i]
		}
		return "(none)"
	}
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(g), len(w)); i++ {
		if at(g, i) == at(w, i) {
			continue
		}
		if shown == maxDiffLines {
			b.WriteString("  ...\n")
			break
		}
		fmt.Fprintf(&b, "  line %d:\n   got %s\n  want %s\n", i+1, at(g, i), at(w, i))
		shown++
	}
	if shown == 0 {
		// Same lines, different bytes: a trailing newline, say.
		fmt.Fprintf(&b, "  %d bytes, want %d\n", len(got), len(want))
	}
	return b.String()
}

// Command is the go test command that rewrites the running package's golden
// files, run from the module's root: `go test ./reports -update`.
func Command() string {
	return "go test " + pkgDir() + " -update"
}

// pkgDir is the test's package directory relative to the module's root
// (the nearest go.mod above the working directory, which go test sets to
// the package's), or "." when there is none.
func pkgDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}
