package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestClampWorkers(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	cases := []struct {
		workers, runs, want int
		said                bool
	}{
		{0, 100, 0, false}, // explore's default: one per core
		{1, 100, 1, false},
		{cores + 10, 1000, cores, true},
		{5, 2, min(2, cores), true},
	}
	for _, c := range cases {
		var b strings.Builder
		got := clampWorkers("explore", c.workers, c.runs, "runs", &b)
		if got != c.want || (b.Len() > 0) != c.said {
			t.Errorf("workers %d, runs %d: %d, said %q; want %d, said %v", c.workers, c.runs, got, b.String(), c.want, c.said)
		}
		if c.said && !strings.Contains(b.String(), "clamped to") {
			t.Errorf("%q does not say it clamped", b.String())
		}
	}
}

// explore refuses to overwrite a counterexample an earlier search left in
// --out unless --force; a fresh folder is fine.
func TestExploreKeepsACounterexample(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"explore", "--algo", "setnx-del", "--faults", "crash", "--runs", "5", "--workers", "99", "--out", out}
	code, _, errOut := simrun(args...)
	if code != exitViolation || !strings.Contains(errOut, "--workers 99 clamped to") {
		t.Fatalf("first search: exit %d, stderr %q", code, errOut)
	}
	before, err := os.ReadFile(filepath.Join(out, "counterexample.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "counterexample.yaml"), append(before, "# mine\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = simrun(args...)
	if code != exitUsage || !strings.Contains(errOut, "already holds a counterexample (counterexample.yaml): give another --out, or --force") {
		t.Errorf("second search: exit %d, stderr %q", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "counterexample.yaml")); !strings.HasSuffix(string(after), "# mine\n") {
		t.Errorf("the counterexample was overwritten")
	}
	if code, _, errOut = simrun(append(args, "--force")...); code != exitViolation {
		t.Errorf("--force: exit %d, stderr %q", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "counterexample.yaml")); string(after) != string(before) {
		t.Errorf("--force did not rewrite it")
	}
}

// matrix clamps --workers to its cells and the cores, and says so.
func TestMatrixClampsWorkers(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.md")
	code, _, errOut := simrun("matrix", "--algo", "setnx-del", "--runs", "2", "--workers", "99", "-o", out)
	want := "--workers 99 clamped to " + strconv.Itoa(min(8, runtime.GOMAXPROCS(0))) + " (8 cells,"
	if code != exitOK || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 0 and %q", code, errOut, want)
	}
}

// A --shrink all counterexample counts as one an earlier search left.
func TestExploreKeepsAShrinkAllCounterexample(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "counterexample-stuck.yaml"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := simrun("explore", "--algo", "setnx-del", "--faults", "crash", "--runs", "5", "--out", out)
	if code != exitUsage || !strings.Contains(errOut, "already holds a counterexample (counterexample-stuck.yaml)") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// book clamps --workers as matrix does: its matrix is searched cell by cell.
func TestBookClampsWorkers(t *testing.T) {
	skipUnderRace(t, "the clamp is arithmetic, and the book's workers are raced by TestBookSite")
	narrowMatrix(t) // two rows: 16 cells
	code, _, errOut := simrun("book", "-o", t.TempDir(), "--runs", "2", "--workers", "99")
	want := "simrun book: --workers 99 clamped to " + strconv.Itoa(min(16, runtime.GOMAXPROCS(0))) + " (16 cells,"
	if code != exitOK || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 0 and %q", code, errOut, want)
	}
}
