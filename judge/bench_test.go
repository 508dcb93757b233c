package judge_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// capScenario is the largest run the limits allow: 64 clients, a million
// rounds each, 24 h of simulated time. It stops at the event cap.
func capScenario(maxEvents int) *scenarios.Scenario {
	s := &scenarios.Scenario{Name: "cap", Algorithm: "set-nx-px-token", Seed: 1,
		Duration: scenarios.Duration(24 * time.Hour), MaxEvents: maxEvents}
	for i := range 64 {
		s.Clients = append(s.Clients, scenarios.Client{Name: fmt.Sprintf("c%d", i+1), Iterations: 1_000_000,
			Work: scenarios.Duration(time.Millisecond), Think: scenarios.Duration(time.Millisecond)})
	}
	return s
}

// BenchmarkEventCap runs a scenario to the event cap and reports the bytes
// still reachable per event once the verdict is in (history and everything
// the checkers keep), the figure that decides a run's resident memory.
//
//	go test ./judge -run '^$' -bench EventCap -benchtime 1x
func BenchmarkEventCap(b *testing.B) {
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		o, err := judge.Run(capScenario(0), "", model.Options{})
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
