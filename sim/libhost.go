package sim

// The seam to a library backend: real Go lock libraries (redsync,
// bsm/redislock) running unmodified inside a run, in a testing/synctest
// bubble whose fake clock the run moves (package sim/bubble). The backend
// keeps the libraries' goroutines and connections; the run keeps
// everything else (processes, nodes, network, faults, history) and meets
// it through three things:
//
//   - Host: the run as the backend sees it, reached from a lock call's
//     Proc (HostOf). The backend joins the run (Join), moves its events
//     (NextEvent, Step, StepArrivals, SetNow), sends what a library wrote
//     through the run's network (Send), parks and resumes the coroutines
//     that wait for a library call (Wait, Resume), and reads the few facts
//     of a process it needs (Home, Live, Incarnation, PausedUntil, …).
//   - Libraries: the backend's side of a run, once a library has joined:
//     the engine hands it the rest of the run (Loop).
//   - LibConn: a connection a command was sent from: the engine hands it
//     the command's reply (and the messages of its subscriptions), or
//     tells it a failover lost its node, and asks whether it is closed.
//
// A coroutine (a process's main one, or its watchdog) is named by the Proc
// its lock calls get; Home is its process's main one.

// Libraries is a run's client libraries, as a library backend keeps them.
type Libraries interface {
	// Loop runs the rest of the run once a library has joined it: it
	// moves the bubble's clock from event to event and steps them
	// (Host.NextEvent, Host.Step), taking what the libraries did on the
	// way.
	Loop()
}

// LibConn is a library's connection to a node, which a command was sent
// from (Host.Send).
type LibConn interface {
	// Lost: a failover lost the connection's node, and the connection.
	Lost()
	// Reply: the command's reply came back, after its PointReply trigger.
	Reply(r Reply)
	// Closed: the library closed the connection, or it was lost; a
	// PUBLISH drops its subscriptions (pubsubconn.go).
	Closed() bool
}

// Host is one run, as a library backend sees it. It is valid while the
// run lasts, on the engine's goroutine and the run's coroutines, which
// never run at once.
type Host struct{ r *runner }

// HostOf is the run that p, the Proc a lock call is given, belongs to;
// false when p is not a simulated process (the real-time backend's, say).
func HostOf(p Proc) (*Host, bool) {
	sp, ok := p.(*process)
	if !ok {
		return nil, false
	}
	return &Host{sp.r}, true
}

// Libraries is what Join gave the run; nil while no library has joined.
func (h *Host) Libraries() Libraries { return h.r.bub }

// Join makes l the run's libraries: from the event loop's next step on,
// l.Loop runs the rest of the run.
func (h *Host) Join(l Libraries) { h.r.bub = l }

// Faults is the run's fault plan.
func (h *Host) Faults() []Fault { return h.r.cfg.Faults }

// Nodes is how many nodes the run has.
func (h *Host) Nodes() int { return len(h.r.nodes) }

// Now is the run's true time.
func (h *Host) Now() Time { return h.r.now }

// SetNow moves the run's true time to t, an instant no event is due
// before (NextEvent, StepArrivals).
func (h *Host) SetNow(t Time) { h.r.now = t }

// Running is how many processes have a live coroutine.
func (h *Host) Running() int { return h.r.live }

// Cut is why the run ended early, "" while it has not.
func (h *Host) Cut() string { return h.r.cut }

// ExplainCut adds why to the reason the run was cut: "; " then why.
func (h *Host) ExplainCut(why string) { h.r.cut += "; " + why }

// NextEvent is the time of the run's next event, or its limit when none is
// due before. pastArrivals skips the commands arriving at a node where they
// add no event and wake nobody (no replication, blocking pop or WAIT, no
// pop parked there): nothing a library sees changes at them before their
// reply, so its clock may sleep past them (StepArrivals steps them after).
func (h *Host) NextEvent(pastArrivals bool) Time {
	r := h.r
	next := r.limit
	for i := range r.q.items {
		if e := &r.q.items[i]; e.at < next && !(pastArrivals && r.inertArrival(e)) {
			next = e.at
		}
	}
	return next
}

// Step runs the next event, unless a bound ends the run first; false: the
// run is over, and Cut says why.
func (h *Host) Step() bool { return h.r.step() }

// StepArrivals steps, in their order, the events at the front of the
// queue that are arrivals NextEvent(true) skips and are due by t (before
// t when notAt); false: the run is over.
func (h *Host) StepArrivals(t Time, notAt bool) bool {
	r := h.r
	for r.q.len() > 0 {
		e := r.q.peek()
		if e.at > t || e.at == t && notAt || !r.inertArrival(e) {
			break
		}
		if !r.step() {
			return false
		}
	}
	return true
}

// inertArrival says whether e is a command arriving at a node where it
// adds no event and wakes nobody: no replication, no blocking pop or WAIT,
// no pop parked there.
func (r *runner) inertArrival(e *event) bool {
	// After the last process has ended the loop sleeps once more, to the
	// next event of any kind, and ends: a run's end time as it always was.
	if e.kind != evArrive || r.live == 0 {
		return false
	}
	q := r.mem.req(e.req)
	n := &r.nodes[q.node]
	return n.g == nil && len(n.parked) == 0 && len(n.subs) == 0 && !parks(q.args) &&
		subCommand(q.args) == "" && !isWait(q.args)
}

// WakeAt makes the run's loop wake at t (a pause's end), with no work of
// its own: the backend takes what its libraries may do then.
func (h *Host) WakeAt(t Time) { h.r.q.push(event{at: t, kind: evLibrary}) }

// Home is p's process: p itself, or the process whose watchdog p is.
func (h *Host) Home(p Proc) Proc { return p.(*process).home() }

// ID is p's process's index in Config.Procs.
func (h *Host) ID(p Proc) int { return p.(*process).home().id }

// Spec is p's process's spec.
func (h *Host) Spec(p Proc) *ProcSpec { return p.(*process).home().spec }

// Label names p's process in messages ("c1").
func (h *Host) Label(p Proc) string { return p.(*process).home().label() }

// Incarnation counts p's process's restarts: a crash and respawn makes a
// new one, which has forgotten everything.
func (h *Host) Incarnation(p Proc) int { return p.(*process).home().inc }

// Live says whether coroutine p has not finished (nor crashed).
func (h *Host) Live(p Proc) bool { return p.(*process).live }

// PausedUntil is the end of p's process's pause; at or before Now when it
// is not paused.
func (h *Host) PausedUntil(p Proc) Time { return p.(*process).home().pausedUntil }

// PauseDeferred says that p's process's pause kept something back: the
// pause acted (FaultUse).
func (h *Host) PauseDeferred(p Proc) { h.r.pauseDeferred(p.(*process).home()) }

// IsWatchdog says whether p is a watchdog's coroutine.
func (h *Host) IsWatchdog(p Proc) bool { return p.(*process).owner != nil }

// Stopped says whether p is a watchdog its holder stopped (its work
// ended), not one ended by a crash or the run's end.
func (h *Host) Stopped(p Proc) bool { return p.(*process).stopped }

// Wait parks coroutine p, from inside its lock call, until Resume: the
// run goes on meanwhile. A crash of its process, or the run's end, unwinds
// it instead, as any of its yields.
func (h *Host) Wait(p Proc) {
	sp := p.(*process)
	sp.want = effLibrary
	sp.suspend()
}

// Waiting says whether coroutine p is parked by Wait.
func (h *Host) Waiting(p Proc) bool { return p.(*process).want == effLibrary }

// Resume runs coroutine p, parked by Wait, until its next yield.
func (h *Host) Resume(p Proc) { h.r.resume(p.(*process)) }

// Trigger counts a trigger point of p's process (PointSend for a command a
// library wrote), firing the faults planned on it.
func (h *Host) Trigger(point Point, p Proc, cmd string) { h.r.trigger(point, p.(*process).home(), cmd) }

// Send sends args, written by a library of p's process on c, to node n
// through the run's network, as one of p's commands; its reply goes to c.
func (h *Host) Send(p Proc, n int, args []string, c LibConn) {
	r, sp := h.r, p.(*process).home()
	// The process's own pending effect, if any, stays as it was.
	node, keep, sum := sp.node, sp.args, sp.argSum
	sp.node = n
	sp.setArgs(r.mem.keep(args))
	q := r.send(sp)
	sp.node, sp.args, sp.argSum = node, keep, sum
	q.lib = c
}

// OpenCall names the lock call p was in last: "Extend" for a watchdog,
// else Acquire or Release ("call" when none is found).
func (h *Host) OpenCall(p Proc) string {
	sp := p.(*process)
	if sp.owner != nil {
		return "Extend"
	}
	r, id := h.r, sp.home().id
	chunks := append(r.hist.full[:len(r.hist.full):len(r.hist.full)], r.hist.cur)
	for i := len(chunks) - 1; i >= 0; i-- {
		for j := len(chunks[i]) - 1; j >= 0; j-- {
			if e := &chunks[i][j]; e.Proc == id {
				switch e.Kind {
				case KindLockInvoke:
					return "Acquire"
				case KindReleaseInvoke:
					return "Release"
				}
			}
		}
	}
	return "call"
}

// Go runs f on a goroutine of its own whose stack is grown at once, as a
// coroutine's is: library calls run deep.
func (h *Host) Go(f func()) {
	go func() {
		growStack(0)
		f()
	}()
}

// libDeliver is deliver for a library's request: the reply goes to its
// connection (which keeps it while the process is paused); a lost or late
// one never comes; a failover closes the connection.
func (r *runner) libDeliver(p *process, q *request) {
	q.answered = true
	c := q.lib
	res := Event{Kind: KindCommandResult, Proc: p.id, Node: q.node, Req: q.id, Args: q.args, Sent: q.sent}
	lostInFailover := false
	switch {
	case q.why != "":
		res.Err = q.why
	case q.dropped:
		res.Err = "timeout: node down"
		r.unanswered++
	case q.ran && r.nodes[q.node].g != nil && r.nodes[q.node].g.gen != q.gen:
		res.Err, lostInFailover = "timeout: connection lost in failover", true
		r.unanswered++
		r.nodes[q.node].served++
	default:
		res.Reply = q.reply
	}
	r.record(res)
	if lostInFailover {
		c.Lost()
	}
	if res.Err != "" {
		return
	}
	r.trigger(PointReply, p, q.args[0])
	c.Reply(q.reply)
	for _, m := range q.more {
		c.Reply(m) // a pub/sub command's frames after the first
	}
}
