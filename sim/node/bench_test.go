package node

import (
	"testing"
)

// BenchmarkExecEval is the compare-and-delete release through the node's
// own scripting, on a held lock (GET, compare, DEL) re-taken each time.
func BenchmarkExecEval(b *testing.B) {
	n := New(1)
	release := eval(releaseScript, []string{"lock"}, "tok")
	set := cmd("SET", "lock", "tok")
	b.ReportAllocs()
	for b.Loop() {
		n.Exec(0, t0, set)
		if r := n.Exec(0, t0, release); r.Kind != Int || r.Int != 1 {
			b.Fatalf("release: %s", r)
		}
	}
}

// BenchmarkMiniredisEval is the same through stock miniredis EVAL, which
// builds a new Lua state per call.
func BenchmarkMiniredisEval(b *testing.B) {
	s := newStock(b, 1)
	release := eval(releaseScript, []string{"lock"}, "tok")
	set := cmd("SET", "lock", "tok")
	b.ReportAllocs()
	for b.Loop() {
		s.exec(b, t0, set)
		if r := s.exec(b, t0, release); r.Kind != Int || r.Int != 1 {
			b.Fatalf("release: %s", r)
		}
	}
}

func BenchmarkExecGet(b *testing.B) {
	n := New(1)
	n.Exec(0, t0, cmd("SET", "lock", "tok"))
	get := cmd("GET", "lock")
	b.ReportAllocs()
	for b.Loop() {
		n.Exec(0, t0, get)
	}
}

// BenchmarkExecSet is the SET each EVAL benchmark also pays for per loop.
func BenchmarkExecSet(b *testing.B) {
	n := New(1)
	set := cmd("SET", "lock", "tok")
	b.ReportAllocs()
	for b.Loop() {
		n.Exec(0, t0, set)
	}
}

// BenchmarkFirstScript is a fresh node's first EVAL: making its Lua state.
func BenchmarkFirstScript(b *testing.B) {
	release := eval(releaseScript, []string{"lock"}, "tok")
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		n := New(1)
		b.StartTimer()
		n.Exec(0, t0, release)
	}
}
