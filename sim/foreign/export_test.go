package foreign

// HostTimeout is hostTimeout, for the test of a worker that blocks.
var HostTimeout = &hostTimeout
