package reports

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// A scale maps true time onto columns. Long stretches in which nothing on
// the picture changes are folded into a fixed-width break, so a crash at 2ms
// and a race at 5s both get room. Inside a segment the scale is linear.

// foldShare: a quiet stretch longer than this share of the run is folded.
const foldShare = 5

type segment struct {
	t0 sim.Time // time of the first column; a multiple of step
	c0 int      // first column
	n  int      // columns
}

type scale struct {
	step  sim.Time // true time per column (per pixel in the SVG)
	segs  []segment
	fold  int // columns of each break
	width int // columns in all
}

func (s *scale) segEnd(i int) sim.Time { return s.segs[i].t0 + sim.Time(s.segs[i].n)*s.step }

// groups splits the sorted change points where a quiet stretch is long
// enough to fold: each group is [first, last] of its points. A stretch inside
// a violation's window is never folded: the window is what the reader came
// to see, and its length is part of the story.
func groups(points []sim.Time, end sim.Time, keep [][2]sim.Time) [][2]sim.Time {
	if len(points) == 0 {
		return [][2]sim.Time{{0, end}}
	}
	minGap := end / foldShare
	kept := func(a, b sim.Time) bool {
		for _, k := range keep {
			if k[0] <= a && b <= k[1] {
				return true
			}
		}
		return false
	}
	out := [][2]sim.Time{{points[0], points[0]}}
	for _, t := range points[1:] {
		g := &out[len(out)-1]
		if minGap > 0 && t-g[1] > minGap && !kept(g[1], t) {
			out = append(out, [2]sim.Time{t, t})
			continue
		}
		g[1] = t
	}
	return out
}

// layout places groups at a given step, each segment starting at a multiple
// of align (itself a multiple of step for columns); groups too close at this
// step share a segment.
func layout(gs [][2]sim.Time, step, align sim.Time, fold int) scale {
	s := scale{step: step, fold: fold}
	for gi, g := range gs {
		cols := func(d sim.Time) int {
			if gi == len(gs)-1 {
				// The run's last instant needs no column of its own.
				return max(1, int((d+step-1)/step))
			}
			// A group's last change gets its column, and the column after
			// it shows the state the change left, which lasts through the
			// fold: otherwise a key that expires inside that column would
			// read as lasting until the next segment.
			return int(d/step) + 2
		}
		t0 := g[0] / align * align
		if k := len(s.segs) - 1; k >= 0 && t0 <= s.segEnd(k)+sim.Time(fold)*step {
			// Folding would save nothing: stretch the previous segment.
			s.segs[k].n = cols(g[1] - s.segs[k].t0)
			continue
		}
		c0 := 0
		if k := len(s.segs) - 1; k >= 0 {
			c0 = s.segs[k].c0 + s.segs[k].n + fold
		}
		s.segs = append(s.segs, segment{t0: t0, c0: c0, n: cols(g[1] - t0)})
	}
	last := s.segs[len(s.segs)-1]
	s.width = last.c0 + last.n
	return s
}

// niceSteps are 1, 2, 2.5, 5 × 10^k nanoseconds: round enough to read off.
func niceSteps() []sim.Time {
	out := []sim.Time{1, 2, 5}
	for p := sim.Time(10); p <= sim.Time(1e15); p *= 10 {
		out = append(out, p, 2*p, p*5/2, 5*p)
	}
	return out
}

// fitScale picks the finest nice step whose layout fits in width columns.
func fitScale(points []sim.Time, end sim.Time, keep [][2]sim.Time, width, fold int) scale {
	gs := groups(points, end, keep)
	var s scale
	for _, step := range niceSteps() {
		s = layout(gs, step, step, fold)
		if s.width <= width {
			return s
		}
	}
	return s
}

// fitPixels picks a step for a pixel scale: the finest step such that the
// layout fits, not rounded (pixels need no label each), with segments
// starting at round times so the labels at their starts read well.
func fitPixels(points []sim.Time, end sim.Time, keep [][2]sim.Time, width, fold int) scale {
	gs := groups(points, end, keep)
	align := func(step sim.Time) sim.Time {
		a := sim.Time(1)
		for _, n := range niceSteps() {
			if n <= 10*step {
				a = n
			}
		}
		return a
	}
	lo, hi := sim.Time(1), max(end, 1)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if layout(gs, mid, align(mid), fold).width <= width {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return layout(gs, lo, align(lo), fold)
}

// colStart is the column holding t, or the first after a fold t falls in.
func (s *scale) colStart(t sim.Time) int {
	for i, g := range s.segs {
		if t < g.t0 {
			return g.c0
		}
		if t < s.segEnd(i) || i == len(s.segs)-1 {
			return min(g.c0+int((t-g.t0)/s.step), g.c0+g.n-1)
		}
	}
	return s.width - 1
}

// colEnd is the last column a span ending (exclusive) at t covers.
func (s *scale) colEnd(from, to sim.Time) int {
	if to <= from {
		return s.colStart(from)
	}
	t := to - 1
	for i := len(s.segs) - 1; i >= 0; i-- {
		g := s.segs[i]
		if t >= g.t0 {
			return min(g.c0+int((t-g.t0)/s.step), g.c0+g.n-1)
		}
	}
	return 0
}

// isFold says whether column c is in a break.
func (s *scale) isFold(c int) bool {
	for i, g := range s.segs {
		if c < g.c0 {
			return i > 0
		}
		if c < g.c0+g.n {
			return false
		}
	}
	return false
}

// x is t's position for the SVG: continuous inside segments, folds of fixed
// width between.
func (s *scale) x(t sim.Time) float64 {
	for i, g := range s.segs {
		if t < g.t0 {
			return float64(g.c0) // inside the fold before g: draw at its far side
		}
		if t <= s.segEnd(i) || i == len(s.segs)-1 {
			return float64(g.c0) + float64(t-g.t0)/float64(s.step)
		}
	}
	return float64(s.width)
}

// folds lists the hidden stretches: [from, to) of true time.
func (s *scale) folds() [][2]sim.Time {
	var out [][2]sim.Time
	for i := 1; i < len(s.segs); i++ {
		out = append(out, [2]sim.Time{s.segEnd(i - 1), s.segs[i].t0})
	}
	return out
}

// dur formats a span of true time the way offsets are formatted.
func dur(t sim.Time) string { return time.Duration(t).String() }
