package sim

import "time"

// The seam to a process backend: lock code running in an operating-system
// process of its own (package sim/foreign: Python, Node), driven from a
// lock call's coroutine. Unlike a library backend it does not join the
// run's loop: the coroutine itself talks to its worker, sends the commands
// the worker wrote (Host.Send, as a library's, so the replies come to a
// LibConn) and parks between messages until a reply or its own deadline
// wakes it (Await, Wake). The run's loop, its in-place stepping and its
// state keys stay as they are for a built-in lock: what the worker
// observes is added to its process's observations (Observe), which a
// deterministic program's state is a function of.

// SetBackend keeps v for the run, with end to call once the run is over
// (after every coroutine has unwound): a process backend's workers, which
// must not outlive it.
func (h *Host) SetBackend(v any, end func()) { h.r.backend, h.r.atEnd = v, end }

// Backend is what SetBackend kept; nil before.
func (h *Host) Backend() any { return h.r.backend }

// Await parks coroutine p, from inside its lock call, until Wake(p) or,
// when until >= 0, the true time until, whichever comes first; a pause of
// its process holds the wake back to the pause's end. A crash of its
// process, or the run's end, unwinds it instead, as any of its yields.
// A wake meant for an earlier Await is dropped.
func (h *Host) Await(p Proc, until Time) {
	sp := p.(*process)
	sp.awaitNo++
	if until >= 0 {
		sp.r.q.push(sp.awaitEv(max(until, sp.r.now)))
	}
	sp.want = effLibrary
	sp.suspend()
}

// Wake makes coroutine p, parked by Await, go on at the run's next step
// (through the queue, so that the event that woke it finishes first).
func (h *Host) Wake(p Proc) {
	sp := p.(*process)
	if sp.want == effLibrary {
		sp.r.q.push(sp.awaitEv(sp.r.now))
	}
}

// awaitEv is the event that ends p's current Await at t.
func (p *process) awaitEv(t Time) event {
	e := p.ev(t, evAwait)
	e.fault = int32(p.awaitNo)
	return e
}

// awoken runs an evAwait: the coroutine goes on if it still waits in the
// Await the event was for, at its pause's end if paused.
func (r *runner) awoken(e *event) {
	p := r.procs[e.proc]
	if e.sub {
		p = p.dog
	}
	if p == nil || int(e.inc) != p.inc || !p.live || p.want != effLibrary || int32(p.awaitNo) != e.fault {
		return
	}
	if until := p.stoppedUntil(); until > r.now {
		r.pauseDeferred(p)
		e2 := *e
		e2.at = until
		r.q.push(e2)
		return
	}
	r.resume(p)
}

// Monotonic is p's process's monotonic clock: the true time since its
// incarnation started, at its clock's drift, never jumping. Reading it
// counts as reading the clock (Now) for the state keys.
func (h *Host) Monotonic(p Proc) time.Duration {
	sp := p.(*process).home()
	c := clock{spec: ClockSpec{DriftPPM: sp.spec.Clock.DriftPPM}}
	d := time.Duration(c.at(h.r.now) - c.at(sp.obsStart))
	if h.r.cfg.OnState != nil {
		sp.readClock = true
		p.(*process).obs = p.(*process).obs.num(int64(d))
	}
	return d
}

// Observe adds what coroutine p's worker was told (a reply's bytes, a
// timeout) to its observations, from which the state keys tell its
// program's state (statehash.go).
func (h *Host) Observe(p Proc, what string) {
	if h.r.cfg.OnState != nil {
		sp := p.(*process)
		sp.obs = sp.obs.str(what)
	}
}

// Crashing says whether p's process crashed while its coroutine runs: it
// unwinds at its next yield, and should send nothing more.
func (h *Host) Crashing(p Proc) bool { return p.(*process).crashPending }
