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
// critical section, release. It is written once, against the worker
// contract (worker and leaseKeeper: a process's id and spec, recording an
// event, firing the plan's triggers, the shared resource, the watchdog),
// which Run's processes implement, and another backend's through Worker
// (below), so both record the same events.
//
// # The seam to another backend
//
// Run is one backend; package realtime/engine is the other: the same
// Config, workload, fault plan and history against real Redis servers in
// wall-clock time, and not deterministic. It lives outside this package and
// meets it at one seam (ledger.go):
//
//   - Ledger: a run's bookkeeping, as Run keeps it. NewLedger validates the
//     Config; Record appends to the history and says when it reached its
//     bounds; Reached and Fire count the plan's trigger points and build a
//     fault's event; Count, CountCommand, Resource and Write keep the stats
//     and the shared resource; Result is what the run returns.
//   - Workload, over a Worker: each of the backend's processes runs the
//     workload above, the worker contract exported (Record, Trigger, Count,
//     the resource, the watchdog), so both backends record the same events.
//   - ClockSpec.At and Latency.Draw: a process's clock and the network's
//     latencies, read as Run reads them.
//
// What a fault kind is lives in the fault package's table; how it fires
// there is that package's column (realtime/engine/faultkinds.go), and this
// package's (faultapply.go) says how Run applies it. The backend's own seam to the servers (Wire, Conn) is its own:
// this package knows nothing of sockets.
//
// # A third backend
//
// Real Go lock libraries in simulated time (testing/synctest) are to plug in
// at the same two points: a process type that implements worker over a
// bubble's fake clock, and connections that reach the simulated nodes, so
// that the workload, the fault plan and the history stay one.
package sim
