package model

import (
	"cmp"
	"math"
	"slices"

	"github.com/locksim/locksim/sim"
)

// forever stands for "not ended by the end of the run".
const forever = sim.Time(math.MaxInt64)

// span is a half-open interval [from, to) of true time.
type span struct{ from, to sim.Time }

func (s span) len() sim.Time { return s.to - s.from }

// union merges spans into sorted, disjoint, non-touching spans. Empty spans
// vanish.
func union(in []span) []span {
	s := make([]span, 0, len(in))
	for _, x := range in {
		if x.to > x.from {
			s = append(s, x)
		}
	}
	slices.SortFunc(s, func(a, b span) int { return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to)) })
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 && x.from <= out[n-1].to {
			out[n-1].to = max(out[n-1].to, x.to)
			continue
		}
		out = append(out, x)
	}
	return out
}

// subtract removes b from a; both must be outputs of union.
func subtract(a, b []span) []span {
	var out []span
	j := 0
	for _, x := range a {
		for j < len(b) && b[j].to <= x.from {
			j++
		}
		cur := x.from
		for k := j; k < len(b) && b[k].from < x.to; k++ {
			if b[k].from > cur {
				out = append(out, span{cur, b[k].from})
			}
			cur = max(cur, b[k].to)
		}
		if cur < x.to {
			out = append(out, span{cur, x.to})
		}
	}
	return out
}

// clip returns the parts of sorted disjoint spans that fall inside w.
func clip(s []span, w span) []span {
	i, _ := slices.BinarySearchFunc(s, w.from, func(x span, t sim.Time) int {
		if x.to <= t {
			return -1
		}
		return 1
	})
	var out []span
	for ; i < len(s) && s[i].from < w.to; i++ {
		if c := (span{max(s[i].from, w.from), min(s[i].to, w.to)}); c.to > c.from {
			out = append(out, c)
		}
	}
	return out
}

func measure(s []span) sim.Time {
	var n sim.Time
	for _, x := range s {
		n += x.len()
	}
	return n
}
