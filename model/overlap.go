package model

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/sim"
)

// The direct safety check: two processes' holds overlap. Holds are half-open
// [from, to): holds that touch do not overlap. This is exactly porcupine's
// mutex verdict: with acquires spanning [call, from] and releases [to, ret],
// hold a can be ordered before hold b iff a.to <= b.from (a release and an
// acquire at the same instant are concurrent, so either order is allowed),
// and a set of holds that can be ordered pairwise can be ordered as a whole
// (sort by from). So the mutex history is linearizable iff no two holds
// overlap, unless a process's own calls are out of order (a stray: releasing
// without holding, acquiring while holding), which this check does not see.
// Porcupine rejects a stray for certain only when it is apart in time from
// its process's other calls (trace.certain); those are reported on their
// own, the others only to explain a porcupine rejection. The agreement
// properties (agree_test.go) check all three claims.

type overlap struct {
	a, b     int // indexes in holds; a began first
	from, to sim.Time
}

func overlaps(holds []hold) []overlap {
	out, _ := overlapsIn(holds, nil)
	return out
}

// overlapsIn is overlaps sorting in order's memory, which it returns for
// the caller to reuse.
func overlapsIn(holds []hold, order []int) ([]overlap, []int) {
	order = order[:0]
	for i := range holds {
		order = append(order, i)
	}
	byStart := func(i, j int) int {
		a, b := &holds[i], &holds[j]
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to), cmp.Compare(a.proc, b.proc), cmp.Compare(i, j))
	}
	// Holds begin in history order, so they are usually in order already.
	for k := 1; k < len(order); k++ {
		if byStart(k-1, k) > 0 {
			slices.SortFunc(order, byStart)
			break
		}
	}
	var out []overlap
	var active []int // holds that may still overlap a later one
	for _, j := range order {
		b := holds[j]
		keep := active[:0]
		for _, i := range active {
			if holds[i].to > b.from {
				keep = append(keep, i)
			}
		}
		active = keep
		for _, i := range active {
			if a := holds[i]; a.proc != b.proc && a.from < b.to && b.from < a.to {
				out = append(out, overlap{i, j, b.from, min(a.to, b.to)})
			}
		}
		active = append(active, j)
	}
	return out, order
}

func overlapViolations(t *trace, w *witnesses) []Violation {
	var vs []Violation
	var found []overlap
	found, t.ints = overlapsIn(t.holds, t.ints)
	for _, o := range found {
		a, b := t.holds[o.a], t.holds[o.b]
		to, until := o.to, "until "+since(o.to)
		if to == forever {
			to, until = t.end, "until the end of the run"
		}
		// The commands that led there: what each sent before the second hold
		// began; and any write the fenced resource refused from either
		// holder, which is what fencing is for.
		refused := refusedWrites(t, o.from, a, b)
		detail := fmt.Sprintf("%s held the lock from %s%s, %s from %s%s: both held it %s",
			t.name(a.proc), since(a.from), fenced(a.fence), t.name(b.proc), since(b.from), fenced(b.fence), until)
		for _, i := range refused {
			e := &t.h.Events[i]
			detail += fmt.Sprintf("; the resource refused %s's write at %s%s", t.name(e.Proc), since(e.At), fenced(e.Fence))
		}
		vs = append(vs, Violation{
			Kind:      KindOverlap,
			Processes: names(t, a.proc, b.proc),
			From:      o.from,
			To:        to,
			Detail:    detail,
			Witness:   w.events(w.lastCommands(t, a.proc, b.fromIdx, 3), w.lastCommands(t, b.proc, b.fromIdx, 3), refused),
		})
	}
	return vs
}

// refusedWrites is the event indexes of the resource writes the fence
// refused from the holders of an overlap, from its start to the end of each
// one's hold.
func refusedWrites(t *trace, from sim.Time, holds ...hold) []int {
	var out []int
	for _, i := range t.refused {
		e := &t.h.Events[i]
		if e.At < from {
			continue
		}
		for _, h := range holds {
			if e.Proc == h.proc && e.At <= h.to {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// strayViolations reports the strays porcupine must reject, or with all set
// every stray.
func strayViolations(t *trace, w *witnesses, all bool) []Violation {
	var vs []Violation
	for k, s := range t.strays {
		if !all && !t.certain(k) {
			continue
		}
		at := t.h.Events[s.idx].At
		vs = append(vs, Violation{
			Kind:      KindNotLinearizable,
			Processes: names(t, s.proc),
			From:      at,
			To:        at,
			Detail:    fmt.Sprintf("%s %s at %s", t.name(s.proc), s.what, since(at)),
			Witness:   w.events(w.lastCommands(t, s.proc, s.idx, 3), []int{s.idx}),
		})
	}
	return vs
}

// since writes true time as the time since the run began: short, and the
// same in every report.
func since(t sim.Time) string { return time.Duration(t).String() }

func fenced(f int64) string {
	if f == 0 {
		return ""
	}
	return fmt.Sprintf(" (fence %d)", f)
}
