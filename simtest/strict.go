package simtest

import (
	"fmt"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/reports"
)

// strictProblem is why a replayed outcome fails a Go test whatever FailOn
// says, or "": a run cut at a cap before it found anything proves nothing
// (an incomplete run is never a pass), and a verdict that contradicts the
// scenario's expect: is a failed expectation. simrun does the same only with
// --strict; in go test, strict is the only mode.
func strictProblem(o *judge.Outcome) string {
	if o.Verdict.Verdict == model.VerdictIncomplete {
		return fmt.Sprintf("the run is INCOMPLETE (cut: %s): nothing found in what ran, which is not a pass", o.Result.Cut)
	}
	if want := reports.JSON(o).Expect; want != "" && want != o.Verdict.Verdict {
		return fmt.Sprintf("verdict %s contradicts the scenario's expect: %s", o.Verdict.Verdict, want)
	}
	return ""
}
