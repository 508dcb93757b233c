// Package foreign is the process backend: lock code written in another
// language (Python, JavaScript), unmodified, runs inside a simulated run.
// Each client incarnation's lock code runs in an operating-system process
// of its own, a worker, which runs only while its coroutine lets it: the
// worker's shim (shim/) answers its clocks and random numbers from what it
// was last told, and turns every sleep, connection, write and blocking
// read into a message to this package, which answers it from the run (its
// clocks, network, nodes and faults) through sim.Host (processhost.go,
// libhost.go). docs/foreign.md is the protocol, the contract a shim for a
// new language implements.
//
// A worker is started fresh (the interpreter loads the shim, then the
// program) or, for Python and PHP, forked from a warm one that has loaded
// the shim (and for Python the Redis client library) already (zygote.go): a
// fork costs a small part of a start. Both give the same messages, so the
// same digest.
package foreign
