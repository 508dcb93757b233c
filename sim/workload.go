package sim

// worker is what the workload needs of a process: the simulated one
// (*process) and the real-time one (*rtProc). The workload is written once,
// so both backends run the same rounds and record the same events; the
// indirect calls cost a few nanoseconds a round against microseconds of
// coroutine switches and command execution (BenchmarkRunStandard).
type worker interface {
	Proc
	procID() int
	procSpec() *ProcSpec
	record(Event)
	trigger(Point)
	count(acquired bool)
	readResource() int64
	writeResource(v, fence int64)
}

// workload is one process's life: rounds of acquire → critical section →
// release → think. It runs inside the process's coroutine (or goroutine).
func workload(p worker, l Locker) {
	id, spec := p.procID(), p.procSpec()
	p.record(Event{Kind: KindProcStart, Proc: id, Node: -1})
	for i := 0; i < spec.Iterations; i++ {
		if i > 0 {
			p.Sleep(spec.Think)
		}
		p.record(Event{Kind: KindLockInvoke, Proc: id, Node: -1})
		lease, err := l.Acquire(p)
		if err != nil {
			// The document's code would have thrown here: this process
			// ends, as that program would; the others go on, and the run
			// is judged whole (TestClientErrorEndsOnlyItsProcess).
			p.record(Event{Kind: KindLockReturn, Proc: id, Node: -1, Err: err.Error()})
			p.record(Event{Kind: KindProcEnd, Proc: id, Node: -1, Err: "acquire: " + err.Error()})
			return
		}
		p.record(Event{Kind: KindLockReturn, Proc: id, Node: -1, Held: lease.Held, Token: lease.Token, Fence: lease.Fence})
		p.count(lease.Held)
		if !lease.Held {
			continue
		}
		p.trigger(PointAcquired)

		// The critical section: read the counter, hold it for the work
		// time, write it back +1 carrying the fencing number.
		v := p.readResource()
		p.Sleep(spec.Work)
		p.writeResource(v+1, lease.Fence)

		p.record(Event{Kind: KindReleaseInvoke, Proc: id, Node: -1, Token: lease.Token, Fence: lease.Fence})
		if err := l.Release(p, lease); err != nil {
			p.record(Event{Kind: KindReleaseReturn, Proc: id, Node: -1, Err: err.Error()})
			p.record(Event{Kind: KindProcEnd, Proc: id, Node: -1, Err: "release: " + err.Error()})
			return
		}
		p.record(Event{Kind: KindReleaseReturn, Proc: id, Node: -1})
		p.trigger(PointReleased)
	}
	p.record(Event{Kind: KindProcEnd, Proc: id, Node: -1})
}

// The simulated process's side of worker.
func (p *process) procID() int         { return p.id }
func (p *process) procSpec() *ProcSpec { return p.spec }
func (p *process) record(e Event)      { p.r.record(e) }
func (p *process) trigger(point Point) { p.r.trigger(point, p, "") }
func (p *process) count(acquired bool) {
	if acquired {
		p.r.stats.Acquired++
	} else {
		p.r.stats.Failed++
	}
}
