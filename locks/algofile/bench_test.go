package algofile

import (
	"testing"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
)

// The interpreter against the Go built-in it mirrors, on the real engine.
func BenchmarkFileVsBuiltin(b *testing.B) {
	file, err := LoadFile("../../examples/setnx-getset.yaml")
	if err != nil {
		b.Fatal(err)
	}
	builtin, _ := locks.Lookup("setnx-getset")
	for _, a := range []locks.Algorithm{builtin, file} {
		b.Run(a.Name, func(b *testing.B) {
			procs := []sim.ProcSpec{{Name: "c1", Iterations: 5, Work: 10 * time.Millisecond},
				{Name: "c2", Iterations: 5, Work: 10 * time.Millisecond}, {Name: "c3", Iterations: 5, Work: 10 * time.Millisecond}}
			lat := sim.Latency{Min: time.Millisecond, Max: 2 * time.Millisecond}
			for b.Loop() {
				if _, err := sim.Run(sim.Config{Seed: 1, Duration: time.Hour, Nodes: make([]sim.NodeSpec, 1), Procs: procs,
					Network: sim.Network{Request: lat, Reply: lat, Timeout: time.Second}, WatchKey: "lock.foo",
					NewLocker: func(int) sim.Locker { return a.New(locks.Params{}) }}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
