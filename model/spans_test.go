package model

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/locksim/locksim/sim"
)

// unionBySort is union as it was written first: sort everything, then merge.
func unionBySort(in []span) []span {
	var s []span
	for _, x := range in {
		if x.to > x.from {
			s = append(s, x)
		}
	}
	slices.SortFunc(s, func(a, b span) int { return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to)) })
	var out []span
	for _, x := range s {
		if n := len(out); n > 0 && x.from <= out[n-1].to {
			out[n-1].to = max(out[n-1].to, x.to)
			continue
		}
		out = append(out, x)
	}
	return out
}

// TestUnionMergesRuns compares the run-merging union with the sorting one on
// inputs made of k ascending runs (k from 1 to past maxRuns, where it sorts),
// with empty, touching and nested spans.
func TestUnionMergesRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		runs := 1 + trial%(maxRuns+4)
		var in []span
		for range runs {
			at := sim.Time(rng.IntN(50))
			for range rng.IntN(12) {
				at += sim.Time(rng.IntN(6))
				in = append(in, span{at, at + sim.Time(rng.IntN(8)) - 1})
			}
		}
		got, want := union(slices.Clone(in)), unionBySort(in)
		if !slices.Equal(got, want) && (len(got) != 0 || len(want) != 0) {
			t.Fatalf("union(%v) = %v, want %v", in, got, want)
		}
	}
	if got := union([]span{{5, 9}, {1, 3}, {3, 4}, {8, 12}}); !slices.Equal(got, []span{{1, 4}, {5, 12}}) {
		t.Fatalf("union of two runs = %v", got)
	}
}
