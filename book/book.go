// Package book renders simrun book's site: every documented failure as one
// browsable, static, self-contained set of pages for teaching. An index
// ties the documents, the course of built-in scenarios, the verdict matrix
// and the algorithms together; each scenario and each matrix
// counterexample gets the HTML report (reports.WriteHTML) with links around
// it; each algorithm a page with its code's steps beside the document's.
//
// It renders only: the caller runs the scenarios and the matrix and hands
// over their outcomes. The pages load nothing from the network and link
// only to each other, by relative paths; the same Book renders the same
// bytes, except what porcupine's own page (inside each report) varies.
package book

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/locksim/locksim/internal/codesteps"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/reports"
)

// Book is everything the site shows.
type Book struct {
	Command    string           // the simrun command that made it, shown on the index
	Documents  []locks.Document // in the order to list them
	Algorithms []Algorithm      // the matrix's rows, in its order
	Scenarios  []*judge.Outcome
	Matrix     Matrix
}

// Algorithm is one lock and its code, cut into steps.
type Algorithm struct {
	locks.Algorithm
	Code *codesteps.Source // nil: no source to show (an algorithm not built in)
}

// Matrix is the verdict matrix: every algorithm under every fault class,
// each cell answered inside the lock's assumptions and outside them.
type Matrix struct {
	Seed              uint64
	Runs, ShrinkTries int
	Algorithms        []string
	Classes           []string
	Cells             []Cell // row by row
	// Summary is the cells' counts as the Markdown matrix says them
	// (matrix.Counts): "5 cells unsafe inside, 77 outside (of 120; …)".
	Summary string
	// Source says, when the matrix was not searched for the book, where it
	// comes from ("the published reports/matrix.md, …"); "" when searched.
	Source string
}

// Cell is one algorithm under one fault class.
type Cell struct {
	Algorithm, Class string
	Text             string // the whole cell as the Markdown matrix shows it
	// Inside is the answer inside the lock's assumptions; nil when the
	// class has no inside runs, NoInside saying why.
	Inside   *Answer
	NoInside string
	Outside  Answer // the answer to every fault the class draws
}

// Answer is one search of a cell.
type Answer struct {
	Verdict string
	Broke   string // for unsafe, which safety its first failing run broke (model.Verdict.Broke)
	Text    string // as the Markdown matrix shows this answer; "": the verdict
	Found   string // how its counterexample was found: a command, or the search's words; "" when safe
	Cut     string // for incomplete, why its run stopped at a cap
	// BreakingPoint is, on the outside answer, the smallest fault that
	// breaks the lock, when it was measured.
	BreakingPoint string
	// Counterexample is the shrunk counterexample replayed, or for an
	// incomplete answer its first cut run; nil when safe.
	Counterexample *judge.Outcome
	YAML           []byte // the counterexample as a scenario file; nil when safe
}

// Sides name a cell's answers in paths and words.
const (
	SideInside  = "inside"
	SideOutside = "outside"
)

// answers are a cell's answers that were searched, with their sides.
func (c *Cell) answers() []sided {
	out := []sided{}
	if c.Inside != nil {
		out = append(out, sided{SideInside, c.Inside})
	}
	return append(out, sided{SideOutside, &c.Outside})
}

type sided struct {
	Side string
	*Answer
}

// File is one file of the site, its path relative to the site's root.
type File struct {
	Path string
	Data []byte
}

// names are what the site uses in file names: no dots, slashes or spaces.
var names = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Render lays out the site: index.html, scenarios/NAME.html,
// counterexamples/ALGORITHM/CLASS-SIDE.html (and .yaml; SIDE inside or
// outside), algorithms/NAME.html, in that order.
func Render(b *Book) ([]File, error) {
	s, err := newSite(b)
	if err != nil {
		return nil, err
	}
	var files []File
	page := func(path, tmpl string, data any) error {
		var w bytes.Buffer
		if err := templates.ExecuteTemplate(&w, tmpl, data); err != nil {
			return fmt.Errorf("book: %s: %w", path, err)
		}
		files = append(files, File{path, w.Bytes()})
		return nil
	}
	if err := page("index.html", "index", s); err != nil {
		return nil, err
	}
	for i, sc := range s.Course {
		nav := scenarioNav(s, i)
		data, err := report(sc.Outcome, nav)
		if err != nil {
			return nil, fmt.Errorf("book: scenario %s: %w", sc.Name, err)
		}
		files = append(files, File{sc.Path, data})
	}
	for _, c := range b.Matrix.Cells {
		for _, a := range c.answers() {
			if a.Counterexample == nil {
				continue
			}
			data, err := report(a.Counterexample, counterexampleNav(c, a))
			if err != nil {
				return nil, fmt.Errorf("book: %s under %s, %s: %w", c.Algorithm, c.Class, a.Side, err)
			}
			files = append(files, File{cellPath(c, a.Side, ".html"), data})
			if a.YAML != nil {
				files = append(files, File{cellPath(c, a.Side, ".yaml"), a.YAML})
			}
		}
	}
	for _, a := range s.Algorithms {
		if err := page(a.Path, "algorithm", a); err != nil {
			return nil, err
		}
	}
	if bad := CheckLinks(files); bad != nil {
		return nil, fmt.Errorf("book: %d broken links, the first: %s", len(bad), bad[0])
	}
	return files, nil
}

// report is the HTML report of an outcome with the book's links at its top
// and bottom.
func report(o *judge.Outcome, nav navLinks) ([]byte, error) {
	var w bytes.Buffer
	if err := reports.WriteHTML(&w, o); err != nil {
		return nil, err
	}
	page := w.Bytes()
	var top, bottom bytes.Buffer
	if err := templates.ExecuteTemplate(&top, "nav", nav); err != nil {
		return nil, err
	}
	nav.Bottom = true
	if err := templates.ExecuteTemplate(&bottom, "nav", nav); err != nil {
		return nil, err
	}
	// The report's own <body> and </body>: porcupine's page inside it is an
	// escaped attribute value, so these are the only ones.
	open, end := bytes.Index(page, []byte("<body>\n")), bytes.LastIndex(page, []byte("</body>"))
	if open < 0 || end < open {
		return nil, fmt.Errorf("the report has no <body>")
	}
	open += len("<body>\n")
	out := make([]byte, 0, len(page)+top.Len()+bottom.Len())
	out = append(out, page[:open]...)
	out = append(out, top.Bytes()...)
	out = append(out, page[open:end]...)
	out = append(out, bottom.Bytes()...)
	out = append(out, page[end:]...)
	return out, nil
}

// cellPath is where an answer's counterexample goes:
// counterexamples/ALGORITHM/CLASS-SIDE.EXT.
func cellPath(c Cell, side, ext string) string {
	return "counterexamples/" + c.Algorithm + "/" + c.Class + "-" + side + ext
}

// docIDs are the document ids a Source field cites ("toymoban-java §8,
// redis-setnx-page note" cites two), in its order.
func docIDs(source string) []string {
	var out []string
	for _, part := range strings.Split(source, ",") {
		f := strings.Fields(part)
		if len(f) > 0 && !slices.Contains(out, f[0]) {
			out = append(out, f[0])
		}
	}
	return out
}
