package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/scenarios"
)

// MatrixJSON is the stable JSON of a verdict matrix: every algorithm (rows)
// under every fault class (columns). Later versions only add fields. It
// holds nothing that depends on the machine or the time, so the same
// command prints the same bytes anywhere.
type MatrixJSON struct {
	Command     string       `json:"command"`             // the simrun command that makes it
	Seed        uint64       `json:"seed"`                //
	Runs        int          `json:"runs"`                // run-index space of every cell, [0, runs)
	ShrinkTries int          `json:"shrink_tries"`        // shrink budget per failing cell, in runs; 0: not shrunk
	RowFlags    string       `json:"row_flags,omitempty"` // --algo NAME or --algo-file FILE when the rows were chosen
	Algorithms  []string     `json:"algorithms"`          // rows, in order
	Faults      []string     `json:"faults"`              // columns, in order
	Cells       []MatrixCell `json:"cells"`               // row by row
}

// MatrixCell is one algorithm under one fault class.
type MatrixCell struct {
	Algorithm string `json:"algorithm"`
	Fault     string `json:"fault"`
	// Verdict is the worst verdict met (the search stops at the first
	// unsafe run), or safe when no run failed.
	Verdict         string `json:"verdict"`
	FirstFailingRun *int   `json:"first_failing_run"` // the first run with it; null when safe
	// Others are the other verdicts met before the search stopped, worst
	// first.
	Others []MatrixOther `json:"others,omitempty"`
	// Shrunk is the size of the shrunk counterexample; null when safe or not
	// shrunk. Read from Markdown, events is 0 (the table does not show it).
	Shrunk       *explore.Shrunk `json:"shrunk"`
	ShrinkTries  int             `json:"shrink_tries,omitempty"`  // runs the shrink made
	ShrinkCapped bool            `json:"shrink_capped,omitempty"` // it stopped at the budget: perhaps not minimal
	// Replay is the explore command that finds the same runs
	// and writes its counterexample.
	Replay string `json:"replay,omitempty"`
}

// MatrixOther is a verdict a cell met besides its worst one.
type MatrixOther struct {
	Verdict  string `json:"verdict"`
	FirstRun int    `json:"first_run"`
}

// MatrixCommand is the simrun command line that computes a matrix with
// these settings.
func MatrixCommand(seed uint64, runs, shrinkTries int) string {
	return fmt.Sprintf("simrun matrix --seed %d --runs %d --shrink-tries %d", seed, runs, shrinkTries)
}

// Matrix builds the JSON value of a computed matrix. rowFlags is the
// --algo or --algo-file flag that chose its rows, "" for every algorithm.
func Matrix(m *explore.Matrix, rowFlags string) MatrixJSON {
	tries := max(m.ShrinkTries, 0)
	command := withRowFlags(MatrixCommand(m.Seed, m.Runs, tries), rowFlags)
	out := MatrixJSON{Command: command, RowFlags: rowFlags, Seed: m.Seed, Runs: m.Runs, ShrinkTries: tries,
		Algorithms: slices.Clone(m.Algorithms), Faults: slices.Clone(m.Classes), Cells: []MatrixCell{}}
	for _, row := range m.Cells {
		for _, c := range row {
			mc := MatrixCell{Algorithm: c.Algorithm, Fault: c.Class, Verdict: c.Verdict}
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
				mc.Others = append(mc.Others, MatrixOther{Verdict: f.Verdict, FirstRun: f.Index})
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
func (m *MatrixJSON) Cell(algo, fault string) *MatrixCell {
	for i := range m.Cells {
		if m.Cells[i].Algorithm == algo && m.Cells[i].Fault == fault {
			return &m.Cells[i]
		}
	}
	return nil
}

// WriteMatrixJSON writes a matrix as an indented JSON object.
func WriteMatrixJSON(w io.Writer, m MatrixJSON) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// MatrixCellText is a cell as the Markdown table shows it:
// "unsafe #12 (2p/1f)", "safe", "stuck #0 (2p/1f)*" when shrinking stopped
// at its budget, "unsafe #12" when it did not shrink, and the other
// verdicts met after the worst: "unsafe #37 (2p/1f) · client-error #0".
func MatrixCellText(c MatrixCell) string {
	if c.FirstFailingRun == nil {
		return c.Verdict
	}
	s := fmt.Sprintf("%s #%d", c.Verdict, *c.FirstFailingRun)
	if c.Shrunk != nil {
		s += fmt.Sprintf(" (%dp/%df)", c.Shrunk.Processes, c.Shrunk.Faults)
		if c.ShrinkCapped {
			s += "*"
		}
	}
	for _, o := range c.Others {
		s += fmt.Sprintf("%s%s #%d", otherSep, o.Verdict, o.FirstRun)
	}
	return s
}

// otherSep separates a cell's worst verdict from the others it met.
const otherSep = " · "

// faultClassHelp says what each fault class brings, for the legend.
var faultClassHelp = map[string]string{
	scenarios.ClassNone:    "no faults, contention only",
	scenarios.ClassCrash:   "clients crash, some come back as fresh processes",
	scenarios.ClassPause:   "clients stop for up to several lock lifetimes (a GC pause, a VM migration)",
	scenarios.ClassSkew:    "client and node clocks start apart and drift",
	scenarios.ClassJump:    "client and node clocks jump forwards or backwards",
	scenarios.ClassNet:     "latency, lost requests and replies, client timeouts",
	scenarios.ClassRestart: "Redis nodes restart and lose their data",
}

// WriteMatrix writes a matrix as Markdown: a short header with the command
// that made it, the table (rows algorithms, columns fault classes) and a
// legend. ReadMatrix reads it back.
func WriteMatrix(w io.Writer, m MatrixJSON) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Verdict matrix\n\n")
	fmt.Fprintf(&b, "Every lock algorithm under every fault class, %d random scenarios per cell (seed %d). Made by\n", m.Runs, m.Seed)
	fmt.Fprintf(&b, "`%s`: the same command prints this file byte for byte\n", m.Command)
	b.WriteString("on any machine, with any `--workers`, and `simrun matrix --check FILE` reruns it and names\n")
	b.WriteString("every cell whose verdict changed.\n\n")

	header := append([]string{"algorithm"}, m.Faults...)
	rows := [][]string{header}
	for _, a := range m.Algorithms {
		row := []string{"`" + a + "`"}
		for _, f := range m.Faults {
			text := "?"
			if c := m.Cell(a, f); c != nil {
				text = MatrixCellText(*c)
			}
			row = append(row, text)
		}
		rows = append(rows, row)
	}
	width := make([]int, len(header))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c), 3)
		}
	}
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			fmt.Fprintf(&b, " %s%s |", c, strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)))
		}
		b.WriteString("\n")
	}
	line(rows[0])
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
	}
	line(sep)
	for _, r := range rows[1:] {
		line(r)
	}

	var failing, capped int
	for _, c := range m.Cells {
		if c.FirstFailingRun != nil {
			failing++
		}
		if c.ShrinkCapped {
			capped++
		}
	}
	fmt.Fprintf(&b, "\n%d of %d cells fail.\n\n", failing, len(m.Cells))
	b.WriteString("**Reading a cell.** ")
	b.WriteString("A cell shows the worst verdict its runs met, then every other one, each at its first run:\n")
	if m.ShrinkTries > 0 {
		b.WriteString("`unsafe #37 (2p/1f) · client-error #0`: run 0 was a `client-error`, the search went on, and\n")
		b.WriteString("run 37 was the first `unsafe` one (the search stops there); shrunk, its counterexample still\n")
		b.WriteString("fails the same way with 2 processes and 1 fault.\n")
	} else {
		b.WriteString("`unsafe #37 · client-error #0`: run 0 was a `client-error`, the search went on, and run 37\n")
		b.WriteString("was the first `unsafe` one (the search stops there).\n")
	}
	fmt.Fprintf(&b, "`simrun explore --algo ALGORITHM --faults CLASS --seed %d --runs %d` finds the same runs again\n", m.Seed, m.Runs)
	b.WriteString("and writes the worst one's counterexample as a scenario file that `simrun run` replays\n")
	b.WriteString("(`--shrink all`: every verdict's). Runs are numbered from 0.\n")
	fmt.Fprintf(&b, "`safe`: none of the %d runs failed. That is evidence, not a proof.\n", m.Runs)
	if m.ShrinkTries > 0 {
		fmt.Fprintf(&b, "Shrinking makes at most %d runs per cell", m.ShrinkTries)
		if capped > 0 {
			b.WriteString("; `*` marks a cell where it stopped there, so a smaller\ncounterexample may exist")
		} else {
			b.WriteString(" (no cell reached the budget)")
		}
		b.WriteString(".\n")
	}
	b.WriteString("\nVerdicts, worst first:\n\n")
	b.WriteString("- `unsafe`: two live processes held the lock at once, or a write to the protected counter\n")
	b.WriteString("  overwrote one it never saw.\n")
	b.WriteString("- `stuck`: processes kept trying while nobody held the lock for 2 × its lifetime (for a lock\n")
	b.WriteString("  that never expires: nobody got it again before the run ended).\n")
	b.WriteString("- `stale`: a release returned, yet its key stayed over 1 s while another process waited.\n")
	b.WriteString("- `client-error`: the algorithm's own code failed where the original program would throw.\n")
	b.WriteString("- `safe`: none of the above in any run.\n")
	b.WriteString("\nFault classes:\n\n")
	for _, f := range m.Faults {
		fmt.Fprintf(&b, "- `%s`: %s.\n", f, faultClassHelp[f])
	}
	_, err := w.Write(b.Bytes())
	return err
}
