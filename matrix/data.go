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
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/search"
)

// JSON is the stable JSON of a verdict matrix: every algorithm (rows)
// under every fault class (columns). Later versions only add fields. It
// holds nothing that depends on the machine or the time, so the same
// command prints the same bytes anywhere.
type JSON struct {
	Command     string     `json:"command"`             // the simrun command that makes it
	Seed        uint64     `json:"seed"`                //
	Runs        int        `json:"runs"`                // run-index space of every cell, [0, runs)
	ShrinkTries int        `json:"shrink_tries"`        // shrink budget per failing cell, in runs; 0: not shrunk
	RowFlags    string     `json:"row_flags,omitempty"` // --algo NAME or --algo-file FILE when the rows were chosen
	Algorithms  []string   `json:"algorithms"`          // rows, in order
	Faults      []string   `json:"faults"`              // columns, in order
	Cells       []JSONCell `json:"cells"`               // row by row
	_           struct{}
}

// JSONCell is one algorithm under one fault class.
type JSONCell struct {
	Algorithm string `json:"algorithm"`
	Fault     string `json:"fault"`
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
	// only where a cell shows them (a safe cell with vacuous runs), else 0.
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
	// Replay is the explore command that finds the same runs
	// and writes its counterexample.
	Replay string `json:"replay,omitempty"`
}

// JSONOther is a verdict a cell met besides its worst one.
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
			mc := JSONCell{Algorithm: c.Algorithm, Fault: c.Class, Verdict: c.Verdict, SafetyBroken: c.Broke,
				Runs: c.Runs, VacuousRuns: c.Vacuous, Cut: c.Cut}
			if c.First >= 0 {
				first := c.First
				mc.FirstFailingRun = &first
				algo := rowFlags
				if algo == "" {
					algo = "--algo " + c.Algorithm
				}
				mc.Replay = fmt.Sprintf("simrun explore %s --faults %s --seed %d --runs %d", algo, c.Class, m.Seed, m.Runs)
			}
			for _, f := range c.Others {
				mc.Others = append(mc.Others, JSONOther{Verdict: f.Verdict, FirstRun: f.Index})
			}
			if c.Shrunk != nil {
				s := *c.Shrunk
				mc.Shrunk, mc.ShrinkTries, mc.ShrinkCapped = &s, c.ShrinkTries, c.Capped
			}
			out.Cells = append(out.Cells, mc)
		}
	}
	return out
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
	for _, c := range m.Cells {
		if c.ShrinkCapped {
			t.Capped++
		}
		if c.Verdict == model.VerdictSafe && c.VacuousRuns > 0 {
			t.Vacuous++
		}
	}
	return t
}

// Counts are a matrix's cells by what they say. They are the one
// definition of a failing cell: the Markdown's summary, simrun matrix's
// line and the book all print them (Counts.String).
type Counts struct {
	Cells int
	// Failing cells met a failing verdict: unsafe, stuck, stale or
	// client-error (search.WorstFirst).
	Failing int
	// Incomplete cells failed in no run, but one was cut at a cap before it
	// ended: neither a pass nor a failure.
	Incomplete int
}

// Counts counts the cells of a matrix.
func (m *JSON) Counts() Counts {
	n := Counts{Cells: len(m.Cells)}
	for _, c := range m.Cells {
		switch {
		case slices.Contains(search.WorstFirst, c.Verdict):
			n.Failing++
		case c.Verdict == model.VerdictIncomplete:
			n.Incomplete++
		}
	}
	return n
}

// String is the counts as the matrix says them: "85 of 120 cells fail,
// 1 is incomplete".
func (n Counts) String() string {
	s := fmt.Sprintf("%d of %d cells fail", n.Failing, n.Cells)
	switch n.Incomplete {
	case 0:
	case 1:
		s += ", 1 is incomplete"
	default:
		s += fmt.Sprintf(", %d are incomplete", n.Incomplete)
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

// CellText is a cell as the Markdown table shows it:
// "unsafe #12 (2p/1f) lost update", "safe", "stuck #0 (2p/1f)*" when
// shrinking stopped at its budget, "unsafe #12 overlap, resource safe" when
// it did not shrink, and the other verdicts met after the worst: "unsafe
// #37 (2p/1f) lost update · client-error #0", "incomplete #18" (a cut
// run, not shrunk). A safe cell some of whose runs
// were vacuous says how many: "safe (1204/2000 vacuous)".
// parseCell is its inverse.
func CellText(c JSONCell) string {
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

// vacuousMark ends the count of a safe cell's vacuous runs.
const vacuousMark = " vacuous"

// otherSep separates a cell's worst verdict from the others it met.
const otherSep = " · "
