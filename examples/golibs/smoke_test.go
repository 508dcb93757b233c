package golibs_test

import (
	"testing"

	"github.com/locksim/locksim/examples/golibs/golock"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

func TestTable(t *testing.T) {
	for _, s := range scenarios.Builtins() {
		for _, l := range []struct {
			name, file string
			nl         golock.NewLock
		}{{"redsync1", "../redsync.yaml", redsyncLock(1)}, {"redsyncN", "../redsync.yaml", redsyncLock(0)}, {"bsm", "../bsm-redislock.yaml", bsmLock}} {
			a, err := locks.LoadFile(l.file)
			if err != nil {
				t.Fatal(err)
			}
			fv := "-"
			if p, err := s.PrepareWith(a); err == nil {
				if o, err := s.ExecutePrepared(p, model.Options{}); err == nil {
					fv = o.Verdict.Verdict
				}
			}
			o, err := golock.Run(t, l.nl, s.Name)
			if err != nil {
				t.Logf("%-28s %-9s file %-12s error %.60v", s.Name, l.name, fv, err)
				continue
			}
			t.Logf("%-28s %-9s file %-12s go %-12s %s", s.Name, l.name, fv, o.Verdict.Verdict, o.Result.Cut)
		}
	}
}
