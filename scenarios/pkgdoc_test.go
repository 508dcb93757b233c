package scenarios

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Every library package of the module opens its `go doc` with what it is
// for: a package comment starting "Package <name>". Commands (package main)
// start "Command" by the same convention and are not checked here.
func TestEveryPackageHasAPackageComment(t *testing.T) {
	root := ".."
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skip("module root not found")
	}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(pkgs))
		for n := range pkgs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if n == "main" {
				continue
			}
			checked++
			var doc string
			for _, f := range pkgs[n].Files {
				if f.Doc != nil {
					doc = f.Doc.Text()
					break
				}
			}
			want := "Package " + n + " "
			switch {
			case doc == "":
				t.Errorf("%s: package %s has no package comment: say what it is for, starting %q", path, n, want)
			case !strings.HasPrefix(doc, want):
				t.Errorf("%s: package %s's comment starts %q, want %q", path, n, firstLine(doc), want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("checked %d packages, want the module's 20 or more: is the walk rooted at the module?", checked)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
