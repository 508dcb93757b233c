package reports

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// keyAt is what node lane l holds at t: a version's label, "." absent, or
// "x" down.
func keyAt(p *picture, l nodeLane, t sim.Time) string {
	for _, s := range l.spans {
		if s.from <= t && t < s.to {
			if s.down {
				return "x"
			}
			return p.versions[s.v].label
		}
	}
	return "."
}

// A fold never hides a change of any lane: the column before each fold
// shows the state that lasts through it. In del-race replayed with
// set-nx-px-token, key A expires at 3.001s, between two folds; the node's
// row must show it gone before the second fold, not run A into B.
func TestFoldHidesNoChange(t *testing.T) {
	type run struct{ scenario, algo string }
	runs := []run{{"del-race", "set-nx-px-token"}}
	for _, s := range scenarios.Builtins() {
		runs = append(runs, run{s.Name, ""})
	}
	folded := 0
	for _, r := range runs {
		s, err := scenarios.Lookup(r.scenario)
		if err != nil {
			t.Fatal(err)
		}
		o, err := judge.Run(s, r.algo, model.Options{SkipPorcupine: true})
		if err != nil {
			t.Fatal(err)
		}
		p := newPicture(o)
		lw := 11
		sc := fitScale(p.points, p.end, p.keep(), 100-lw, len(foldText))
		for i, f := range sc.folds() {
			folded++
			before := sc.segs[i].c0 + sc.segs[i].n - 1 // last column before the fold
			for _, l := range p.nodes {
				row := p.nodeRow(&sc, l)
				at, after := keyAt(p, l, f[0]), keyAt(p, l, f[1]-1)
				if at != after {
					t.Errorf("%s/%s %s: the key changes inside the fold %v (%s → %s)", r.scenario, r.algo, l.name, f, at, after)
				}
				got := string(row.cells[before].r)
				if got == "=" {
					got = keyAt(p, l, f[0]) // a version's body: any version
					if got == "." || got == "x" {
						got = "="
					}
				}
				if got != at {
					t.Errorf("%s/%s %s: column before the fold at %s shows %q, the key is %q then",
						r.scenario, r.algo, l.name, dur(f[0]), string(row.cells[before].r), at)
				}
			}
		}
	}
	if folded == 0 {
		t.Fatal("no run folds: the test checks nothing")
	}
}

// The version a fault marker's column would hide is drawn in the next
// column: node0's clock jumps in the very millisecond c1 writes the key.
func TestMarkerKeepsVersion(t *testing.T) {
	b := newHist("lock", 1, "c1")
	b.proc(0, sim.KindProcStart, 0)
	b.proc(0, sim.KindLockInvoke, 0)
	b.fault(1*ms, fault.NodeJump, -1, 0, 5*time.Millisecond)
	r := b.ran(1*ms, 0, 0, ok, key("t1", time.Second), "SET", "lock", "t1", "NX", "PX", "1000")
	b.result(2*ms, 0, 0, r, ok, "")
	b.proc(2*ms, sim.KindLockReturn, 0, held("t1"))
	b.proc(500*ms, sim.KindProcEnd, 0)
	var out strings.Builder
	if err := WriteText(&out, b.outcome(t, "jump-at-write", "", 500*ms)); err != nil {
		t.Fatal(err)
	}
	for _, l := range timelineLines(out.String()) {
		if strings.HasPrefix(l, "node0 ") && (!strings.Contains(l, ">") || !strings.Contains(l, "A")) {
			t.Errorf("want the jump and version A on node0: %q", l)
		}
	}
}
