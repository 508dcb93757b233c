package foreign_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"context"

	"github.com/locksim/locksim/internal/golden"
	"github.com/locksim/locksim/internal/racedetect"
	"github.com/locksim/locksim/internal/searchtest"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/resolve"
	"github.com/locksim/locksim/matrix"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/foreign"
)

// TestMain: these tests are searches, run as simrun runs them (internal/searchtest).
func TestMain(m *testing.M) { searchtest.Main(m) }

// needs skips t when one of the lock programs at paths cannot run here
// (no interpreter, or a Node program's packages not installed: npm ci),
// saying why.
func needs(t testing.TB, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := foreign.Runnable(p); err != nil {
			t.Skip(err)
		}
	}
}

// commands is a run's commands and their replies, one line each: what two
// locks that behave alike send and see, whatever their tokens (each run of
// 16 or more hex digits reads "<hex>": a uuid, a random token, a script's
// sha1).
func commands(h sim.History) []string {
	var out []string
	for _, e := range h.Events {
		if e.Kind == sim.KindCommandResult {
			line := fmt.Sprintf("%s %s %s → %s%s", e.At.String(), h.Procs[e.Proc], strings.Join(e.Args, " "), e.Reply.String(), e.Err)
			out = append(out, hexRun.ReplaceAllString(line, "<hex>"))
		}
	}
	return out
}

var hexRun = regexp.MustCompile(`[0-9a-f]{16,}`)

// outcome runs scenario s with lock l: its verdict, its commands, or why
// it cannot run.
func outcome(s *scenarios.Scenario, l resolve.Lock) (string, []string, *judge.Outcome) {
	p, err := l.Prepare(s)
	if err != nil {
		return "n/a: " + firstLine(err.Error()), nil, nil
	}
	o, err := judge.Prepared(s, p, model.Options{})
	if err != nil {
		return "error: " + firstLine(err.Error()), nil, nil
	}
	return o.Verdict.String(), commands(o.Result.History), o
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// TestDocument002AgainstItsMirror runs every built-in scenario, and
// explore class by class, with 002's code pasted verbatim
// (python/002-document.py, through 002-setnx.py) and with its Go mirror,
// python-setnx: testdata/002-vs-python-setnx.md. docs/foreign.md explains
// each difference.
func TestDocument002AgainstItsMirror(t *testing.T) {
	t.Parallel()
	needs(t, "python/002-setnx.py")
	table := agreement(t, "python-setnx (Go mirror)", "python-setnx", "002's code, verbatim", "python/002-setnx.py", "testdata/002-vs-python-setnx.md", 0, classRuns)
	inDoc(t, "002-vs-python-setnx", table)
}

// TestDocument004AgainstItsMirror: 004's PHP pasted verbatim
// (php/004-document.php, a class body, through 004-set-get.php and predis)
// against its Go mirror, php-set-get: testdata/004-vs-php-set-get.md.
// docs/foreign.md ("004's PHP") explains each difference.
func TestDocument004AgainstItsMirror(t *testing.T) {
	t.Parallel()
	needs(t, "php/004-set-get.php")
	agreement(t, "php-set-get (Go mirror)", "php-set-get", "004's code, verbatim", "php/004-set-get.php", "testdata/004-vs-php-set-get.md", 0, phpClassRuns)
}

// TestRedisPyLockAgainstItsAlgorithmFile: redis-py's Lock itself (Debian's
// 4.3.4) against ../redis-py-lock.yaml, the algorithm file written from its
// documented behaviour, with the same settings.
func TestRedisPyLockAgainstItsAlgorithmFile(t *testing.T) {
	t.Parallel()
	needs(t, "python/redis-py-lock.py")
	agreement(t, "redis-py-lock.yaml", "../redis-py-lock.yaml", "redis-py 4.3.4's Lock", "python/redis-py-lock.py", "testdata/redis-py-lock-vs-algorithm-file.md", 0, classRuns)
}

// TestRedlockAgainstItsAlgorithmFile: node-redlock 4.2.0 and 5.0.0-beta.2
// over ioredis (examples/foreign/node) against ../redlock.yaml, the
// reference Redlock as an algorithm file, on one node and on three (every
// scenario's node count set so, where it sets none). A fresh Node worker
// takes about 0.15 s to start (redlock 5's are reset and reused after
// that, redlock 4's start fresh: docs/foreign.md, "Workers"), so the
// classes are searched less far.
func TestRedlockAgainstItsAlgorithmFile(t *testing.T) {
	t.Parallel()
	needs(t, "node/redlock-v4.js", "node/redlock-v5.js")
	for _, c := range []struct {
		version string
		nodes   int
		runs    int
	}{{"v5", 3, nodeClassRuns}, {"v5", 1, 0}, {"v4", 3, nodeClassRuns}, {"v4", 1, 0}} {
		t.Run(fmt.Sprintf("%s-%dnode", c.version, c.nodes), func(t *testing.T) {
			agreement(t, "redlock.yaml", "../redlock.yaml", "node-redlock "+c.version, "node/redlock-"+c.version+".js",
				fmt.Sprintf("testdata/redlock-%s-%dnode-vs-algorithm-file.md", c.version, c.nodes), c.nodes, c.runs)
		})
	}
}

// phpClassRuns is each class's search for a PHP program, set when its
// workers started fresh (about 30 ms each; they are forked now): more runs
// would rewrite the agreement table.
const phpClassRuns = 30

// nodeClassRuns is each class's search for a Node program: a tenth of a
// Python one's, as a fresh worker costs ten times as much to start.
const nodeClassRuns = 10

// classRuns is each class's search, both halves, in the agreement tables:
// enough to meet what each class breaks in a lock this simple (the matrix
// searches 2,000).
const classRuns = 100

// agreement writes, for two locks (a name or a file each), the table of
// every built-in scenario's verdict and whether the two sent the same
// commands and saw the same replies, then each explore class's answers,
// inside and outside the assumptions, and checks it against golden.
//
// nodes > 0 runs every scenario that sets no node count of its own on that
// many; runs is each class's search (0: no class table).
func agreement(t *testing.T, aTitle, aLock, bTitle, bLock, goldenFile string, nodes, runs int) (catalogue string) {
	t.Helper()
	a, b := lockOf(t, aLock), lockOf(t, bLock)
	var out strings.Builder
	fmt.Fprintf(&out, "| scenario | %s | %s | commands |\n|---|---|---|---|\n", aTitle, bTitle)
	same, sameVerdict, both := 0, 0, 0
	if nodes > 0 {
		fmt.Fprintf(&out, "Every scenario that sets no node count of its own runs on %d.\n\n", nodes)
	}
	for _, s := range scenarios.Builtins() {
		if nodes > 0 && s.Params.Nodes == 0 && len(s.Nodes) == 0 {
			c := *s
			c.Params.Nodes = nodes
			s = &c
		}
		av, ac, _ := outcome(s, a)
		bv, bc, _ := outcome(s, b)
		cmds := "same"
		if ac != nil && bc != nil {
			both++
			if verdictOf(av) == verdictOf(bv) {
				sameVerdict++
			}
		}
		switch {
		case ac == nil || bc == nil:
			cmds = "—"
		case !slices.Equal(ac, bc):
			i := 0
			for i < len(ac) && i < len(bc) && ac[i] == bc[i] {
				i++
			}
			cmds = fmt.Sprintf("differ from the %s of %d", ordinal(i+1), max(len(ac), len(bc)))
		default:
			if av == bv {
				same++
			}
		}
		fmt.Fprintf(&out, "| %s | %s | %s | %s |\n", s.Name, av, bv, cmds)
	}
	fmt.Fprintf(&out, "\n%d of the catalogue's %d runs: the same commands, replies and verdict; %d of %d that both run, the same verdict.\n", same, len(scenarios.Builtins()), sameVerdict, both)
	catalogue = out.String()
	if runs == 0 {
		golden.Check(t, goldenFile, []byte(out.String()))
		return catalogue
	}
	if racedetect.Enabled {
		// The workers are other processes; the Go side's races show in
		// the catalogue already. The classes' searches are the plain
		// run's.
		t.Log("under -race: the catalogue only; go test ./examples/foreign checks the classes too")
		if want, err := os.ReadFile(goldenFile); err != nil || !strings.HasPrefix(string(want), out.String()) {
			t.Errorf("%s does not start with the catalogue's table (%v): go test ./examples/foreign -update rewrites it", goldenFile, err)
		}
		return catalogue
	}
	out.WriteString("\n")
	m, err := matrix.Run(context.Background(), matrix.Options{Locks: []locks.Algorithm{a.Algorithm, b.Algorithm},
		Seed: 1, Runs: runs, ShrinkTries: -1})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&out, "Explore, class by class (seed 1, %d runs each half; the first failing run):\n\n", runs)
	fmt.Fprintf(&out, "| class | %s inside | %s inside | %s outside | %s outside |\n|---|---|---|---|---|\n", aTitle, bTitle, aTitle, bTitle)
	for _, class := range m.Classes {
		ca, cb := m.Cell(a.Algorithm.Name, class), m.Cell(b.Algorithm.Name, class)
		fmt.Fprintf(&out, "| %s | %s | %s | %s | %s |\n", class, inside(ca), inside(cb), answer(&ca.Outside), answer(&cb.Outside))
	}
	golden.Check(t, goldenFile, []byte(out.String()))
	return catalogue
}

// verdictOf is a verdict line's verdict: "unsafe" of "unsafe: overlap (c1, c2)".
func verdictOf(line string) string {
	v, _, _ := strings.Cut(line, ":")
	return v
}

// inDoc checks that docs/foreign.md shows table between the lines
// "<!-- table: NAME -->" and "<!-- end table -->", and under -update
// writes it there.
func inDoc(t *testing.T, name, table string) {
	t.Helper()
	const doc = "../../docs/foreign.md"
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	open, end := "<!-- table: "+name+" -->\n", "<!-- end table -->"
	i := strings.Index(string(data), open)
	j := strings.Index(string(data)[max(i, 0):], end)
	if i < 0 || j < 0 {
		t.Fatalf("docs/foreign.md has no %q … %q", open, end)
	}
	j += i
	have := string(data[i+len(open) : j])
	if have == table {
		return
	}
	if !golden.Update() {
		t.Errorf("docs/foreign.md's %s table is not the test's (go test ./examples/foreign -update rewrites it):\n%s", name, golden.Diff([]byte(table), []byte(have)))
		return
	}
	golden.Write(t, doc, []byte(string(data[:i+len(open)])+table+string(data[j:])))
}

func lockOf(t testing.TB, lock string) resolve.Lock {
	t.Helper()
	l, err := resolve.Name(lock)
	if strings.ContainsAny(lock, "./") {
		l, err = resolve.File(lock)
	}
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func inside(c *matrix.Cell) string {
	if c.Inside == nil {
		return "—"
	}
	return answer(c.Inside)
}

func answer(a *matrix.Answer) string {
	if a.First < 0 {
		return a.Verdict
	}
	return fmt.Sprintf("%s (run %d)", a.Verdict, a.First)
}

func ordinal(n int) string {
	switch {
	case n%100/10 == 1:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}
