package sim

import (
	"time"

	"github.com/locksim/locksim/fault"
)

// triggers is what both backends (Run, and another through Ledger) keep of
// a run's triggered faults: which have fired and how often each one's point
// has come.
type triggers struct {
	fired  []bool
	counts []int
	byProc [][]int // trigger faults by the process they watch
}

// newTriggers files cfg's triggered faults by the process they watch and
// returns the timed ones (PointAt), in plan order, for the caller to schedule.
func newTriggers(cfg *Config) (t triggers, timed []int) {
	t.fired = make([]bool, len(cfg.Faults))
	t.counts = make([]int, len(cfg.Faults))
	t.byProc = make([][]int, len(cfg.Procs))
	for i, f := range cfg.Faults {
		if f.On.Point == PointAt {
			timed = append(timed, i)
		} else {
			t.byProc[f.On.Proc] = append(t.byProc[f.On.Proc], i)
		}
	}
	return t, timed
}

// reached counts an occurrence of point (running command cmd) against fault
// i, which watches the process it happened in, and says whether it is the
// occurrence the fault was waiting for.
func (t *triggers) reached(f *Fault, i int, point Point, cmd string) bool {
	if t.fired[i] || f.On.Point != point || (f.On.Cmd != "" && !equalFold(f.On.Cmd, cmd)) {
		return false
	}
	t.counts[i]++
	return t.counts[i] == f.On.N
}

// trigger counts an event of process p at point and fires the faults that
// were waiting for its Nth occurrence.
func (r *runner) trigger(point Point, p *process, cmd string) {
	p.home().points++ // Result.LastClockRead
	if r.cfg.OnPoint != nil {
		r.points++
		r.cfg.OnPoint(point, p.id, r.now, r.hist.n)
	}
	if r.cfg.OnState != nil && r.points >= r.cfg.StateFrom {
		r.cfg.OnState(point, p.id, StateKeys{State: r.stateKey(), History: StateKey(r.past.history),
			Summary: r.past.summary(r.now)})
	}
	for _, i := range r.byProc[p.id] {
		if r.reached(&r.cfg.Faults[i], i, point, cmd) {
			r.fire(i)
		}
	}
}

// fire applies fault i now, as its kind's entry says (faultapply.go). Faults on a
// process that is not alive do nothing.
func (r *runner) fire(i int) {
	if r.fired[i] {
		return
	}
	r.fired[i] = true
	f := &r.cfg.Faults[i]
	spec := applyOf(f.Kind)
	ev := Event{Kind: KindFault, Fault: f.Kind, Proc: -1, Node: -1, Dur: f.Dur}
	switch f.Kind.Target() {
	case fault.OnClient:
		p := r.procs[f.Proc]
		if !p.live || p.crashPending {
			r.faultOnDead(i, p)
			return // dead, or dying at its next yield: a second crash must not restart it twice
		}
		ev.Proc = f.Proc
	case fault.OnNode:
		ev.Node = f.Node
	}
	if spec.before != nil {
		spec.before(r, f, &ev)
	}
	r.record(ev)
	r.faultFired(i, f)
	r.firing = i
	spec.apply(r, f)
}

// crash ends the process at its next yield (at once if it is suspended) and
// starts a fresh incarnation after restart, if restart > 0.
func (r *runner) crash(p *process, restart time.Duration) {
	p.kill()
	p.pausedUntil, p.dogPausedUntil, p.pauses, p.dogPauses = 0, 0, p.pauses[:0], p.dogPauses[:0]
	p.lose = lossPlan{} // a fresh life sends nothing the old one planned to lose
	if restart > 0 {
		r.q.push(event{at: r.now + Time(restart), kind: evStart, proc: int32(p.id)})
	} else {
		r.live--
	}
}

// equalFold compares an upper-case command name with one as sent, without
// allocating.
func equalFold(upperName, sent string) bool {
	if len(upperName) != len(sent) {
		return false
	}
	for i := 0; i < len(sent); i++ {
		c := sent[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != upperName[i] {
			return false
		}
	}
	return true
}
