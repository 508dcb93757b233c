package judge_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
)

// scenarios.Verdicts spells out the checker's verdict names so that the
// format imports no checker: it must name every Verdict* constant of model,
// and nothing else. The constants are read from model's source, so a new
// verdict added there fails this test until the format accepts it.
func TestScenarioVerdictsAreTheCheckersVerdicts(t *testing.T) {
	paths, err := filepath.Glob("../model/*.go")
	if err != nil || len(paths) == 0 {
		t.Fatalf("model's source: %v", err)
	}
	var model []string
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Verdict") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("model.%s is not a string literal", name.Name)
					}
					v, _ := strconv.Unquote(lit.Value)
					model = append(model, v)
				}
			}
		}
	}
	if len(model) == 0 {
		t.Fatal("no Verdict* constant found in model")
	}
	got := slices.Sorted(slices.Values(scenarios.Verdicts))
	slices.Sort(model)
	if !slices.Equal(got, model) {
		t.Errorf("scenarios.Verdicts %v, model's verdicts %v", got, model)
	}
}
