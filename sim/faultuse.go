package sim

import (
	"fmt"

	"github.com/locksim/locksim/fault"
)

// FaultUse says what one fault of a run's plan did: whether it fired before
// the run ended, and whether it touched the lock. A fault that fired and
// touched nothing (a restart of a node the lock never used, a crash of a
// process that had finished) leaves the run's verdict saying less than it
// seems to: the reports say so.
//
// Acted is a fact of the run, by kind, that no checker is needed for:
//   - a node restart, failover or node clock jump acted when its node
//     served a client command after it fired (a command the down node
//     dropped counts, and so does a reply the failover lost);
//   - a crash acted when its process was alive;
//   - a pause acted when it deferred something its process was due to do:
//     a reply or a wakeup that came during the pause waited for its end;
//   - a process clock jump acted when the process read its clock
//     (Proc.Now) after it: the simulated Sleep runs on true time;
//   - a lost request or reply acted when the process sent the command it
//     loses.
//
// A fault on a process that had finished, had not started or had crashed
// did nothing.
type FaultUse struct {
	Fired bool
	Acted bool
	// At is when it fired; the run's end when it never did.
	At Time
	// Why is, when it did not act, why not, in words that follow the
	// fault's name: "node2 never served this lock", "c1 had finished".
	Why string
}

// Vacuous says the run injected something and none of it touched the lock:
// whatever its verdict, the run did not test the lock against a fault. What
// it injects is its fault plan and a network that can lose a command or time
// it out (LossyNetwork); the run is vacuous when no planned fault acted
// (FaultUse.Acted) and, on such a network, every command was answered in
// time (Unanswered is 0). A run with nothing to inject (no plan, a network
// that loses nothing) is not vacuous: there was nothing to touch the lock
// with. Clock offsets and drift configured on processes and nodes are not
// faults here: they hold the whole run, and the lock meets them whenever it
// runs.
func (r *Result) Vacuous() bool {
	if len(r.Faults) == 0 && !r.LossyNetwork {
		return false
	}
	for _, f := range r.Faults {
		if f.Acted {
			return false
		}
	}
	return !r.LossyNetwork || r.Unanswered == 0
}

// lossy says a command on the network may be lost or time out: a loss rate,
// or a timeout shorter than the slowest round trip.
func (n *Network) lossy() bool {
	slowest := max(n.Request.Min, n.Request.Max) + max(n.Reply.Min, n.Reply.Max)
	return n.LossRequest > 0 || n.LossReply > 0 || n.Timeout > 0 && slowest > n.Timeout
}

// faultUses is what Run keeps to class its planned faults (FaultUse): nil
// with no plan, so that a run without one pays nothing.
type faultUses struct {
	use []FaultUse
	// mark is, for a fault that fired, its target's counter then: the
	// node's commands served (simNode.served), or the process's clock reads
	// (process.clockReads).
	mark []uint64
}

// faultFired notes that fault i fired now, on a target that is alive when it
// is a process; crashes act at once.
func (r *runner) faultFired(i int, f *Fault) {
	if r.uses.use == nil {
		return
	}
	u := &r.uses.use[i]
	u.Fired, u.At = true, r.now
	switch f.Kind.Target() {
	case fault.OnNode:
		r.uses.mark[i] = r.nodes[f.Node].served
	case fault.OnClient:
		p := r.procs[f.Proc]
		switch k := f.Kind; {
		case k.Crashes():
			u.Acted = true
		case k.Pauses():
			p.pauses = append(p.pauses, i)
		case k.StopsWatchdog():
			p.dogPauses = append(p.dogPauses, i)
		case k.ShiftsClock():
			r.uses.mark[i] = p.clockReads
		}
	}
}

// faultOnDead notes that fault i fired on a process that was not alive: it
// did nothing.
func (r *runner) faultOnDead(i int, p *process) {
	if r.uses.use == nil {
		return
	}
	u := &r.uses.use[i]
	u.Fired, u.At = true, r.now
	switch {
	case p.ended:
		u.Why = p.label() + " had finished"
	case p.inc == 0 && !p.live:
		u.Why = p.label() + " had not started"
	default:
		u.Why = p.label() + " had crashed"
	}
}

// pauseDeferred notes that a pause deferred what coroutine c (a process or
// its watchdog) was due to do now: every pause of its process's life whose
// time covers now acted, and for a watchdog every watchdog-pause too. The
// others are over, so none is left to wait for. A watchdog-pause never acts
// through the process's own coroutine: it does not hold it back.
func (r *runner) pauseDeferred(c *process) {
	p := c.home()
	p.pauses = r.pausesActed(p.pauses)
	if c.owner != nil {
		p.dogPauses = r.pausesActed(p.dogPauses)
	}
}

// pausesActed marks the pauses among planned that cover now as acted, and
// returns the list emptied.
func (r *runner) pausesActed(planned []int) []int {
	if r.uses.use == nil {
		return planned[:0]
	}
	for _, i := range planned {
		if u := &r.uses.use[i]; r.now < u.At+Time(r.cfg.Faults[i].Dur) {
			u.Acted = true
		}
	}
	return planned[:0]
}

// lossSent notes that the planned loss of fault i took the command being
// sent.
func (r *runner) lossSent(i int) {
	if r.uses.use != nil && i >= 0 {
		r.uses.use[i].Acted = true
	}
}

// faultUses classes every planned fault at the end of the run; nil with no
// plan.
func (r *runner) faultUses() []FaultUse {
	use := r.uses.use
	for i := range use {
		u, f := &use[i], &r.cfg.Faults[i]
		if !u.Fired {
			u.At, u.Why = r.now, "never fired"
			continue
		}
		if u.Acted || u.Why != "" {
			continue
		}
		// By the kind's facts (the fault package), so that a new kind with
		// the facts of an old one is classed with no change here.
		switch k := f.Kind; {
		case k.Target() == fault.OnNode:
			n := &r.nodes[f.Node]
			switch {
			case n.served > r.uses.mark[i]:
				u.Acted = true
			case n.served == 0:
				u.Why = fmt.Sprintf("node%d never served this lock", f.Node)
			default:
				u.Why = fmt.Sprintf("node%d served no command after it", f.Node)
			}
		case k.ShiftsClock():
			if p := r.procs[f.Proc]; p.clockReads > r.uses.mark[i] {
				u.Acted = true
			} else {
				u.Why = p.label() + " never read its clock after it"
			}
		case k.Pauses():
			u.Why = r.procs[f.Proc].label() + " had nothing to do while paused"
		case k.StopsWatchdog():
			u.Why = r.procs[f.Proc].label() + "'s watchdog had nothing to do while stopped"
		case k.LosesCommand():
			u.Why = r.procs[f.Proc].label() + " sent no command after it"
		default:
			// A kind not classed here is never called idle: a note that
			// cannot say why would only mislead.
			u.Acted = true
		}
	}
	return use
}

// label names the process in a fault's Why: its name, as the reports do.
func (p *process) label() string {
	if p.spec.Name != "" {
		return p.spec.Name
	}
	return fmt.Sprintf("p%d", p.id)
}
