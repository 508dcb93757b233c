package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// softMemoryLimit asks the garbage collector to work harder as the heap
// nears it, instead of letting the heap grow to twice what is live (Go's
// default pacing): a run at the event cap keeps about 450 MB live at its peak
// (the history while it is joined), and without the limit its resident size
// came within a few percent of 1 GB. It is soft: it changes when memory is
// collected, never what a run computes. GOMEMLIMIT in the environment wins.
const softMemoryLimit = 640 << 20

func init() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
}

// Searches (explore, matrix, book, prove) run thousands of small runs whose live
// heap is a few MB: there, collecting at 100% growth is about 30% of the
// CPU, and 400% saves most of that for some tens of MB more (docs/speed.md).
// A raised GOGC alone would let a heap that is large for real (a
// memory-hungry script, a run near the event cap) grow five-fold up to the
// soft limit, so the tuner raises it only while the live heap
// after a collection is small, and puts Go's default back otherwise. The
// tuner learns the live heap only after a collection, and a script can grow
// it by hundreds of MB before the next: so while GOGC is raised the soft
// limit is lowered too (raisedMemoryLimit), which bounds what a stale 400%
// can let through. Like the soft limit, this changes when memory is
// collected, never what a run computes. GOGC or GOMEMLIMIT in the
// environment turns it off.
const (
	searchGCPercent   = 400
	smallLiveHeap     = 32 << 20  // raised only below this live heap: at 400%, 160 MiB
	raisedMemoryLimit = 256 << 20 // the soft limit while raised
)

// searchCommands are the commands the GC tuner runs for.
var searchCommands = map[string]bool{"explore": true, "matrix": true, "book": true, "prove": true}

// gcSentinel is finalized once per collection; its finalizer retunes and
// arms it again.
type gcSentinel struct{ _ *int }

func startGCTuner() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	raised := false
	set := func(up bool) {
		// Both calls stop the world: only on a change.
		if up == raised {
			return
		}
		raised = up
		if up {
			debug.SetMemoryLimit(raisedMemoryLimit)
			debug.SetGCPercent(searchGCPercent)
		} else {
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(softMemoryLimit)
		}
	}
	var retune func(*gcSentinel)
	retune = func(s *gcSentinel) {
		metrics.Read(live)
		set(live[0].Value.Kind() == metrics.KindUint64 && live[0].Value.Uint64() <= smallLiveHeap)
		runtime.SetFinalizer(s, retune)
	}
	set(true)
	runtime.SetFinalizer(&gcSentinel{}, retune)
}
