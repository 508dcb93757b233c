package model

import (
	"slices"
	"testing"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

func TestResourceHistories(t *testing.T) {
	tests := []struct {
		name    string
		h       sim.History
		verdict string
		lin     Tri // lock
		res     Tri // resource
		kinds   []string
		procs   []string // of the lost update, if any
	}{
		{
			name: "serial sections",
			h: newHist("c1", "c2").
				acquire(0, ms(0), ms(1), 0).cs(0, ms(1), ms(3), 0, 0, true).release(0, ms(3), ms(4)).
				acquire(1, ms(2), ms(5), 0).cs(1, ms(5), ms(7), 1, 0, true).release(1, ms(7), ms(8)).build(),
			verdict: VerdictSafe, lin: Yes, res: Yes,
		},
		{
			name: "a counter that does not start at zero",
			h: newHist("c1").
				acquire(0, ms(0), ms(1), 0).cs(0, ms(1), ms(3), 41, 0, true).release(0, ms(3), ms(4)).build(),
			verdict: VerdictSafe, lin: Yes, res: Yes,
		},
		{
			name: "a lost update",
			h: newHist("c1", "c2").
				acquire(0, ms(0), ms(1), 0).cs(0, ms(1), ms(6), 0, 0, true).release(0, ms(6), ms(7)).
				acquire(1, ms(0), ms(2), 0).cs(1, ms(2), ms(4), 0, 0, true).release(1, ms(4), ms(5)).build(),
			verdict: VerdictUnsafe, lin: No, res: No, kinds: []string{KindLostUpdate, KindOverlap}, procs: []string{"c1", "c2"},
		},
		{
			name: "a fenced write refused",
			h: newHist("c1", "c2").
				acquire(0, ms(0), ms(1), 1).cs(0, ms(1), ms(3), 0, 1, true).release(0, ms(3), ms(4)).
				acquire(1, ms(5), ms(6), 2).cs(1, ms(6), ms(8), 1, 2, true).release(1, ms(8), ms(9)).
				acquire(0, ms(10), ms(11), 1).cs(0, ms(11), ms(13), 2, 1, false).release(0, ms(13), ms(14)).build(),
			verdict: VerdictSafe, lin: Yes, res: Yes,
		},
		{
			name: "fencing saves the resource when the lock fails",
			h: newHist("c1", "c2").
				acquire(0, ms(0), ms(1), 1).readOnly(0, ms(1), 0).
				acquire(1, ms(2), ms(3), 2).cs(1, ms(3), ms(4), 0, 2, true).release(1, ms(4), ms(5)).
				add(sim.Event{At: ms(6), Kind: sim.KindResourceWrite, Proc: 0, Node: -1, Value: 1, Fence: 1}).
				release(0, ms(7), ms(8)).build(),
			verdict: VerdictUnsafe, lin: No, res: Yes, kinds: []string{KindOverlap},
		},
		{
			name: "without fencing the same interleaving loses an update",
			h: newHist("c1", "c2").
				acquire(0, ms(0), ms(1), 0).readOnly(0, ms(1), 0).
				acquire(1, ms(2), ms(3), 0).cs(1, ms(3), ms(4), 0, 0, true).release(1, ms(4), ms(5)).
				add(sim.Event{At: ms(6), Kind: sim.KindResourceWrite, Proc: 0, Node: -1, Value: 1, Accepted: true}).
				release(0, ms(7), ms(8)).build(),
			verdict: VerdictUnsafe, lin: No, res: No, kinds: []string{KindLostUpdate, KindOverlap}, procs: []string{"c1", "c2"},
		},
		{
			name: "a section cut by a crash is left out",
			h: newHist("c1", "c2").
				acquire(0, ms(0), ms(1), 0).readOnly(0, ms(1), 0).fault(0, ms(2), fault.Crash, 0).
				acquire(1, ms(3), ms(4), 0).cs(1, ms(4), ms(5), 0, 0, true).release(1, ms(5), ms(6)).build(),
			verdict: VerdictSafe, lin: Yes, res: Yes,
		},
		{
			name:    "a read the counter never held",
			h:       newHist("c1").acquire(0, ms(0), ms(1), 0).cs(0, ms(1), ms(2), 0, 0, true).cs(0, ms(3), ms(4), 5, 0, true).release(0, ms(5), ms(6)).build(),
			verdict: VerdictUnsafe, lin: Yes, res: No, kinds: []string{KindNotLinearizable},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(tc.h, Options{})
			if v.Verdict != tc.verdict || v.Linearizable != tc.lin || v.ResourceLinearizable != tc.res || !slices.Equal(kinds(v), tc.kinds) {
				t.Fatalf("got %s lock=%v resource=%v kinds=%v, want %s lock=%v resource=%v kinds=%v\n%+v",
					v.Verdict, v.Linearizable, v.ResourceLinearizable, kinds(v), tc.verdict, tc.lin, tc.res, tc.kinds, v.Violations)
			}
			for _, x := range v.Violations {
				if x.Kind == KindLostUpdate && !slices.Equal(x.Processes, tc.procs) {
					t.Errorf("lost update names %v, want %v (%s)", x.Processes, tc.procs, x.Detail)
				}
			}
		})
	}
}
