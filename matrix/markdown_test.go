package matrix

import (
	"bytes"
	"strings"
	"testing"
)

// WriteTable lays out what it is given: the cells' text in columns of one
// width, "?" where a row has no cell, the counts, and the budget note only
// when a cell reached it.
func TestWriteMatrixLayout(t *testing.T) {
	m := Table{Command: "simrun matrix --seed 3 --runs 10 --shrink-tries 5", Seed: 3, Runs: 10, ShrinkTries: 5,
		Algorithms: []string{"a", "long-name"}, Faults: []string{"none", "crash"},
		Cells: [][]string{{"safe", "unsafe #2 (2p/1f)*"}, {"stuck #0"}}, Counts: Counts{Cells: 4, Failing: 2}, Capped: 1}
	var b bytes.Buffer
	if err := WriteTable(&b, m); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| algorithm   | none     | crash              |\n",
		"| `a`         | safe     | unsafe #2 (2p/1f)* |\n",
		"| `long-name` | stuck #0 | ?                  |\n",
		"2 of 4 cells fail.",
		"`simrun matrix --seed 3 --runs 10 --shrink-tries 5`",
		"`*` marks a cell where it stopped there",
		"- `crash`: clients crash",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	m.Capped = 0
	b.Reset()
	_ = WriteTable(&b, m)
	if !strings.Contains(b.String(), "(no cell reached the budget)") {
		t.Errorf("no cell capped, yet:\n%s", b.String())
	}
}
