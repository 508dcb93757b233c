package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/locksim/locksim/book"
	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/codesteps"
	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/matrix"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// cmdBook gathers what the book shows (every built-in scenario run, the
// matrix searched and shrunk, each counterexample replayed, each
// algorithm's code) and has package book render it into a directory.
func cmdBook(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("book", flag.ContinueOnError)
	out := addOutFlag(fs, "", "write the site into `DIR` (made if missing; files of the same name are replaced)")
	runs, seed, workers := addMatrixFlags(fs, "site")
	shrinkTries := fs.Int("shrink-tries", matrix.DefaultShrinkTries, "shrink each failing cell with at most `N` runs")
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	bad := func(flagName string, err error) int {
		return fail(stderr, "book", fmt.Errorf("--%s: %v", flagName, err))
	}
	switch {
	case len(pos) != 0:
		return fail(stderr, "book", fmt.Errorf("takes no arguments, got %q (the directory goes after -o)", pos))
	case *out == "":
		return fail(stderr, "book", fmt.Errorf("-o: give the directory to write the site into"))
	}
	if name, err := checkMatrixFlags(*runs, *workers,
		flagCheck{"shrink-tries", atLeastOne(*shrinkTries, "a counterexample page shows the shrunk run")}); err != nil {
		return bad(name, err)
	}
	start := time.Now() // for the summary line only

	b := &book.Book{Command: fmt.Sprintf("simrun book --seed %d --runs %d --shrink-tries %d", *seed, *runs, *shrinkTries),
		Documents: locks.Documents}
	for _, s := range scenarios.Builtins() {
		o, err := judge.Run(s, "", model.Options{})
		if err != nil {
			return fail(stderr, "book", fmt.Errorf("scenario %s: %w", s.Name, err))
		}
		b.Scenarios = append(b.Scenarios, o)
	}

	*workers = clampWorkers("book", *workers, matrixCells(nil), "cells", stderr)
	m, err := matrix.Run(context.Background(), matrix.Options{Algorithms: matrixAlgorithms,
		Seed: *seed, Runs: *runs, Workers: *workers, ShrinkTries: *shrinkTries})
	if err != nil {
		return fail(stderr, "book", err) // every option matrix.Run checks is checked above
	}
	b.Matrix, err = bookMatrix(m)
	if err != nil {
		return fail(stderr, "book", err)
	}
	for _, name := range m.Algorithms {
		a, err := locks.Lookup(name)
		if err != nil {
			return fail(stderr, "book", err)
		}
		src, err := codesteps.Find(locks.SourceFiles(), name)
		if err != nil {
			return fail(stderr, "book", err)
		}
		b.Algorithms = append(b.Algorithms, book.Algorithm{Algorithm: a, Code: src})
	}

	files, err := book.Render(b)
	if err != nil {
		return fail(stderr, "book", err)
	}
	for _, f := range files {
		path := filepath.Join(*out, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fail(stderr, "book", fmt.Errorf("-o: %v", err))
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return fail(stderr, "book", fmt.Errorf("-o: %v", err))
		}
	}
	fmt.Fprintf(stdout, "wrote %s: %d files (%d scenarios, %d counterexamples, %d algorithms) in %.1fs; open %s\n",
		*out, len(files), len(b.Scenarios), countFailing(b.Matrix), len(b.Algorithms),
		time.Since(start).Seconds(), filepath.Join(*out, "index.html"))
	return exitOK
}

func countFailing(m book.Matrix) int {
	n := 0
	for _, c := range m.Cells {
		if c.Counterexample != nil {
			n++
		}
	}
	return n
}

// bookMatrix replays each failing cell's shrunk counterexample with every
// checker, and each incomplete cell's cut run (as drawn: nothing failed to
// shrink towards), names it after its cell and keeps it as a scenario file.
// A replay that does not give its cell's verdict (and, for a cut run, its
// cut) is an error: the book links only what replays.
func bookMatrix(m *matrix.Matrix) (book.Matrix, error) {
	// The cell text and counts as simrun matrix prints them, from the
	// matrix package so that the book follows its format.
	mj := m.JSON("")
	out := book.Matrix{Seed: m.Seed, Runs: m.Runs, ShrinkTries: max(m.ShrinkTries, 0),
		Algorithms: m.Algorithms, Classes: m.Classes, Summary: mj.Counts().String()}
	for _, row := range m.Cells {
		for _, c := range row {
			bc := book.Cell{Algorithm: c.Algorithm, Class: c.Class, Verdict: c.Verdict, Broke: c.Broke, Cut: c.Cut}
			if mc := mj.Cell(c.Algorithm, c.Class); mc != nil {
				bc.Text, bc.Replay = matrix.CellText(*mc), mc.Replay
			}
			if c.Counterexample != nil {
				o, yaml, err := bookCounterexample(m, c, bc.Replay)
				if err != nil {
					return out, fmt.Errorf("%s under %s: counterexample: %w", c.Algorithm, c.Class, err)
				}
				bc.Counterexample, bc.YAML = o, yaml
			}
			out.Cells = append(out.Cells, bc)
		}
	}
	return out, nil
}

// bookCounterexample replays a cell's counterexample with every checker,
// checks that it gives the cell's verdict (and cut), and writes it as the
// scenario file the page offers, its narrative saying how it was found.
func bookCounterexample(m *matrix.Matrix, c matrix.Cell, replay string) (*judge.Outcome, []byte, error) {
	s := *c.Counterexample
	s.Name = fmt.Sprintf("matrix-%s-%s", c.Algorithm, c.Class)
	s.Source = "simrun matrix"
	cut := c.Verdict == model.VerdictIncomplete
	if cut {
		s.Summary = fmt.Sprintf("%s under %s: the matrix's first run cut at a cap (#%d, seed %d), as drawn", c.Algorithm, c.Class, c.First, m.Seed)
	} else {
		s.Summary = fmt.Sprintf("%s under %s: the matrix's first failing run (#%d, seed %d), shrunk", c.Algorithm, c.Class, c.First, m.Seed)
	}
	o, err := judge.Run(&s, "", model.Options{})
	if err != nil {
		return nil, nil, err
	}
	switch {
	case o.Verdict.Verdict != c.Verdict:
		return nil, nil, fmt.Errorf("replays as %s, the matrix says %s", o.Verdict.Verdict, c.Verdict)
	case cut && o.Result.Cut != c.Cut:
		return nil, nil, fmt.Errorf("replays cut by %q, the matrix's run by %q", o.Result.Cut, c.Cut)
	}
	s.Expect = o.Verdict.Verdict
	var n strings.Builder
	if cut {
		fmt.Fprintf(&n, "Found by: %s (run %d, the first cut at a cap with nothing failed; not shrunk).\n", replay, c.First)
		fmt.Fprintf(&n, "Cut: %s. No run failed, but this one stopped before its clients were done, so nothing found covers only its prefix: not a pass.\n", c.Cut)
	} else {
		n.WriteString(explore.FoundByLine(replay, c.First, c.Verdict))
		if c.Shrunk != nil {
			fmt.Fprintf(&n, " to %s and %s", text.Count(c.Shrunk.Processes, "process", "es"), text.Count(c.Shrunk.Faults, "fault", "s"))
		}
		n.WriteString(".\n")
	}
	for _, v := range o.Verdict.Violations {
		fmt.Fprintf(&n, "%s (%s): %s\n", v.Kind, strings.Join(v.Processes, ", "), v.Detail)
	}
	fmt.Fprintf(&n, "Replay it: simrun run %s.yaml", c.Class)
	s.Narrative = n.String()
	o.Scenario = &s
	yaml, err := scenarios.Marshal(&s)
	if err != nil {
		return nil, nil, err
	}
	return o, yaml, nil
}
