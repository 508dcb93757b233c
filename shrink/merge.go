package shrink

import (
	"github.com/locksim/locksim/scenarios"
)

// merges tries, for every two faults that merge (mergeable), the scenario
// with the first made their sum and the second gone, and reports whether
// one was kept. Two faults become one: a counterexample names one cause
// where it needs one.
func (sh *shrinker) merges() bool {
	changed := false
	for i := 0; i < len(sh.cur.Faults); i++ {
		for j := i + 1; j < len(sh.cur.Faults); j++ {
			if mergeable(&sh.cur.Faults[i], &sh.cur.Faults[j]) && sh.try(merged(sh.cur, i, j)) {
				changed = true
				j-- // fault j+1 moved to j
			}
		}
	}
	return changed
}

// mergeable says whether faults a and b, in one scenario, act as one fault
// of their summed size: the same kind, on the same target, at the same
// instant (the same time, or the same trigger and delay), of a kind whose
// effects add.
//
// Only a clock jump adds: a clock that jumps by a and by b at one instant
// reads as one that jumped by a+b (the engine keeps the sum of the jumps).
// The others do not, so they are not merged: two pauses of one process at
// one instant, or two restarts of one node, last as the longer one alone
// (the engine keeps the later end), so dropping the shorter, which the drop
// step tries, is already that merge; a second crash finds its process dead;
// two lost requests or replies take two commands, which no one fault says;
// a second failover is a second promotion.
func mergeable(a, b *scenarios.Fault) bool {
	if !a.EngineKind().ShiftsClock() || b.Kind != a.Kind {
		return false
	}
	if a.Client != b.Client || (a.Node == nil) != (b.Node == nil) || a.Node != nil && *a.Node != *b.Node {
		return false
	}
	if a.At != b.At || (a.On == nil) != (b.On == nil) {
		return false
	}
	return a.On == nil || *a.On == *b.On
}

// merged is s with fault i jumping by the sum of faults i and j, and
// fault j gone; with neither when the jumps cancel (a jump by 0 is no
// fault a file may hold).
func merged(s *scenarios.Scenario, i, j int) *scenarios.Scenario {
	c := s.Clone()
	c.Faults[i].By += c.Faults[j].By
	c.Faults = append(c.Faults[:j], c.Faults[j+1:]...)
	if c.Faults[i].By == 0 {
		c.Faults = append(c.Faults[:i], c.Faults[i+1:]...)
	}
	return c
}
