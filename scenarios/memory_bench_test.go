package scenarios

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/locksim/locksim/model"
)

// capScenario is the largest run the limits allow: 64 clients, a million
// rounds each, 24 h of simulated time. It stops at the event cap.
func capScenario(maxEvents int) *Scenario {
	s := &Scenario{Name: "cap", Algorithm: "set-nx-px-token", Seed: 1,
		Duration: Duration(24 * time.Hour), MaxEvents: maxEvents}
	for i := range 64 {
		s.Clients = append(s.Clients, Client{Name: fmt.Sprintf("c%d", i+1), Iterations: 1_000_000,
			Work: Duration(time.Millisecond), Think: Duration(time.Millisecond)})
	}
	return s
}

// BenchmarkEventCap runs a scenario to the event cap and reports the bytes
// still reachable per event once the verdict is in (history and everything
// the checkers keep), the figure that decides a run's resident memory.
//
//	go test ./scenarios -run '^$' -bench EventCap -benchtime 1x
func BenchmarkEventCap(b *testing.B) {
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		o, err := capScenario(0).Execute("", model.Options{})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		n := len(o.Result.History.Events)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "live-B/event")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n), "alloc-B/event")
		b.ReportMetric(float64(n), "events")
		runtime.KeepAlive(o)
	}
}
