package reports

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
)

// Every built-in run's text report, trace included, fits a terminal of 100
// columns (the trace is folded to the terminal's width, here 100): the
// README promises it, and a longer line wraps and breaks the columns.
func TestBuiltinRunsFit100Columns(t *testing.T) {
	if n := len(scenarios.Names()); n < 30 {
		t.Fatalf("%d built-ins, want the catalogue's 30 or more", n)
	}
	for _, name := range scenarios.Names() {
		o := builtin(t, name)
		var b strings.Builder
		if err := WriteTextWith(&b, o, TextOptions{Trace: true, TraceWidth: 100}); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(b.String(), "\n") {
			// Bytes: the arrows and ellipses may draw two columns wide.
			if n := len(line); n > 100 {
				t.Errorf("%s: line %d has %d columns: %s", name, i+1, n, line)
			}
		}
	}
}
