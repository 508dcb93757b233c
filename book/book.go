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

// Matrix is the verdict matrix: every algorithm under every fault class.
type Matrix struct {
	Seed              uint64
	Runs, ShrinkTries int
	Algorithms        []string
	Classes           []string
	Cells             []Cell // row by row
	// Summary is the cells' counts as the Markdown matrix says them
	// (matrix.Counts): "85 of 120 cells fail, 1 is incomplete".
	Summary string
}

// Cell is one algorithm under one fault class.
type Cell struct {
	Algorithm, Class string
	Verdict          string
	Broke            string // for unsafe, which safety its first failing run broke (model.Verdict.Broke)
	Text             string // as the Markdown matrix shows it; "": the verdict
	Replay           string // the command that finds its first failing run; "" when safe
	// Counterexample is the shrunk counterexample replayed, or for an
	// incomplete cell its first cut run; nil when safe.
	Counterexample *judge.Outcome
	YAML           []byte // the counterexample as a scenario file; nil when safe
	Cut            string // for incomplete, why its run stopped at a cap
}

// File is one file of the site, its path relative to the site's root.
type File struct {
	Path string
	Data []byte
}

// names are what the site uses in file names: no dots, slashes or spaces.
var names = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Render lays out the site: index.html, scenarios/NAME.html,
// counterexamples/ALGORITHM/CLASS.html (and .yaml), algorithms/NAME.html,
// in that order.
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
		if c.Counterexample == nil {
			continue
		}
		data, err := report(c.Counterexample, counterexampleNav(c))
		if err != nil {
			return nil, fmt.Errorf("book: %s under %s: %w", c.Algorithm, c.Class, err)
		}
		files = append(files, File{cellPath(c, ".html"), data})
		if c.YAML != nil {
			files = append(files, File{cellPath(c, ".yaml"), c.YAML})
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

func cellPath(c Cell, ext string) string {
	return "counterexamples/" + c.Algorithm + "/" + c.Class + ext
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
