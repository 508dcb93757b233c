package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// settings reads the collector's GOGC and soft memory limit.
func settings() (percent, limit uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// waitFor collects until the tuner has set want, or gives up.
func waitFor(t *testing.T, percent, limit uint64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		runtime.GC() // the tuner runs as a finalizer after each collection
		time.Sleep(10 * time.Millisecond)
		if p, l := settings(); p == percent && l == limit {
			return
		}
	}
	p, l := settings()
	t.Fatalf("GOGC %d and limit %d MiB, want %d and %d MiB", p, l>>20, percent, limit>>20)
}

// The tuner raises GOGC, with the lowered limit, while the live heap is
// small, and puts the default and the limit set before it back when it is
// not. It stays on for the rest of this test binary, which changes when
// memory is collected and nothing else.
func TestTuner(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the tuner stays off")
	}
	const before = 640 << 20 // as simrun sets it
	debug.SetMemoryLimit(before)
	Start()
	Start() // once: a second call starts nothing
	waitFor(t, searchGCPercent, raisedMemoryLimit)
	big := make([]byte, 2*smallLiveHeap)
	for i := range big {
		big[i] = byte(i)
	}
	waitFor(t, 100, before)
	runtime.KeepAlive(big)
	waitFor(t, searchGCPercent, raisedMemoryLimit)
}
