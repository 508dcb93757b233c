package book

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/codesteps"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/reports"
)

// site is the Book arranged for the templates. Links are paths from the
// site's root; a page writes them after its Root ("" or "../").
type site struct {
	Root       string
	Command    string
	Documents  []docView
	Reference  docView // the locks and scenarios that come from no document
	Chapters   []chapterView
	Course     []*scenarioView // every built-in, in teaching order
	Matrix     matrixView
	Algorithms []*algoView
}

type docView struct {
	locks.Document
	Claim      string
	Scenarios  []*scenarioView
	Algorithms []*algoView
}

type chapterView struct {
	Number    int
	Title     string
	Intro     string
	Scenarios []*scenarioView
}

type scenarioView struct {
	Name, Path, Summary, Source string
	Verdict, Expect, Algorithm  string
	// Says is what the badge adds to the verdict: which safety broke, that
	// no fault touched the lock (reports.VerdictQualifier); "" for nothing.
	Says    string
	Number  int // in the course, from 1
	Chapter *chapterView
	Outcome *judge.Outcome
}

type matrixView struct {
	Seed              uint64
	Runs, ShrinkTries int
	Classes           []classView
	Rows              []matrixRow
	Summary           string // Matrix.Summary
	Source            string // Matrix.Source
}

type classView struct{ Name, Help string }

type matrixRow struct {
	Algo  *algoView
	Cells []cellView
}

// cellView is a cell of the matrix: its inside answer (nil: none, NoInside
// says why) and its outside one.
type cellView struct {
	Algorithm, Class, Text string
	In                     *answerView
	NoInside               string
	Out                    answerView
}

type answerView struct {
	Side, Verdict, Text string
	Broke               string // for unsafe, which safety broke
	BreakingPoint       string
	Link                string // the counterexample's page, from the site's root; "" when safe
	Href                string // Link from the page that shows it (rooted)
}

// side is the cell's answer on a side, nil for an inside answer it has
// not.
func (c cellView) side(side string) *answerView {
	if side == SideInside {
		return c.In
	}
	return &c.Out
}

// rooted is the cell as a page at root links it.
func (c cellView) rooted(root string) cellView {
	href := func(a *answerView) {
		if a.Link != "" {
			a.Href = root + a.Link
		}
	}
	if c.In != nil {
		in := *c.In
		href(&in)
		c.In = &in
	}
	href(&c.Out)
	return c
}

type algoView struct {
	Root      string
	Name      string
	Path      string
	Summary   string
	Sources   []string // the documents it cites, as a reader finds them
	Reference bool
	Params    []param
	Code      *codesteps.Source
	Row       []cellView
	Scenarios []*scenarioView
	Command   string
}

type param struct{ Name, Value string }

func newSite(b *Book) (*site, error) {
	s := &site{Command: b.Command}
	byName := map[string]*judge.Outcome{} // looked up only
	for _, o := range b.Scenarios {
		if !names.MatchString(o.Scenario.Name) {
			return nil, fmt.Errorf("book: scenario name %q cannot be a file name", o.Scenario.Name)
		}
		if byName[o.Scenario.Name] != nil {
			return nil, fmt.Errorf("book: scenario %s given twice", o.Scenario.Name)
		}
		byName[o.Scenario.Name] = o
	}
	placed := map[string]bool{}
	for i, ch := range Chapters {
		cv := &chapterView{Number: i + 1, Title: ch.Title, Intro: ch.Intro}
		for _, name := range ch.Scenarios {
			o := byName[name]
			if o == nil {
				continue // not run: a book of some scenarios
			}
			placed[name] = true
			sv := &scenarioView{Name: name, Path: "scenarios/" + name + ".html", Summary: o.Scenario.Summary,
				Source: o.Scenario.Source, Verdict: o.Verdict.Verdict, Expect: o.Scenario.Expect,
				Says:      reports.VerdictQualifier(o.Verdict.Verdict, o.Verdict.Broke(), o.Result.Vacuous()),
				Algorithm: o.Prepared.Algorithm.Name, Number: len(s.Course) + 1, Chapter: cv, Outcome: o}
			cv.Scenarios = append(cv.Scenarios, sv)
			s.Course = append(s.Course, sv)
		}
		if len(cv.Scenarios) > 0 {
			s.Chapters = append(s.Chapters, *cv)
		}
	}
	for _, o := range b.Scenarios {
		if !placed[o.Scenario.Name] {
			return nil, fmt.Errorf("book: scenario %s is in no chapter (add it to book.Chapters where a course would teach it)", o.Scenario.Name)
		}
	}

	algos := map[string]*algoView{} // looked up only
	for _, a := range b.Algorithms {
		if !names.MatchString(a.Name) {
			return nil, fmt.Errorf("book: algorithm name %q cannot be a file name", a.Name)
		}
		av := &algoView{Root: "../", Name: a.Name, Path: "algorithms/" + a.Name + ".html", Summary: a.Summary,
			Reference: a.Source == locks.Reference, Params: params(a.Defaults), Code: a.Code,
			Command: b.Command}
		for _, id := range docIDs(a.Source) {
			av.Sources = append(av.Sources, locks.Cite(id))
		}
		for _, sv := range s.Course {
			if sv.Algorithm == a.Name {
				av.Scenarios = append(av.Scenarios, sv)
			}
		}
		algos[a.Name] = av
		s.Algorithms = append(s.Algorithms, av)
	}

	m := b.Matrix
	s.Matrix = matrixView{Seed: m.Seed, Runs: m.Runs, ShrinkTries: m.ShrinkTries, Summary: m.Summary, Source: m.Source}
	for _, c := range m.Classes {
		if !names.MatchString(c) {
			return nil, fmt.Errorf("book: fault class %q cannot be a file name", c)
		}
		cv := classView{Name: c}
		for _, h := range classHelp {
			if h.Class == c {
				cv.Help = h.Text
			}
		}
		s.Matrix.Classes = append(s.Matrix.Classes, cv)
	}
	for _, name := range m.Algorithms {
		av := algos[name]
		if av == nil {
			return nil, fmt.Errorf("book: matrix row %s is not among the algorithms", name)
		}
		row := matrixRow{Algo: av}
		for _, class := range m.Classes {
			i := slices.IndexFunc(m.Cells, func(c Cell) bool { return c.Algorithm == name && c.Class == class })
			if i < 0 {
				return nil, fmt.Errorf("book: the matrix has no cell for %s under %s", name, class)
			}
			c := m.Cells[i]
			cv := cellView{Algorithm: name, Class: class, Text: c.Text, NoInside: c.NoInside}
			if (c.Inside == nil) == (c.NoInside == "") {
				return nil, fmt.Errorf("book: %s under %s: want an inside answer or why it has none, not both", name, class)
			}
			for _, a := range c.answers() {
				av := answerView{Side: a.Side, Verdict: a.Verdict, Text: a.Text, Broke: a.Broke, BreakingPoint: a.BreakingPoint}
				if av.Text == "" {
					av.Text = a.Verdict
				}
				if a.Counterexample != nil {
					av.Link = cellPath(c, a.Side, ".html")
				}
				if a.Verdict != "safe" && a.Counterexample == nil {
					return nil, fmt.Errorf("book: %s under %s, %s, is %s but has no counterexample to link to", name, class, a.Side, a.Verdict)
				}
				if a.Side == SideInside {
					cv.In = &av
				} else {
					cv.Out = av
				}
			}
			row.Cells = append(row.Cells, cv)
		}
		av.Row = row.Cells
		s.Matrix.Rows = append(s.Matrix.Rows, row)
	}

	for _, d := range b.Documents {
		dv := docView{Document: d, Claim: claims[d.ID]}
		for _, sv := range s.Course {
			if slices.Contains(docIDs(sv.Source), d.ID) {
				dv.Scenarios = append(dv.Scenarios, sv)
			}
		}
		for _, av := range s.Algorithms {
			if slices.Contains(docIDs(b.algorithm(av.Name).Source), d.ID) {
				dv.Algorithms = append(dv.Algorithms, av)
			}
		}
		s.Documents = append(s.Documents, dv)
	}
	// Documents in the order the course first cites them, so the index
	// reads in the order a course teaches; ties keep the given order.
	first := func(d docView) int {
		if len(d.Scenarios) == 0 {
			return len(s.Course)
		}
		return d.Scenarios[0].Number
	}
	slices.SortStableFunc(s.Documents, func(a, b docView) int { return first(a) - first(b) })
	s.Reference = docView{Document: locks.Document{ID: locks.Reference}}
	for _, sv := range s.Course {
		if slices.Contains(docIDs(sv.Source), locks.Reference) {
			s.Reference.Scenarios = append(s.Reference.Scenarios, sv)
		}
	}
	for _, av := range s.Algorithms {
		if av.Reference {
			s.Reference.Algorithms = append(s.Reference.Algorithms, av)
		}
	}
	return s, nil
}

func (b *Book) algorithm(name string) locks.Algorithm {
	for _, a := range b.Algorithms {
		if a.Name == name {
			return a.Algorithm
		}
	}
	return locks.Algorithm{}
}

// params are an algorithm's constants as a scenario file's params: names
// them; the ones it has no use for (zero) are left out.
func params(p locks.Params) []param {
	var out []param
	add := func(name, value string, set bool) {
		if set {
			out = append(out, param{name, value})
		}
	}
	add("key", p.Key, p.Key != "")
	add("ttl", p.TTL.String(), p.TTL != 0)
	retries := fmt.Sprint(p.Retries)
	if p.Retries == locks.Forever {
		retries = "for ever"
	}
	add("retries", retries, p.Retries != 0)
	add("retry_sleep", p.RetrySleep.String(), p.RetrySleep != 0)
	res := p.Resolution.String()
	switch p.Resolution {
	case time.Second:
		res = "1s (whole seconds)"
	case time.Millisecond:
		res = "1ms (milliseconds)"
	}
	add("resolution", res, p.Resolution != 0)
	add("nodes", fmt.Sprint(p.Nodes), p.Nodes != 0)
	return out
}

// navLinks are the book's links around a report.
type navLinks struct {
	Root       string
	Bottom     bool
	Where      string
	Prev, Next *link
	Also       []link
}

type link struct{ Text, Href, Title string }

func scenarioNav(s *site, i int) navLinks {
	sv := s.Course[i]
	n := navLinks{Root: "../", Where: fmt.Sprintf("chapter %d of %d, %s · scenario %d of %d",
		sv.Chapter.Number, len(s.Chapters), sv.Chapter.Title, sv.Number, len(s.Course))}
	if i > 0 {
		p := s.Course[i-1]
		n.Prev = &link{p.Name, p.Path, p.Summary}
	}
	if i+1 < len(s.Course) {
		p := s.Course[i+1]
		n.Next = &link{p.Name, p.Path, p.Summary}
	}
	n.Also = []link{{"algorithm " + sv.Algorithm, "algorithms/" + sv.Algorithm + ".html", ""}}
	if !slices.ContainsFunc(s.Algorithms, func(a *algoView) bool { return a.Name == sv.Algorithm }) {
		n.Also = nil
	}
	return n
}

func counterexampleNav(c Cell, a sided) navLinks {
	where := "inside the lock's assumptions"
	if a.Side == SideOutside {
		where = "outside them (every fault of the class)"
	}
	text := a.Text
	if text == "" {
		text = a.Verdict
	}
	n := navLinks{Root: "../../", Where: fmt.Sprintf("the matrix: %s under %s, %s: %s", c.Algorithm, c.Class, where, strings.TrimSpace(text))}
	n.Also = []link{{"algorithm " + c.Algorithm, "algorithms/" + c.Algorithm + ".html", ""}}
	if a.YAML != nil {
		file := c.Class + "-" + a.Side + ".yaml"
		n.Also = append(n.Also, link{"scenario file " + file, cellPath(c, a.Side, ".yaml"), "simrun run " + file + " replays it"})
	}
	return n
}
