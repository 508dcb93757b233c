package codesteps

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/locksim/locksim/locks"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

const sample = `package locks

// Source: doc-a
//
// What it does,
// over two lines.
//
// Departures: none.
var sampleAlgorithm = register(Algorithm{Name: "sample", Source: "doc-a"}, nil)

//go:embed sample.lua
var script string

var other = register(Algorithm{Name: "other"}, nil)

// Acquire is lock().
func (l *sample) Acquire(p sim.Proc) error {
	x := 1 // a trailing comment stays with its code
	// "SETNX the key"
	r, err := call(p, "SETNX")

	// "If SETNX returns 0,
	// retry"
	if r == 0 {
		return nil
	}
	return err
}

func helper() int { return 1 }
`

func TestFindCutsAtComments(t *testing.T) {
	fsys := fstest.MapFS{"a.go": {Data: []byte(sample)}, "sample.lua": {Data: []byte("return 1\n")},
		"b.go": {Data: []byte("package locks\n")}}
	s, err := Find(fsys, "sample")
	if err != nil {
		t.Fatal(err)
	}
	if s.File != "a.go" {
		t.Errorf("file %q", s.File)
	}
	want := []string{"Source: doc-a", "What it does, over two lines.", "Departures: none."}
	if strings.Join(s.Header, "|") != strings.Join(want, "|") {
		t.Errorf("header %q, want %q", s.Header, want)
	}
	if len(s.Scripts) != 1 || s.Scripts[0].File != "sample.lua" || s.Scripts[0].Text != "return 1\n" {
		t.Errorf("scripts %+v", s.Scripts)
	}
	if len(s.Funcs) != 2 || s.Funcs[0].Name != "(*sample).Acquire" || s.Funcs[1].Name != "helper" {
		t.Fatalf("funcs %+v", s.Funcs)
	}
	st := s.Funcs[0].Steps
	if len(st) != 3 {
		t.Fatalf("%d steps, want 3: %+v", len(st), st)
	}
	checks := []struct {
		line       int
		says, code string
	}{
		{17, "Acquire is lock().", "func (l *sample) Acquire(p sim.Proc) error {\n    x := 1 // a trailing comment stays with its code"},
		{20, `"SETNX the key"`, `r, err := call(p, "SETNX")`},
		{24, `"If SETNX returns 0, retry"`, "    if r == 0 {\n        return nil\n    }\n    return err\n}"},
	}
	for i, c := range checks {
		if st[i].Line != c.line || st[i].Says != c.says || st[i].Code != c.code {
			t.Errorf("step %d = %+v\nwant line %d says %q code %q", i, st[i], c.line, c.says, c.code)
		}
	}
	if _, err := Find(fsys, "missing"); err == nil || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("a missing algorithm: %v", err)
	}
	if _, err := Find(fstest.MapFS{"x.go": {Data: []byte("package")}}, "sample"); err == nil {
		t.Error("a file that does not parse is not an error")
	}
}

// Every built-in algorithm's file is compiled in and yields steps whose
// comments quote or explain: no algorithm is left without its side by side.
func TestEveryBuiltinHasSteps(t *testing.T) {
	for _, name := range locks.Names() {
		s, err := Find(locks.SourceFiles(), name)
		if err != nil {
			t.Errorf("%s: %v (is its file in locks/sourcefiles.go's go:embed list?)", name, err)
			continue
		}
		if len(s.Header) == 0 || !strings.HasPrefix(s.Header[0], "Source:") {
			t.Errorf("%s: header %q does not start with its Source", name, s.Header)
		}
		said := 0
		for _, f := range s.Funcs {
			for _, st := range f.Steps {
				if st.Says != "" {
					said++
				}
			}
		}
		if said == 0 {
			t.Errorf("%s: %d commented steps", name, said)
		}
	}
}
