package sim

// workload is one process's life: rounds of acquire → critical section →
// release → think. It runs inside the process's coroutine.
func (p *process) workload(l Locker) {
	r := p.r
	r.record(Event{Kind: KindProcStart, Proc: p.id, Node: -1})
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

		// The critical section: read the counter, hold it for the work
		// time, write it back +1 carrying the fencing number.
		v := p.readResource()
		p.Sleep(p.spec.Work)
		p.writeResource(v+1, lease.Fence)

		r.record(Event{Kind: KindReleaseInvoke, Proc: p.id, Node: -1, Token: lease.Token, Fence: lease.Fence})
		if err := l.Release(p, lease); err != nil {
			r.record(Event{Kind: KindReleaseReturn, Proc: p.id, Node: -1, Err: err.Error()})
			r.record(Event{Kind: KindProcEnd, Proc: p.id, Node: -1, Err: "release: " + err.Error()})
			return
		}
		r.record(Event{Kind: KindReleaseReturn, Proc: p.id, Node: -1})
		r.trigger(PointReleased, p, "")
	}
	r.record(Event{Kind: KindProcEnd, Proc: p.id, Node: -1})
}
