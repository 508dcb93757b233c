// Package sim is locksim's engine: it runs lock algorithms' client processes
// against Redis nodes under a fault plan, and records what happened as a
// history for the checker (package model).
//
// # Simulated time
//
// Run is the simulated backend. Time is true time, nanoseconds since Epoch on
// the simulation's own timeline; nothing reads the host clock. Each process
// reads a local clock of its own (ClockSpec: offset, drift, jumps), and each
// node (package sim/node, a miniredis-based Redis) expires keys on its own.
// Every process is a coroutine (iter.Pull) driven by one scheduler and an
// event queue: only one thing runs at a time, and every command, sleep and
// resource access is a yield back to the scheduler. All randomness comes from
// Config.Seed, so one Config gives the same history, and the same digest, on
// any machine and at any GOMAXPROCS.
//
// # Processes and the workload
//
// An algorithm is a Locker (Acquire, Release, and optionally Extender) written
// against Proc: the one view a lock has of its client, whichever backend runs
// it. The workload (workload.go) is each process's life: rounds of acquire,
// critical section, release. It is written once, against the unexported
// worker contract (worker and leaseKeeper: a process's id and spec, recording
// an event, firing the plan's triggers, the shared resource, the watchdog),
// which both backends' processes implement, so both record the same events.
//
// # The seam to the real-time backend
//
// RunReal is the wall-clock backend: the same Config, workload, fault plan
// and history types, against real Redis servers, and not deterministic. Its
// seam is Wire (Dial a Conn to a node, Restart a node), widened by ServerWire
// (ReadKey, JumpClock, Failover) for servers locksim starts itself, whose
// RealParts say which faults a wire can carry out; CheckReal and
// CheckRealWith refuse a plan the wire cannot. The engine knows nothing of
// sockets: package realtime/realredis implements Wire over RESP and starts
// servers, and package realtime runs scenarios and searches over them. The
// runner itself (realtime.go, realtime_proc.go) still lives here: its
// processes are workers, it records through the engine's recorder, and each
// fault kind's entry in the fault table (faultkinds.go) carries how the kind
// fires in real time (applyReal) or why it cannot (realRefusal). Moving it out
// means exporting that contract, not only Wire.
//
// # A third backend
//
// Real Go lock libraries in simulated time (testing/synctest) are to plug in
// at the same two points: a process type that implements worker over a
// bubble's fake clock, and connections that reach the simulated nodes, so
// that the workload, the fault plan and the history stay one.
package sim
