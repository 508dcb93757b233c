// Package model judges a run's history. It knows no algorithm and does not
// run anything: it reads sim.History and returns a Verdict.
//
// Safety has two independent judges that must agree. The direct ones (overlap
// of hold intervals, lost updates on the protected counter) are fast and name
// a witness; porcupine checks the same facts against sequential models (a
// Knossos-style mutex, a fenced counter) and is the reference. Liveness
// (stuck, stale) and client errors are read straight off the timeline.
package model
