package prove

import (
	"context"
	"reflect"
	"testing"

	"github.com/locksim/locksim/internal/racedetect"
)

// TestHandingOverAsWaiting: the walk that goes on choosing while the
// workers run (pool.go) gives, count for count, the result of one that
// waits for the verdicts of what it hands over there (waitEach), with one
// worker and two: on a space that ends at an inside unsafe schedule, one
// whose outside answer settles, one that takes jumps unrun, one that
// prunes by state. (No small space found ends at an inside unsafe one with
// pruned schedules owed after it, nor settles the outside answer after its
// first pass: the order of those payments is argued in pool.go, not shown.)
func TestHandingOverAsWaiting(t *testing.T) {
	spaces := []Options{
		{Algorithm: "setnx-del-recover", Clients: 3, Rounds: 1, Classes: []string{ClassCrash}, MaxFaults: 1, MaxDelays: 1},
		{Algorithm: "set-nx-px-token", Rounds: 1, Classes: []string{ClassLongPause, ClassCrash}, MaxFaults: 2, MaxDelays: 1},
		jumpSpaces[0],
		prunedSmall,
	}
	spaces[2].Jumps = JumpsUnread
	spaces[3].Reduce = ReduceSummary
	if racedetect.Enabled {
		spaces = spaces[:1]
	}
	ended, settled, unrun, pruned := false, false, false, false
	for _, o := range spaces {
		for _, workers := range []int{1, 2} {
			o.Workers = workers
			waiting, going := runHandingOver(t, o, true), runHandingOver(t, o, false)
			waiting.Elapsed, going.Elapsed = 0, 0
			if !reflect.DeepEqual(waiting, going) {
				t.Fatalf("%s %v, %d workers: waiting at each hand-over %+v, going on %+v", o.Algorithm, o.Classes, workers, waiting, going)
			}
			ended = ended || (going.Found != nil && going.Found.Outside == "")
			settled = settled || going.Outside.Skipped > 0
			unrun = unrun || going.Unrun > 0
			pruned = pruned || going.Pruned > 0
		}
	}
	if !ended || (!racedetect.Enabled && (!settled || !unrun || !pruned)) {
		t.Fatalf("the spaces show too little: ended inside %v, settled outside %v, jumps unrun %v, pruned %v", ended, settled, unrun, pruned)
	}
}

func runHandingOver(t *testing.T, o Options, waitEach bool) *Result {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	p.waitEach = waitEach
	r, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}
