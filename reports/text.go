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

// WriteText writes the verdict and its witnesses for a person to read.
func WriteText(w io.Writer, o *scenarios.Outcome) error {
	j := Run(o)
	b := &strings.Builder{}
	fmt.Fprintf(b, "scenario   %s", j.Scenario)
	if o.Scenario.Source != "" {
		fmt.Fprintf(b, " (%s)", o.Scenario.Source)
	}
	fmt.Fprintf(b, "\nalgorithm  %s (%s)\n", j.Algorithm, o.Prepared.Algorithm.Source)
	fmt.Fprintf(b, "seed       %d\n", j.Seed)
	fmt.Fprintf(b, "verdict    %s", strings.ToUpper(j.Verdict))
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
	fmt.Fprintf(b, "linearizable  lock %s, resource %s\n", j.Linearizable, j.ResourceLinearizable)
	fmt.Fprintf(b, "stats      acquired %d · failed %d · commands %d · %.3f s simulated\n",
		j.Stats.Acquired, j.Stats.Failed, j.Stats.Commands, j.Stats.SimSeconds)
	if j.Cut != "" {
		fmt.Fprintf(b, "cut        %s\n", j.Cut)
	}
	fmt.Fprintf(b, "digest     %s\n", j.Digest)
	_, err := io.WriteString(w, b.String())
	return err
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
