package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/matrix"
	"github.com/locksim/locksim/scenarios"
)

// The tests' simrun matrix commands share each matrix they search: a
// test that writes a matrix as Markdown and as JSON, then checks both
// files, asks for one matrix (with shrinking) and one without (--check's),
// and this binary searches each once. What the commands do with the
// matrix they get (the files, --check's comparison) is still done by
// each command; that a search gives the same matrix each time is
// matrix's own test (TestMatrixSameWhateverWorkers) and the workers
// tests here, whose matrices differ in --workers and so are not shared.
func init() { runMatrix = sharedMatrix }

var matrixCache struct {
	sync.Mutex
	m map[string]*matrix.Matrix
}

// sharedMatrix is matrix.Run, once per set of options. Only registered
// rows are shared: an algorithm file's lock is searched each time (two
// files may make locks of one name).
func sharedMatrix(ctx context.Context, o matrix.Options) (*matrix.Matrix, error) {
	if o.Progress != nil {
		return matrix.Run(ctx, o)
	}
	var rows []string
	for _, a := range o.Locks {
		if r, err := locks.Lookup(a.Name); err != nil || r.Source != a.Source || r.Summary != a.Summary {
			return matrix.Run(ctx, o)
		}
		rows = append(rows, a.Name)
	}
	key := fmt.Sprintf("%q %q %q seed %d runs %d workers %d shrink %d drawttl %v",
		o.Algorithms, o.Classes, rows, o.Seed, o.Runs, o.Workers, o.ShrinkTries, o.DrawTTL)
	matrixCache.Lock()
	defer matrixCache.Unlock() // one search at a time: each uses every core
	if m, ok := matrixCache.m[key]; ok {
		return m, nil
	}
	m, err := matrix.Run(ctx, o)
	if err != nil {
		return m, err
	}
	if matrixCache.m == nil {
		matrixCache.m = map[string]*matrix.Matrix{}
	}
	matrixCache.m[key] = m
	return m, nil
}

// narrowMatrix keeps the matrix to two rows for the length of a test.
func narrowMatrix(t *testing.T) {
	t.Helper()
	matrixAlgorithms = []string{"setnx-del-recover", "set-nx-px-token"}
	t.Cleanup(func() { matrixAlgorithms = nil })
}

// The same seed and runs print the same bytes, whatever the workers.
func TestMatrixSameBytesWhateverWorkers(t *testing.T) {
	skipUnderRace(t, "the matrix's workers are raced in ./matrix")
	narrowMatrix(t)
	var want string
	for _, w := range []string{"1", "2"} {
		code, out, errOut := simrun("matrix", "--runs", "200", "--seed", "3", "--workers", w)
		if code != exitOK || errOut != "" {
			t.Fatalf("--workers %s: exit %d, stderr %q", w, code, errOut)
		}
		if want == "" {
			want = out
		} else if out != want {
			t.Errorf("--workers %s prints:\n%s\nwant (--workers 1):\n%s", w, out, want)
		}
	}
	for _, s := range []string{"`simrun matrix --seed 3 --runs 200 --shrink-tries 10000`", "| `setnx-del-recover` |",
		"| algorithm ", " none ", " restart ", "**Two answers.**", "| in: "} {
		if !strings.Contains(want, s) {
			t.Errorf("no %q in\n%s", s, want)
		}
	}
}

// --check passes against the file the same command wrote, fails naming
// each cell whose verdict changed, and reads the JSON form too.
func TestMatrixCheck(t *testing.T) {
	skipUnderRace(t, "the matrix's workers are raced in ./matrix")
	narrowMatrix(t)
	dir := t.TempDir()
	md, js := filepath.Join(dir, "m.md"), filepath.Join(dir, "m.json")
	for _, args := range [][]string{{"-o", md}, {"--json", "-o", js}} {
		code, out, errOut := simrun(append([]string{"matrix", "--runs", "200"}, args...)...)
		if code != exitOK || !strings.HasPrefix(out, "wrote "+args[len(args)-1]+": ") || !strings.Contains(out, " outside (of 16; ") {
			t.Fatalf("%v: exit %d, %q, stderr %q", args, code, out, errOut)
		}
	}
	var j struct {
		Command string
		Cells   []map[string]any
	}
	data, _ := os.ReadFile(js)
	if err := json.Unmarshal(data, &j); err != nil || len(j.Cells) != 16 || j.Command != "simrun matrix --seed 1 --runs 200 --shrink-tries 10000" {
		t.Fatalf("JSON: %v %+v", err, j)
	}
	for _, k := range []string{"algorithm", "fault", "inside", "outside"} {
		if _, ok := j.Cells[0][k]; !ok {
			t.Errorf("no %q in a JSON cell: %v", k, j.Cells[0])
		}
	}
	for _, side := range []string{"inside", "outside"} {
		a, _ := j.Cells[0][side].(map[string]any)
		for _, k := range []string{"verdict", "first_failing_run", "shrunk"} {
			if _, ok := a[k]; !ok {
				t.Errorf("no %q in a JSON cell's %s answer: %v", k, side, j.Cells[0])
			}
		}
	}
	for _, f := range []string{md, js} {
		code, out, errOut := simrun("matrix", "--check", f)
		if code != exitOK || out != "matrix: all 16 verdicts as in "+f+" (seed 1, 200 runs per cell)\n" {
			t.Errorf("--check %s: exit %d, %q, stderr %q", f, code, out, errOut)
		}
	}

	// set-nx-px-token is safe with no faults: pretend it was not, and that
	// setnx-del-recover failed later under pause.
	data, _ = os.ReadFile(md)
	m, err := matrix.Read(md, data)
	if err != nil {
		t.Fatal(err)
	}
	safe, pause := m.Cell("set-nx-px-token", "none"), m.Cell("setnx-del-recover", "pause")
	if safe.Outside.Verdict != "safe" || pause.Outside.Verdict != "unsafe" || *pause.Outside.FirstFailingRun != 0 {
		t.Fatalf("the cells this test edits changed: %+v %+v", safe, pause)
	}
	three, nine := 3, 9
	safe.Outside.Verdict, safe.Outside.FirstFailingRun = "stuck", &three
	pause.Outside.FirstFailingRun = &nine
	var b bytes.Buffer
	if err := matrix.WriteMarkdown(&b, m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := simrun("matrix", "--check", md)
	want := "matrix: 1 of 16 verdicts differ from " + md + " (seed 1, 200 runs per cell):\n" +
		"  set-nx-px-token under none: in: safe; out: stuck #3 → in: safe; out: safe\n" +
		"note: 1 cell keeps its verdict but fails at another run, shrinks to another size or breaks another safety:\n" +
		"  setnx-del-recover under pause: in: safe (91/200 vacuous); out: unsafe #9 (2p/1f) lost update; breaking point: unsafe from a pause of 2.684s with 580ms of work, TTL 3s → in: safe (91/200 vacuous); out: unsafe #0 lost update\n" +
		"to accept the new matrix: simrun matrix --seed 1 --runs 200 --shrink-tries 10000 -o " + md + "\n"
	if code != exitViolation || out != want {
		t.Errorf("exit %d, output:\n%s\nwant exit 1 and:\n%s", code, out, want)
	}
}

// simrun matrix's line and the file it writes count the cells the same way
// (matrix.Counts), and the counts are the answers' verdicts: unsafe,
// failing (any failing verdict met), incomplete (neither that nor safe),
// each inside and outside, and the cells with no inside runs.
// set-nx-px-wait's and set-nx-px-token's rows hold all of them with 20
// runs a search (set-nx-px-token under failover has no inside runs).
func TestMatrixCountsAgree(t *testing.T) {
	skipUnderRace(t, "the matrix's workers are raced in ./matrix")
	matrixAlgorithms = []string{"set-nx-px-wait", "set-nx-px-token"}
	t.Cleanup(func() { matrixAlgorithms = nil })
	dir := t.TempDir()
	md, js := filepath.Join(dir, "m.md"), filepath.Join(dir, "m.json")
	var lines []string
	for _, args := range [][]string{{"-o", md}, {"--json", "-o", js}} {
		code, out, errOut := simrun(append([]string{"matrix", "--runs", "20", "--shrink-tries", "0"}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errOut)
		}
		lines = append(lines, out)
	}
	data, _ := os.ReadFile(js)
	type answer struct{ Verdict string }
	var j struct {
		Cells []struct {
			Inside  *answer
			Outside answer
		}
	}
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	var n matrix.Counts
	count := func(c *matrix.AnswerCounts, a answer) {
		switch a.Verdict {
		case "unsafe":
			c.Unsafe++
			c.Failing++
		case "stuck", "stale", "client-error":
			c.Failing++
		case "incomplete":
			c.Incomplete++
		}
	}
	for _, c := range j.Cells {
		n.Cells++
		if c.Inside == nil {
			n.NoInside++
		} else {
			count(&n.Inside, *c.Inside)
		}
		count(&n.Outside, c.Outside)
	}
	if n.Outside.Unsafe == 0 || n.Outside.Incomplete == 0 || n.NoInside == 0 || n.Outside.Failing+n.Outside.Incomplete == n.Cells {
		t.Fatalf("counted %+v: want unsafe, incomplete and safe answers and a cell with no inside runs (choose another row)", n)
	}
	said := n.String()
	page, _ := os.ReadFile(md)
	if !strings.Contains(string(page), "\n"+said+".\n") {
		t.Errorf("%s does not say %q", md, said)
	}
	for i, f := range []string{md, js} {
		if !strings.HasPrefix(lines[i], "wrote "+f+": "+said+"; ") {
			t.Errorf("simrun matrix -o %s says %q, want it to count %q", f, lines[i], said)
		}
	}
}

func TestMatrixBadInput(t *testing.T) {
	skipUnderRace(t, "the matrix's workers are raced in ./matrix")
	narrowMatrix(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "m.md")
	if code, _, errOut := simrun("matrix", "--runs", "50", "--shrink-tries", "0", "-o", good); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"matrix", "extra"}, "takes no arguments"},
		{[]string{"matrix", "--runs", "0"}, "--runs:"},
		{[]string{"matrix", "--workers", "-1"}, "--workers:"},
		{[]string{"matrix", "--shrink-tries", "-1"}, "--shrink-tries:"},
		{[]string{"matrix", "--check", filepath.Join(dir, "missing.md")}, "--check:"},
		{[]string{"matrix", "--check", "../../go.mod"}, "--check: ../../go.mod: not a matrix"},
		{[]string{"matrix", "--check", "main.go"}, "--check: main.go: not a matrix"},
		{[]string{"matrix", "--check", good, "--runs", "60"}, "--runs: 60: " + good + " was made with --runs 50"},
		{[]string{"matrix", "--check", good, "--seed", "2"}, "--seed: 2: " + good + " was made with --seed 1"},
		{[]string{"matrix", "-o", filepath.Join(dir, "no", "such", "dir.md"), "--runs", "1", "--shrink-tries", "0"}, "--out:"},
	} {
		code, _, errOut := simrun(c.args...)
		if code != exitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "simrun matrix: "+c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, errOut, c.want)
		}
	}
	// The same run space given explicitly is fine.
	if code, out, errOut := simrun("matrix", "--check", good, "--runs", "50", "--seed", "1"); code != exitOK {
		t.Errorf("exit %d, %q, %q", code, out, errOut)
	}
}

// The CI guard on the committed matrix: what the README tells a team to run.
func TestMatrixCheckCommitted(t *testing.T) {
	if testing.Short() {
		t.Skip("a row of the matrix; ./matrix's golden test regenerates the whole of it")
	}
	// One row, end to end: matrix writes it, --check accepts it, and each of
	// its cells reads as the committed matrix's (./matrix's golden test
	// recomputes every row). The row is setnx-del-recover's, the cheapest
	// to search (1.5 s, redlock's 7 s: most of its answers are unsafe
	// early, on one node) and one with safe and unsafe answers, vacuous
	// runs and breaking points.
	const row = "setnx-del-recover"
	file := filepath.Join(t.TempDir(), "m.md")
	if code, _, errOut := simrun("matrix", "--algo", row, "-o", file); code != exitOK {
		t.Fatalf("matrix --algo %s: exit %d: %s", row, code, errOut)
	}
	if code, out, errOut := simrun("matrix", "--check", file, "--algo", row); code != exitOK {
		t.Fatalf("check: exit %d: %s %s", code, out, errOut)
	}
	read := func(path string) matrix.JSON {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := matrix.Read(path, data)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	written, committed := read(file), read("../../reports/matrix.md")
	for _, class := range scenarios.FaultClasses {
		got, want := written.Cell(row, class), committed.Cell(row, class)
		if got == nil || want == nil {
			t.Fatalf("%s under %s: no cell (row %v, committed %v)", row, class, got != nil, want != nil)
		}
		if g, w := matrix.CellText(*got), matrix.CellText(*want); g != w {
			t.Errorf("%s under %s: %q, reports/matrix.md says %q (regenerate: go test ./matrix -run MatrixGolden -update)", row, class, g, w)
		}
	}
}

// --algo-file makes a one-row matrix of the file's lock, and --check with
// the same flag guards it.
func TestMatrixAlgoFile(t *testing.T) {
	skipUnderRace(t, "the matrix's workers are raced in ./matrix")
	file := filepath.Join(t.TempDir(), "m.md")
	code, _, errOut := simrun("matrix", "--algo-file", "../../examples/set-nx-px-token.yaml", "--runs", "50", "--shrink-tries", "2000", "-o", file)
	if code != exitOK {
		t.Fatalf("matrix --algo-file: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "--algo-file ../../examples/set-nx-px-token.yaml") || !strings.Contains(string(data), "`set-nx-px-token-file`") {
		t.Fatalf("the matrix should name the file's lock and the flag that chose it:\n%s", data)
	}
	if code, out, errOut := simrun("matrix", "--check", file, "--algo-file", "../../examples/set-nx-px-token.yaml"); code != exitOK {
		t.Fatalf("check: exit %d: %s %s", code, out, errOut)
	}
}

// A one-row matrix is checked against its own row: the --algo-file or
// --algo its header records, or a one-line refusal naming what is missing;
// never advice that would overwrite it with the full matrix. --check
// compares every verdict a cell met, not only the worst.
func TestMatrixCheckOneRow(t *testing.T) {
	skipUnderRace(t, "the matrix's workers are raced in ./matrix")
	dir := t.TempDir()
	mine := filepath.Join(dir, "my-lock.md")
	if code, _, errOut := simrun("matrix", "--algo-file", "../../examples/set-nx-px-token.yaml", "--runs", "30",
		"--shrink-tries", "0", "-o", mine); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, out, errOut := simrun("matrix", "--check", mine)
	if code != exitOK || out != "matrix: all 8 verdicts as in "+mine+" (seed 1, 30 runs per cell)\n" {
		t.Errorf("--check of a one-row --algo-file matrix: exit %d, %q, %q", code, out, errOut)
	}
	data, _ := os.ReadFile(mine)
	for _, c := range []struct{ name, from, to, want string }{
		{"file gone", "--algo-file ../../examples/set-nx-px-token.yaml", "--algo-file gone.yaml",
			"simrun matrix: --check: " + mine + " was made with --algo-file gone.yaml, which does not load ("},
		{"no row flag", " --algo-file ../../examples/set-nx-px-token.yaml", "",
			"simrun matrix: --check: " + mine + `: row "set-nx-px-token-file" is not a registered algorithm and the header records no --algo-file: give --algo-file FILE`},
	} {
		f := filepath.Join(dir, c.name+".md")
		if err := os.WriteFile(f, []byte(strings.Replace(string(data), c.from, c.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := simrun("matrix", "--check", f)
		want := strings.Replace(c.want, mine, f, 1)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", c.name, code, out, errOut, want)
		}
	}

	// --algo recorded: the row of a registered algorithm, every verdict met.
	py := filepath.Join(dir, "python.md")
	if code, _, errOut := simrun("matrix", "--algo", "python-setnx", "--runs", "20", "--shrink-tries", "0", "-o", py); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, _ = os.ReadFile(py)
	if !strings.Contains(string(data), " stale #0 · client-error #3 ") {
		t.Fatalf("python-setnx under pause should show stale #0 · client-error #3:\n%s", data)
	}
	if code, out, errOut := simrun("matrix", "--check", py); code != exitOK {
		t.Errorf("--check of an --algo matrix: exit %d, %q, %q", code, out, errOut)
	}
	// A cell that lost a verdict it met is a change.
	if err := os.WriteFile(py, []byte(strings.Replace(string(data), " stale #0 · client-error #3 ", " stale #0                   ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = simrun("matrix", "--check", py)
	want := "matrix: 1 of 8 verdicts differ from " + py + " (seed 1, 20 runs per cell):\n" +
		"  python-setnx under pause: in: client-error #2; out: stale #0 → in: client-error #2; out: stale #0 · client-error #3\n" +
		"to accept the new matrix: simrun matrix --seed 1 --runs 20 --shrink-tries 0 --algo python-setnx -o " + py + "\n"
	if code != exitViolation || out != want {
		t.Errorf("exit %d, output:\n%s\nwant exit 1 and:\n%s", code, out, want)
	}
}

// Each failing answer of a cell names the explore command that searches
// its side alone, and that command finds the same verdict at the same run:
// the book links it on the answer's page.
func TestMatrixAnswersReplay(t *testing.T) {
	m, err := matrix.Run(t.Context(), matrix.Options{Algorithms: []string{"setnx-del-recover"}, Classes: []string{"crash", "pause"},
		Seed: 1, Runs: 400, ShrinkTries: 100, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	sides := 0
	for _, c := range m.JSON("").Cells {
		for _, a := range []*matrix.JSONAnswer{c.Inside, &c.Outside} {
			if a == nil || a.FirstFailingRun == nil {
				continue
			}
			sides++
			args := strings.Fields(a.Replay)
			if len(args) < 2 || args[0] != "simrun" {
				t.Fatalf("%s under %s: replay %q", c.Algorithm, c.Fault, a.Replay)
			}
			side := args[len(args)-1]
			code, out, errOut := simrun(append(args[1:], "--json", "--out", t.TempDir())...)
			type answer struct {
				Verdict  string `json:"verdict"`
				FirstRun *int   `json:"first_run"`
			}
			var j struct{ Inside, Outside *answer }
			if err := json.Unmarshal([]byte(out), &j); err != nil || code != exitViolation {
				t.Fatalf("%s: exit %d, %v (stderr %q)", a.Replay, code, err, errOut)
			}
			got := j.Outside
			if side == "inside" {
				got = j.Inside
			}
			if got == nil {
				t.Fatalf("%s: no %s answer in %s", a.Replay, side, out)
			}
			if got.Verdict != a.Verdict || got.FirstRun == nil || *got.FirstRun != *a.FirstFailingRun {
				t.Errorf("%s: %s at run %v, the matrix's answer %s at run %d", a.Replay, got.Verdict, got.FirstRun, a.Verdict, *a.FirstFailingRun)
			}
		}
	}
	if sides < 2 {
		t.Errorf("%d failing answers: the test replays none on one side", sides)
	}
}
