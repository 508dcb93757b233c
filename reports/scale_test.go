package reports

import (
	"bytes"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/sim"
)

// Any set of change points gets a scale that fits, maps time to columns in
// order, and never puts a change point in a fold.
func TestScaleProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pts := rapid.SliceOfN(rapid.Int64Range(0, 1e12), 1, 60).Draw(t, "points")
		width := rapid.IntRange(20, 120).Draw(t, "width")
		points := make([]sim.Time, len(pts))
		for i, p := range pts {
			points[i] = sim.Time(p)
		}
		points = append(points, 0)
		slices.Sort(points)
		points = slices.Compact(points)
		end := points[len(points)-1]
		var keep [][2]sim.Time
		if rapid.Bool().Draw(t, "window") && len(points) > 2 {
			keep = append(keep, [2]sim.Time{points[1], points[len(points)-2]})
		}
		sc := fitScale(points, end, keep, width, 2)
		if sc.width > width {
			t.Fatalf("width %d > %d", sc.width, width)
		}
		prev := -1
		for _, p := range points {
			c := sc.colStart(p)
			if c < prev || c < 0 || c >= sc.width {
				t.Fatalf("point %d at column %d after %d (width %d)", p, c, prev, sc.width)
			}
			if sc.isFold(c) {
				t.Fatalf("point %d in a fold at column %d", p, c)
			}
			// Its column covers it; only the run's last instant may share
			// the column before it.
			if t0, t1 := colTimes(&sc, c); p < t0 || (p > t1 && !(p == end && p == t1+1)) {
				t.Fatalf("point %d in column %d, which covers %d..%d", p, c, t0, t1)
			}
			if e := sc.colEnd(p, p+1); e != c {
				t.Fatalf("an instant spans columns %d..%d", c, e)
			}
			prev = c
		}
		for _, f := range sc.folds() {
			for _, k := range keep {
				if k[0] <= f[0] && f[1] <= k[1] {
					t.Fatalf("fold %v inside kept window %v", f, k)
				}
			}
		}
	})
}

// A run with no events, no processes and no watched key still renders.
func TestEmptyHistory(t *testing.T) {
	o := newHist("", 0).outcome(t, "empty", "", 0)
	var b bytes.Buffer
	if err := WriteTextWith(&b, o, TextOptions{Trace: true, Color: true}); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteHTML(&b, o); err != nil {
		t.Fatal(err)
	}
}
