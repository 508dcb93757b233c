package model

import (
	"fmt"
	"testing"
)

func TestVerdictPrintsAsWords(t *testing.T) {
	for _, c := range []struct {
		v    Verdict
		want string
	}{
		{Verdict{Verdict: VerdictSafe}, "safe"},
		{Verdict{Verdict: VerdictUnsafe, Violations: []Violation{{Kind: KindOverlap, Processes: []string{"c1", "c2"}}, {Kind: KindLostUpdate, Processes: []string{"c2"}}}},
			"unsafe: overlap (c1, c2); lost-update (c2)"},
		{Verdict{Verdict: VerdictClientError, Violations: []Violation{{Kind: KindClientError}}}, "client-error: client-error"},
	} {
		if got := fmt.Sprint(c.v); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}
