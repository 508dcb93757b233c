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
// # Backends
//
// A backend turns a Config into a Result: the same processes, workload,
// fault plan and history, run one way. Package judge judges a Result
// whichever backend made it and imports none but this one. The backends,
// each a package of its own:
//
//	package         runs                                 meets sim at
//	sim (Run)       lock code as coroutines, simulated   (it is sim)
//	sim/bubble      Go lock libraries, testing/synctest  Host (libhost.go)
//	sim/foreign     lock programs (Python, Node) in      Host (libhost.go,
//	                worker processes, simulated          processhost.go)
//	realtime/engine lock code against real servers       Ledger, Workload (ledger.go)
//
// Each backend's fault table says which fault kinds it applies and how:
// this package's (faultkinds.go) for Run and sim/bubble, which runs inside
// Run and refuses only what a library cannot see (a client's clock skew
// and jumps: LibraryFor); realtime/engine's (faultkinds.go there), which
// refuses the rest in one place (CheckWith).
//
// # The library backend
//
// Package sim/bubble runs real Go lock libraries (redsync, bsm/redislock)
// inside Run, in a synctest bubble whose clock Run moves. It meets the run
// at Host: it joins it (Host.Join, a Libraries whose Loop then runs the
// rest of the run), steps its events, sends what a library wrote through
// the run's network (Host.Send, whose reply goes to the LibConn), and
// parks the coroutines that wait for a library call. The processes, nodes,
// faults and history stay this package's.
//
// # The real-time backend
//
// Package realtime/engine runs the same Config, workload, fault plan and
// history against real Redis servers in wall-clock time, and is not
// deterministic. It meets this package at one seam (ledger.go):
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
// What a fault kind is lives in the fault package's table; how each
// backend applies it is that backend's column (faultapply.go here,
// realtime/engine/faultkinds.go there). The backend's own seam to the
// servers (Wire, Conn) is its own: this package knows nothing of sockets.
//
// # The process backend
//
// Package sim/foreign runs a lock written in another language (Python,
// Node) in a worker process per client incarnation, which runs only while
// its coroutine lets it. It does not join the loop as a library does: the
// lock call's coroutine talks to its worker, sends the commands it wrote
// through Host.Send (the replies come back to a LibConn), and parks
// between messages in Host.Await until a reply (Host.Wake) or its own
// deadline; the worker reads the run's clocks from what it is sent
// (Proc.Now, Host.Monotonic). The run's loop, in-place stepping and state
// keys stay a built-in lock's: what the worker is told is added to its
// process's observations (Host.Observe). processhost.go is that seam.
package sim
