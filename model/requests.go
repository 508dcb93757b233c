package model

import "github.com/locksim/locksim/sim"

// ranRequests records, by request id, whether a request's command has run
// by now and whose it was. Request ids are small and dense (a run numbers
// its commands from 1), so a slice indexed by id serves: proc+2 once run, 1
// for a command of no process of the run, 0 while not run. The trace's walk
// (has a lost try run late?) and the version walk (whose command did a
// replica apply?) both keep one.
type ranRequests struct {
	by  []int32
	max uint64 // ids above it are not an engine's numbering (a hand-made history)
}

// reset readies r for h, reusing its memory.
func (r *ranRequests) reset(h *sim.History) {
	r.by, r.max = r.by[:0], uint64(len(h.Events))+1<<20
}

// mark notes that request req's command ran, by process proc.
func (r *ranRequests) mark(req uint64, proc int) {
	if req >= uint64(len(r.by)) {
		if req > r.max {
			return // ran says false
		}
		// Grown by doubling: extended one at a time, as requests come,
		// the growing cost as much as the walk's step.
		n := max(int(req)+1, 2*len(r.by), 64)
		r.by = append(r.by, make([]int32, n-len(r.by))...)
	}
	r.by[req] = int32(max(proc, -1) + 2)
}

// ran says whether request req's command has run by now.
func (r *ranRequests) ran(req uint64) bool { return req < uint64(len(r.by)) && r.by[req] != 0 }

// proc is the process whose command req ran, or -1.
func (r *ranRequests) proc(req uint64) int32 {
	if r.ran(req) {
		return r.by[req] - 2
	}
	return -1
}
