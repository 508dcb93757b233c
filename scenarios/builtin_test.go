package scenarios_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// seeds are the ids of the documents a built-in may cite (locks.Documents);
// the reference algorithms cite locks.Reference.
var seeds = func() []string {
	var ids []string
	for _, d := range locks.Documents {
		ids = append(ids, d.ID)
	}
	return ids
}()

// Each built-in says where it comes from and what happens, and its file is
// named after it.
func TestBuiltinMetadata(t *testing.T) {
	files, err := os.ReadDir("builtin")
	if err != nil {
		t.Fatal(err)
	}
	var fileNames []string
	for _, f := range files {
		fileNames = append(fileNames, f.Name())
	}
	for _, s := range scenarios.Builtins() {
		if !slices.Contains(fileNames, s.Name+".yaml") {
			t.Errorf("%s: not in a file builtin/%s.yaml", s.Name, s.Name)
		}
		if strings.TrimSpace(s.Narrative) == "" {
			t.Errorf("%s: no narrative", s.Name)
		}
		if s.Summary == "" || strings.Contains(s.Summary, "\n") {
			t.Errorf("%s: summary %q: want one line", s.Name, s.Summary)
		}
		if s.Expect == "" {
			t.Errorf("%s: no expected verdict", s.Name)
		}
		var sources []string
		for _, src := range strings.Split(s.Source, ",") {
			src = strings.TrimSpace(src)
			sources = append(sources, src)
			if !slices.Contains(seeds, src) && src != locks.Reference {
				t.Errorf("%s: source %q is neither a seed document nor %q", s.Name, src, locks.Reference)
			}
		}
		algo, err := locks.Lookup(s.Algorithm)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if !slices.Contains(sources, algo.Source) {
			t.Errorf("%s: sources %v leave out %s's document %s", s.Name, sources, algo.Name, algo.Source)
		}
	}
}

// php-eval's timestamps are PHP's time(): a millisecond variant of
// second-resolution cannot be an override of the same scenario, which is why
// second-resolution-ms runs the plan on java-getset.
func TestSecondResolutionNeedsWholeSeconds(t *testing.T) {
	s, err := scenarios.Lookup("second-resolution")
	if err != nil {
		t.Fatal(err)
	}
	s.Params.Resolution = scenarios.Duration(time.Millisecond)
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "params") {
		t.Fatalf("php-eval accepted millisecond timestamps: %v", err)
	}
	ms, err := scenarios.Lookup("second-resolution-ms")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ms.Prepare("")
	if err != nil {
		t.Fatal(err)
	}
	if p.Params.Resolution != time.Millisecond {
		t.Fatalf("second-resolution-ms runs with %v timestamps, want 1ms", p.Params.Resolution)
	}
	// Apart from the algorithm and its documents, the two are one plan.
	a, _ := scenarios.Lookup("second-resolution")
	a.Name, a.Source, a.Algorithm = ms.Name, ms.Source, ms.Algorithm
	a.Summary, a.Narrative, ms.Summary, ms.Narrative = "", "", "", "" // the texts differ, and each writes its own template
	da, _ := scenarios.Marshal(a)
	db, _ := scenarios.Marshal(ms)
	if string(da) != string(db) {
		t.Fatalf("second-resolution and second-resolution-ms differ beyond algorithm and text:\n%s\n---\n%s", da, db)
	}
}
