package examples_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/internal/golden"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// digestFiles are the example files whose every run must keep its digest
// when the format grows: a new field defaults to what the file did before.
var digestFiles = []string{"hash-reentrant.yaml", "php-eval.yaml", "set-nx-px-token.yaml", "setnx-getset.yaml"}

// TestExampleDigests replays every built-in scenario, as written and over a
// lossy network, against each example file that predates the library
// files, and compares verdict and digest with testdata/digests.golden,
// written before the format took tokens' shapes, backoff, resends and the
// rest: a default that changed a draw from the random source, a clock
// reading or a command would move a digest here.
func TestExampleDigests(t *testing.T) {
	var b strings.Builder
	for _, name := range digestFiles {
		file, err := algofile.LoadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, base := range scenarios.Builtins() {
			for _, s := range []*scenarios.Scenario{base, lossy(base, 3)} {
				p, err := s.PrepareWith(file)
				if err != nil {
					fmt.Fprintf(&b, "%s %s seed %d: refused\n", name, s.Name, s.Seed)
					continue
				}
				o, err := judge.Prepared(s, p, model.Options{})
				if err != nil {
					t.Fatalf("%s %s: %v", name, s.Name, err)
				}
				fmt.Fprintf(&b, "%s %s seed %d: %s %s\n", name, s.Name, s.Seed, o.Verdict.Verdict, o.Digest)
			}
		}
	}
	golden.Check(t, filepath.Join("testdata", "digests.golden"), []byte(b.String()))
}
