// Package model judges a run's history. It knows no algorithm and does not
// run anything: it reads sim.History and returns a Verdict.
//
// Safety has two independent judges that must agree. The direct ones (overlap
// of hold intervals, lost updates on the protected counter) are fast and name
// a witness; porcupine checks the same facts against sequential models (a
// Knossos-style mutex, a fenced counter) and is the reference. Liveness
// (stuck, stale) and client errors are read straight off the timeline.
//
// A hold runs from Acquire's held return to the Release call, the holder's
// crash or stop, or the return of its watchdog's first failed extend: the
// moment the holder learns it has lost the lock (renewal.go says why this
// reading and not "until the last moment the holder could still believe it
// held it"). Re-entrant acquires inside a hold are not holds of their own.
//
// A lease is a version of the watched key, and a version belongs to the
// process whose command wrote it (versions.go), whatever the value holds: a
// bare token, a prefixed one, JSON, a hash of owners. No check compares a
// value with a token. A version begins where the key appears, changes type
// or content, or the node marks it Fresh (rewritten by another process, or
// written again after it had run out); a replica's copy is its primary writer's.
// Only the watched lock key (History.WatchKey) is attributed: another key a
// lock writes (a fencing counter, a key per owner) is not watched, and never
// makes or excuses a lease.
//
// Liveness is judged against legitimate leases only (lease.go). A lease that
// may legitimately keep others waiting is: a hold (Acquire returned held)
// until its Release is called, or for one lifetime (the TTL) after its holder
// crashed or stopped or a failed extend ended it; a release lost on the
// network, for one lifetime; a write of the lock key whose writer cannot
// know the outcome (its reply was lost or timed out, it died before Acquire
// returned, or the clean-up of its failed try got no reply), for one
// lifetime from the write or until its version is seen gone, whichever is
// first; and a successful extend, for one lifetime from
// its return (an unanswered one from its call). A write by a process that
// got its reply and whose try then failed, or that a release made, forgives
// nothing: a lock whose failing waiters write the key is stuck when its
// holder dies, however often they write. Waiting while too many nodes are
// down to acquire (outage.go) is the deployment's unavailability and is not
// counted either, nor is a waiter's wait from a try the network lost until
// its next command that runs (trace.go, netWait; stuck.go).
//
// Stale: a release that returned success and left, on some node, a version
// its releaser wrote for that hold, while others waited (stale.go). It splits by cause: a
// released key that stays is stale when the release's commands ran and
// their replies came back, or when the lock has no TTL. A release that got
// no reply from a node, of a key with a TTL, is a Note on the run: the key
// lives out its TTL, as a TTL lock is built to.
package model
