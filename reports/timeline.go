package reports

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// This file is over 400 lines on purpose: the terminal timeline's rows,
// folds and legend share the column scale and glyphs, and are read together
// when a glyph changes.

// The terminal timeline: one row per process, one per node for the watched
// key, one per violation, under an axis of true time. Glyphs are ASCII so the
// columns line up in any terminal font; colour only adds emphasis.

const (
	glyphAbsent   = ' '
	glyphIdle     = '.'
	glyphCalling  = '-'
	glyphHolding  = '='
	glyphCrashed  = 'x'
	glyphPaused   = 'p'
	glyphPausedH  = 'P' // paused while holding: the case the documents warn about
	glyphCrash    = 'X'
	glyphRestart  = 'R'
	glyphJumpFwd  = '>'
	glyphJumpBack = '<'
	glyphLost     = '~'
	glyphOther    = '*'
	glyphKeyGone  = '.'
	glyphKey      = '='
	glyphDown     = 'x'
	glyphViolates = '!'
)

const foldText = "//"

// ANSI colours by role.
const (
	colReset   = "\x1b[0m"
	colHolding = "\x1b[32m"   // green
	colOverlap = "\x1b[1;31m" // bold red: a holder inside a double-holder window
	colCalling = "\x1b[33m"   // yellow
	colPaused  = "\x1b[35m"   // magenta
	colCrash   = "\x1b[31m"   // red
	colKey     = "\x1b[36m"   // cyan
	colDim     = "\x1b[2m"
	colBad     = "\x1b[1;31m"
	colGood    = "\x1b[1;32m"
)

type cell struct {
	r   rune
	col string
}

// row is one lane drawn into columns.
type row struct {
	label string
	cells []cell
}

func newRow(label string, width int, fill rune) row {
	r := row{label: label, cells: make([]cell, width)}
	for i := range r.cells {
		r.cells[i] = cell{r: fill}
	}
	return r
}

// textScale is the terminal timeline's scale for at most width columns,
// and the width of its lane labels.
func (p *picture) textScale(width int) (scale, int) {
	labels := []string{"true time"}
	for _, l := range p.procs {
		labels = append(labels, l.name)
	}
	for _, l := range p.nodes {
		labels = append(labels, l.name)
	}
	for _, w := range p.windows {
		labels = append(labels, w.kind)
	}
	lw := 11 // as wide as the other sections' labels ("linearizable" aside)
	for _, l := range labels {
		lw = max(lw, min(len(l)+1, 17))
	}
	return fitScale(p.points, p.end, p.keep(), width-lw, len(foldText)), lw
}

// timeline draws the picture into at most width columns.
func (p *picture) timeline(b *strings.Builder, width int, color bool) {
	sc, lw := p.textScale(width)

	// The scale line says what a column is and what the folds hide.
	line := fmt.Sprintf("%-*s1 column = %s", lw, "timeline", dur(sc.step))
	if fs := sc.folds(); len(fs) > 0 {
		var hid []string
		var total sim.Time
		for _, f := range fs {
			hid = append(hid, fmt.Sprintf("%s at %s", dur(f[1]-f[0]), dur(f[0])))
			total += f[1] - f[0]
		}
		full := line + fmt.Sprintf("; %s hides %s, where nothing changes", foldText, strings.Join(hid, ", "))
		line += fmt.Sprintf("; %s hides %d quiet stretches, %s in all", foldText, len(fs), dur(total))
		if utf8.RuneCountInString(full) <= width {
			line = full
		}
	}
	b.WriteString(line + "\n")

	rows := []row{p.axisRow(&sc, width-lw)}
	for _, l := range p.procs {
		rows = append(rows, p.procRow(&sc, l))
	}
	for _, l := range p.nodes {
		rows = append(rows, p.nodeRow(&sc, l))
	}
	for _, w := range p.windows {
		r := newRow(w.kind, sc.width, ' ')
		for c := sc.colStart(w.from); c <= sc.colEnd(w.from, w.to); c++ {
			r.cells[c] = cell{glyphViolates, colBad}
		}
		rows = append(rows, r)
	}
	for _, r := range rows {
		for c := range r.cells {
			if sc.isFold(c) {
				r.cells[c] = cell{rune(foldText[(c-foldStart(&sc, c))%len(foldText)]), colDim}
			}
		}
		label := r.label
		if len(label) >= lw {
			label = label[:lw-2] + "…"
		}
		b.WriteString(fmt.Sprintf("%-*s", lw, label))
		writeCells(b, r.cells, color)
		b.WriteString("\n")
	}
	p.legend(b, rows, lw, width, color)
}

// foldStart is the first column of the fold holding c.
func foldStart(sc *scale, c int) int {
	for i := 1; i < len(sc.segs); i++ {
		if c < sc.segs[i].c0 {
			return sc.segs[i].c0 - sc.fold
		}
	}
	return c
}

func writeCells(b *strings.Builder, cells []cell, color bool) {
	// Trailing blanks are trimmed so lines end where the picture does.
	end := len(cells)
	for end > 0 && cells[end-1].r == ' ' {
		end--
	}
	cur := ""
	for _, c := range cells[:end] {
		if color && c.col != cur {
			if cur != "" {
				b.WriteString(colReset)
			}
			b.WriteString(c.col)
			cur = c.col
		}
		b.WriteRune(c.r)
	}
	if color && cur != "" {
		b.WriteString(colReset)
	}
}

// axisRow labels ticks at round times, as many as fit. The last label may
// run past the picture's end, up to avail columns.
func (p *picture) axisRow(sc *scale, avail int) row {
	r := newRow("true time", avail, ' ')
	every := 50 * sc.step
	for _, k := range []sim.Time{5, 10, 20, 50} {
		if ticksFit(sc, k*sc.step, int(k)) {
			every = k * sc.step
			break
		}
	}
	free := 0 // first column a label may use
	for i, g := range sc.segs {
		limit := avail // a label stops short of the next fold
		if i+1 < len(sc.segs) {
			limit = g.c0 + g.n
		}
		for t := (g.t0 + every - 1) / every * every; t < sc.segEnd(i); t += every {
			c := sc.colStart(t)
			label := "|" + dur(t)
			if c < free || c+len(label) > limit {
				continue
			}
			for k, ch := range label {
				r.cells[c+k] = cell{ch, ""}
			}
			free = c + len(label) + 1
		}
	}
	return r
}

// ticksFit says whether every tick label ("|" and the time) fits, with a
// space to spare, in the k columns to the next tick.
func ticksFit(sc *scale, every sim.Time, k int) bool {
	for i, g := range sc.segs {
		for t := (g.t0 + every - 1) / every * every; t < sc.segEnd(i); t += every {
			if len(dur(t))+3 > k { // "|", the label, and room to breathe
				return false
			}
		}
	}
	return true
}

func (p *picture) procRow(sc *scale, l procLane) row {
	r := newRow(l.name, sc.width, glyphAbsent)
	prio := make([]procState, sc.width)
	held := make([]bool, sc.width)
	for _, s := range l.spans {
		for c := sc.colStart(s.from); c <= sc.colEnd(s.from, s.to); c++ {
			prio[c] = max(prio[c], s.st)
			held[c] = held[c] || s.st == stHolding
		}
	}
	for c, st := range prio {
		t0, t1 := colTimes(sc, c)
		switch st {
		case stIdle:
			r.cells[c] = cell{glyphIdle, colDim}
		case stCrashed:
			r.cells[c] = cell{glyphCrashed, colCrash}
		case stCalling:
			r.cells[c] = cell{glyphCalling, colCalling}
		case stHolding:
			col := colHolding
			if p.inOverlap(l.name, t0, t1) {
				col = colOverlap
			}
			r.cells[c] = cell{glyphHolding, col}
		}
	}
	for _, ps := range l.pauses {
		for c := sc.colStart(ps.from); c <= sc.colEnd(ps.from, ps.to); c++ {
			// P only where the pause and a hold meet in time, not merely in
			// one column.
			t0, t1 := colTimes(sc, c)
			g := glyphPaused
			if held[c] && heldDuring(l, max(t0, ps.from), min(t1, ps.to)) {
				g = glyphPausedH
			}
			r.cells[c] = cell{g, colPaused}
		}
	}
	for _, m := range l.marks {
		r.cells[sc.colStart(m.at)] = markCell(m.kind)
	}
	return r
}

// heldDuring says whether the lane holds the lock somewhere in [from, to].
func heldDuring(l procLane, from, to sim.Time) bool {
	for _, s := range l.spans {
		if s.st == stHolding && s.from <= to && from < max(s.to, s.from+1) {
			return true
		}
	}
	return false
}

// colTimes is the true time column c covers.
func colTimes(sc *scale, c int) (sim.Time, sim.Time) {
	for _, g := range sc.segs {
		if c >= g.c0 && c < g.c0+g.n {
			t0 := g.t0 + sim.Time(c-g.c0)*sc.step
			return t0, t0 + sc.step - 1
		}
	}
	return 0, -1
}

func markCell(k markKind) cell {
	switch k {
	case markCrash, markNodeRestart:
		return cell{glyphCrash, colCrash}
	case markRestart:
		return cell{glyphRestart, colCrash}
	case markJumpFwd:
		return cell{glyphJumpFwd, colPaused}
	case markLost:
		return cell{glyphLost, colPaused}
	case markOther:
		return cell{glyphOther, colPaused}
	}
	return cell{glyphJumpBack, colPaused}
}

func (p *picture) nodeRow(sc *scale, l nodeLane) row {
	r := newRow(l.name, sc.width, glyphKeyGone)
	for c := range r.cells {
		r.cells[c].col = colDim
	}
	startAt := make([]int, sc.width) // version starting in the column, +1
	marked := make([]bool, sc.width) // a fault marker's column
	for _, m := range l.marks {
		marked[sc.colStart(m.at)] = true
	}
	for _, s := range l.spans {
		c0, c1 := sc.colStart(s.from), sc.colEnd(s.from, s.to)
		if !s.down && marked[c0] && c0+1 < sc.width && !marked[c0+1] && !sc.isFold(c0+1) {
			// A fault marker takes the column the version starts in: name
			// the version in the next one, so it is still drawn.
			c0, c1 = c0+1, max(c1, c0+1)
		}
		for c := c0; c <= c1; c++ {
			switch {
			case s.down:
				r.cells[c] = cell{glyphDown, colCrash}
			case r.cells[c].r != glyphDown && startAt[c] == 0:
				r.cells[c] = cell{glyphKey, colKey}
			}
		}
		if !s.down && r.cells[c0].r == glyphDown && c0 < c1 {
			// The node came back in this column: name the version in the
			// next one, so the key it answers with is not left unnamed.
			c0++
		}
		if !s.down && r.cells[c0].r != glyphDown {
			// The version that starts last in a column names it.
			startAt[c0] = s.v + 1
			r.cells[c0] = cell{rune(p.versions[s.v].label[0]), colKey}
		}
	}
	// After a fold, name the version again: its start may be far back.
	for _, g := range sc.segs[1:] {
		if c := g.c0; r.cells[c].r == glyphKey {
			t0, _ := colTimes(sc, c)
			for _, s := range l.spans {
				if !s.down && s.from <= t0 && t0 < s.to {
					r.cells[c] = cell{rune(p.versions[s.v].label[0]), colKey}
				}
			}
		}
	}
	for _, m := range l.marks {
		r.cells[sc.colStart(m.at)] = markCell(m.kind)
	}
	return r
}

// legend explains the glyphs the rows use, and the key's versions.
func (p *picture) legend(b *strings.Builder, rows []row, lw, width int, color bool) {
	used := map[rune]bool{}
	for _, r := range rows[1 : 1+len(p.procs)] {
		for _, c := range r.cells {
			used[c.r] = true
		}
	}
	nodeUsed := map[rune]bool{}
	for _, r := range rows[1+len(p.procs) : 1+len(p.procs)+len(p.nodes)] {
		for _, c := range r.cells {
			nodeUsed[c.r] = true
		}
	}
	var parts []string
	for _, g := range []struct {
		r    rune
		text string
	}{
		{glyphIdle, "idle"}, {glyphCalling, "in Acquire/Release"}, {glyphHolding, "holding"},
		{glyphPaused, "paused"}, {glyphPausedH, "paused holding"}, {glyphCrashed, "crashed"},
		{glyphCrash, "crash"}, {glyphRestart, "restart"}, {glyphJumpFwd, "clock jumps ahead"},
		{glyphJumpBack, "clock jumps back"}, {glyphLost, "request or reply lost"},
		{glyphOther, "other fault (under faults)"},
	} {
		if used[g.r] {
			parts = append(parts, fmt.Sprintf("%c %s", g.r, g.text))
		}
	}
	if len(p.windows) > 0 {
		parts = append(parts, "! a violation's window")
	}
	wrap(b, "", parts, lw, width)
	if len(p.nodes) == 0 {
		return
	}
	key := p.key
	if key == "" {
		key = "(no key watched)"
	}
	parts = []string{key + ": A-Z its versions (below)", ". absent"}
	if nodeUsed[glyphDown] {
		parts = append(parts, restartLegend(p.faults))
	}
	if nodeUsed[glyphJumpFwd] || nodeUsed[glyphJumpBack] {
		parts = append(parts, "> < clock jumps")
	}
	wrap(b, "key", parts, lw, width)
	const maxVersions = 12
	for i, v := range p.versions {
		if i == maxVersions {
			fmt.Fprintf(b, "%-*s… and %d more versions\n", lw, "", len(p.versions)-maxVersions)
			break
		}
		text := clip(v.describe(&p.ev), width-lw-2)
		label := v.label
		if color {
			label = colKey + label + colReset
		}
		fmt.Fprintf(b, "%-*s%s %s\n", lw, "", label, text)
	}
}

// describe says what a version is: value, TTL, who wrote it where.
func (v keyVersion) describe(w *eventWriter) string {
	ttl := "no TTL"
	if v.ttl > 0 {
		ttl = "TTL " + v.ttl.String()
	}
	where := "a replica"
	if len(v.nodes) > 0 {
		where = nodeName(v.nodes[0])
	}
	if len(v.nodes) > 1 {
		var ns []string
		for _, n := range v.nodes {
			ns = append(ns, fmt.Sprint(n))
		}
		where = "nodes " + strings.Join(ns, ",")
	}
	return fmt.Sprintf("%s, %s: %s %s at %s (%s)", keyContent(v.key, 30), ttl, v.by, v.cmd, w.at(v.at), where)
}

// wrap writes parts after a label, two spaces apart, in lines of at most
// width columns.
func wrap(b *strings.Builder, label string, parts []string, lw, width int) {
	line := fmt.Sprintf("%-*s", lw, label)
	n := 0
	for _, p := range parts {
		if n > 0 && utf8.RuneCountInString(line)+2+utf8.RuneCountInString(p) > width {
			b.WriteString(line + "\n")
			line, n = strings.Repeat(" ", lw), 0
		}
		if n > 0 {
			line += "  "
		}
		line += p
		n++
	}
	b.WriteString(line + "\n")
}

// clip cuts s to n columns, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}

// keyContent draws a watched key's content in about n columns: a string
// quoted as quoteShort does (n runes and the quotes), another type by its
// name and its content as the node draws it ({field: value, …} for a hash),
// cut to n+2 columns in all. Random tokens in it are cut first
// (shortTokens).
func keyContent(k sim.KeyState, n int) string {
	if k.Type == node.KeyString {
		return quoteShort(shortTokens(k.Value), n)
	}
	return clip(keyPlain(k), n+2)
}

// keyPlain is a watched key's content uncut but for its tokens: a string as
// it is, another type after its name.
func keyPlain(k sim.KeyState) string {
	if k.Type == node.KeyString {
		return shortTokens(k.Value)
	}
	return k.Type.String() + " " + shortTokens(k.Value)
}

func quoteShort(s string, n int) string {
	if r := []rune(s); len(r) > n {
		s = string(r[:n-3]) + "..."
	}
	return fmt.Sprintf("%q", s)
}
