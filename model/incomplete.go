package model

// An incomplete run is never a pass. A run that stopped at a cap (the event
// limit, the history-size limit, its duration while processes were still
// working) was judged on a prefix: what it found stands, since a violation
// in a prefix is a violation, but "nothing found" only speaks for that
// prefix. Such a run gets VerdictIncomplete, which ranks above safe and below
// every violation: one found is always reported as itself.

// MarkCut turns a safe verdict into VerdictIncomplete when cut says why the
// run stopped early ("" when it did not).
func (v *Verdict) MarkCut(cut string) {
	if cut != "" && v.Verdict == VerdictSafe {
		v.Verdict = VerdictIncomplete
	}
}

// Rank orders verdicts from best (0, safe) to worst: safe < incomplete <
// client-error < stale < stuck < unsafe. Unknown names rank as safe.
func Rank(verdict string) int {
	switch verdict {
	case VerdictIncomplete:
		return 1
	case VerdictClientError:
		return 2
	case VerdictStale:
		return 3
	case VerdictStuck:
		return 4
	case VerdictUnsafe:
		return 5
	}
	return 0
}
