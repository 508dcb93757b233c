package model

import (
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"
)

// cuts is how many pieces m's partition makes of ops (a copy: cutOps sorts
// its input).
func cuts(m porcupine.Model, ops []porcupine.Operation) int {
	return len(m.Partition(slices.Clone(ops)))
}

// Check asks porcupine about pieces of the lock history cut in time
// (partition.go); the answer must be the one porcupine gives for the whole,
// on histories with and without strays, cut as finely as the rule allows.
func TestMutexPiecesAgreeWithWhole(t *testing.T) {
	cut := 0
	rapid.Check(t, func(rt *rapid.T) {
		h := genLives(rt, rapid.Bool().Draw(rt, "strays"))
		tr := extract(&h)
		whole := linearizable(mutexModel(tr), mutexOps(tr), 10*time.Second)
		m, ops := mutexCheck(tr, 1)
		if cuts(m, ops) > 1 {
			cut++
		}
		if got := linearizable(m, ops, 10*time.Second); got != whole || got == Unknown {
			rt.Fatalf("pieces say %v, whole %v\nops %+v", got, whole, tr.lockOps)
		}
	})
	if cut == 0 {
		t.Fatal("no history was cut: the property tested nothing")
	}
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
	cut, lin, notLin := 0, 0, 0
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
		if got == Yes {
			lin++
		} else {
			notLin++
		}
	})
	if cut == 0 || lin == 0 || notLin == 0 {
		t.Fatalf("cut %d, linearizable %d, not %d: the property tested too little", cut, lin, notLin)
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
