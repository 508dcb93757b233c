package reports

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// Offset formats true time as the time since the run began: "5.018s".
func Offset(t sim.Time) string {
	return time.Duration(t).String()
}

// TextOptions says how to render for a person.
type TextOptions struct {
	// Color adds ANSI colours. The caller decides (a terminal, NO_COLOR
	// unset), so output under test is the same everywhere.
	Color bool
	// Trace adds every command: sent, ran, node, reply, result.
	Trace bool
	// Width is the most columns a timeline line takes; 0 means 100.
	Width int
}

// WriteText writes the verdict, its witnesses and the timeline, without
// colour.
func WriteText(w io.Writer, o *scenarios.Outcome) error {
	return WriteTextWith(w, o, TextOptions{})
}

// WriteTextWith writes the verdict and its witnesses, who held the lock when,
// the timeline, and with opt.Trace the command trace.
func WriteTextWith(w io.Writer, o *scenarios.Outcome, opt TextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 100
	}
	j := Run(o)
	p := newPicture(o)
	b := &strings.Builder{}
	fmt.Fprintf(b, "scenario   %s", j.Scenario)
	if o.Scenario.Source != "" {
		fmt.Fprintf(b, " (%s)", o.Scenario.Source)
	}
	fmt.Fprintf(b, "\nalgorithm  %s (%s)\n", j.Algorithm, o.Prepared.Algorithm.Source)
	fmt.Fprintf(b, "seed       %d\n", j.Seed)
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
	b.WriteString("\n")
	for _, v := range o.Verdict.Violations {
		fmt.Fprintf(b, "  %-12s %s  %s → %s\n", v.Kind, strings.Join(v.Processes, ", "), Offset(v.From), Offset(v.To))
		if v.Detail != "" {
			fmt.Fprintf(b, "               %s\n", v.Detail)
		}
		for _, e := range v.Witness {
			fmt.Fprintf(b, "               %s\n", Event(o.Result.History, e))
		}
	}
	writeHolds(b, p)
	fmt.Fprintf(b, "linearizable  lock %s, resource %s\n", j.Linearizable, j.ResourceLinearizable)
	fmt.Fprintf(b, "stats      acquired %d · failed %d · commands %d · %.3f s simulated\n",
		j.Stats.Acquired, j.Stats.Failed, j.Stats.Commands, j.Stats.SimSeconds)
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
			fmt.Fprintf(b, "%-11s%s\n", label, Event(o.Result.History, e))
		}
	}
	if opt.Trace {
		b.WriteString("\n")
		writeTrace(b, commandTrace(&o.Result.History), witnessReqs(o.Verdict.Violations))
	}
	_, err := io.WriteString(w, b.String())
	return err
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

// writeHolds says who held the lock when, and how each hold ended.
func writeHolds(b *strings.Builder, p *picture) {
	shown, more := shownHolds(p)
	for i, h := range shown {
		label := ""
		if i == 0 {
			label = "holds"
		}
		fmt.Fprintf(b, "%-11s%-4s %s → %s  %s%s\n", label, h.name, Offset(h.from), Offset(h.to), holdEnd(h), holdLease(h))
	}
	if more > 0 {
		fmt.Fprintf(b, "%-11s… %d more\n", "", more)
	}
}

func holdLease(h holdRow) string {
	var parts []string
	if h.token != "" {
		parts = append(parts, "token "+quoteShort(h.token, 42))
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
	}
	return h.end
}

// Event renders one history event on one line.
func Event(h sim.History, e sim.Event) string {
	who := ""
	if e.Proc >= 0 && e.Proc < len(h.Procs) {
		who = h.Procs[e.Proc]
	}
	at := Offset(e.At)
	switch e.Kind {
	case sim.KindCommand:
		return fmt.Sprintf("%-12s %-4s node%d  %s → %s", at, who, e.Node, shortArgs(e.Args), e.Reply)
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
		if e.Dur != 0 {
			return fmt.Sprintf("%-12s %-4s %s %s", at, target, e.Fault, e.Dur)
		}
		return fmt.Sprintf("%-12s %-4s %s", at, target, e.Fault)
	case sim.KindProcEnd:
		if e.Err != "" {
			return fmt.Sprintf("%-12s %-4s stopped: %s", at, who, e.Err)
		}
	}
	return fmt.Sprintf("%-12s %-4s %s%s", at, who, e.Kind, errSuffix(e.Err))
}

func lease(e sim.Event) string {
	s := ""
	if e.Token != "" {
		s += " token " + e.Token
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

// shortArgs shows a command with long arguments (Lua scripts) cut short.
func shortArgs(args []string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		a = strings.Join(strings.Fields(a), " ")
		if len(a) > 40 {
			a = a[:37] + "..."
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}
