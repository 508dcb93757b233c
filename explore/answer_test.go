package explore

import (
	"context"
	"testing"
)

func TestAnswerProbe(t *testing.T) {
	for _, name := range []string{"set-nx-px-token"} {
		a, err := Answer(context.Background(), Options{Algorithm: name, Classes: []string{"all"}, Seed: 1, Runs: 2000}, AnswerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		in, out := a.InsideReport(""), a.OutsideReport("")
		t.Logf("%s inside %+v", name, *in)
		t.Logf("%s outside %+v bp %+v also %+v", name, *out, out.BreakingPoint, out.Also)
	}
}
