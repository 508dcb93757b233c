package matrix

// The Markdown layout of a matrix: the table, its header and its legend.

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/locksim/locksim/scenarios"
)

// Table is what the Markdown verdict matrix shows: every algorithm
// (rows) under every fault class (columns), each cell already written as
// text (JSON.Table, CellText); WriteTable only lays it out.
type Table struct {
	Command     string // the simrun command that makes it
	Seed        uint64
	Runs        int // runs per cell
	ShrinkTries int // shrink budget per failing cell; 0: not shrunk
	Algorithms  []string
	Faults      []string
	Cells       [][]string // Cells[row][column]: the cell's text
	Counts      Counts     // the cells unsafe, failing and incomplete, inside and outside
	Capped      int        // answers whose shrinking stopped at its budget
	Vacuous     int        // safe answers that show their vacuous runs
	NoInside    int        // cells with no inside runs
	Breaking    int        // cells that show a breaking point
	_           struct{}
}

// faultClassHelp says what each fault class brings, for the legend.
var faultClassHelp = map[string]string{
	scenarios.ClassNone:     "no faults, contention only",
	scenarios.ClassCrash:    "clients crash, some come back as fresh processes",
	scenarios.ClassPause:    "clients stop for up to several lock lifetimes (a GC pause, a VM migration)",
	scenarios.ClassSkew:     "client and node clocks start apart and drift",
	scenarios.ClassJump:     "client and node clocks jump forwards or backwards",
	scenarios.ClassNet:      "latency, lost requests and replies, client timeouts",
	scenarios.ClassRestart:  "Redis nodes restart and lose their data",
	scenarios.ClassFailover: "every node has a replica; a primary is lost with what it had not replicated, and the replica is promoted",
}

// WriteTable writes a matrix as Markdown: a short header with the command
// that made it, the table (rows algorithms, columns fault classes) and a
// legend. Read reads it back.
func WriteTable(w io.Writer, m Table) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Verdict matrix\n\n")
	fmt.Fprintf(&b, "Every lock algorithm under every fault class, each cell answered twice: inside the lock's\n")
	fmt.Fprintf(&b, "assumptions and outside them, %d random scenarios each (seed %d). Made by\n", m.Runs, m.Seed)
	fmt.Fprintf(&b, "`%s`: the same command prints this file byte for byte\n", m.Command)
	b.WriteString("on any machine, with any `--workers`, and `simrun matrix --check FILE` reruns it and names\n")
	b.WriteString("every cell whose verdict changed.\n\n")

	header := append([]string{"algorithm"}, m.Faults...)
	rows := [][]string{header}
	for i, a := range m.Algorithms {
		row := []string{"`" + a + "`"}
		for k := range m.Faults {
			text := "?"
			if i < len(m.Cells) && k < len(m.Cells[i]) {
				text = m.Cells[i][k]
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

	fmt.Fprintf(&b, "\n%s.\n\n", m.Counts)
	b.WriteString("**Two answers.** A cell answers twice, with one search each. `in:` keeps every fault inside\n")
	b.WriteString("the lock's assumptions (for a TTL lock: work, pauses, round trips and clock drift stay under\n")
	b.WriteString("the TTL; no node restarts, failovers or node clock jumps): any violation there is a bug in the\n")
	b.WriteString("lock, and `safe` means correct as a TTL lock within the runs. `out:` draws every fault of the\n")
	b.WriteString("class, past the assumptions too: it finds the lock's known limits, where even a correct TTL\n")
	b.WriteString("lock fails.\n")
	if m.NoInside > 0 {
		fmt.Fprintf(&b, "`in: %s`: no inside runs: every fault of this class breaks the TTL's assumptions, so an\n", noInsideMark)
		b.WriteString("inside search would run no fault at all (it is not counted as safe).\n")
	}
	if m.Breaking > 0 {
		b.WriteString("`breaking point:` the smallest fault of the class that breaks the lock, found by shrinking\n")
		b.WriteString("the fault's size.\n")
	}
	b.WriteString("\n**Reading an answer.** ")
	b.WriteString("An answer shows the worst verdict its runs met, then every other one, each at its first run:\n")
	if m.ShrinkTries > 0 {
		b.WriteString("`unsafe #37 (2p/1f) lost update · client-error #0`: run 0 was a `client-error`, the search\n")
		b.WriteString("went on, and run 37 was the first `unsafe` one (the search stops there); the protected counter\n")
		b.WriteString("lost an update in it; shrunk, its counterexample is still `unsafe` with 2 processes and 1 fault.\n")
	} else {
		b.WriteString("`unsafe #37 lost update · client-error #0`: run 0 was a `client-error`, the search went on,\n")
		b.WriteString("and run 37 was the first `unsafe` one (the search stops there); the protected counter lost\n")
		b.WriteString("an update in it.\n")
	}
	b.WriteString("An `unsafe` answer ends with which safety that run broke: `lost update`; `overlap, resource safe`\n")
	b.WriteString("when two processes held the lock at once but the counter lost nothing (a fenced counter\n")
	b.WriteString("refused the stale write, or the sections did not interleave); `lock broken, resource safe` when\n")
	b.WriteString("the lock's history fits no mutex though no two held it at once. The verdict is `unsafe` all the\n")
	b.WriteString("same: the lock is not a mutex. Shrinking keeps the verdict, not this: a counterexample may break\n")
	b.WriteString("the other safety (its report says which; the JSON's `shrunk.safety_broken`).\n")
	fmt.Fprintf(&b, "`simrun explore --algo ALGORITHM --faults CLASS --seed %d --runs %d` finds the outside answer's\n", m.Seed, m.Runs)
	b.WriteString("runs again and writes the worst one's counterexample as a scenario file that `simrun run` replays\n")
	b.WriteString("(`--shrink all`: every verdict's); `simrun book` writes every answer's. Runs are numbered from 0.\n")
	fmt.Fprintf(&b, "`safe`: none of the %d runs failed. That is evidence, not a proof.\n", m.Runs)
	if m.Vacuous > 0 {
		fmt.Fprintf(&b, "`safe (V/%d vacuous)`: none failed, but in V of the runs no planned fault touched the lock\n", m.Runs)
		b.WriteString("(a restart of a node it never used, a pause that ended before its process sent anything):\n")
		b.WriteString("those runs tested no fault.\n")
	}
	if m.ShrinkTries > 0 {
		fmt.Fprintf(&b, "Shrinking makes at most %d runs per answer", m.ShrinkTries)
		if m.Capped > 0 {
			b.WriteString("; `*` marks an answer where it stopped there, so a smaller\ncounterexample may exist")
		} else {
			b.WriteString(" (no answer reached the budget)")
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
	b.WriteString("- `incomplete`: no run failed, but a run was cut at a cap (events, duration) before it ended,\n")
	b.WriteString("  so nothing found covers only its prefix: not a pass, and not counted as failing. Shown with\n")
	b.WriteString("  its first cut run, not shrunk; the `--json` form names the cap (`cut`), and `simrun book`\n")
	b.WriteString("  writes that run as a scenario file that `simrun run` replays to the same cut.\n")
	b.WriteString("- `safe`: none of the above in any run.\n")
	b.WriteString("\nFault classes:\n\n")
	for _, f := range m.Faults {
		fmt.Fprintf(&b, "- `%s`: %s.\n", f, faultClassHelp[f])
	}
	_, err := w.Write(b.Bytes())
	return err
}
