package matrix

// Reading a matrix back (Markdown or JSON), checking it, and comparing two:
// what 'simrun matrix --check' rests on.

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/strictjson"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// Read reads a matrix that WriteMarkdown or WriteJSON wrote; name
// is used in errors. From Markdown it reads the seed, runs and shrink budget
// of the command line (with the --algo or --algo-file that chose the rows)
// and, per cell, both answers (or the mark of no inside runs): each one's
// worst verdict, its first run, the other verdicts met, counterexample
// size and the budget mark, and the breaking point when shown. The Markdown is read strictly:
// a cell reads only if it is exactly what CellText writes for what was
// read, so --check compares data, never a loose match of the text.
func Read(name string, data []byte) (JSON, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var m JSON
		// Strict keys, as the Markdown is read strictly: encoding/json
		// alone fills Faults from "fAults".
		if err := strictjson.Unmarshal(t, &m); err != nil {
			if oneAnswerKey.MatchString(err.Error()) {
				return JSON{}, fmt.Errorf("%s: %s", name, oneAnswerFile)
			}
			return JSON{}, fmt.Errorf("%s: not a matrix's JSON: %v", name, err)
		}
		if err := check(m); err != nil {
			return JSON{}, fmt.Errorf("%s: %w", name, err)
		}
		m.Command = Command(m.Seed, m.Runs, m.ShrinkTries, m.RowFlags)
		// The row flags must read back from the command line the Markdown
		// shows, in backquotes.
		back := JSON{}
		if strings.ContainsAny(m.RowFlags, "`\r\n") || parseCommand(m.Command, &back) != nil || back.RowFlags != m.RowFlags {
			return JSON{}, fmt.Errorf("%s: row_flags %q: want --algo NAME or --algo-file FILE, or none", name, m.RowFlags)
		}
		return m, nil
	}
	if !utf8.Valid(data) {
		return JSON{}, fmt.Errorf("%s: not a matrix: not UTF-8 text", name)
	}
	lines := strings.Split(string(data), "\n")
	// The first `simrun matrix …` with --seed and --runs is the command
	// that made it; the text may show others.
	var (
		m        JSON
		found    bool
		firstErr error
	)
	for _, l := range lines {
		for _, cmd := range commandSpans(l) {
			if found {
				break
			}
			if err := parseCommand(cmd, &m); err != nil {
				firstErr = cmp.Or(firstErr, err)
				continue
			}
			found = true
		}
	}
	switch {
	case !found && firstErr != nil:
		return JSON{}, fmt.Errorf("%s: %w", name, firstErr)
	case !found:
		return JSON{}, fmt.Errorf("%s: not a matrix: no `simrun matrix …` command line", name)
	}
	head := -1
	for i, l := range lines {
		if cells, ok := tableRow(l); ok && len(cells) > 0 && cells[0] == "algorithm" {
			head = i
			m.Faults = cells[1:]
			break
		}
	}
	if head < 0 {
		return JSON{}, fmt.Errorf("%s: not a matrix: no table whose first column is algorithm", name)
	}
	if len(m.Faults) == 0 {
		return JSON{}, fmt.Errorf("%s:%d: the table has no fault class columns", name, head+1)
	}
	if head+1 >= len(lines) || !isSeparator(lines[head+1]) {
		return JSON{}, fmt.Errorf("%s:%d: want the table's |---| line after its header", name, head+2)
	}
	m.Cells = []JSONCell{}
	for i := head + 2; i < len(lines); i++ {
		cells, ok := tableRow(lines[i])
		if !ok {
			break
		}
		at := fmt.Sprintf("%s:%d", name, i+1)
		if len(cells) != len(m.Faults)+1 {
			return JSON{}, fmt.Errorf("%s: %d cells, want %d (an algorithm and %d fault classes)", at, len(cells), len(m.Faults)+1, len(m.Faults))
		}
		algo := strings.Trim(cells[0], "`")
		if algo == "" {
			return JSON{}, fmt.Errorf("%s: no algorithm name", at)
		}
		m.Algorithms = append(m.Algorithms, algo)
		for k, text := range cells[1:] {
			c, err := parseCell(text)
			if err != nil {
				return JSON{}, fmt.Errorf("%s: %s under %s: %w", at, algo, m.Faults[k], err)
			}
			c.Algorithm, c.Fault = algo, m.Faults[k]
			m.Cells = append(m.Cells, c)
		}
	}
	if err := check(m); err != nil {
		return JSON{}, fmt.Errorf("%s: %w", name, err)
	}
	m.Command = Command(m.Seed, m.Runs, m.ShrinkTries, m.RowFlags)
	return m, nil
}

// commandSpans are the `simrun matrix …` spans of a line of Markdown,
// without their backquotes.
func commandSpans(l string) []string {
	var out []string
	const open = "`simrun matrix "
	for {
		i := strings.Index(l, open)
		if i < 0 {
			return out
		}
		l = l[i+1:]
		j := strings.IndexByte(l, '`')
		if j < 0 {
			return out
		}
		out = append(out, l[:j])
		l = l[j+1:]
	}
}

// parseCommand reads --seed, --runs and --shrink-tries, and the
// --algo or --algo-file that chose the rows (Matrix writes it last; a file
// name may hold spaces, quoted as a shell word).
func parseCommand(cmd string, m *JSON) error {
	got := *m
	flags := cmd
	got.RowFlags = ""
	for _, rf := range []string{" --algo-file ", " --algo "} {
		if i := strings.Index(cmd, rf); i >= 0 {
			flags, got.RowFlags = cmd[:i], cmd[i+1:]
			break
		}
	}
	f := strings.Fields(flags)[2:]
	seen := map[string]bool{}
	for i := 0; i < len(f); i++ {
		name, val, ok := strings.Cut(f[i], "=")
		if !ok && i+1 < len(f) {
			i++
			val = f[i]
		}
		var err error
		switch name {
		case "--seed", "-seed":
			got.Seed, err = strconv.ParseUint(val, 10, 64)
		case "--runs", "-runs":
			got.Runs, err = strconv.Atoi(val)
		case "--shrink-tries", "-shrink-tries":
			got.ShrinkTries, err = strconv.Atoi(val)
		default:
			continue // flags that do not change the matrix (--workers, -o)
		}
		if err != nil {
			return fmt.Errorf("`%s`: %s %q: not a number", cmd, name, val)
		}
		seen[strings.TrimLeft(name, "-")] = true
	}
	if !seen["seed"] || !seen["runs"] {
		return fmt.Errorf("`%s`: want --seed and --runs", cmd)
	}
	*m = got
	return nil
}

// oneAnswerKey matches strictjson's refusal of a key that a cell had when
// it held one answer.
var oneAnswerKey = regexp.MustCompile(`^cells\[\d+\]: unknown field "(verdict|first_failing_run|safety_broken|runs|vacuous_runs|others|shrunk|shrink_tries|shrink_capped|replay)"`)

// oneAnswerFile is why a matrix from before cells had two answers does
// not read: its cells say one verdict, which was neither answer alone.
const oneAnswerFile = "a matrix written before its cells answered inside and outside the lock's assumptions: make it again (the command in its header, with -o FILE)"

// parseCell is CellText's inverse: it reads a cell and refuses any text
// that CellText would not write for what it read.
func parseCell(text string) (JSONCell, error) {
	var c JSONCell
	parts := strings.Split(text, answerSep)
	in, okIn := strings.CutPrefix(parts[0], insidePrefix)
	if !okIn {
		if _, err := parseAnswer(text); err == nil {
			return c, errors.New(oneAnswerFile)
		}
	}
	if !okIn || len(parts) < 2 || len(parts) > 3 || !strings.HasPrefix(parts[1], outsidePrefix) {
		return c, fmt.Errorf("%q is not a cell (want in: ANSWER; out: ANSWER, such as in: safe; out: unsafe #12 (2p/1f) lost update)", text)
	}
	if in == noInsideMark {
		c.NoInside = NoInsideRuns
	} else {
		a, err := parseAnswer(in)
		if err != nil {
			return c, fmt.Errorf("inside: %w", err)
		}
		c.Inside = &a
	}
	out, err := parseAnswer(strings.TrimPrefix(parts[1], outsidePrefix))
	if err != nil {
		return c, fmt.Errorf("outside: %w", err)
	}
	c.Outside = out
	if len(parts) == 3 {
		bp, ok := strings.CutPrefix(parts[2], breakingPrefix)
		if !ok || strings.TrimSpace(bp) == "" {
			return c, fmt.Errorf("%q: %q is not a breaking point (want %sTEXT)", text, parts[2], breakingPrefix)
		}
		c.Outside.BreakingPoint = bp
	}
	if again := CellText(c); again != text {
		return JSONCell{}, fmt.Errorf("%q is not a cell as simrun writes it (%q)", text, again)
	}
	return c, nil
}

// parseAnswer reads one answer of a cell: the worst verdict, then the
// others met (AnswerText).
func parseAnswer(text string) (JSONAnswer, error) {
	parts := strings.Split(text, otherSep)
	c, err := parseWorst(parts[0])
	if err != nil {
		return c, err
	}
	for _, p := range parts[1:] {
		v, n, ok := strings.Cut(p, " #")
		first, okN := runIndex(n)
		if !ok || !okN || !slices.Contains(scenarios.Verdicts, v) || v == model.VerdictSafe {
			return JSONAnswer{}, fmt.Errorf("%q: %q is not another verdict met (want one such as client-error #0)", text, p)
		}
		c.Others = append(c.Others, JSONOther{Verdict: v, FirstRun: first})
	}
	if again := AnswerText(c); again != text {
		return JSONAnswer{}, fmt.Errorf("%q is not an answer as simrun writes it (%q)", text, again)
	}
	return c, nil
}

// parseWorst reads "VERDICT", "VERDICT (V/N vacuous)", "VERDICT #N",
// "VERDICT #N (Pp/Ff)", the same with "*" after the size, and any of the
// last three followed by which safety broke (model.BrokeKinds). Whether the
// parts fit together (a safety broken only when unsafe) is left to
// parseAnswer's writing it back.
func parseWorst(text string) (JSONAnswer, error) {
	bad := fmt.Errorf("%q is not an answer (want a verdict such as safe, or unsafe #12 (2p/1f) lost update)", text)
	var c JSONAnswer
	for _, k := range model.BrokeKinds {
		if rest, ok := strings.CutSuffix(text, " "+k); ok {
			text, c.SafetyBroken = rest, k
			break
		}
	}
	v, rest, hasRun := strings.Cut(text, " #")
	if !hasRun {
		// A verdict alone, perhaps with its vacuous runs: "safe (3/10 vacuous)".
		if verdict, counts, ok := strings.Cut(text, " ("); ok {
			if c.VacuousRuns, c.Runs, ok = vacuousCounts(counts); !ok {
				return JSONAnswer{}, bad
			}
			v = verdict
		}
	}
	if !slices.Contains(scenarios.Verdicts, v) {
		return JSONAnswer{}, bad
	}
	c.Verdict = v
	if !hasRun {
		return c, nil
	}
	n, size, hasSize := strings.Cut(rest, " (")
	first, ok := runIndex(n)
	if !ok {
		return JSONAnswer{}, bad
	}
	c.FirstFailingRun = &first
	if !hasSize {
		return c, nil
	}
	size, c.ShrinkCapped = strings.CutSuffix(size, "*")
	size, ok = strings.CutSuffix(size, "f)")
	ps, fs, ok2 := strings.Cut(size, "p/")
	p, ok3 := runIndex(ps)
	f, ok4 := runIndex(fs)
	if !ok || !ok2 || !ok3 || !ok4 {
		return JSONAnswer{}, bad
	}
	c.Shrunk = &explore.Shrunk{Processes: p, Faults: f}
	return c, nil
}

// vacuousCounts reads "V/N vacuous)", a cell's vacuous runs of its runs.
func vacuousCounts(s string) (vacuous, runs int, ok bool) {
	s, ok = strings.CutSuffix(s, vacuousMark+")")
	vs, ns, ok2 := strings.Cut(s, "/")
	vacuous, ok3 := runIndex(vs)
	runs, ok4 := runIndex(ns)
	return vacuous, runs, ok && ok2 && ok3 && ok4
}

// runIndex reads a whole number written in decimal digits only.
func runIndex(s string) (int, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// check checks what both readers need: a verdict in every cell, the
// first failing run exactly when a cell fails, and each (algorithm, fault
// class) once.
func check(m JSON) error {
	switch {
	case m.Runs < 1:
		return fmt.Errorf("runs: %d, want at least 1", m.Runs)
	case m.ShrinkTries < 0:
		return fmt.Errorf("shrink tries: %d, want 0 or more", m.ShrinkTries)
	case len(m.Cells) == 0:
		return fmt.Errorf("not a matrix: no cells")
	case len(m.Cells) != len(m.Algorithms)*len(m.Faults):
		return fmt.Errorf("%d cells for %d algorithms and %d fault classes", len(m.Cells), len(m.Algorithms), len(m.Faults))
	}
	for i, a := range m.Algorithms {
		switch {
		case !locks.ValidName(a):
			return fmt.Errorf("row %d: algorithm name %q: want a letter or digit, then letters, digits, '_', '.' or '-' (64 at most)", i+1, a)
		case slices.Contains(m.Algorithms[:i], a):
			return fmt.Errorf("row %d: algorithm %s appears twice", i+1, a)
		}
	}
	for i, f := range m.Faults {
		if slices.Contains(m.Faults[:i], f) {
			return fmt.Errorf("column %s appears twice", f)
		}
		if !slices.Contains(scenarios.FaultClasses, f) {
			return fmt.Errorf("column %q is not a fault class (valid: %s)", f, strings.Join(scenarios.FaultClasses, ", "))
		}
	}
	seen := map[[2]string]bool{}
	for _, c := range m.Cells {
		at := c.Algorithm + " under " + c.Fault
		switch {
		case !slices.Contains(m.Algorithms, c.Algorithm) || !slices.Contains(m.Faults, c.Fault):
			return fmt.Errorf("%s: not a row and column of the matrix", at)
		case seen[[2]string{c.Algorithm, c.Fault}]:
			return fmt.Errorf("%s: appears twice", at)
		case (c.Inside == nil) == (c.NoInside == ""):
			return fmt.Errorf("%s: want an inside answer or why it has none (no_inside), not both", at)
		case c.Inside != nil && c.Inside.BreakingPoint != "":
			return fmt.Errorf("%s: a breaking point on the inside answer (it belongs to the outside one)", at)
		case c.Outside.BreakingPoint != "" && c.Outside.FirstFailingRun == nil:
			return fmt.Errorf("%s: a breaking point on a safe outside answer", at)
		case strings.ContainsAny(c.Outside.BreakingPoint, "|`\r\n") || strings.Contains(c.Outside.BreakingPoint, answerSep) ||
			c.Outside.BreakingPoint != strings.TrimSpace(c.Outside.BreakingPoint):
			return fmt.Errorf("%s: breaking point %q: want one line without |, `, %q or spaces at its ends", at, c.Outside.BreakingPoint, answerSep)
		}
		if c.Inside != nil {
			if err := checkAnswer(m, *c.Inside); err != nil {
				return fmt.Errorf("%s, inside: %w", at, err)
			}
		}
		if err := checkAnswer(m, c.Outside); err != nil {
			return fmt.Errorf("%s, outside: %w", at, err)
		}
		seen[[2]string{c.Algorithm, c.Fault}] = true
	}
	return nil
}

// checkAnswer checks one answer of a cell of m.
func checkAnswer(m JSON, c JSONAnswer) error {
	switch {
	case !slices.Contains(scenarios.Verdicts, c.Verdict):
		return fmt.Errorf("verdict %q (valid: %s)", c.Verdict, strings.Join(scenarios.Verdicts, ", "))
	case (c.Verdict == model.VerdictSafe) != (c.FirstFailingRun == nil):
		return fmt.Errorf("%s with first failing run %s", c.Verdict, intOrNone(c.FirstFailingRun))
	case c.FirstFailingRun != nil && (*c.FirstFailingRun < 0 || *c.FirstFailingRun >= m.Runs):
		return fmt.Errorf("first failing run %d outside [0, %d)", *c.FirstFailingRun, m.Runs)
	case c.Verdict == model.VerdictSafe && len(c.Others) > 0:
		return fmt.Errorf("safe with other verdicts met")
	case c.SafetyBroken != "" && (c.Verdict != model.VerdictUnsafe || !slices.Contains(model.BrokeKinds, c.SafetyBroken)):
		return fmt.Errorf("%s with safety broken %q (valid for unsafe only: %s)", c.Verdict, c.SafetyBroken, strings.Join(model.BrokeKinds, "; "))
	case c.Runs < 0 || c.Runs > m.Runs || c.VacuousRuns < 0 || c.VacuousRuns > c.Runs:
		return fmt.Errorf("%d vacuous runs of %d searched, want 0 ≤ vacuous ≤ searched ≤ %d", c.VacuousRuns, c.Runs, m.Runs)
	case c.Shrunk != nil && c.FirstFailingRun == nil:
		return fmt.Errorf("%s with a shrunk counterexample", c.Verdict)
	case c.Shrunk != nil && (c.Shrunk.Processes < 0 || c.Shrunk.Faults < 0 || c.Shrunk.Events < 0):
		return fmt.Errorf("shrunk to %d processes, %d faults, %d events: want none below 0", c.Shrunk.Processes, c.Shrunk.Faults, c.Shrunk.Events)
	case c.Cut != "" && c.Verdict != model.VerdictIncomplete:
		return fmt.Errorf("%s with a cut %q (only an incomplete answer was cut)", c.Verdict, c.Cut)
	case c.Verdict == model.VerdictSafe && c.Runs != 0 && c.Runs != m.Runs:
		return fmt.Errorf("safe after %d runs searched, want all %d", c.Runs, m.Runs)
	}
	met := []string{c.Verdict}
	for _, o := range c.Others {
		switch {
		case o.Verdict == model.VerdictSafe || !slices.Contains(scenarios.Verdicts, o.Verdict):
			return fmt.Errorf("other verdict %q (valid: unsafe, stuck, stale, client-error)", o.Verdict)
		case slices.Contains(met, o.Verdict):
			return fmt.Errorf("%s met twice", o.Verdict)
		case o.FirstRun < 0 || o.FirstRun >= m.Runs:
			return fmt.Errorf("%s at run %d outside [0, %d)", o.Verdict, o.FirstRun, m.Runs)
		}
		met = append(met, o.Verdict)
	}
	return nil
}

func intOrNone(p *int) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(*p)
}

// tableRow splits "| a | b |" into its trimmed cells.
func tableRow(l string) ([]string, bool) {
	l = strings.TrimSpace(l)
	if len(l) < 2 || l[0] != '|' || l[len(l)-1] != '|' {
		return nil, false
	}
	parts := strings.Split(l[1:len(l)-1], "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts, true
}

func isSeparator(l string) bool {
	cells, ok := tableRow(l)
	if !ok {
		return false
	}
	for _, c := range cells {
		if strings.Trim(c, "-:") != "" || c == "" {
			return false
		}
	}
	return true
}

// Change is a cell whose verdict differs between two matrices; Was
// or Now is "" when the cell is only in the other.
type Change struct {
	Algorithm, Fault string
	Was, Now         JSONCell
}

func (c Change) String() string {
	text := func(x JSONCell) string {
		if x.Outside.Verdict == "" {
			return "(no cell)"
		}
		return CellText(x)
	}
	return fmt.Sprintf("%s under %s: %s → %s", c.Algorithm, c.Fault, text(c.Was), text(c.Now))
}

// verdicts names the verdicts a cell's answers met, in order: what
// Diff calls a change.
func verdicts(c JSONCell) string {
	answer := func(a JSONAnswer) string {
		names := []string{a.Verdict}
		for _, o := range a.Others {
			names = append(names, o.Verdict)
		}
		return strings.Join(names, ",")
	}
	in := noInsideMark
	if c.Inside != nil {
		in = answer(*c.Inside)
	}
	return in + answerSep + answer(c.Outside)
}

// movedAnswer says whether an answer with the same verdicts fails at
// another run, shrinks to another size, breaks another safety or breaks at
// another point (a matrix that does not say one, written before cells named
// it or searched without shrinking, as --check searches: not a move).
func movedAnswer(w, n JSONAnswer) bool {
	return intOrNone(w.FirstFailingRun) != intOrNone(n.FirstFailingRun) || fmt.Sprint(w.Others) != fmt.Sprint(n.Others) ||
		(w.Shrunk != nil && n.Shrunk != nil && (w.Shrunk.Processes != n.Shrunk.Processes || w.Shrunk.Faults != n.Shrunk.Faults)) ||
		(w.SafetyBroken != "" && n.SafetyBroken != "" && w.SafetyBroken != n.SafetyBroken) ||
		(w.BreakingPoint != "" && n.BreakingPoint != "" && w.BreakingPoint != n.BreakingPoint)
}

// Diff compares two matrices cell by cell, in now's order, then the
// cells only in was: Changed are the cells whose verdicts differ in either
// answer (the worst or any other met, an inside answer only one has, or a
// cell only one has), Moved those with the same verdicts where an answer's
// first run, counterexample size, safety broken or breaking point differs
// (movedAnswer). Vacuous runs are not compared.
func Diff(was, now JSON) (changed, moved []Change) {
	for _, n := range now.Cells {
		ch := Change{Algorithm: n.Algorithm, Fault: n.Fault, Now: n}
		w := was.Cell(n.Algorithm, n.Fault)
		switch {
		case w == nil:
			changed = append(changed, ch)
		case verdicts(*w) != verdicts(n):
			ch.Was = *w
			changed = append(changed, ch)
		case movedAnswer(w.Outside, n.Outside) || (w.Inside != nil && movedAnswer(*w.Inside, *n.Inside)):
			ch.Was = *w
			moved = append(moved, ch)
		}
	}
	for _, w := range was.Cells {
		if now.Cell(w.Algorithm, w.Fault) == nil {
			changed = append(changed, Change{Algorithm: w.Algorithm, Fault: w.Fault, Was: w})
		}
	}
	return changed, moved
}
