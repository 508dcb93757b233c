package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
	"github.com/locksim/locksim/reports"
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
	fresh := fs.Bool("fresh", false, "search every cell of the matrix again; by default a book with the published matrix's\n"+
		"seed, runs and shrink budget takes its safe answers from reports/matrix.md and recomputes only the failing ones")
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
	m, source, err := bookSearch(*seed, *runs, *shrinkTries, *workers, *fresh)
	if err != nil {
		return fail(stderr, "book", err)
	}
	b.Matrix, err = bookMatrix(m)
	if err != nil {
		return fail(stderr, "book", err)
	}
	b.Matrix.Source = source
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
	from := ""
	if source != "" {
		from = ", the matrix rebuilt from reports/matrix.md (--fresh searches it)"
	}
	fmt.Fprintf(stdout, "wrote %s: %d files (%d scenarios, %d counterexamples, %d algorithms) in %.1fs%s; open %s\n",
		*out, len(files), len(b.Scenarios), countFailing(b.Matrix), len(b.Algorithms),
		time.Since(start).Seconds(), from, filepath.Join(*out, "index.html"))
	return exitOK
}

// publishedSource is how the book says its matrix was rebuilt from the
// published one.
const publishedSource = "the published reports/matrix.md: its safe answers as written there (go test ./matrix checks " +
	"that file against this tree), each failing answer's run drawn, shrunk and bisected again for its page"

// bookSearch is the book's matrix: rebuilt from the published one
// (matrix.Rebuild) when the book asks for that matrix, every row with
// its seed, runs and shrink budget, unless fresh; else searched. source
// says which ("" when searched).
func bookSearch(seed uint64, runs, shrinkTries, workers int, fresh bool) (*matrix.Matrix, string, error) {
	if !fresh && matrixAlgorithms == nil {
		pub, err := matrix.Read("reports/matrix.md", reports.PublishedMatrix)
		if err != nil {
			return nil, "", fmt.Errorf("the published matrix: %w", err)
		}
		if pub.Seed == seed && pub.Runs == runs && pub.ShrinkTries == shrinkTries && pub.RowFlags == "" &&
			slices.Equal(pub.Algorithms, locks.Names()) && slices.Equal(pub.Faults, scenarios.FaultClasses) {
			m, err := matrix.Rebuild(context.Background(), pub, workers)
			if err != nil {
				return nil, "", fmt.Errorf("the published matrix, reports/matrix.md, is not this tree's (%w): "+
					"regenerate it with go test ./matrix -run MatrixGolden -update, or search every cell with --fresh", err)
			}
			return m, publishedSource, nil
		}
	}
	m, err := matrix.Run(context.Background(), matrix.Options{Algorithms: matrixAlgorithms,
		Seed: seed, Runs: runs, Workers: workers, ShrinkTries: shrinkTries})
	return m, "", err // every option matrix.Run checks is checked by cmdBook
}

func countFailing(m book.Matrix) int {
	n := 0
	for _, c := range m.Cells {
		if c.Inside != nil && c.Inside.Counterexample != nil {
			n++
		}
		if c.Outside.Counterexample != nil {
			n++
		}
	}
	return n
}

// bookMatrix replays the counterexample of each failing answer of each
// cell with every checker (the shrunk one, or an incomplete answer's cut
// run as drawn: nothing failed to shrink towards), names it after its cell
// and side and keeps it as a scenario file. A replay that does not give its
// answer's verdict (and, for a cut run, its cut) is an error: the book
// links only what replays.
func bookMatrix(m *matrix.Matrix) (book.Matrix, error) {
	// The cell text and counts as simrun matrix prints them, from the
	// matrix package so that the book follows its format.
	mj := m.JSON("")
	out := book.Matrix{Seed: m.Seed, Runs: m.Runs, ShrinkTries: max(m.ShrinkTries, 0),
		Algorithms: m.Algorithms, Classes: m.Classes, Summary: mj.Counts().String()}
	for _, row := range m.Cells {
		for _, c := range row {
			mc := mj.Cell(c.Algorithm, c.Class)
			bc := book.Cell{Algorithm: c.Algorithm, Class: c.Class, Text: matrix.CellText(*mc), NoInside: c.NoInside}
			answer := func(side string, a *matrix.Answer, ja *matrix.JSONAnswer) (book.Answer, error) {
				ba := book.Answer{Verdict: a.Verdict, Broke: a.Broke, Text: matrix.AnswerText(*ja), Cut: a.Cut, BreakingPoint: a.BreakingPoint}
				if a.First >= 0 {
					ba.Found = ja.Replay
				}
				if a.Counterexample == nil {
					return ba, nil
				}
				o, yaml, err := bookCounterexample(m, c, side, a, ba.Found)
				if err != nil {
					return ba, fmt.Errorf("%s under %s, %s: counterexample: %w", c.Algorithm, c.Class, side, err)
				}
				ba.Counterexample, ba.YAML = o, yaml
				return ba, nil
			}
			if c.Inside != nil {
				in, err := answer(book.SideInside, c.Inside, mc.Inside)
				if err != nil {
					return out, err
				}
				bc.Inside = &in
			}
			var err error
			if bc.Outside, err = answer(book.SideOutside, &c.Outside, &mc.Outside); err != nil {
				return out, err
			}
			out.Cells = append(out.Cells, bc)
		}
	}
	return out, nil
}

// bookCounterexample replays an answer's counterexample with every
// checker, checks that it gives the answer's verdict (and cut), and writes
// it as the scenario file the page offers, its narrative saying how it was
// found.
func bookCounterexample(m *matrix.Matrix, c matrix.Cell, side string, a *matrix.Answer, found string) (*judge.Outcome, []byte, error) {
	s := *a.Counterexample
	s.Name = fmt.Sprintf("matrix-%s-%s-%s", c.Algorithm, c.Class, side)
	s.Source = "simrun matrix"
	where := "inside the lock's assumptions"
	if side == book.SideOutside {
		where = "outside them"
	}
	cut := a.Verdict == model.VerdictIncomplete
	if cut {
		s.Summary = fmt.Sprintf("%s under %s, %s: the matrix's first run cut at a cap (#%d, seed %d), as drawn", c.Algorithm, c.Class, where, a.First, m.Seed)
	} else {
		s.Summary = fmt.Sprintf("%s under %s, %s: the matrix's first failing run (#%d, seed %d), shrunk", c.Algorithm, c.Class, where, a.First, m.Seed)
	}
	o, err := judge.Run(&s, "", model.Options{})
	if err != nil {
		return nil, nil, err
	}
	switch {
	case o.Verdict.Verdict != a.Verdict:
		return nil, nil, fmt.Errorf("replays as %s, the matrix says %s", o.Verdict.Verdict, a.Verdict)
	case cut && o.Result.Cut != a.Cut:
		return nil, nil, fmt.Errorf("replays cut by %q, the matrix's run by %q", o.Result.Cut, a.Cut)
	}
	s.Expect = o.Verdict.Verdict
	var n strings.Builder
	if cut {
		fmt.Fprintf(&n, "Found by: %s (run %d, the first cut at a cap with nothing failed; not shrunk).\n", found, a.First)
		fmt.Fprintf(&n, "Cut: %s. No run failed, but this one stopped before its clients were done, so nothing found covers only its prefix: not a pass.\n", a.Cut)
	} else {
		n.WriteString(explore.FoundByLine(found, a.First, a.Verdict))
		if a.Shrunk != nil {
			fmt.Fprintf(&n, " to %s and %s", text.Count(a.Shrunk.Processes, "process", "es"), text.Count(a.Shrunk.Faults, "fault", "s"))
		}
		n.WriteString(".\n")
	}
	if side == book.SideInside && !cut {
		n.WriteString("Every fault of this run lies inside the lock's assumptions: this is a bug in the lock, not a known limit.\n")
	}
	for _, v := range o.Verdict.Violations {
		fmt.Fprintf(&n, "%s (%s): %s\n", v.Kind, strings.Join(v.Processes, ", "), v.Detail)
	}
	fmt.Fprintf(&n, "Replay it: simrun run %s-%s.yaml", c.Class, side)
	s.Narrative = n.String()
	o.Scenario = &s
	yaml, err := scenarios.Marshal(&s)
	if err != nil {
		return nil, nil, err
	}
	return o, yaml, nil
}
