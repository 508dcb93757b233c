package model

import (
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"

	"github.com/locksim/locksim/sim"
)

// cuts is how many pieces m's partition makes of ops (a copy: the pieces sort
// its input).
func cuts(m porcupine.Model, ops []porcupine.Operation) int {
	return len(m.Partition(slices.Clone(ops)))
}

// Check asks porcupine about pieces of the lock history cut in time
// (partition.go); the answer must be the one porcupine gives for the whole,
// on histories with and without strays, cut as finely as the rule allows.
func TestMutexPiecesAgreeWithWhole(t *testing.T) {
	cut, moved := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		// A few drawn histories one after the other (a gap of 0–2 ns: they
		// may touch), so that a case has several places to cut.
		strays := rapid.Bool().Draw(rt, "strays")
		h := genLives(rt, strays)
		for range rapid.IntRange(0, 3).Draw(rt, "more") {
			next := genLives(rt, strays)
			shift := sim.Time(rapid.IntRange(0, 2).Draw(rt, "gap"))
			if n := len(h.Events); n > 0 {
				shift += h.Events[n-1].At
			}
			for _, e := range next.Events {
				e.At += shift
				h.Events = append(h.Events, e)
			}
		}
		minOps := rapid.IntRange(1, 4).Draw(rt, "minOps")
		_, pieces, mv := mutexPiecesAgree(rt, extract(&h), minOps)
		if pieces > 1 {
			cut++
		}
		moved += mv
	})
	if cut == 0 || moved == 0 {
		t.Fatalf("%d histories cut, %d releases moved: the property tested too little", cut, moved)
	}
}

// mutexPiecesAgree is the property both mutex tests check on tr: Check's
// pieces, cut with minOps, hold every operation, and porcupine's answer on
// them is the one it gives for the whole history, and known. It returns
// that answer, the number of pieces and the releases moved.
func mutexPiecesAgree(rt *rapid.T, tr *trace, minOps int) (whole Tri, pieces, moved int) {
	whole = linearizable(mutexModel(tr), mutexOps(tr), 10*time.Second)
	m, ops := mutexCheck(tr, minOps)
	cut, moved := mutexPieces(slices.Clone(ops), minOps)
	n := 0
	for _, p := range cut {
		n += len(p)
	}
	if n != len(ops) {
		rt.Fatalf("%d operations in pieces, %d given", n, len(ops))
	}
	if got := linearizable(m, ops, 10*time.Second); got != whole || got == Unknown {
		rt.Fatalf("pieces say %v, whole %v\nops %+v", got, whole, tr.lockOps)
	}
	return whole, len(cut), moved
}

// genSections draws a counter history: processes read and then write it,
// their sections overlapping at times (lost updates), some writes refused,
// some reads off by one, and now and then a write that does not add one.
func genSections(rt *rapid.T) []section {
	type ev struct {
		at    int
		proc  int
		write bool
		k     int // the section
	}
	var evs []ev
	procs := rapid.IntRange(1, 4).Draw(rt, "procs")
	n := 0
	for p := range procs {
		at := rapid.IntRange(0, 5).Draw(rt, "start")
		for range rapid.IntRange(0, 6).Draw(rt, "sections") {
			r := at
			w := r + rapid.IntRange(0, 4).Draw(rt, "len")
			evs = append(evs, ev{r, p, false, n}, ev{w, p, true, n})
			n++
			at = w + rapid.IntRange(0, 6).Draw(rt, "gap")
		}
	}
	slices.SortStableFunc(evs, func(a, b ev) int { return a.at - b.at })
	secs := make([]section, n)
	var order []int // sections in write order
	value := int64(rapid.IntRange(0, 3).Draw(rt, "init"))
	for i, e := range evs {
		s := &secs[e.k]
		if !e.write {
			s.proc, s.readIdx, s.readAt, s.read = e.proc, i, ms(e.at), value
			if rapid.IntRange(0, 9).Draw(rt, "off") == 0 {
				s.read++
			}
			continue
		}
		s.writeIdx, s.writeAt = i, ms(e.at)
		s.wrote = s.read + 1
		if rapid.IntRange(0, 19).Draw(rt, "jump") == 0 {
			s.wrote++
		}
		if s.accepted = rapid.IntRange(0, 4).Draw(rt, "refused") > 0; s.accepted {
			value = s.wrote
		}
		order = append(order, e.k)
	}
	out := make([]section, 0, n)
	for _, k := range order {
		out = append(out, secs[k])
	}
	return out
}

// The same for the counter, whose pieces are shifted to start from the
// first read's value.
func TestResourcePiecesAgreeWithWhole(t *testing.T) {
	cut, answers := 0, map[Tri]int{}
	rapid.Check(t, func(rt *rapid.T) {
		tr := &trace{sections: genSections(rt)}
		whole := linearizable(resourceModel(tr), resourceOps(tr), 10*time.Second)
		m, ops := resourceCheck(tr, 1)
		if cuts(m, ops) > 1 {
			cut++
		}
		got := linearizable(m, ops, 10*time.Second)
		if got != whole || got == Unknown {
			rt.Fatalf("pieces say %v, whole %v\nsections %+v", got, whole, tr.sections)
		}
		answers[got]++
	})
	if cut == 0 || answers[Yes] == 0 || answers[No] == 0 {
		t.Fatalf("cut %d, linearizable %d, not %d: the property tested too little", cut, answers[Yes], answers[No])
	}
}

// Check's answers on the long busy history, cut into many pieces, are the
// whole history's.
func TestBusyHistoryPiecesAgree(t *testing.T) {
	h := busyHistory(300)
	tr := extract(&h)
	for _, c := range []struct {
		name         string
		whole, piece func() (porcupine.Model, []porcupine.Operation)
	}{
		{"mutex", func() (porcupine.Model, []porcupine.Operation) { return mutexModel(tr), mutexOps(tr) },
			func() (porcupine.Model, []porcupine.Operation) { return mutexCheck(tr, 1) }},
		{"resource", func() (porcupine.Model, []porcupine.Operation) { return resourceModel(tr), resourceOps(tr) },
			func() (porcupine.Model, []porcupine.Operation) { return resourceCheck(tr, 1) }},
	} {
		wm, wops := c.whole()
		pm, pops := c.piece()
		w, p := linearizable(wm, wops, 10*time.Second), linearizable(pm, pops, 10*time.Second)
		if w != Yes || p != w {
			t.Errorf("%s: whole %v, pieces %v (%d pieces)", c.name, w, p, cuts(pm, pops))
		}
	}
}

// genLockOps draws mutex operations around a legal order: each spans its
// place in that order by a few ns either side, so neighbours overlap; now
// and then a release by another process or a dropped operation breaks the
// order.
func genLockOps(rt *rapid.T) []lockOp {
	procs := rapid.IntRange(1, 4).Draw(rt, "procs")
	var ops []lockOp
	holder, at := -1, sim.Time(10)
	for range rapid.IntRange(1, 40).Draw(rt, "ops") {
		at += sim.Time(rapid.IntRange(0, 2).Draw(rt, "step"))
		o := lockOp{call: at - sim.Time(rapid.IntRange(0, 4).Draw(rt, "before")),
			ret: at + sim.Time(rapid.IntRange(0, 4).Draw(rt, "after")), errIdx: -1}
		if holder < 0 {
			o.proc, o.acquire = rapid.IntRange(0, procs-1).Draw(rt, "acquirer"), true
			holder = o.proc
		} else {
			o.proc = holder
			if rapid.IntRange(0, 9).Draw(rt, "wrong releaser") == 0 {
				o.proc = rapid.IntRange(0, procs-1).Draw(rt, "releaser")
			}
			holder = -1
		}
		if rapid.IntRange(0, 19).Draw(rt, "drop") > 0 {
			ops = append(ops, o)
		}
	}
	return ops
}

// The same on drawn operations rather than process lives: many more
// overlapping releases and acquires, which is where a release is moved.
func TestMutexPiecesAgreeOnDrawnOps(t *testing.T) {
	moved, answers := 0, map[Tri]int{}
	// The cases that tell a wrong cut apart are rare (a release of another
	// holder called while the moved release was in flight): each check
	// draws 30 histories, 3,000 a run.
	rapid.Check(t, func(rt *rapid.T) {
		for range 30 {
			tr := &trace{lockOps: genLockOps(rt)}
			minOps := rapid.IntRange(1, 4).Draw(rt, "minOps")
			whole, _, mv := mutexPiecesAgree(rt, tr, minOps)
			moved += mv
			answers[whole]++
		}
	})
	if moved == 0 || answers[Yes] == 0 || answers[No] == 0 {
		t.Fatalf("%d releases moved, %d linearizable, %d not: the property tested too little", moved, answers[Yes], answers[No])
	}
}
