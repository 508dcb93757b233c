package matrix

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/fuzzing"
	"github.com/locksim/locksim/internal/golden"
	"github.com/locksim/locksim/internal/racedetect"
)

// matrixGolden is the matrix `simrun matrix` computes with its defaults,
// this package's golden file.
const matrixGolden = "testdata/matrix.md"

// publishedMatrix is the copy the README links to and the book shows: the
// golden file, byte for byte (TestPublishedMatrixIsTheGolden).
const publishedMatrix = "../reports/matrix.md"

// The committed matrix is what `simrun matrix` computes with its defaults.
// Regenerate it with `go test ./matrix -run MatrixGolden -update`, which
// writes testdata/matrix.md and its published copy reports/matrix.md, or
// `go run ./cmd/simrun matrix -o matrix/testdata/matrix.md` (the same bytes).
//
// It is the whole matrix with the command's own defaults, not a smaller
// stand-in: the cells are searched in parallel, and shrinking is bounded by
// a count of runs, so it takes seconds (about 15 on 2 cores).
func TestMatrixGolden(t *testing.T) {
	if racedetect.Enabled || testing.Short() {
		if golden.Update() {
			t.Fatal("-update rewrites the whole matrix: run it without -race and -short")
		}
		t.Log("-race or -short: a sample of cells; go test ./matrix -run MatrixGolden checks them all")
		matrixGoldenSample(t)
		return
	}
	start := time.Now()
	m, err := Run(context.Background(), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("matrix in %v: %d runs searched in %v, %d shrinking in %v", time.Since(start).Round(time.Millisecond),
		m.Executed, m.SearchTime.Round(time.Millisecond), m.ShrinkRuns, m.ShrinkTime.Round(time.Millisecond))
	var b bytes.Buffer
	if err := WriteMarkdown(&b, m.JSON("")); err != nil {
		t.Fatal(err)
	}
	if golden.Update() {
		golden.Write(t, matrixGolden, b.Bytes())
		golden.Write(t, publishedMatrix, b.Bytes())
		return
	}
	want, err := os.ReadFile(matrixGolden)
	if err != nil {
		t.Fatalf("%v (go test ./matrix -run MatrixGolden -update creates it)", err)
	}
	if b.String() == string(want) {
		return
	}
	old, err := Read(matrixGolden, want)
	if err != nil {
		t.Fatalf("%s differs from the output and does not read: %v", matrixGolden, err)
	}
	changed, moved := Diff(old, m.JSON(""))
	var diff strings.Builder
	for _, c := range append(changed, moved...) {
		diff.WriteString("  " + c.String() + "\n")
	}
	t.Errorf("%s differs from the output (go test ./matrix -run MatrixGolden -update rewrites it):\n%sgot:\n%s",
		matrixGolden, diff.String(), b.String())
}

// reports/matrix.md is the golden matrix, byte for byte; -update copies it
// there (after TestMatrixGolden, which writes both, when that one runs).
func TestPublishedMatrixIsTheGolden(t *testing.T) {
	want, err := os.ReadFile(matrixGolden)
	if err != nil {
		t.Fatal(err)
	}
	if golden.Update() {
		golden.Write(t, publishedMatrix, want)
		return
	}
	got, err := os.ReadFile(publishedMatrix)
	if err != nil {
		t.Fatal(err)
	}
	if d := golden.Diff(got, want); d != "" {
		t.Errorf("%s is not %s (go test ./matrix -run Published -update copies it):\n%s", publishedMatrix, matrixGolden, d)
	}
}

// docsMatrix is the page that shows the committed matrix's table.
const docsMatrix = "../docs/matrix.md"

// tableLines are the lines of a Markdown file's tables.
func tableLines(data []byte) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "| ") {
			out = append(out, l)
		}
	}
	return out
}

// docs/matrix.md shows the committed matrix's table, cell for cell.
func TestDocsShowTheCommittedMatrix(t *testing.T) {
	want, err := os.ReadFile(matrixGolden)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(docsMatrix)
	if err != nil {
		t.Fatal(err)
	}
	if w, g := strings.Join(tableLines(want), "\n"), strings.Join(tableLines(got), "\n"); w != g {
		t.Errorf("%s's table is not %s's: copy it from there", docsMatrix, matrixGolden)
	}
}

// goldenSample are the cells of the committed matrix that -race and -short
// recompute: the whole of it takes 11.6 GB and two minutes under the race
// detector. A failure found early and shrunk, one with another verdict met
// before it, one of a multi-node lock, a safe cell that searches every run
// (vacuous ones too); chosen among the cheap ones (a safe cell is 2000 runs,
// python-setnx's client-error under crash shrinks for 7 s without -race).
var goldenSample = [][2]string{{"setnx-del", "crash"}, {"setnx-getset-checked", "pause"}, {"redlock", "pause"}, {"setnx-del", "pause"}}

// matrixGoldenSample recomputes goldenSample with the committed matrix's
// settings and compares each cell's text with the committed one: a cell is
// a function of its own algorithm, class, seed, runs and shrink budget.
func matrixGoldenSample(t *testing.T) {
	data, err := os.ReadFile(matrixGolden)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read(matrixGolden, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, ac := range goldenSample {
		m, err := Run(context.Background(), Options{Algorithms: ac[:1], Classes: ac[1:], Seed: want.Seed, Runs: want.Runs,
			ShrinkTries: want.ShrinkTries})
		if err != nil {
			t.Fatal(err)
		}
		got := m.JSON("")
		if len(got.Cells) != 1 {
			t.Fatalf("%d cells, want 1", len(got.Cells))
		}
		c := got.Cells[0]
		w := want.Cell(c.Algorithm, c.Fault)
		if w == nil {
			t.Errorf("%s under %s: not in %s", c.Algorithm, c.Fault, matrixGolden)
		} else if CellText(c) != CellText(*w) {
			t.Errorf("%s under %s: %q, %s says %q", c.Algorithm, c.Fault, CellText(c), matrixGolden, CellText(*w))
		}
	}
}

func intp(i int) *int { return &i }

// sample is a hand-made matrix with every kind of cell and answer.
func sample() JSON {
	return JSON{
		Command: Command(7, 500, 100, ""), Seed: 7, Runs: 500, ShrinkTries: 100,
		Algorithms: []string{"setnx-del", "redlock", "fenced-token"},
		Faults:     []string{"none", "crash", "restart"},
		Cells: []JSONCell{
			{Algorithm: "setnx-del", Fault: "none", Inside: &JSONAnswer{Verdict: "safe"}, Outside: JSONAnswer{Verdict: "safe"}},
			{Algorithm: "setnx-del", Fault: "crash", Inside: &JSONAnswer{Verdict: "stuck", FirstFailingRun: intp(0), Shrunk: &explore.Shrunk{Processes: 2, Faults: 1}},
				Outside: JSONAnswer{Verdict: "stuck", FirstFailingRun: intp(0), Shrunk: &explore.Shrunk{Processes: 2, Faults: 1}}},
			{Algorithm: "setnx-del", Fault: "restart", NoInside: NoInsideRuns,
				Outside: JSONAnswer{Verdict: "client-error", FirstFailingRun: intp(499), Shrunk: &explore.Shrunk{Processes: 1, Faults: 1}, ShrinkCapped: true}},
			{Algorithm: "redlock", Fault: "none", Inside: &JSONAnswer{Verdict: "safe"}, Outside: JSONAnswer{Verdict: "safe"}},
			{Algorithm: "redlock", Fault: "crash", Inside: &JSONAnswer{Verdict: "safe", Runs: 500, VacuousRuns: 100},
				Outside: JSONAnswer{Verdict: "stale", FirstFailingRun: intp(12)}},
			{Algorithm: "redlock", Fault: "restart", NoInside: NoInsideRuns,
				Outside: JSONAnswer{Verdict: "unsafe", FirstFailingRun: intp(234), Shrunk: &explore.Shrunk{Processes: 2, Faults: 1},
					SafetyBroken: "lost update", Others: []JSONOther{{"stale", 7}, {"client-error", 0}}, BreakingPoint: "a node down for 1.2s"}},
			// Most of its runs restarted nodes the lock never used.
			{Algorithm: "fenced-token", Fault: "none", Inside: &JSONAnswer{Verdict: "incomplete", FirstFailingRun: intp(9)},
				Outside: JSONAnswer{Verdict: "safe", Runs: 500, VacuousRuns: 204}},
			{Algorithm: "fenced-token", Fault: "crash",
				Inside: &JSONAnswer{Verdict: "unsafe", FirstFailingRun: intp(30), Shrunk: &explore.Shrunk{Processes: 3, Faults: 2}, SafetyBroken: "lost update"},
				Outside: JSONAnswer{Verdict: "unsafe", FirstFailingRun: intp(3), Shrunk: &explore.Shrunk{Processes: 2, Faults: 1},
					ShrinkCapped: true, SafetyBroken: "overlap, resource safe"}},
			{Algorithm: "fenced-token", Fault: "restart", NoInside: NoInsideRuns,
				Outside: JSONAnswer{Verdict: "unsafe", FirstFailingRun: intp(40), SafetyBroken: "lock broken, resource safe",
					Others: []JSONOther{{"client-error", 0}}}},
		},
	}
}

func TestMatrixCellText(t *testing.T) {
	var got []string
	for _, c := range sample().Cells {
		got = append(got, CellText(c))
	}
	want := []string{
		"in: safe; out: safe",
		"in: stuck #0 (2p/1f); out: stuck #0 (2p/1f)",
		"in: —; out: client-error #499 (1p/1f)*",
		"in: safe; out: safe",
		"in: safe (100/500 vacuous); out: stale #12",
		"in: —; out: unsafe #234 (2p/1f) lost update · stale #7 · client-error #0; breaking point: a node down for 1.2s",
		"in: incomplete #9; out: safe (204/500 vacuous)",
		"in: unsafe #30 (3p/2f) lost update; out: unsafe #3 (2p/1f)* overlap, resource safe",
		"in: —; out: unsafe #40 lock broken, resource safe · client-error #0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	m := sample()
	if n, want := m.Counts().String(), "1 cell unsafe inside, 3 outside (of 9; 3 with no inside runs); failing: 2 inside, 6 outside; incomplete: 1 inside, 0 outside"; n != want {
		t.Errorf("counts %q, want %q", n, want)
	}
}

// What WriteTable writes, Read reads back: the run space and every
// cell's verdict, first failing run, size and budget mark. JSON carries
// everything.
func TestMatrixRoundTrip(t *testing.T) {
	m := sample()
	var md, js bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, m); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(l, "|") && utf8.RuneCountInString(l) != utf8.RuneCountInString(strings.Split(md.String(), "\n")[8]) {
			t.Errorf("table lines of different widths:\n%s", md.String())
			break
		}
	}
	if !strings.Contains(md.String(), "`simrun matrix --seed 7 --runs 500 --shrink-tries 100`") ||
		!strings.Contains(md.String(), "| `redlock`      | in: safe; out: safe ") || !strings.Contains(md.String(), "`*` marks") ||
		!strings.Contains(md.String(), "`in: —`: no inside runs") || !strings.Contains(md.String(), "`breaking point:` the smallest fault") ||
		!strings.Contains(md.String(), "`safe (V/500 vacuous)`: none failed") || !strings.Contains(md.String(), "`lock broken, resource safe` when") {
		t.Errorf("markdown:\n%s", md.String())
	}
	fromMD, err := Read("m.md", md.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromMD, m) {
		t.Errorf("from Markdown:\n%+v\nwant\n%+v", fromMD, m)
	}
	full := m
	full.Cells = append([]JSONCell(nil), m.Cells...)
	full.Cells[1].Outside.Shrunk = &explore.Shrunk{Processes: 2, Faults: 1, Events: 58}
	full.Cells[1].Outside.ShrinkTries, full.Cells[1].Outside.Replay = 40, "simrun explore --algo setnx-del --faults crash --seed 7 --runs 500"
	full.Cells[6].Inside = &JSONAnswer{Verdict: "incomplete", FirstFailingRun: intp(9), Cut: "duration limit 1m0s reached"}
	js.Reset()
	_ = WriteJSON(&js, full)
	fromJSON, err := Read("m.json", js.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, full) {
		t.Errorf("from JSON:\n%+v\nwant\n%+v", fromJSON, full)
	}
}

// Anything that is not a matrix is refused with the file's name, and the
// line where it can tell.
func TestReadMatrixErrors(t *testing.T) {
	var good bytes.Buffer
	_ = WriteMarkdown(&good, sample())
	g := good.String()
	// firstSafe is g with its first cell that reads "in: safe; out: safe"
	// replaced, whatever the column's width.
	firstSafe := func(to string) string {
		at := regexp.MustCompile(`\| in: safe; out: safe +\|`).FindStringIndex(g)
		return g[:at[0]] + "| " + to + " |" + g[at[1]:]
	}
	jsonCell := func(cell string) string {
		return `{"seed": 1, "runs": 10, "algorithms": ["a"], "faults": ["none"], "cells": [` + cell + `]}`
	}
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "no `simrun matrix"},
		{"readme", "# locksim\n\nSome text.\n| a | b |\n|---|---|\n", "no `simrun matrix"},
		{"binary", "\xff\xfe\x00", "not UTF-8"},
		{"no table", "`simrun matrix --seed 1 --runs 10`\n", "no table"},
		{"no seed", strings.Replace(g, "--seed 7 ", "", 1), "want --seed and --runs"},
		{"bad runs", strings.Replace(g, "--runs 500", "--runs many", 1), `"many": not a number`},
		{"bad verdict", strings.Replace(g, "stuck #0", "broken #0", 1), `m.md:11: setnx-del under crash: inside: "broken #0 (2p/1f)" is not an answer`},
		{"safe with a run", firstSafe("in: safe; out: safe #3"), "setnx-del under none, outside: safe with first failing run 3"},
		{"unsafe without", strings.Replace(g, "stale #12", "stale    ", 1), "redlock under crash, outside: stale with first failing run none"},
		{"run out of range", strings.Replace(g, "#499", "#500", 1), "outside [0, 500)"},
		{"cells", strings.Replace(g, "| in: safe (100/500 vacuous); out: stale #12", "", 1), "m.md:12: 3 cells, want 4"},
		{"fault class", strings.Replace(g, "| restart ", "| gc      ", 1), `column "gc" is not a fault class`},
		{"twice", strings.Replace(g, "`redlock`", "`setnx-del`", 1), "appears twice"},
		{"no separator", strings.Replace(g, "| -", "| x", 1), "m.md:10: want the table's |---| line"},
		{"bad other", strings.Replace(g, "· stale #7", "· stale", 1), `"stale" is not another verdict met`},
		{"other safe", strings.Replace(g, "· stale #7", "· safe #7", 1), `"safe #7" is not another verdict met`},
		{"other twice", strings.Replace(g, "· stale #7", "· unsafe #7", 1), "unsafe met twice"},
		{"other out of range", strings.Replace(g, "· stale #7", "· stale #900", 1), "stale at run 900 outside [0, 500)"},
		{"others of safe", firstSafe("in: safe; out: safe · stale #1"), `setnx-del under none: outside: "safe · stale #1" is not an answer as simrun writes it ("safe")`},
		{"leading zero", strings.Replace(g, "#499", "#0499", 1), `"client-error #0499 (1p/1f)*" is not an answer as simrun writes it`},
		{"signed run", strings.Replace(g, "#499", "#+499", 1), `"client-error #+499 (1p/1f)*" is not an answer`},
		{"broke on stuck", strings.Replace(g, "stuck #0 (2p/1f)", "stuck #0 (2p/1f) lost update", 1), `setnx-del under crash, inside: stuck with safety broken "lost update"`},
		{"unknown broke", strings.Replace(g, "(2p/1f) lost update", "(2p/1f) lost updates", 1), `"unsafe #234 (2p/1f) lost updates" is not an answer`},
		{"broke twice", strings.Replace(g, "(2p/1f) lost update", "(2p/1f) lost update lost update", 1), `is not an answer`},
		{"broke on safe", firstSafe("in: safe; out: safe lost update"), `"safe lost update" is not an answer as simrun writes it ("safe")`},
		{"vacuous of fewer runs", strings.Replace(g, "(204/500 vacuous)", "(204/400 vacuous)", 1), "fenced-token under none, outside: safe after 400 runs searched, want all 500"},
		{"vacuous of more runs", strings.Replace(g, "(204/500 vacuous)", "(604/500 vacuous)", 1), "604 vacuous runs of 500 searched"},
		{"vacuous unnamed", strings.Replace(g, "(204/500 vacuous)", "(204/500)        ", 1), `"safe (204/500)" is not an answer`},
		{"vacuous spaced", strings.Replace(g, "(204/500 vacuous)", "(204 / 500 vacuous)", 1), `is not an answer`},
		{"vacuous on a failing answer", strings.Replace(g, "stale #12", "stale (1/500 vacuous)", 1), "redlock under crash, outside: stale with first failing run none"},
		{"one answer", firstSafe("safe"), "written before its cells answered inside and outside the lock's assumptions: make it again"},
		{"no outside", firstSafe("in: safe; safe"), `"in: safe; safe" is not a cell (want in: ANSWER; out: ANSWER`},
		{"outside first", firstSafe("out: safe; in: safe"), `is not a cell (want in: ANSWER; out: ANSWER`},
		{"bad breaking point", strings.Replace(g, "; breaking point: ", "; breaks at: ", 1), `"breaks at: a node down for 1.2s" is not a breaking point`},
		{"empty breaking point", strings.Replace(g, "; breaking point: a node down for 1.2s", "; breaking point:                    ", 1), `is not a breaking point`},
		{"breaking point on safe", firstSafe("in: safe; out: safe; breaking point: x"), "setnx-del under none: a breaking point on a safe outside answer"},
		{"json broke on safe", jsonCell(`{"algorithm": "a", "fault": "none", "inside": {"verdict": "safe"}, "outside": {"verdict": "safe", "safety_broken": "lost update"}}`), `a under none, outside: safe with safety broken "lost update"`},
		{"json negative vacuous", jsonCell(`{"algorithm": "a", "fault": "none", "inside": {"verdict": "safe", "runs": 10, "vacuous_runs": -1}, "outside": {"verdict": "safe"}}`), "a under none, inside: -1 vacuous runs of 10"},
		{"json", `{"seed": 1, "runs": 10, "cells": [`, "not a matrix's JSON"},
		{"json no cells", `{"seed": 1, "runs": 10}`, "no cells"},
		{"json stray cell", jsonCell(`{"algorithm": "b", "fault": "none", "no_inside": "x", "outside": {"verdict": "safe"}}`), "b under none: not a row and column"},
		{"json one answer", jsonCell(`{"algorithm": "a", "fault": "none", "verdict": "safe"}`), "written before its cells answered inside and outside"},
		{"json one answer, failing", jsonCell(`{"algorithm": "a", "fault": "none", "first_failing_run": 2, "verdict": "stale"}`), "written before its cells answered inside and outside"},
		{"json inside and why not", jsonCell(`{"algorithm": "a", "fault": "none", "inside": {"verdict": "safe"}, "no_inside": "x", "outside": {"verdict": "safe"}}`), "a under none: want an inside answer or why it has none"},
		{"json neither", jsonCell(`{"algorithm": "a", "fault": "none", "outside": {"verdict": "safe"}}`), "a under none: want an inside answer or why it has none"},
		{"json breaking point inside", jsonCell(`{"algorithm": "a", "fault": "none", "inside": {"verdict": "stale", "first_failing_run": 1, "breaking_point": "x"}, "outside": {"verdict": "safe"}}`), "a breaking point on the inside answer"},
		{"json breaking point of two lines", jsonCell(`{"algorithm": "a", "fault": "none", "no_inside": "x", "outside": {"verdict": "stale", "first_failing_run": 1, "breaking_point": "a; b"}}`), `breaking point "a; b": want one line`},
	} {
		_, err := Read("m.md", []byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), "m.md") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming m.md containing %q", c.name, err, c.want)
		}
	}
}

// Two breaking points that differ are a move; one not measured is not.
func TestMovedBreakingPoint(t *testing.T) {
	a := JSONAnswer{Verdict: "unsafe", FirstFailingRun: intp(3), BreakingPoint: "unsafe from a pause of 3s"}
	b := a
	b.BreakingPoint = "unsafe from a pause of 4s"
	if !movedAnswer(a, b) {
		t.Error("two breaking points: not a move")
	}
	b.BreakingPoint = ""
	if movedAnswer(a, b) {
		t.Error("a breaking point not measured: a move")
	}
}

func TestMatrixDiff(t *testing.T) {
	was := sample()
	now := sample()
	now.Cells = append([]JSONCell(nil), was.Cells...)
	out := func(a JSONAnswer) JSONAnswer { return a }
	now.Cells[0].Outside = JSONAnswer{Verdict: "unsafe", FirstFailingRun: intp(3)} // outside: safe → unsafe
	now.Cells[3].Inside = &JSONAnswer{Verdict: "stale", FirstFailingRun: intp(4)}  // inside: safe → stale
	now.Cells[5].Outside = out(was.Cells[5].Outside)
	now.Cells[5].Outside.FirstFailingRun, now.Cells[5].Outside.Others = intp(100), []JSONOther{{"stale", 9}, {"client-error", 0}}
	now.Cells[7].Outside.SafetyBroken = "lost update" // the same verdict, another safety broken
	now.Cells[7].Inside = &JSONAnswer{Verdict: "unsafe", FirstFailingRun: intp(31), Shrunk: &explore.Shrunk{Processes: 3, Faults: 2}, SafetyBroken: "lost update"}
	now.Cells[6].Outside.VacuousRuns = 3                                                                                                    // not compared
	now.Cells[8].Outside.SafetyBroken = ""                                                                                                  // a matrix that does not say: not compared
	now.Cells[1].Outside.Others = []JSONOther{{"client-error", 3}}                                                                          // a verdict met that was not
	now.Cells[2].Outside.BreakingPoint = "a node down for 10ms"                                                                             // measured where none was: not compared
	now.Cells = append(now.Cells[:4], now.Cells[5:]...)                                                                                     // redlock under crash is gone
	now.Cells = append(now.Cells, JSONCell{Algorithm: "mine", Fault: "none", NoInside: NoInsideRuns, Outside: JSONAnswer{Verdict: "safe"}}) // a new row
	changed, moved := Diff(was, now)
	var got []string
	for _, c := range changed {
		got = append(got, c.String())
	}
	want := []string{
		"setnx-del under none: in: safe; out: safe → in: safe; out: unsafe #3",
		"setnx-del under crash: in: stuck #0 (2p/1f); out: stuck #0 (2p/1f) → in: stuck #0 (2p/1f); out: stuck #0 (2p/1f) · client-error #3",
		"redlock under none: in: safe; out: safe → in: stale #4; out: safe",
		"mine under none: (no cell) → in: —; out: safe",
		"redlock under crash: in: safe (100/500 vacuous); out: stale #12 → (no cell)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changed %q\nwant %q", got, want)
	}
	got = nil
	for _, c := range moved {
		got = append(got, c.String())
	}
	want = []string{
		"redlock under restart: in: —; out: unsafe #234 (2p/1f) lost update · stale #7 · client-error #0; breaking point: a node down for 1.2s → in: —; out: unsafe #100 (2p/1f) lost update · stale #9 · client-error #0; breaking point: a node down for 1.2s",
		"fenced-token under crash: in: unsafe #30 (3p/2f) lost update; out: unsafe #3 (2p/1f)* overlap, resource safe → in: unsafe #31 (3p/2f) lost update; out: unsafe #3 (2p/1f)* lost update",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("moved %q\nwant %q", got, want)
	}
	if c, m := Diff(was, was); len(c)+len(m) != 0 {
		t.Errorf("a matrix differs from itself: %v %v", c, m)
	}
}

// Read never panics, and what it reads from Markdown it writes back
// and reads again the same.
func FuzzReadMatrix(f *testing.F) {
	fuzzing.ShortMinimize(f) // long inputs: see internal/fuzzing
	var md, js bytes.Buffer
	_ = WriteMarkdown(&md, sample())
	_ = WriteJSON(&js, sample())
	f.Add(md.Bytes())
	f.Add(js.Bytes())
	f.Add([]byte(`{"runs": 10, "algorithms": ["a"], "faults": ["none"], "cells": [{"algorithm": "a", "fault": "none", "inside": {"verdict": "safe"}, "outside": {"verdict": "safe"}}]}`))
	f.Add([]byte("`simrun matrix --check FILE`, `simrun matrix --seed 1 --runs 3`\n| algorithm | none |\n|-|-|\n| `a` | in: —; out: unsafe #2 (1p/0f)*; breaking point: x |\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read("f", data)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := WriteMarkdown(&b, m); err != nil {
			t.Fatal(err)
		}
		again, err := Read("f", b.Bytes())
		if err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		for i, c := range m.Cells {
			if CellText(c) != CellText(again.Cells[i]) {
				t.Fatalf("cell %d: %q, then %q", i, CellText(c), CellText(again.Cells[i]))
			}
		}
	})
}

// An incomplete answer (nothing failed, a run was cut) reads back as
// written and is not counted among the failing answers, nor as safe.
func TestMatrixIncompleteCell(t *testing.T) {
	four, seven := 4, 7
	cells := []JSONCell{
		{Algorithm: "a", Fault: "net", Inside: &JSONAnswer{Verdict: "safe"}, Outside: JSONAnswer{Verdict: "incomplete", FirstFailingRun: &four}},
		{Algorithm: "a", Fault: "crash", Inside: &JSONAnswer{Verdict: "incomplete", FirstFailingRun: &four},
			Outside: JSONAnswer{Verdict: "unsafe", FirstFailingRun: &seven, Others: []JSONOther{{Verdict: "incomplete", FirstRun: 2}}}},
	}
	for i, want := range []string{"in: safe; out: incomplete #4", "in: incomplete #4; out: unsafe #7 · incomplete #2"} {
		text := CellText(cells[i])
		if text != want {
			t.Errorf("cell %d: %q, want %q", i, text, want)
		}
		back, err := parseCell(text)
		if err != nil || CellText(back) != text {
			t.Errorf("cell %d: %q reads back as %q, %v", i, text, CellText(back), err)
		}
	}
	m := JSON{Algorithms: []string{"a"}, Faults: []string{"net", "crash"}, Cells: cells}
	want := Counts{Cells: 2, Inside: AnswerCounts{Incomplete: 1}, Outside: AnswerCounts{Unsafe: 1, Failing: 1, Incomplete: 1}}
	if n := m.Table().Counts; n != want {
		t.Errorf("counts %+v, want %+v (incomplete does not fail)", n, want)
	}
	if got, want := m.Counts().String(), "0 cells unsafe inside, 1 outside (of 2); failing: 0 inside, 1 outside; incomplete: 1 inside, 1 outside"; got != want {
		t.Errorf("counts say %q, want %q", got, want)
	}
	// Only an incomplete answer has a cut.
	cells[1].Outside.Cut = "duration limit 1s reached"
	m.Runs = 10
	if err := check(m); err == nil || !strings.Contains(err.Error(), "a under crash, outside: unsafe with a cut") {
		t.Errorf("a cut on an unsafe answer: %v", err)
	}
}

// The JSON is read as strictly as the Markdown: keys exactly as written
// (encoding/json alone matches them in any case), rows named as algorithms
// are, and no row or column twice. Each of these was accepted, and the
// first two written as Markdown the reader then refused.
func TestReadMatrixJSONStrict(t *testing.T) {
	cell := `{"algorithm":"a","fault":"none","inside":{"verdict":"safe"},"outside":{"verdict":"safe"}}`
	for _, c := range []struct{ json, err string }{
		{`{"runs":1,"Algorithms":["a"],"faults":["none"],"cells":[` + cell + `]}`, `unknown field "Algorithms"`},
		{`{"runs":1,"algorithms":["a"],"faults":["none"],"cells":[{"algorithm":"a","fAult":"none","outside":{"verdict":"safe"}}]}`, `cells[0]: unknown field "fAult"`},
		{`{"runs":1,"algorithms":["a"],"faults":["none"],"cells":[{"algorithm":"a","fault":"none","outside":{"Verdict":"safe"}}]}`, `cells[0].outside: unknown field "Verdict"`},
		{`{"runs":1,"algorithms":[""],"faults":["none"],"cells":[{"algorithm":"","fault":"none","inside":{"verdict":"safe"},"outside":{"verdict":"safe"}}]}`, `row 1: algorithm name ""`},
		{`{"runs":1,"algorithms":["a|b"],"faults":["none"],"cells":[{"algorithm":"a|b","fault":"none","inside":{"verdict":"safe"},"outside":{"verdict":"safe"}}]}`, `row 1: algorithm name "a|b"`},
		{`{"runs":1,"algorithms":["a","a"],"faults":["none"],"cells":[` + cell + `,` + cell + `]}`, `row 2: algorithm a appears twice`},
		{`{"runs":1,"algorithms":["a"],"faults":["none","none"],"cells":[` + cell + `,` + cell + `]}`, `column none appears twice`},
	} {
		_, err := Read("m.json", []byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", c.json, err, c.err)
		}
	}
	if _, err := Read("m.json", []byte(`{"runs":1,"algorithms":["a"],"faults":["none"],"cells":[`+cell+`]}`)); err != nil {
		t.Errorf("a valid matrix: %v", err)
	}
}

// What the Markdown cannot say, the JSON may not say either: a shrunk size
// below 0, a shrunk safe answer, row flags that do not read back from the
// command line.
func TestReadMatrixJSONRefusesWhatMarkdownCannotSay(t *testing.T) {
	safe := `{"algorithm":"a","fault":"none","inside":{"verdict":"safe"},"outside":{"verdict":"safe"}}`
	for _, c := range []struct{ cell, rowFlags, err string }{
		{`{"algorithm":"a","fault":"none","inside":{"verdict":"safe"},"outside":{"verdict":"stuck","first_failing_run":0,"shrunk":{"processes":1,"faults":-1}}}`, ``, `a under none, outside: shrunk to 1 processes, -1 faults`},
		{`{"algorithm":"a","fault":"none","inside":{"verdict":"safe","shrunk":{"processes":1,"faults":1}},"outside":{"verdict":"safe"}}`, ``, `a under none, inside: safe with a shrunk counterexample`},
		{safe, `--algo a --algo-file b`, `row_flags "--algo a --algo-file b"`},
		{safe, "--algo `a`", "row_flags \"--algo `a`\""},
		{safe, `-o x`, `row_flags "-o x"`},
	} {
		rf, _ := json.Marshal(c.rowFlags)
		data := `{"runs":1,"row_flags":` + string(rf) + `,"algorithms":["a"],"faults":["none"],"cells":[` + c.cell + `]}`
		_, err := Read("m.json", []byte(data))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one with %q", data, err, c.err)
		}
	}
	ok := `{"runs":1,"row_flags":"--algo-file 'my lock.yaml'","algorithms":["a"],"faults":["none"],"cells":[` + safe + `]}`
	if _, err := Read("m.json", []byte(ok)); err != nil {
		t.Errorf("row flags naming a file with a space: %v", err)
	}
}
