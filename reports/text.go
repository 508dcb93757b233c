package reports

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// Offset formats true time as the time since the run began: "5.018s".
func Offset(t sim.Time) string {
	return time.Duration(t).String()
}

// precision is what a report rounds its times to: a millisecond, or finer
// when a timeline column (step) is finer, so that times say no more than a
// reader can use and a column of times keeps its width.
func precision(step sim.Time) time.Duration {
	r := time.Millisecond
	for r > 1 && sim.Time(r) > step {
		r /= 10
	}
	return r
}

// at is t as Offset writes it, rounded to the report's precision.
func (w *eventWriter) at(t sim.Time) string {
	if w.round <= 0 {
		return Offset(t)
	}
	return time.Duration(t).Round(w.round).String()
}

// window is "from → to", or, when the two read the same at the report's
// precision (a zero-length overlap, a hold ended the instant it began),
// "at from, for" its length: an instant, not a span that reads as nothing.
func (w *eventWriter) window(from, to sim.Time) string {
	a, b := w.at(from), w.at(to)
	if a != b {
		return a + " → " + b
	}
	d := time.Duration(to - from)
	if d >= time.Microsecond {
		d = d.Round(time.Microsecond)
	}
	return "at " + a + ", for " + d.String()
}

// TextOptions says how to render for a person.
type TextOptions struct {
	// Color adds ANSI colours. The caller decides (a terminal, NO_COLOR
	// unset), so output under test is the same everywhere.
	Color bool
	// Trace adds every command: sent, ran, node, reply, result.
	Trace bool
	// Width is the most columns a line takes; 0 means 100.
	Width int
	// TraceWidth is the most columns a trace line takes: the terminal's
	// width when there is one; 0 means no limit (a file or a pipe).
	TraceWidth int
	_          struct{} // grows: callers name the fields they set
}

// WriteText writes the verdict, its witnesses and the timeline, without
// colour.
func WriteText(w io.Writer, o *judge.Outcome) error {
	return WriteTextWith(w, o, TextOptions{})
}

// WriteTextWith writes the verdict and its witnesses, who held the lock when,
// the timeline, and with opt.Trace the command trace.
func WriteTextWith(w io.Writer, o *judge.Outcome, opt TextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 100
	}
	j := JSON(o)
	p := newPicture(o)
	sc, _ := p.textScale(opt.Width)
	p.ev.round = precision(sc.step)
	ev := p.ev
	b := &strings.Builder{}
	head := j.Scenario
	if o.Scenario.Source != "" {
		head += " (" + CiteList(o.Scenario.Source) + ")"
	}
	para(b, "scenario   ", indent(11), head, opt.Width)
	if summary, _ := o.Scenario.Wording(o.Prepared); summary != "" {
		para(b, indent(11), indent(11), summary, opt.Width)
	}
	para(b, "algorithm  ", indent(11), fmt.Sprintf("%s (%s)", j.Algorithm, algoSource(o)), opt.Width)
	for i, v := range j.Overrides {
		label := indent(11)
		if i == 0 {
			label = "params     "
		}
		para(b, label, indent(11), v.String(), opt.Width)
	}
	para(b, "assumptions ", indent(12), AssumptionsLine(j.Assumptions), opt.Width)
	fmt.Fprintf(b, "seed       %d\n", j.Seed)
	if o.Backend != "" {
		// Only a real backend gets a line: the simulated reports stay as
		// they were.
		fmt.Fprintf(b, "backend    %s, in wall-clock time (not deterministic: the digest differs run to run)\n", j.Backend)
	}
	verdict := strings.ToUpper(j.Verdict)
	if opt.Color {
		c := colBad
		if j.Verdict == "safe" {
			c = colGood
		}
		verdict = c + verdict + colReset
	}
	fmt.Fprintf(b, "verdict    %s", verdict)
	if j.Expect != "" {
		if j.Expect == j.Verdict {
			fmt.Fprintf(b, " (as expected)")
		} else {
			fmt.Fprintf(b, " (expected %s)", j.Expect)
		}
	}
	if q := VerdictQualifier(j.Verdict, j.SafetyBroken, j.Vacuous); q != "" {
		b.WriteString(" — " + q)
	}
	b.WriteString("\n")
	for _, v := range o.Verdict.Violations {
		fmt.Fprintf(b, "  %-12s %s  %s\n", v.Kind, strings.Join(v.Processes, ", "), ev.window(v.From, v.To))
		if v.Detail != "" {
			para(b, indent(15), indent(15), v.Detail, opt.Width)
		}
		for _, e := range v.Witness {
			// Continuation lines start under the event's text, after its
			// time and process.
			para(b, indent(15), indent(15+18), ev.event(e), opt.Width)
		}
	}
	for _, n := range o.Verdict.Notes {
		if n.From == n.To && len(n.Processes) == 0 {
			// An instant with nobody to name (a fault that touched
			// nothing): one line, its time then its text.
			para(b, fmt.Sprintf("  %-12s at %s: ", "note", ev.at(n.From)), indent(15), n.Text, opt.Width)
			continue
		}
		fmt.Fprintf(b, "  %-12s %s  %s\n", "note", strings.Join(n.Processes, ", "), ev.window(n.From, n.To))
		para(b, indent(15), indent(15), n.Text, opt.Width)
	}
	writeHolds(b, p, opt.Width)
	writeNextSteps(b, j.NextSteps, opt.Width)
	fmt.Fprintf(b, "linearizable  lock %s, resource %s\n", j.Linearizable, j.ResourceLinearizable)
	fmt.Fprintf(b, "stats      acquired %d · failed %d · commands %d · %.3f s %s\n",
		j.Stats.Acquired, j.Stats.Failed, j.Stats.Commands, j.Stats.SimSeconds, timeWord(o))
	if j.Cut != "" {
		fmt.Fprintf(b, "cut        %s\n", j.Cut)
	}
	fmt.Fprintf(b, "digest     %s\n", j.Digest)
	b.WriteString("\n")
	p.timeline(b, opt.Width, opt.Color)
	if len(p.faults) > 0 {
		for i, e := range p.faults {
			label := ""
			if i == 0 {
				label = "faults"
			}
			para(b, fmt.Sprintf("%-11s", label), indent(11+18), ev.event(e), opt.Width)
		}
	}
	if opt.Trace {
		b.WriteString("\n")
		writeTrace(b, &ev, commandTrace(&o.Result.History), witnessReqs(o.Verdict.Violations), opt.TraceWidth)
		writeResourceWrites(b, &ev, opt.TraceWidth)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// AssumptionsLine is what a report says of a run's assumptions: "inside",
// or "outside: " and the assumption the scenario breaks.
func AssumptionsLine(a AssumptionsJSON) string {
	if a.Inside {
		return "inside"
	}
	return "outside: " + a.Outside
}

// NoFaultActed is what a report says of a run whose planned faults all
// left the lock alone (sim.Result.Vacuous).
const NoFaultActed = "no fault touched the lock"

// VerdictQualifier is what a summary says after a run's verdict: which
// safety an unsafe run broke (model.Verdict.Broke), and that no fault
// touched the lock; "" when neither applies. "SAFE — but no fault touched
// the lock", "UNSAFE — lost update; no fault touched the lock".
func VerdictQualifier(verdict, broke string, vacuous bool) string {
	var parts []string
	if broke != "" {
		parts = append(parts, broke)
	}
	if vacuous {
		if verdict == model.VerdictSafe || verdict == model.VerdictIncomplete {
			// Nothing found, and nothing was tried: the pass is empty.
			parts = append(parts, "but "+NoFaultActed)
		} else {
			parts = append(parts, NoFaultActed)
		}
	}
	return strings.Join(parts, "; ")
}

// writeNextSteps says what the counterexample means and what to try, one
// paragraph each.
func writeNextSteps(b *strings.Builder, steps []judge.NextStep, width int) {
	for i, s := range steps {
		label := indent(11)
		if i == 0 {
			label = "next       "
		}
		para(b, label, indent(11), s.Means+".", width)
		for _, t := range s.Try {
			para(b, indent(11)+"try ", indent(15), t+".", width)
		}
	}
}

// maxHolds bounds the holds list; a long run lists those in violations.
const maxHolds = 12

// shownHolds picks the holds worth listing: all of a short run's; of a long
// run's, those that meet a violation's window, then the earliest.
func shownHolds(p *picture) (shown []holdRow, more int) {
	if len(p.holds) <= maxHolds {
		return p.holds, 0
	}
	for _, h := range p.holds {
		for _, w := range p.windows {
			if h.from <= w.to && w.from <= h.to {
				shown = append(shown, h)
				break
			}
		}
	}
	if len(shown) == 0 {
		shown = p.holds
	}
	if len(shown) > maxHolds {
		shown = shown[:maxHolds]
	}
	return shown, len(p.holds) - len(shown)
}

// writeHolds says who held the lock when, how each hold ended, and which
// of its writes the fenced resource refused.
func writeHolds(b *strings.Builder, p *picture, width int) {
	shown, more := shownHolds(p)
	for i, h := range shown {
		label := ""
		if i == 0 {
			label = "holds"
		}
		text := fmt.Sprintf("%-4s %s  %s%s", h.name, p.ev.window(h.from, h.to), holdEnd(h), holdLease(h))
		for _, at := range h.refused {
			text += "; its write at " + p.ev.at(at) + " was refused (stale fence)"
		}
		para(b, fmt.Sprintf("%-11s", label), indent(16), text, width)
	}
	if more > 0 {
		fmt.Fprintf(b, "%-11s… %d more\n", "", more)
	}
}

func holdLease(h holdRow) string {
	var parts []string
	if h.token != "" {
		parts = append(parts, "token "+shortTokens(h.token))
	}
	if h.fence != 0 {
		parts = append(parts, fmt.Sprintf("fence %d", h.fence))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func holdEnd(h holdRow) string {
	switch h.end {
	case "crashed":
		return "crashed while holding"
	case "stopped":
		return "stopped while holding"
	case "open":
		return "still held at the end"
	case "lost":
		return "lost: an extend failed"
	}
	return h.end
}

// Event renders one history event on one line; scripts are shown by their
// SHA1, as Redis names them.
func Event(h sim.History, e sim.Event) string {
	return (&eventWriter{h: &h}).event(e)
}

// eventWriter renders events, naming Lua scripts by the algorithm's names
// for them (locks.Algorithm.Scripts).
type eventWriter struct {
	h       *sim.History
	scripts map[string]string // looked up only
	round   time.Duration     // what times are rounded to (precision); 0: not at all
}

func (w *eventWriter) event(e sim.Event) string {
	h := w.h
	who := ""
	if e.Proc >= 0 && e.Proc < len(h.Procs) {
		who = h.Procs[e.Proc]
	}
	at := w.at(e.At)
	switch e.Kind {
	case sim.KindCommand:
		return fmt.Sprintf("%-12s %-4s node%d  %s → %s", at, who, e.Node, w.args(e.Args), shortTokens(e.Reply.String()))
	case sim.KindReplicate:
		key := "absent"
		if e.Key.Exists {
			key = keyPlain(e.Key)
		}
		return fmt.Sprintf("%-12s %-4s %s  applies %s (key: %s)", at, "", laneName(h, e.Node), w.args(e.Args), key)
	case sim.KindCommandResult:
		if e.Err != "" {
			return fmt.Sprintf("%-12s %-4s %s", at, who, e.Err)
		}
		return fmt.Sprintf("%-12s %-4s got %s", at, who, e.Reply)
	case sim.KindLockReturn:
		switch {
		case e.Err != "":
			return fmt.Sprintf("%-12s %-4s acquire failed: %s", at, who, e.Err)
		case e.Held:
			return fmt.Sprintf("%-12s %-4s acquired%s", at, who, lease(e))
		default:
			return fmt.Sprintf("%-12s %-4s did not acquire", at, who)
		}
	case sim.KindResourceWrite:
		ok := "accepted"
		if !e.Accepted {
			ok = "refused"
		}
		return fmt.Sprintf("%-12s %-4s wrote %d%s: %s", at, who, e.Value, lease(e), ok)
	case sim.KindResourceRead:
		return fmt.Sprintf("%-12s %-4s read %d", at, who, e.Value)
	case sim.KindFault:
		target := who
		if e.Node >= 0 {
			target = fmt.Sprintf("node%d", e.Node)
		}
		if e.Fault.Promotes() && e.Value > 0 {
			return fmt.Sprintf("%-12s %-4s %s %s (%s promoted)", at, target, e.Fault, e.Dur, laneName(h, int(e.Value)))
		}
		if e.Dur != 0 {
			return fmt.Sprintf("%-12s %-4s %s %s%s", at, target, e.Fault, e.Dur, reloaded(e))
		}
		return fmt.Sprintf("%-12s %-4s %s", at, target, e.Fault)
	case sim.KindProcEnd:
		if e.Err != "" {
			return fmt.Sprintf("%-12s %-4s stopped: %s", at, who, e.Err)
		}
	case sim.KindExtendInvoke:
		return fmt.Sprintf("%-12s %-4s watchdog extends%s", at, who, lease(e))
	case sim.KindExtendReturn:
		if e.Held && e.Err == "" {
			return fmt.Sprintf("%-12s %-4s lease renewed", at, who)
		}
		return fmt.Sprintf("%-12s %-4s extend failed%s: lost the lock, stops writing", at, who, errSuffix(e.Err))
	case sim.KindReenter:
		if e.Held && e.Err == "" {
			return fmt.Sprintf("%-12s %-4s re-entered%s", at, who, lease(e))
		}
		return fmt.Sprintf("%-12s %-4s did not re-enter%s", at, who, errSuffix(e.Err))
	}
	return fmt.Sprintf("%-12s %-4s %s%s", at, who, e.Kind, errSuffix(e.Err))
}

func lease(e sim.Event) string {
	s := ""
	if e.Token != "" {
		s += " token " + shortTokens(e.Token)
	}
	if e.Fence != 0 {
		s += fmt.Sprintf(" fence %d", e.Fence)
	}
	return s
}

func errSuffix(err string) string {
	if err == "" {
		return ""
	}
	return ": " + err
}

// args shows a command: an EVAL's script by name, tokens shortened, and
// long arguments cut short.
func (w *eventWriter) args(args []string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if i == 1 && len(args) > 2 && strings.EqualFold(args[0], "EVAL") {
			parts[i] = "[" + w.scriptName(a) + "]"
			continue
		}
		a = shortTokens(strings.Join(strings.Fields(a), " "))
		if utf8.RuneCountInString(a) > 40 {
			a = string([]rune(a)[:37]) + "..."
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

// scriptName is the algorithm's name for a Lua script, or the script's SHA1
// (as EVALSHA and SCRIPT LOAD know it) cut to 8 digits.
func (w *eventWriter) scriptName(src string) string {
	if n, ok := w.scripts[src]; ok {
		return n
	}
	sum := sha1.Sum([]byte(src))
	return "script " + hex.EncodeToString(sum[:4]) + "…"
}

// shortTokens cuts each random token in s (a run of 16 or more hex digits
// with at least one letter, so timestamps stay whole) to its first 8 digits
// and "…": enough to tell tokens apart, short enough to fit a line.
func shortTokens(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		letter := false
		for j < len(s) && isHex(s[j]) {
			letter = letter || s[j] >= 'a'
			j++
		}
		switch {
		case j-i >= 16 && letter:
			b.WriteString(s[i:i+8] + "…")
			i = j
		case j > i:
			b.WriteString(s[i:j])
			i = j
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

func indent(n int) string { return strings.Repeat(" ", n) }

// para writes text after first, wrapped at word boundaries to width
// columns, continuation lines starting with rest. A word longer than a line
// gets a line of its own. Width is counted in bytes: the arrows and
// ellipses the reports use are East Asian ambiguous-width characters, which
// some terminals draw two columns wide and which tools such as wc -L under
// LC_ALL=C count as three; counted as bytes, a line fits everywhere.
func para(b *strings.Builder, first, rest, text string, width int) {
	line, n := first, 0
	for _, word := range strings.Split(text, " ") {
		if n > 0 && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line, n = rest, 0
		}
		if n > 0 {
			line += " "
		}
		line += word
		n++
	}
	b.WriteString(line + "\n")
}

// algoSource cites the algorithm's document, or names it by id when the
// scenario's sources, shown above it, already cite it.
func algoSource(o *judge.Outcome) string {
	src := o.Prepared.Algorithm.Source
	if slices.Contains(strings.Split(strings.ReplaceAll(o.Scenario.Source, " ", ""), ","), src) {
		return src
	}
	return CiteList(src)
}

// CiteList cites a Source field's documents ("a, b") by what a reader can
// find: id, title, author, site, year.
func CiteList(source string) string {
	var out []string
	for _, id := range strings.Split(source, ",") {
		out = append(out, locks.Cite(strings.TrimSpace(id)))
	}
	return strings.Join(out, "; ")
}

// timeWord says what the run's seconds were: simulated, or real ones.
func timeWord(o *judge.Outcome) string {
	if o.Backend != "" {
		return "wall-clock"
	}
	return "simulated"
}
