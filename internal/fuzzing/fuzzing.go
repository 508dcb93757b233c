// Package fuzzing holds what the fuzz targets share: a minimisation budget
// that keeps the fuzzer exploring instead of shrinking one input for a minute.
package fuzzing

import (
	"flag"
	"testing"
)

// MinimizeBudget is how many calls the fuzzer may spend shrinking an input
// that found new coverage or failed.
const MinimizeBudget = "1000x"

// ShortMinimize caps minimisation at MinimizeBudget unless the command line
// set -fuzzminimizetime. Call it before f.Fuzz.
//
// Go's default is 60 s, and its last pass removes every pair of cuts, quadratic
// in the input: on a YAML or JSON file of a few kilobytes, each new input
// took the whole budget, so a 60 s run explored for its first few seconds and
// then minimised (0 execs/s shown) until the end.
func ShortMinimize(tb testing.TB) {
	const name = "test.fuzzminimizetime"
	set := false
	flag.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	if set {
		return
	}
	if err := flag.Set(name, MinimizeBudget); err != nil {
		tb.Fatalf("-%s %s: %v", name, MinimizeBudget, err)
	}
}
