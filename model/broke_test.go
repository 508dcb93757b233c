package model

import "testing"

func TestBroke(t *testing.T) {
	kinds := func(ks ...string) []Violation {
		var vs []Violation
		for _, k := range ks {
			vs = append(vs, Violation{Kind: k})
		}
		return vs
	}
	for _, c := range []struct {
		name string
		v    Verdict
		want string
	}{
		{"fenced: overlap only", Verdict{Verdict: VerdictUnsafe, Violations: kinds(KindOverlap), ResourceLinearizable: Yes}, BrokeOverlap},
		{"overlap, porcupine skipped", Verdict{Verdict: VerdictUnsafe, Violations: kinds(KindOverlap)}, BrokeOverlap},
		{"overlap and lost update", Verdict{Verdict: VerdictUnsafe, Violations: kinds(KindOverlap, KindLostUpdate)}, BrokeLostUpdate},
		{"lost update alone", Verdict{Verdict: VerdictUnsafe, Violations: kinds(KindStale, KindLostUpdate)}, BrokeLostUpdate},
		{"resource rejected by porcupine", Verdict{Verdict: VerdictUnsafe, Violations: kinds(KindOverlap, KindNotLinearizable),
			ResourceLinearizable: No}, BrokeLostUpdate},
		{"a stray release", Verdict{Verdict: VerdictUnsafe, Violations: kinds(KindNotLinearizable), ResourceLinearizable: Yes}, BrokeLock},
		{"safe", Verdict{Verdict: VerdictSafe, ResourceLinearizable: Yes}, ""},
		{"stuck", Verdict{Verdict: VerdictStuck, Violations: kinds(KindStuck)}, ""},
		{"from the checker's kinds", Verdict{Verdict: verdictOf(kinds(KindOverlap, KindStale)), Violations: kinds(KindOverlap, KindStale)}, BrokeOverlap},
	} {
		if got := c.v.Broke(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
