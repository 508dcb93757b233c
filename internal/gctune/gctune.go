// Package gctune runs the garbage collector as searches want it: at
// GOGC=400 while the live heap is small, at Go's default otherwise.
//
// A search (explore, matrix, book, prove) runs thousands of small runs whose
// live heap is a few MB: there, collecting at 100% growth is about 30% of
// the CPU, and 400% saves most of that for some tens of MB more
// (docs/speed.md). A raised GOGC alone would let a heap that is large for
// real (a memory-hungry script, a run near the event cap) grow five-fold, so
// the tuner raises it only while the live heap after a collection is small,
// and puts the default back otherwise. It learns the live heap only after a
// collection, and a script can grow it by hundreds of MB before the next:
// so while GOGC is raised the soft memory limit is lowered too
// (raisedMemoryLimit), which bounds what a stale 400% can let through.
//
// It changes when memory is collected, never what a run computes. GOGC or
// GOMEMLIMIT in the environment turns it off. simrun starts it for its
// search commands, and the test binaries of packages whose tests are
// searches start it too (internal/searchtest), so that they run as simrun
// runs.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

const (
	searchGCPercent   = 400
	smallLiveHeap     = 32 << 20  // raised only below this live heap: at 400%, 160 MiB
	raisedMemoryLimit = 256 << 20 // the soft limit while raised, or the one set before if lower
)

var once sync.Once

// Start starts the tuner, once per process. Lowered again, the collector
// is at GOGC=100 with the soft memory limit that was set when Start was
// called (simrun's own, or none).
func Start() {
	once.Do(start)
}

// sentinel is finalized once per collection; its finalizer retunes and
// arms it again.
type sentinel struct{ _ *int }

func start() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := debug.SetMemoryLimit(-1) // a negative limit reads it
	raisedLimit := min(limit, int64(raisedMemoryLimit))
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	raised := false
	set := func(up bool) {
		// Both calls stop the world: only on a change.
		if up == raised {
			return
		}
		raised = up
		if up {
			debug.SetMemoryLimit(raisedLimit)
			debug.SetGCPercent(searchGCPercent)
		} else {
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(limit)
		}
	}
	var retune func(*sentinel)
	retune = func(s *sentinel) {
		metrics.Read(live)
		set(live[0].Value.Kind() == metrics.KindUint64 && live[0].Value.Uint64() <= smallLiveHeap)
		runtime.SetFinalizer(s, retune)
	}
	set(true)
	runtime.SetFinalizer(&sentinel{}, retune)
}
