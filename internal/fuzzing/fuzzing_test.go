package fuzzing

import (
	"flag"
	"testing"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// TestShortMinimize: ShortMinimize leaves the budget the fuzzer reads at
// MinimizeBudget, unless the command line gave one (go test
// -fuzzminimizetime 5s ./internal/fuzzing checks that side).
func TestShortMinimize(t *testing.T) {
	fl := flag.Lookup("test.fuzzminimizetime")
	if fl == nil {
		t.Fatal("the testing package has no -test.fuzzminimizetime flag")
	}
	given := false
	flag.Visit(func(v *flag.Flag) { given = given || v == fl })
	before := fl.Value.String()
	ShortMinimize(t)
	switch got := fl.Value.String(); {
	case given && got != before:
		t.Errorf("-fuzzminimizetime %s given, ShortMinimize made it %s", before, got)
	case !given && got != MinimizeBudget:
		t.Errorf("minimise budget %s, want %s", got, MinimizeBudget)
	}
}
