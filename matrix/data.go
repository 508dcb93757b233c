package matrix

// The matrix as data: its stable JSON, the command line that makes it, the
// text of a cell (written and read here, so the grammar lives in one
// place), reading a matrix file back strictly, checking it and comparing
// two. This is what 'simrun matrix --check' rests on; markdown.go only lays
// the table out (WriteTable).

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/search"
)

// JSON is the stable JSON of a verdict matrix: every algorithm (rows)
// under every fault class (columns), each cell answered inside the lock's
// assumptions and outside them. Later versions only add fields (the cells
// took their two answers once, and a file from before is refused, saying
// so). It holds nothing that depends on the machine or the time, so the
// same command prints the same bytes anywhere.
type JSON struct {
	Command     string     `json:"command"`             // the simrun command that makes it
	Seed        uint64     `json:"seed"`                //
	Runs        int        `json:"runs"`                // run-index space of every search, [0, runs)
	ShrinkTries int        `json:"shrink_tries"`        // shrink budget per failing search, in runs; 0: not shrunk
	RowFlags    string     `json:"row_flags,omitempty"` // --algo NAME or --algo-file FILE when the rows were chosen
	Algorithms  []string   `json:"algorithms"`          // rows, in order
	Faults      []string   `json:"faults"`              // columns, in order
	Cells       []JSONCell `json:"cells"`               // row by row
	_           struct{}
}

// JSONCell is one algorithm under one fault class: its inside answer
// (null when the class has no inside runs, NoInside saying why) and its
// outside one.
type JSONCell struct {
	Algorithm string      `json:"algorithm"`
	Fault     string      `json:"fault"`
	Inside    *JSONAnswer `json:"inside"`
	NoInside  string      `json:"no_inside,omitempty"`
	Outside   JSONAnswer  `json:"outside"`
}

// JSONAnswer is what one search of a cell found.
type JSONAnswer struct {
	// Verdict is the worst verdict met (the search stops at the first
	// unsafe run), or safe when no run failed.
	Verdict         string `json:"verdict"`
	FirstFailingRun *int   `json:"first_failing_run"` // the first run with it; null when safe
	// SafetyBroken is, for unsafe, which safety the first failing run broke
	// (model.Verdict.Broke): "lost update", "overlap, resource safe" or
	// "lock broken, resource safe". Shrunk.SafetyBroken is the shrunk
	// run's, which may differ (the shrink keeps the verdict only).
	SafetyBroken string `json:"safety_broken,omitempty"`
	// Runs counts the runs searched in index order (up to the first unsafe
	// one, or all), VacuousRuns those of them that had faults planned and
	// none of which touched the lock. Read from Markdown, both are known
	// only where a cell shows them (a safe answer with vacuous runs), else 0.
	Runs        int `json:"runs,omitempty"`
	VacuousRuns int `json:"vacuous_runs,omitempty"`
	// Others are the other verdicts met before the search stopped, worst
	// first.
	Others []JSONOther `json:"others,omitempty"`
	// Shrunk is the size of the shrunk counterexample; null when safe or not
	// shrunk. Read from Markdown, events is 0 (the table does not show it).
	Shrunk       *explore.Shrunk `json:"shrunk"`
	ShrinkTries  int             `json:"shrink_tries,omitempty"`  // runs the shrink made
	ShrinkCapped bool            `json:"shrink_capped,omitempty"` // it stopped at the budget: perhaps not minimal
	// Cut is, for incomplete, why its first run stopped at a cap. Read from
	// Markdown, "" (the table does not show it).
	Cut string `json:"cut,omitempty"`
	// BreakingPoint is, on the outside answer, the smallest fault that
	// breaks the lock, when it was measured: "unsafe from a pause of 2.97 s
	// with 30 ms of work, TTL 3 s". The Markdown prints it after the cell.
	BreakingPoint string `json:"breaking_point,omitempty"`
	// Replay is, on a failing answer, the explore command that searches
	// the same runs on its side (--search inside or outside) and writes its
	// counterexample.
	Replay string `json:"replay,omitempty"`
}

// JSONOther is a verdict a search met besides its worst one.
type JSONOther struct {
	Verdict  string `json:"verdict"`
	FirstRun int    `json:"first_run"`
}

// Command is the simrun command line that computes a matrix with
// these settings; rowFlags is the --algo or --algo-file flag that chose its
// rows, "" for every algorithm.
func Command(seed uint64, runs, shrinkTries int, rowFlags string) string {
	c := fmt.Sprintf("simrun matrix --seed %d --runs %d --shrink-tries %d", seed, runs, shrinkTries)
	if rowFlags != "" {
		c += " " + rowFlags
	}
	return c
}

// JSON builds the data of a computed matrix. rowFlags is the --algo or
// --algo-file flag that chose its rows, "" for every algorithm.
func (m *Matrix) JSON(rowFlags string) JSON {
	tries := max(m.ShrinkTries, 0)
	out := JSON{Command: Command(m.Seed, m.Runs, tries, rowFlags), RowFlags: rowFlags, Seed: m.Seed, Runs: m.Runs,
		ShrinkTries: tries, Algorithms: slices.Clone(m.Algorithms), Faults: slices.Clone(m.Classes), Cells: []JSONCell{}}
	for _, row := range m.Cells {
		for _, c := range row {
			mc := JSONCell{Algorithm: c.Algorithm, Fault: c.Class, NoInside: c.NoInside, Outside: jsonAnswer(c.Outside)}
			if c.Inside != nil {
				in := jsonAnswer(*c.Inside)
				mc.Inside = &in
			}
			algo := rowFlags
			if algo == "" {
				algo = "--algo " + c.Algorithm
			}
			replay := fmt.Sprintf("simrun explore %s --faults %s --seed %d --runs %d", algo, c.Class, m.Seed, m.Runs)
			if c.Outside.First >= 0 {
				mc.Outside.Replay = replay + " --search outside"
			}
			if c.Inside != nil && c.Inside.First >= 0 {
				mc.Inside.Replay = replay + " --search inside"
			}
			out.Cells = append(out.Cells, mc)
		}
	}
	return out
}

func jsonAnswer(a Answer) JSONAnswer {
	j := JSONAnswer{Verdict: a.Verdict, SafetyBroken: a.Broke, Runs: a.Runs, VacuousRuns: a.Vacuous, Cut: a.Cut,
		BreakingPoint: a.BreakingPoint}
	if a.First >= 0 {
		first := a.First
		j.FirstFailingRun = &first
	}
	for _, f := range a.Others {
		j.Others = append(j.Others, JSONOther{Verdict: f.Verdict, FirstRun: f.Index})
	}
	if a.Shrunk != nil {
		s := *a.Shrunk
		j.Shrunk, j.ShrinkTries, j.ShrinkCapped = &s, a.ShrinkTries, a.Capped
	}
	return j
}

// Answers are the cell's answers that were searched: the inside one (when
// the class has inside runs), then the outside one.
func (c *JSONCell) Answers() []*JSONAnswer {
	if c.Inside == nil {
		return []*JSONAnswer{&c.Outside}
	}
	return []*JSONAnswer{c.Inside, &c.Outside}
}

// Cell returns the cell of an algorithm and a fault class, or nil.
func (m *JSON) Cell(algo, fault string) *JSONCell {
	for i := range m.Cells {
		if m.Cells[i].Algorithm == algo && m.Cells[i].Fault == fault {
			return &m.Cells[i]
		}
	}
	return nil
}

// Table is what the Markdown matrix shows, for WriteTable.
func (m *JSON) Table() Table {
	t := Table{Command: m.Command, Seed: m.Seed, Runs: m.Runs, ShrinkTries: m.ShrinkTries,
		Algorithms: m.Algorithms, Faults: m.Faults, Counts: m.Counts()}
	for _, a := range m.Algorithms {
		row := make([]string, len(m.Faults))
		for i, f := range m.Faults {
			row[i] = "?"
			if c := m.Cell(a, f); c != nil {
				row[i] = CellText(*c)
			}
		}
		t.Cells = append(t.Cells, row)
	}
	for i := range m.Cells {
		c := &m.Cells[i]
		for _, a := range c.Answers() {
			if a.ShrinkCapped {
				t.Capped++
			}
			if a.Verdict == model.VerdictSafe && a.VacuousRuns > 0 {
				t.Vacuous++
			}
		}
		if c.Inside == nil {
			t.NoInside++
		}
		if c.Outside.BreakingPoint != "" {
			t.Breaking++
		}
	}
	return t
}

// Counts are a matrix's cells by what their answers say. They are the one
// definition of an unsafe and a failing cell: the Markdown's summary,
// simrun matrix's line and the book all print them (Counts.String).
type Counts struct {
	Cells    int
	NoInside int // cells whose class has no inside runs
	Inside   AnswerCounts
	Outside  AnswerCounts
}

// AnswerCounts count the cells by one of their answers.
type AnswerCounts struct {
	// Unsafe cells met two holders at once or a lost update.
	Unsafe int
	// Failing cells met a failing verdict: unsafe, stuck, stale or
	// client-error (search.WorstFirst).
	Failing int
	// Incomplete cells failed in no run, but one was cut at a cap before it
	// ended: neither a pass nor a failure.
	Incomplete int
}

func (n *AnswerCounts) add(a JSONAnswer) {
	switch {
	case a.Verdict == model.VerdictUnsafe:
		n.Unsafe++
		n.Failing++
	case slices.Contains(search.WorstFirst, a.Verdict):
		n.Failing++
	case a.Verdict == model.VerdictIncomplete:
		n.Incomplete++
	}
}

// Counts counts the cells of a matrix.
func (m *JSON) Counts() Counts {
	n := Counts{Cells: len(m.Cells)}
	for _, c := range m.Cells {
		if c.Inside == nil {
			n.NoInside++
		} else {
			n.Inside.add(*c.Inside)
		}
		n.Outside.add(c.Outside)
	}
	return n
}

// String is the counts as the matrix says them: "5 cells unsafe inside,
// 77 outside (of 120; 30 with no inside runs); failing: 17 inside, 85
// outside; incomplete: 0 inside, 1 outside".
func (n Counts) String() string {
	s := fmt.Sprintf("%s unsafe inside, %d outside (of %d", text.Count(n.Inside.Unsafe, "cell", "s"), n.Outside.Unsafe, n.Cells)
	if n.NoInside > 0 {
		s += fmt.Sprintf("; %d with no inside runs", n.NoInside)
	}
	s += fmt.Sprintf("); failing: %d inside, %d outside", n.Inside.Failing, n.Outside.Failing)
	if n.Inside.Incomplete+n.Outside.Incomplete > 0 {
		s += fmt.Sprintf("; incomplete: %d inside, %d outside", n.Inside.Incomplete, n.Outside.Incomplete)
	}
	return s
}

// WriteJSON writes a matrix as an indented JSON object.
func WriteJSON(w io.Writer, m JSON) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// WriteMarkdown writes a matrix as Markdown (WriteTable);
// Read reads it back.
func WriteMarkdown(w io.Writer, m JSON) error {
	return WriteTable(w, m.Table())
}

// CellText is a cell as the Markdown table shows it: its inside answer,
// then its outside one, "in: safe; out: unsafe #5 (2p/1f) lost update";
// "in: —" when the class has no inside runs; and, when it was measured,
// the outside answer's breaking point after them: "…; breaking point:
// unsafe from a pause of 2.97 s". parseCell is its inverse.
func CellText(c JSONCell) string {
	in := noInsideMark
	if c.Inside != nil {
		in = AnswerText(*c.Inside)
	}
	s := insidePrefix + in + answerSep + outsidePrefix + AnswerText(c.Outside)
	if c.Outside.BreakingPoint != "" {
		s += answerSep + breakingPrefix + c.Outside.BreakingPoint
	}
	return s
}

// AnswerText is one answer as a cell shows it: "unsafe #12 (2p/1f) lost
// update", "safe", "stuck #0 (2p/1f)*" when shrinking stopped at its
// budget, "unsafe #12 overlap, resource safe" when it did not shrink, and
// the other verdicts met after the worst: "unsafe #37 (2p/1f) lost update ·
// client-error #0", "incomplete #18" (a cut run, not shrunk). A safe answer
// some of whose runs were vacuous says how many: "safe (1204/2000
// vacuous)". parseAnswer is its inverse.
func AnswerText(c JSONAnswer) string {
	if c.FirstFailingRun == nil {
		if c.VacuousRuns > 0 {
			return fmt.Sprintf("%s (%d/%d%s)", c.Verdict, c.VacuousRuns, c.Runs, vacuousMark)
		}
		return c.Verdict
	}
	s := fmt.Sprintf("%s #%d", c.Verdict, *c.FirstFailingRun)
	if c.Shrunk != nil {
		s += fmt.Sprintf(" (%dp/%df)", c.Shrunk.Processes, c.Shrunk.Faults)
		if c.ShrinkCapped {
			s += "*"
		}
	}
	if c.SafetyBroken != "" {
		s += " " + c.SafetyBroken
	}
	for _, o := range c.Others {
		s += fmt.Sprintf("%s%s #%d", otherSep, o.Verdict, o.FirstRun)
	}
	return s
}

// The words of a cell: the prefix of each answer, what separates them,
// and what stands for an inside answer with no runs.
const (
	insidePrefix   = "in: "
	outsidePrefix  = "out: "
	breakingPrefix = "breaking point: "
	answerSep      = "; "
	noInsideMark   = "—"
)

// vacuousMark ends the count of a safe answer's vacuous runs.
const vacuousMark = " vacuous"

// otherSep separates an answer's worst verdict from the others it met.
const otherSep = " · "
