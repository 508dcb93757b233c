package sim

import "time"

// worker is what the workload needs of a process: the simulated one
// (*process) and another backend's (a Worker, through Workload). The
// workload is written once, so both backends run the same rounds and record
// the same events; the indirect calls cost a few nanoseconds a round against
// microseconds of coroutine switches and command execution
// (BenchmarkRunStandard).
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
	ext, _ := l.(Extender)
	every := spec.RenewEvery
	if s, ok := l.(SelfRenewing); ok && every == 0 {
		every = s.RenewEvery()
	}
	renew := ext != nil && every > 0
	// Both processes keep leases (a watchdog beside the holder, re-entry):
	// the simulated one as a coroutine, the real-time one as a goroutine.
	keeper, _ := p.(leaseKeeper)
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
		if keeper != nil && (spec.Reenter > 0 || renew) {
			keeper.setLost(false)
			if renew {
				keeper.startWatchdog(ext, lease, every)
			}
			if !keptSection(keeper, l, lease, p.readResource()) {
				return
			}
			continue
		}

		// The critical section: read the counter, hold it for the work
		// time, write it back +1 carrying the fencing number.
		v := p.readResource()
		p.Sleep(spec.Work)
		p.writeResource(v+1, lease.Fence)
		if !release(p, l, lease) {
			return
		}
	}
	p.record(Event{Kind: KindProcEnd, Proc: id, Node: -1})
}

// release runs the holder's Release; false means the process ended on a
// client error.
func release(p worker, l Locker, lease Lease) bool {
	id := p.procID()
	p.record(Event{Kind: KindReleaseInvoke, Proc: id, Node: -1, Token: lease.Token, Fence: lease.Fence})
	if err := l.Release(p, lease); err != nil {
		p.record(Event{Kind: KindReleaseReturn, Proc: id, Node: -1, Err: err.Error()})
		p.record(Event{Kind: KindProcEnd, Proc: id, Node: -1, Err: "release: " + err.Error()})
		return false
	}
	p.record(Event{Kind: KindReleaseReturn, Proc: id, Node: -1})
	p.trigger(PointReleased)
	return true
}

// leaseKeeper is a worker that keeps leases: it runs a watchdog beside the
// holder, which tells it when a renewal failed (lostLease).
type leaseKeeper interface {
	worker
	startWatchdog(x Extender, lease Lease, every time.Duration)
	stopWatchdog()
	lostLease() bool
	setLost(bool)
}

// keptSection is the rest of a critical section whose lease is renewed or
// re-entered (the plain one above stays as it was, event for event, so that
// every existing digest stands): re-enter Reenter times, work, release the
// inner leases innermost first, stop the watchdog, then write and release,
// unless the watchdog has lost the lock: a holder told so stops writing and
// lets the lock go (redsync's ErrExtendFailed, Redisson's failed renewal),
// and its hold ended at the failed extend. False means the process ended on
// a client error.
func keptSection(p leaseKeeper, l Locker, lease Lease, v int64) bool {
	id, spec := p.procID(), p.procSpec()
	var inner []Lease
	for j := 0; j < spec.Reenter && !p.lostLease(); j++ {
		il, err := l.Acquire(p)
		if err != nil {
			p.stopWatchdog()
			p.record(Event{Kind: KindReenter, Proc: id, Node: -1, Err: err.Error()})
			p.record(Event{Kind: KindProcEnd, Proc: id, Node: -1, Err: "re-enter: " + err.Error()})
			return false
		}
		p.record(Event{Kind: KindReenter, Proc: id, Node: -1, Held: il.Held, Token: il.Token, Fence: il.Fence})
		if !il.Held {
			break // not re-entrant: there is nothing to release
		}
		inner = append(inner, il)
	}
	p.Sleep(spec.Work)
	for j := len(inner) - 1; j >= 0 && !p.lostLease(); j-- {
		if err := l.Release(p, inner[j]); err != nil {
			p.stopWatchdog()
			p.record(Event{Kind: KindReexit, Proc: id, Node: -1, Token: inner[j].Token, Err: err.Error()})
			p.record(Event{Kind: KindProcEnd, Proc: id, Node: -1, Err: "re-exit: " + err.Error()})
			return false
		}
		p.record(Event{Kind: KindReexit, Proc: id, Node: -1, Token: inner[j].Token})
	}
	p.stopWatchdog()
	if p.lostLease() {
		return true
	}
	p.writeResource(v+1, lease.Fence)
	return release(p, l, lease)
}

// The simulated process's side of worker.
func (p *process) procID() int         { return p.id }
func (p *process) procSpec() *ProcSpec { return p.spec }
func (p *process) record(e Event)      { p.r.record(e) }
func (p *process) trigger(point Point) { p.r.trigger(point, p, "") }
func (p *process) count(acquired bool) { p.r.stats.count(acquired) }
func (p *process) lostLease() bool     { return p.lost }
func (p *process) setLost(lost bool)   { p.lost = lost }

// Worker is the worker contract for a backend outside this package (see
// Ledger): what the workload needs of one of its processes, and the lease
// keeping beside it (a watchdog renewing the lease every period, which
// tells the holder when a renewal failed).
type Worker interface {
	Proc
	ID() int
	Spec() *ProcSpec
	// Record records e; a process that crashed or whose run ended unwinds.
	Record(e Event)
	// Trigger counts an occurrence of point and fires the faults due.
	Trigger(point Point)
	// Count counts an acquire that returned, held or not.
	Count(acquired bool)
	ReadResource() int64
	WriteResource(v, fence int64)
	StartWatchdog(x Extender, lease Lease, every time.Duration)
	StopWatchdog()
	LostLease() bool
	SetLost(lost bool)
}

// Workload runs w's life against l, as Run runs each process's: the same
// rounds, the same events.
func Workload(w Worker, l Locker) { workload(foreignWorker{w}, l) }

// foreignWorker is a Worker seen as the workload's worker and leaseKeeper.
type foreignWorker struct{ Worker }

func (w foreignWorker) procID() int                  { return w.ID() }
func (w foreignWorker) procSpec() *ProcSpec          { return w.Spec() }
func (w foreignWorker) record(e Event)               { w.Record(e) }
func (w foreignWorker) trigger(point Point)          { w.Trigger(point) }
func (w foreignWorker) count(acquired bool)          { w.Count(acquired) }
func (w foreignWorker) readResource() int64          { return w.ReadResource() }
func (w foreignWorker) writeResource(v, fence int64) { w.WriteResource(v, fence) }
func (w foreignWorker) stopWatchdog()                { w.StopWatchdog() }
func (w foreignWorker) lostLease() bool              { return w.LostLease() }
func (w foreignWorker) setLost(lost bool)            { w.SetLost(lost) }
func (w foreignWorker) startWatchdog(x Extender, lease Lease, every time.Duration) {
	w.StartWatchdog(x, lease, every)
}
