package model

import (
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// witnesses finds the events that explain a finding. Its indexes are built on
// first use: a clean run never pays for them.
type witnesses struct {
	h      *sim.History
	built  bool
	byProc [][]int // KindCommand event indexes per process, in order
	byNode [][]int // KindCommand event indexes per node, in order
	resets [][]int // indexes of faults that lost a node's data (LosesData), per node
}

func (w *witnesses) build(procs, nodes int) {
	if w.built {
		return
	}
	w.built = true
	w.byProc = make([][]int, procs)
	w.byNode = make([][]int, nodes)
	w.resets = make([][]int, nodes)
	// Counted first, then cut from one array: growing a list per process and
	// per node cost more than the walk itself on a long history.
	perProc, perNode := make([]int, procs), make([]int, nodes)
	total := 0
	for i := range w.h.Events {
		if e := &w.h.Events[i]; e.Kind == sim.KindCommand {
			if e.Proc >= 0 && e.Proc < procs {
				perProc[e.Proc]++
				total++
			}
			if e.Node >= 0 && e.Node < nodes {
				perNode[e.Node]++
				total++
			}
		}
	}
	flat := make([]int, total)
	for p, c := range perProc {
		w.byProc[p], flat = flat[:0:c], flat[c:]
	}
	for n, c := range perNode {
		w.byNode[n], flat = flat[:0:c], flat[c:]
	}
	for i := range w.h.Events {
		e := &w.h.Events[i]
		switch {
		case e.Kind == sim.KindCommand:
			if e.Proc >= 0 && e.Proc < procs {
				w.byProc[e.Proc] = append(w.byProc[e.Proc], i)
			}
			if e.Node >= 0 && e.Node < nodes {
				w.byNode[e.Node] = append(w.byNode[e.Node], i)
			}
		case e.Kind == sim.KindFault && e.Fault.LosesData():
			if e.Node >= 0 && e.Node < nodes {
				w.resets[e.Node] = append(w.resets[e.Node], i)
			}
		}
	}
}

// lookBack bounds how far back a witness search walks.
const lookBack = 64

// lastCommands returns the last n commands proc ran before event index
// before, preferring those on the watched key; if none touched it, the last
// n of any kind.
func (w *witnesses) lastCommands(t *trace, proc, before, n int) []int {
	w.build(len(t.wants), t.nodes)
	if proc < 0 || proc >= len(w.byProc) {
		return nil
	}
	cmds := w.byProc[proc]
	end, _ := slices.BinarySearch(cmds, before)
	var keyed []int
	for i := end - 1; i >= 0 && i >= end-lookBack && len(keyed) < n; i-- {
		if touchesKey(w.h.Events[cmds[i]].Args, w.h.WatchKey) {
			keyed = append(keyed, cmds[i])
		}
	}
	if len(keyed) == 0 {
		keyed = append(keyed, cmds[max(0, end-n):end]...)
	}
	return keyed
}

// touchesKey is generous: a command touches the key if any argument after
// the command name is the key (GET/SET/DEL name it first, EVAL among KEYS).
func touchesKey(args []string, key string) bool {
	if key == "" {
		return true
	}
	for _, a := range args[min(1, len(args)):] {
		if a == key {
			return true
		}
	}
	return false
}

// events turns event indexes into the events, once each, in history order.
func (w *witnesses) events(idx ...[]int) []sim.Event {
	var all []int
	for _, x := range idx {
		all = append(all, x...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	out := make([]sim.Event, 0, len(all))
	for _, i := range all {
		if i >= 0 && i < len(w.h.Events) {
			out = append(out, w.h.Events[i])
		}
	}
	return out
}

// names lists processes by index, once each.
func names(t *trace, procs ...int) []string {
	procs = slices.Clone(procs)
	slices.Sort(procs)
	procs = slices.Compact(procs)
	out := make([]string, len(procs))
	for i, p := range procs {
		out[i] = t.name(p)
	}
	return out
}

func joinNames(t *trace, procs ...int) string { return strings.Join(names(t, procs...), ", ") }

// indexAfter is the index of the first event after true time at (events are
// in true-time order).
func indexAfter(t *trace, at sim.Time) int {
	i, _ := slices.BinarySearchFunc(t.h.Events, at, func(e sim.Event, at sim.Time) int {
		if e.At <= at {
			return -1
		}
		return 1
	})
	return i
}
