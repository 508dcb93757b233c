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
		Cells:  [][]string{{"in: safe; out: safe", "in: —; out: unsafe #2 (2p/1f)*"}, {"in: safe; out: stuck #0"}},
		Counts: Counts{Cells: 4, NoInside: 1, Outside: AnswerCounts{Unsafe: 1, Failing: 2}}, Capped: 1, NoInside: 1}
	var b bytes.Buffer
	if err := WriteTable(&b, m); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| algorithm   | none                    | crash                          |\n",
		"| `a`         | in: safe; out: safe     | in: —; out: unsafe #2 (2p/1f)* |\n",
		"| `long-name` | in: safe; out: stuck #0 | ?                              |\n",
		"0 cells unsafe inside, 1 outside (of 4; 1 with no inside runs); failing: 0 inside, 2 outside.",
		"`in: —`: no inside runs",
		"`simrun matrix --seed 3 --runs 10 --shrink-tries 5`",
		"`*` marks an answer where it stopped there",
		"- `crash`: clients crash",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	m.Capped = 0
	b.Reset()
	_ = WriteTable(&b, m)
	if !strings.Contains(b.String(), "(no answer reached the budget)") || strings.Contains(b.String(), "breaking point") {
		t.Errorf("no cell capped, yet:\n%s", b.String())
	}
}
