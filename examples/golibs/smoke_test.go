package golibs_test

import (
	"testing"
	"time"

	"github.com/locksim/locksim/examples/golibs/golock"
	"github.com/locksim/locksim/simtest"
)

func TestExploreSmoke(t *testing.T) {
	for _, l := range []struct {
		name string
		nl   golock.NewLock
	}{{"redsync1", redsyncLock(1)}, {"bsm", bsmLock}} {
		for _, c := range []string{"none", "crash", "pause", "net", "restart", "failover"} {
			start := time.Now()
			f, err := golock.Explore(t, l.nl, golock.Faults(c), golock.With(simtest.Runs(1000)))
			v := "pass"
			if f != nil {
				v = f.Verdict + " run " + itoa(f.Run)
			}
			t.Logf("%-9s %-9s %-24s err=%v  %s", l.name, c, v, err, time.Since(start))
		}
	}
}

func itoa(i int) string { return time.Duration(i).String() }
