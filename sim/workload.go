package sim

// workload is one process's life: rounds of acquire → critical section →
// release → think. It runs inside the process's coroutine.
func (p *process) workload(l Locker) {
	r := p.r
	r.record(Event{Kind: KindProcStart, Proc: p.id, Node: -1})
	ext, _ := l.(Extender)
	every := p.spec.RenewEvery
	if s, ok := l.(SelfRenewing); ok && every == 0 {
		every = s.RenewEvery()
	}
	renew := ext != nil && every > 0
	for i := 0; i < p.spec.Iterations; i++ {
		if i > 0 {
			p.Sleep(p.spec.Think)
		}
		r.record(Event{Kind: KindLockInvoke, Proc: p.id, Node: -1})
		lease, err := l.Acquire(p)
		if err != nil {
			// The document's code would have thrown here: this process
			// ends, as that program would; the others go on, and the run
			// is judged whole (TestClientErrorEndsOnlyItsProcess).
			r.record(Event{Kind: KindLockReturn, Proc: p.id, Node: -1, Err: err.Error()})
			r.record(Event{Kind: KindProcEnd, Proc: p.id, Node: -1, Err: "acquire: " + err.Error()})
			return
		}
		r.record(Event{Kind: KindLockReturn, Proc: p.id, Node: -1, Held: lease.Held, Token: lease.Token, Fence: lease.Fence})
		if !lease.Held {
			r.stats.Failed++
			continue
		}
		r.stats.Acquired++
		r.trigger(PointAcquired, p, "")
		p.lost = false
		if renew {
			p.startWatchdog(ext, lease, every)
		}

		// The critical section: read the counter, hold it for the work
		// time, write it back +1 carrying the fencing number.
		v := p.readResource()
		if p.spec.Reenter > 0 || renew {
			if !p.keptSection(l, lease, v) {
				return
			}
			continue
		}
		p.Sleep(p.spec.Work)
		p.writeResource(v+1, lease.Fence)
		if !p.release(l, lease) {
			return
		}
	}
	r.record(Event{Kind: KindProcEnd, Proc: p.id, Node: -1})
}

// release runs the holder's Release; false means the process ended on a
// client error.
func (p *process) release(l Locker, lease Lease) bool {
	r := p.r
	r.record(Event{Kind: KindReleaseInvoke, Proc: p.id, Node: -1, Token: lease.Token, Fence: lease.Fence})
	if err := l.Release(p, lease); err != nil {
		r.record(Event{Kind: KindReleaseReturn, Proc: p.id, Node: -1, Err: err.Error()})
		r.record(Event{Kind: KindProcEnd, Proc: p.id, Node: -1, Err: "release: " + err.Error()})
		return false
	}
	r.record(Event{Kind: KindReleaseReturn, Proc: p.id, Node: -1})
	r.trigger(PointReleased, p, "")
	return true
}

// keptSection is the rest of a critical section whose lease is renewed or
// re-entered (the plain one above stays as it was, event for event, so that
// every existing digest stands): re-enter Reenter times, work, release the
// inner leases innermost first, stop the watchdog, then write and release,
// unless the watchdog has lost the lock: a holder told so stops writing and
// lets the lock go (redsync's ErrExtendFailed, Redisson's failed renewal),
// and its hold ended at the failed extend. False means the process ended on
// a client error.
func (p *process) keptSection(l Locker, lease Lease, v int64) bool {
	r := p.r
	var inner []Lease
	for j := 0; j < p.spec.Reenter && !p.lost; j++ {
		il, err := l.Acquire(p)
		if err != nil {
			p.stopWatchdog()
			r.record(Event{Kind: KindReenter, Proc: p.id, Node: -1, Err: err.Error()})
			r.record(Event{Kind: KindProcEnd, Proc: p.id, Node: -1, Err: "re-enter: " + err.Error()})
			return false
		}
		r.record(Event{Kind: KindReenter, Proc: p.id, Node: -1, Held: il.Held, Token: il.Token, Fence: il.Fence})
		if !il.Held {
			break // not re-entrant: there is nothing to release
		}
		inner = append(inner, il)
	}
	p.Sleep(p.spec.Work)
	for j := len(inner) - 1; j >= 0 && !p.lost; j-- {
		if err := l.Release(p, inner[j]); err != nil {
			p.stopWatchdog()
			r.record(Event{Kind: KindReexit, Proc: p.id, Node: -1, Token: inner[j].Token, Err: err.Error()})
			r.record(Event{Kind: KindProcEnd, Proc: p.id, Node: -1, Err: "re-exit: " + err.Error()})
			return false
		}
		r.record(Event{Kind: KindReexit, Proc: p.id, Node: -1, Token: inner[j].Token})
	}
	p.stopWatchdog()
	if p.lost {
		return true
	}
	p.writeResource(v+1, lease.Fence)
	return p.release(l, lease)
}
