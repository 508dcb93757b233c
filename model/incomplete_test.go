package model

import "testing"

func TestMarkCut(t *testing.T) {
	cases := []struct{ verdict, cut, want string }{
		{VerdictSafe, "event limit 10 reached", VerdictIncomplete},
		{VerdictSafe, "", VerdictSafe},
		{VerdictUnsafe, "event limit 10 reached", VerdictUnsafe}, // a finding in a prefix stands
		{VerdictClientError, "duration limit 1m0s reached", VerdictClientError},
	}
	for _, c := range cases {
		v := Verdict{Verdict: c.verdict}
		v.MarkCut(c.cut)
		if v.Verdict != c.want {
			t.Errorf("%s cut %q: %s, want %s", c.verdict, c.cut, v.Verdict, c.want)
		}
	}
}

// Incomplete ranks above safe and below every verdict a violation forces.
func TestRankIncomplete(t *testing.T) {
	order := []string{VerdictSafe, VerdictIncomplete, VerdictClientError, VerdictStale, VerdictStuck, VerdictUnsafe}
	for i := 1; i < len(order); i++ {
		if Rank(order[i-1]) >= Rank(order[i]) {
			t.Errorf("Rank(%s) = %d, not below Rank(%s) = %d", order[i-1], Rank(order[i-1]), order[i], Rank(order[i]))
		}
	}
	for _, v := range verdictBySeverity {
		if v != VerdictSafe && Rank(v) <= Rank(VerdictIncomplete) {
			t.Errorf("%s ranks at or below incomplete", v)
		}
	}
}
