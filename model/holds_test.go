package model

import (
	"testing"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

// Holds names each hold's end and the events that bound it: released at the
// Release call, crashed at a crash, stopped at the process's end, open to the
// last event; a held Acquire while holding starts nothing.
func TestHolds(t *testing.T) {
	h := newHist("a", "b", "c", "d").
		acquire(0, ms(0), ms(1), 1).release(0, ms(5), ms(6)).
		acquire(1, ms(2), ms(3), 2).fault(1, ms(7), fault.Crash, 0).
		acquire(2, ms(8), ms(9), 3).acquire(2, ms(10), ms(11), 4).end(2, ms(12), "boom").
		acquire(3, ms(13), ms(14), 5).tick(ms(20)).build()
	got := Holds(&h)
	want := []struct {
		proc     int
		from, to sim.Time
		end      string
	}{{0, ms(1), ms(5), "released"}, {1, ms(3), ms(7), "crashed"}, {2, ms(9), ms(12), "stopped"}, {3, ms(14), ms(20), "open"}}
	if len(got) != len(want) {
		t.Fatalf("%d holds, want %d: %+v", len(got), len(want), got)
	}
	for k, w := range want {
		g := got[k]
		if g.Proc != w.proc || g.From != w.from || g.To != w.to || g.End != w.end {
			t.Errorf("hold %d: %+v, want %+v", k, g, w)
		}
		if e := h.Events[g.FromEvent]; e.Kind != sim.KindLockReturn || e.Proc != w.proc || e.At != w.from {
			t.Errorf("hold %d begins at event %d, %+v", k, g.FromEvent, e)
		}
		switch {
		case w.end == "open" && g.ToEvent != -1:
			t.Errorf("open hold %d ends at event %d", k, g.ToEvent)
		case w.end != "open" && (h.Events[g.ToEvent].Proc != w.proc || h.Events[g.ToEvent].At != w.to):
			t.Errorf("hold %d ends at event %d, %+v", k, g.ToEvent, h.Events[g.ToEvent])
		}
	}
}
