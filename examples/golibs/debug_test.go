package golibs_test

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/locksim/locksim/examples/golibs/golock"
	"github.com/locksim/locksim/scenarios"
)

func TestDebugND(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := scenarios.Resolve("token-extend-pause")
		a, _ := golock.RunInBubble(bsmLock, s)
		b, _ := golock.RunInBubble(bsmLock, s)
		ea, eb := a.Result.History.Events, b.Result.History.Events
		for i := 0; i < max(len(ea), len(eb)); i++ {
			var x, y string
			if i < len(ea) {
				x = fmt.Sprintf("%v %v p%d %v %v %v", ea[i].At.Std().Format("05.000000"), ea[i].Kind, ea[i].Proc, ea[i].Args, ea[i].Reply, ea[i].Err)
			}
			if i < len(eb) {
				y = fmt.Sprintf("%v %v p%d %v %v %v", eb[i].At.Std().Format("05.000000"), eb[i].Kind, eb[i].Proc, eb[i].Args, eb[i].Reply, eb[i].Err)
			}
			mark := " "
			if x != y {
				mark = "!"
			}
			t.Logf("%s %-70.70s | %-70.70s", mark, x, y)
		}
	})
}
