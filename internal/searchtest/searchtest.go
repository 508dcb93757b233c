// Package searchtest is what the test binaries of packages whose tests are
// searches (explore, matrix, prove, ...) do before their tests: run the
// collector as simrun runs searches (internal/gctune). The results are the
// same; less of the CPU goes to collecting. A binary that runs benchmarks
// keeps Go's default collector, as docs/speed.md's figures were measured,
// or the GOGC a benchmark sets itself.
package searchtest

import (
	"flag"
	"os"
	"testing"

	"github.com/locksim/locksim/internal/gctune"
)

// Main is such a package's TestMain: func TestMain(m *testing.M) { searchtest.Main(m) }.
func Main(m *testing.M) {
	Start()
	os.Exit(m.Run())
}

// Start starts the tuner unless the binary runs benchmarks (-test.bench),
// parsing the test flags first if nothing has: for a TestMain that does more
// than Main, before its m.Run.
func Start() {
	if !flag.Parsed() {
		flag.Parse()
	}
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		return
	}
	gctune.Start()
}
