package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// exploreAnswers is explore answering twice (explore.Answer): the search
// of the lock's default generator as explore always ran it (its summary,
// counterexample.yaml and reports), then the inside answer and the outside
// one with its breaking point, written as DIR/inside.yaml and
// DIR/outside.yaml. The exit status follows the inside answer, or any
// violation found with failAny.
func exploreAnswers(o explore.Options, ao explore.AnswerOptions, asJSON bool, dir string, failAny bool, af *algoFlags,
	stdout, stderr io.Writer) int {
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt)
	a, err := explore.Answer(ctx, o, ao)
	stopSignals()
	if o.Progress != nil {
		fmt.Fprint(stdout, "\r\033[K") // clear the progress line
	}
	interrupted := errors.Is(err, context.Canceled)
	if err != nil && !interrupted || a == nil {
		return fail(stderr, "explore", err)
	}
	r := a.Outside
	if r == nil {
		r = a.Inside
	}
	if r == nil { // interrupted before the first search had a result
		return exitInterrupted
	}
	paths := map[string]string{}
	var insidePath, outsidePath string
	if !interrupted {
		if paths, err = writeExploreArtifacts(dir, r, af); err != nil {
			return fail(stderr, "explore", err)
		}
		if f := a.InsideFind; f != nil {
			if insidePath, err = writeScenario(dir, "inside.yaml", f.Counterexample, af); err != nil {
				return fail(stderr, "explore", err)
			}
		}
		if bp := a.Breaking; bp != nil {
			if outsidePath, err = writeScenario(dir, "outside.yaml", bp.Counterexample, af); err != nil {
				return fail(stderr, "explore", err)
			}
		}
	}
	rep, err := r.ReportPaths(paths, false)
	if err != nil {
		return fail(stderr, "explore", err)
	}
	rep.Interrupted = interrupted
	rep.Assumptions = explore.AssumptionsJSON(a.Assumptions)
	rep.Inside, rep.Outside = a.InsideReport(insidePath), a.OutsideReport(outsidePath)
	if asJSON {
		err = writeExploreJSON(stdout, rep)
	} else if err = writeExploreSummary(stdout, rep, dir); err == nil {
		err = writeAnswerLines(stdout, a.Algorithm, rep)
	}
	if err != nil {
		return fail(stderr, "explore", err)
	}
	return answersExit(rep, failAny)
}

// writeScenario writes a counterexample as DIR/NAME and returns its path.
func writeScenario(dir, name string, c *scenarios.Scenario, af *algoFlags) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	data, err := af.marshalScenario(c, dir)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, data, 0o644)
}

// answersExit is a two-answer search's exit status: 130 interrupted; by
// default the inside answer's (1 a violation inside the assumptions or a
// search that tested too little, 3 nothing found but cut runs, 0 safe);
// with failAny, 1 for a violation found by either search. A search that
// ran outside alone exits as explore always did.
func answersExit(rep explore.Report, failAny bool) int {
	in, out := rep.Inside, rep.Outside
	switch {
	case rep.Interrupted:
		return exitInterrupted
	case in == nil || failAny:
		code := exploreExit(rep, false)
		if in != nil && in.FirstRun != nil {
			code = exitViolation
		}
		for _, x := range []*explore.AnswerReport{in, out} {
			if x != nil && x.Verdict == explore.Untested {
				code = exitViolation
			}
		}
		if code == exitOK && in != nil && in.IncompleteRuns > 0 {
			code = exitIncomplete
		}
		return code
	case in.FirstRun != nil, in.Verdict == explore.Untested:
		return exitViolation
	case in.IncompleteRuns > 0:
		return exitIncomplete
	}
	return exitOK
}

// summaryIndent starts the continuation lines of the summary.
const summaryIndent = "           "

// writeAnswerLines are the two answers for a person, after the search's
// summary: what the lock was judged against, the inside answer and the
// outside one with its breaking point.
func writeAnswerLines(w io.Writer, algo string, rep explore.Report) error {
	b := &strings.Builder{}
	if rep.Assumptions != nil {
		wrapWords(b, "assumes    ", summaryIndent, fmt.Sprintf("%s (what %s is judged against)", rep.Assumptions.Words, algo), screenWidth)
	}
	answer := func(name string, x *explore.AnswerReport) {
		if x == nil {
			return
		}
		fmt.Fprintf(b, "%-10s ", name)
		switch {
		case x.Verdict == explore.Untested:
			fmt.Fprintf(b, "UNTESTED: %s\n", x.Untested)
			return
		case x.FirstRun == nil && x.Verdict == model.VerdictIncomplete:
			fmt.Fprintf(b, "INCOMPLETE, not safe: nothing found in %d runs, %d cut at a cap\n", x.Runs, x.IncompleteRuns)
		case x.FirstRun == nil:
			fmt.Fprintf(b, "%s: nothing found in %d runs", strings.ToUpper(x.Verdict), x.Runs)
			if name == "inside" {
				b.WriteString(" inside the assumptions")
			}
			b.WriteString("\n")
		case x.BreakingPoint != nil:
			bp := x.BreakingPoint
			fmt.Fprintf(b, "%s (run %d under %s)\n", strings.ToUpper(bp.Words[:len(bp.Verdict)])+bp.Words[len(bp.Verdict):], bp.Run, bp.Class)
			wrapWords(b, summaryIndent+"breaks ", summaryIndent, bp.Why, screenWidth)
		case name == "outside":
			fmt.Fprintf(b, "%s at run %d, inside the assumptions: see the inside answer\n", strings.ToUpper(x.Verdict), *x.FirstRun)
		default:
			fmt.Fprintf(b, "%s at run %d", strings.ToUpper(x.Verdict), *x.FirstRun)
			if x.SafetyBroken != "" {
				b.WriteString(": " + x.SafetyBroken)
			}
			if x.FromOutside {
				b.WriteString(" (a run of the outside search that lies inside the assumptions)")
			}
			b.WriteString(": a bug in the lock\n")
		}
		if x.Counterexample != nil {
			fmt.Fprintf(b, "           wrote %s; replay %s\n", *x.Counterexample, replayLine(*x.Counterexample))
		}
		for _, also := range x.Also {
			wrapWords(b, summaryIndent+"also ", summaryIndent, fmt.Sprintf("%s (run %d under %s)", also.Words, also.Run, also.Class), screenWidth)
		}
		if x.Untested != "" { // a failing run was found all the same
			fmt.Fprintf(b, "           but %s\n", x.Untested)
		}
	}
	answer("inside", rep.Inside)
	answer("outside", rep.Outside)
	_, err := io.WriteString(w, b.String())
	return err
}
