package model

import (
	"cmp"
	"slices"

	"github.com/locksim/locksim/sim"
)

// outageSpans is when too many nodes were down for anyone to acquire: a
// single node down, or, with several nodes, more than a quorum lock
// (N/2+1 nodes) can spare. Waiting then is Redis's unavailability, not the
// lock's doing, so liveness does not count it (as with a lost release, the
// lock must not be blamed for the deployment). Waiting that outlasts the
// outage by 2 × TTL is still stuck.
func outageSpans(t *trace) []span {
	if t.nodes <= 0 {
		return nil
	}
	spare := t.nodes - (t.nodes/2 + 1) // nodes a quorum can do without
	var downs [][]span                 // made at the first outage: most runs have none
	for _, i := range t.faults {
		if e := &t.h.Events[i]; e.Fault.LosesData() && e.Node >= 0 && e.Node < t.nodes && e.Dur > 0 {
			if downs == nil {
				downs = make([][]span, t.nodes)
			}
			downs[e.Node] = append(downs[e.Node], span{e.At, e.At + sim.Time(e.Dur)})
		}
	}
	// Sweep the edges in time order, counting nodes down (each node's own
	// spans are merged first, so overlapping restarts count once).
	type edge struct {
		at sim.Time
		d  int
	}
	var edges []edge
	for _, ds := range downs {
		for _, s := range union(ds) {
			edges = append(edges, edge{s.from, +1}, edge{s.to, -1})
		}
	}
	if len(edges) == 0 {
		return nil
	}
	slices.SortFunc(edges, func(a, b edge) int {
		// An end sorts before a start at the same instant.
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.d, b.d))
	})
	var out []span
	down := 0
	var from sim.Time
	for _, ed := range edges {
		was := down > spare
		down += ed.d
		switch now := down > spare; {
		case now && !was:
			from = ed.at
		case !now && was:
			out = append(out, span{from, ed.at})
		}
	}
	return out
}
