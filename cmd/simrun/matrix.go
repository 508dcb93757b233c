package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/matrix"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
)

// matrixAlgorithms are the rows of simrun matrix and of the book's matrix;
// nil: every registered algorithm. Tests narrow it (narrowMatrix) to keep
// them fast.
var matrixAlgorithms []string

// runMatrix searches simrun matrix's matrix: matrix.Run, which the tests
// replace with a cache, so that the commands of a test binary that ask
// for the same matrix share one search (matrix_test.go: sharedMatrix).
var runMatrix = matrix.Run

// addMatrixFlags declares the flags simrun matrix and simrun book share,
// with one name, default and meaning: the matrix's run space (--seed,
// --runs) and the cells searched at once (--workers). --shrink-tries is
// each command's own: book cannot do without shrinking, matrix can.
func addMatrixFlags(fs *flag.FlagSet, output string) (runs *int, seed *uint64, workers *int) {
	runs = fs.Int("runs", matrix.DefaultRuns, "runs per search, two a cell (inside and outside the lock's assumptions): an answer is safe when none of its `N` runs fails")
	seed = fs.Uint64("seed", 1, "matrix seed: run i of a cell depends only on (seed, i, algorithm, fault class)")
	workers = fs.Int("workers", 0, "cells searched at once (0: one per core); the "+output+" does not depend on it")
	return runs, seed, workers
}

// matrixCells counts the cells a matrix of rows searches (no rows: every
// algorithm, or matrixAlgorithms when a test narrows it), for clampWorkers.
func matrixCells(rows []locks.Algorithm) int {
	n := len(rows)
	if n == 0 {
		n = len(locks.All())
		if matrixAlgorithms != nil {
			n = len(matrixAlgorithms)
		}
	}
	return n * len(scenarios.FaultClasses)
}

// checkMatrixFlags makes explore's own checks of --runs and --workers here,
// where the flag is known, then the command's check of --shrink-tries.
func checkMatrixFlags(runs, workers int, shrinkTries flagCheck) (string, error) {
	return firstBad(
		flagCheck{"runs", search.ValidateRuns(runs)},
		flagCheck{"workers", search.ValidateWorkers(workers)},
		shrinkTries,
	)
}

func cmdMatrix(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	runs, seed, workers := addMatrixFlags(fs, "matrix")
	shrinkTries := fs.Int("shrink-tries", matrix.DefaultShrinkTries, "shrink each failing cell with at most `N` runs (0: do not shrink)")
	af := addAlgoFlags(fs, "one row: this registered algorithm (default: every one)")
	asJSON := fs.Bool("json", false, "print the matrix as JSON instead of Markdown")
	out := addOutFlag(fs, "", "write the matrix to `FILE` instead of standard output")
	check := fs.String("check", "", "compare the verdicts with a matrix `FILE` made earlier (its seed and runs); exit 1 naming each cell that changed")
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	bad := func(flagName string, err error) int {
		return fail(stderr, "matrix", fmt.Errorf("--%s: %v", flagName, err))
	}
	if len(pos) != 0 {
		return fail(stderr, "matrix", fmt.Errorf("takes no arguments, got %q", pos))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if name, err := checkMatrixFlags(*runs, *workers,
		flagCheck{"shrink-tries", notNegative(*shrinkTries, "do not shrink")}); err != nil {
		return bad(name, err)
	}

	var (
		want     matrix.JSON
		wantJSON bool
	)
	if *check != "" {
		data, err := os.ReadFile(*check)
		if err != nil {
			return bad("check", err)
		}
		if want, err = matrix.Read(*check, data); err != nil {
			return bad("check", err)
		}
		wantJSON = bytes.HasPrefix(bytes.TrimSpace(data), []byte("{"))
		// Compare like with like: the file's run space, unless asked for
		// the same one explicitly.
		switch {
		case set["seed"] && *seed != want.Seed:
			return bad("seed", fmt.Errorf("%d: %s was made with --seed %d (leave --seed out to use it)", *seed, *check, want.Seed))
		case set["runs"] && *runs != want.Runs:
			return bad("runs", fmt.Errorf("%d: %s was made with --runs %d (leave --runs out to use it)", *runs, *check, want.Runs))
		}
		*seed, *runs = want.Seed, want.Runs
		if !set["shrink-tries"] {
			*shrinkTries = want.ShrinkTries
		}
	}
	fromHeader := false
	if *check != "" && !af.Given() {
		// The file's rows: the --algo or --algo-file its header records.
		if err := rowsFromHeader(af, *check, want); err != nil {
			return bad("check", err)
		}
		fromHeader = af.Given()
	}
	// The rows: one algorithm when --algo or --algo-file names it.
	var rows []locks.Algorithm
	rowFlags := ""
	if af.Given() {
		a, err := af.resolve()
		if err != nil && fromHeader {
			return bad("check", fmt.Errorf("%s was made with %s, which does not load (%v): give --algo-file PATH", *check, want.RowFlags, err))
		}
		if err != nil {
			return fail(stderr, "matrix", err)
		}
		rows = []locks.Algorithm{a}
		if af.File != "" {
			rowFlags = "--algo-file " + shellWord(af.File)
		} else {
			rowFlags = "--algo " + af.Name
		}
	}
	// The command that makes this matrix, for --check to suggest.
	command := matrix.Command(*seed, *runs, *shrinkTries, rowFlags)
	if *check != "" && *out == "" {
		*shrinkTries = 0 // verdicts need no shrinking, and nothing shows the sizes
	}

	*workers = clampWorkers("matrix", *workers, matrixCells(rows), "cells", stderr)
	o := matrix.Options{Algorithms: matrixAlgorithms, Locks: rows, Seed: *seed, Runs: *runs, Workers: *workers, ShrinkTries: *shrinkTries}
	if *shrinkTries == 0 {
		o.ShrinkTries = -1
	}
	progress := exploreTerminal(stdout)
	if progress {
		o.Progress = matrixProgress(stdout)
	}
	start := time.Now() // for the summary line only
	// Ctrl-C stops every cell: a part of a matrix is no matrix (nothing
	// is written), so say so and exit 130 as a shell does for SIGINT.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt)
	m, err := runMatrix(ctx, o)
	stopSignals()
	if progress {
		fmt.Fprint(stdout, "\r\033[K")
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "simrun matrix: interrupted: nothing written")
		return exitInterrupted
	}
	if err != nil {
		return fail(stderr, "matrix", err) // every option matrix.Run checks is checked above
	}
	got := m.JSON(rowFlags)

	var b bytes.Buffer
	if *asJSON {
		err = matrix.WriteJSON(&b, got)
	} else {
		err = matrix.WriteMarkdown(&b, got)
	}
	if err != nil {
		return fail(stderr, "matrix", err)
	}
	switch {
	case *out != "":
		if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
			return bad("out", err)
		}
		// The file's own counts, in its own words.
		fmt.Fprintf(stdout, "wrote %s: %s; %d runs searched in %.1fs, %d shrinking in %.1fs (%.1fs in all)\n",
			*out, got.Counts(), m.Executed, m.SearchTime.Seconds(), m.ShrinkRuns, m.ShrinkTime.Seconds(), time.Since(start).Seconds())
	case *check == "":
		if _, err := stdout.Write(b.Bytes()); err != nil {
			return fail(stderr, "matrix", err)
		}
	}
	if *check == "" {
		return exitOK
	}
	return reportCheck(stdout, *check, command, wantJSON, want, got)
}

// rowsFromHeader sets af to the --algo or --algo-file recorded in the
// header of the matrix file being checked. A file whose rows are not
// registered algorithms and whose header records no --algo-file is refused:
// rerunning it with every algorithm would compare nothing alike.
func rowsFromHeader(af *algoFlags, file string, want matrix.JSON) error {
	switch rf := want.RowFlags; {
	case strings.HasPrefix(rf, "--algo-file "):
		af.File = unshellWord(strings.TrimPrefix(rf, "--algo-file "))
		return nil
	case strings.HasPrefix(rf, "--algo "):
		af.Name = strings.TrimPrefix(rf, "--algo ")
		return nil
	}
	for _, a := range want.Algorithms {
		if _, err := locks.Lookup(a); err != nil {
			return fmt.Errorf("%s: row %q is not a registered algorithm and the header records no --algo-file: give --algo-file FILE", file, a)
		}
	}
	return nil
}

// unshellWord undoes shellWord.
func unshellWord(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], `'\''`, "'")
	}
	return s
}

// reportCheck prints how got differs from the file's matrix and returns the
// exit code: 1 when a verdict changed.
func reportCheck(w io.Writer, file, command string, asJSON bool, want, got matrix.JSON) int {
	changed, moved := matrix.Diff(want, got)
	space := fmt.Sprintf("seed %d, %d runs per cell", got.Seed, got.Runs)
	if len(changed) == 0 {
		fmt.Fprintf(w, "matrix: all %d verdicts as in %s (%s)\n", len(got.Cells), file, space)
	} else {
		fmt.Fprintf(w, "matrix: %d of %d verdicts differ from %s (%s):\n", len(changed), len(got.Cells), file, space)
		for _, c := range changed {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
	if len(moved) > 0 {
		if len(moved) == 1 {
			fmt.Fprintln(w, "note: 1 cell keeps its verdict but fails at another run, shrinks to another size or breaks another safety:")
		} else {
			fmt.Fprintf(w, "note: %d cells keep their verdict but fail at another run, shrink to another size or break another safety:\n", len(moved))
		}
		for _, c := range moved {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
	if len(changed) > 0 || len(moved) > 0 {
		format := ""
		if asJSON {
			format = " --json"
		}
		fmt.Fprintf(w, "to accept the new matrix: %s%s -o %s\n", command, format, file)
	}
	if len(changed) > 0 {
		return exitViolation
	}
	return exitOK
}

// matrixProgress draws the cells done on one terminal line.
func matrixProgress(w io.Writer) func(matrix.Progress) {
	return func(p matrix.Progress) {
		fmt.Fprintf(w, "\r\033[Kmatrix  searched %d/%d (inside and outside each cell)  failing %d  shrunk %d/%d  %s",
			p.Searched, p.Searches, p.Failing, p.Shrunk, p.Failing, p.Elapsed.Round(100*time.Millisecond))
	}
}
