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
//
// The checkers' inputs are a few lists each already in time order, joined
// (per process, holds then leases): union merges those runs rather than sort
// the whole, which was a third of checking a long history. The result is the
// same set whatever order the spans come in.
func union(in []span) []span { return unionOwned(slices.Clone(in)) }

// unionOwned is union for spans the caller owns and no longer needs: it
// works in their memory rather than on a copy.
func unionOwned(in []span) []span { return unionIn(in, nil) }

// unionIn is unionOwned merging through *scratch (grown as needed; nil:
// a fresh buffer) rather than a buffer of its own. The result is in in's
// memory.
func unionIn(in []span, scratch *[]span) []span {
	s := in[:0]
	for _, x := range in {
		if x.to > x.from {
			s = append(s, x)
		}
	}
	s = sortByFrom(s, scratch)
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

// maxRuns is how many ascending runs sortByFrom merges; more are sorted.
const maxRuns = 16

// sortByFrom orders s by start, merging its ascending runs when there are
// few through *scratch (see unionIn), and returns s.
func sortByFrom(s []span, scratch *[]span) []span {
	var runs [maxRuns + 1]int // run boundaries: runs[0] = 0, then each start
	n := 1
	for i := 1; i < len(s); i++ {
		if s[i].from < s[i-1].from {
			if n == maxRuns {
				slices.SortFunc(s, func(a, b span) int { return cmp.Compare(a.from, b.from) })
				return s
			}
			runs[n] = i
			n++
		}
	}
	if n == 1 {
		return s
	}
	runs[n] = len(s)
	bounds := runs[:n+1]
	var buf []span
	if scratch != nil && cap(*scratch) >= len(s) {
		buf = (*scratch)[:len(s)]
	} else {
		buf = make([]span, len(s))
		if scratch != nil {
			*scratch = buf
		}
	}
	orig := s
	for len(bounds) > 2 {
		// Merge runs pairwise from s into buf, then swap.
		next := bounds[:1]
		for k := 0; k+1 < len(bounds); k += 2 {
			lo, mid := bounds[k], bounds[k+1]
			hi := mid
			if k+2 < len(bounds) {
				hi = bounds[k+2]
			}
			mergeByFrom(buf[lo:hi], s[lo:mid], s[mid:hi])
			next = append(next, hi)
		}
		bounds = next
		s, buf = buf, s
	}
	if &s[0] != &orig[0] {
		copy(orig, s)
	}
	return orig
}

// mergeByFrom merges ascending a and b into dst (len(a)+len(b) long), a first
// on ties.
func mergeByFrom(dst, a, b []span) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j].from < a[i].from {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// subtract removes b from a; both must be outputs of union.
func subtract(a, b []span) []span {
	if len(a) == 0 {
		return nil
	}
	// Counted first, then sized exactly: growing the result was most of the
	// cost on a long history, and sizing it by len(a)+len(b) would make the
	// stale check, which subtracts every hold from a few waits, allocate
	// for all of them.
	_, n := cut(a, b, nil, true)
	out, _ := cut(a, b, make([]span, 0, n), false)
	return out
}

// subtractIn is subtract appending to out, memory the caller reuses.
func subtractIn(out, a, b []span) []span {
	out, _ = cut(a, b, out, false)
	return out
}

// cut appends the pieces of a outside b to out, or with count only counts
// them.
func cut(a, b, out []span, count bool) ([]span, int) {
	n, j := 0, 0
	for _, x := range a {
		for j < len(b) && b[j].to <= x.from {
			j++
		}
		cur := x.from
		for k := j; k < len(b) && b[k].from < x.to; k++ {
			if b[k].from > cur {
				if n++; !count {
					out = append(out, span{cur, b[k].from})
				}
			}
			cur = max(cur, b[k].to)
		}
		if cur < x.to {
			if n++; !count {
				out = append(out, span{cur, x.to})
			}
		}
	}
	return out, n
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
