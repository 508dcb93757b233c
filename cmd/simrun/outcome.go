package main

import (
	"fmt"
	"io"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/reports"
)

// runExit is run's exit status for o. A contradicted expect: is always said
// on stderr; it decides the status only with --strict, because a scenario
// replayed by hand (another seed, another lock through --algo-file) is
// expected to come out differently, and its verdict is what the caller asked
// for. Tests and CI that guard a scenario pass --strict; simtest, the Go-test
// path, is strict always.
func runExit(o *judge.Outcome, strict bool, stderr io.Writer) int {
	got := o.Verdict.Verdict
	if want := reports.JSON(o).Expect; want != "" && want != got {
		fmt.Fprintf(stderr, "simrun run: %s: verdict %s contradicts expect: %s\n", o.Scenario.Name, got, want)
		if strict {
			return exitViolation
		}
	}
	return verdictExit(got)
}

// verdictExit maps a verdict to its exit status: safe 0, incomplete 3 (never
// 0: a cut run that found nothing is not a pass), any violation 1.
func verdictExit(verdict string) int {
	switch verdict {
	case model.VerdictSafe:
		return exitOK
	case model.VerdictIncomplete:
		return exitIncomplete
	}
	return exitViolation
}
