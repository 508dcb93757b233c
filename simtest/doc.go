// Package simtest checks a team's own Go lock inside its own `go test`:
// Check runs locksim's exploration (random scenarios of chosen fault
// classes, as `simrun explore` does) against the lock and, on a violation,
// fails the test with the shrunk counterexample as a scenario file.
//
//	func TestMyLock(t *testing.T) {
//		simtest.Check(t, func(p simtest.Params) sim.Locker {
//			return mylock.New(p.Key, p.TTL)
//		}, simtest.Faults("crash", "net"))
//	}
//
// The lock implements sim.Locker: Acquire and Release talk to Redis only
// through the sim.Proc they are given (Do, Sleep), read time only from
// p.Now and randomness only from p.Rand, call p from their own goroutine,
// and do not recover() panics (a crash fault unwinds the process with one).
// Then a run depends on the scenario alone and the same seed finds the same
// counterexample on any machine, whatever the number of workers.
//
// Scenarios run on one Redis node (node 0). Liveness (stuck) takes the
// lock's lifetime to be its TTL. By default only unsafe fails a test
// (DefaultFailOn) under crash, skew and net (DefaultFaults).
//
// # What replays where
//
// The counterexample is a scenario file, written to testdata/simtest/ by
// default (SaveTo) and printed in the failure. Only Go can build a Go lock,
// so it replays in Go:
//
//	simtest.Replay(t, newLocker, "testdata/simtest/TestMyLock.yaml")
//
// which is also a regression test: it fails while the lock still breaks
// there. The file names its lock in a go_lock: field. Check writes the
// test's name (`go_lock: TestMyLock`, file TestMyLock.yaml); Explore writes
// the Name option, "go-lock" by default (`go_lock: go-lock`, file
// go-lock-seed1.yaml), and so does golock's Check, which explores through
// Explore. `simrun run FILE` says it cannot build that lock and names the
// replay call, and `simrun run FILE --algo NAME` runs the same fault plan
// against a built-in lock, never a replay of the team's.
package simtest
