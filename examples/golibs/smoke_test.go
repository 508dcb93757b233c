package golibs_test

import (
	"testing"

	"github.com/locksim/locksim/examples/golibs/golock"
	"github.com/locksim/locksim/scenarios"
)

func TestTable(t *testing.T) {
	for _, s := range scenarios.Builtins() {
		for _, l := range []struct {
			name string
			nl   golock.NewLock
		}{{"redsync1", redsyncLock(1)}, {"redsyncN", redsyncLock(0)}, {"bsm", bsmLock}} {
			o, err := golock.Run(t, l.nl, s.Name)
			if err != nil {
				t.Logf("%-28s %-9s error %v", s.Name, l.name, err)
				continue
			}
			t.Logf("%-28s %-9s %-12s %s", s.Name, l.name, o.Verdict.Verdict, o.Result.Cut)
		}
	}
}
