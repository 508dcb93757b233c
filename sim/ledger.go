package sim

import (
	"math/rand/v2"
	"sort"
	"time"

	"github.com/locksim/locksim/fault"
)

// The seam to a backend that lives outside this package (realtime/engine
// runs the same plan against real servers in wall-clock time): a Ledger
// keeps what every backend keeps the same way, Workload runs a process's
// life against a Worker, and two small readings (ClockSpec.At,
// Latency.Draw) give it the clocks and the network of Run.

// Ledger is one run's bookkeeping for such a backend: the validated Config,
// the history (recorded and bounded as Run records it), the plan's triggers,
// the stats and the shared resource. It is not safe for concurrent use: the
// backend holds its own lock around every call, so the history is in the
// order of its calls.
type Ledger struct {
	cfg   Config
	maxEv int
	hist  recorder
	triggers
	timed    []int
	stats    Stats
	resource resource
}

// NewLedger validates cfg and starts its ledger.
func NewLedger(cfg Config) (*Ledger, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.Faults = append([]Fault(nil), cfg.Faults...)
	for i := range cfg.Faults {
		cfg.Faults[i].On.Cmd = upper(cfg.Faults[i].On.Cmd)
	}
	l := &Ledger{cfg: cfg, maxEv: cfg.MaxEvents}
	if l.maxEv == 0 {
		l.maxEv = DefaultMaxEvents
	}
	l.hist.cur = make([]Event, 0, historyEstimate(&l.cfg, l.maxEv))
	l.triggers, l.timed = newTriggers(&l.cfg)
	// Equal times fire in plan order, as Run's queue does.
	sort.SliceStable(l.timed, func(a, b int) bool { return l.cfg.Faults[l.timed[a]].At < l.cfg.Faults[l.timed[b]].At })
	return l, nil
}

// Config is the run's Config as validated, trigger commands in upper case.
func (l *Ledger) Config() *Config { return &l.cfg }

// Timed lists the faults planned at a time (PointAt), in firing order.
func (l *Ledger) Timed() []int { return l.timed }

// Record appends e as it is (the backend sets At and Incarnation) and
// returns it as recorded: it stays where it is until Result, so a fault's
// event can be completed once its I/O is done. cut is not "" when the
// history reached its bounds (MaxEvents, MaxHistoryBytes): the run stops.
func (l *Ledger) Record(e Event) (rec *Event, cut string) {
	l.hist.add(&e)
	rec = &l.hist.cur[len(l.hist.cur)-1]
	if l.hist.atLimit(l.maxEv) {
		cut = l.hist.cut(l.maxEv)
	}
	return rec, cut
}

// Reached counts an occurrence of point (running command cmd, "" for none)
// in process proc and returns the faults that were waiting for it, in plan
// order, for the backend to Fire.
func (l *Ledger) Reached(proc int, point Point, cmd string) []int {
	var due []int
	for _, i := range l.byProc[proc] {
		if l.reached(&l.cfg.Faults[i], i, point, cmd) {
			due = append(due, i)
		}
	}
	return due
}

// Fire marks fault i fired and returns the event that records it: its
// target set, and a node's Dur as long as the node is down (a restart's
// delay included). ok is false when it had fired already.
func (l *Ledger) Fire(i int) (ev Event, ok bool) {
	if l.fired[i] {
		return Event{}, false
	}
	l.fired[i] = true
	f := &l.cfg.Faults[i]
	ev = Event{Kind: KindFault, Fault: f.Kind, Proc: -1, Node: -1, Dur: f.Dur}
	switch f.Kind.Target() {
	case fault.OnClient:
		ev.Proc = f.Proc
	case fault.OnNode:
		ev.Node, ev.Dur = f.Node, l.cfg.downFor(f)
	}
	return ev, true
}

// Count counts one acquire that returned: held, or not.
func (l *Ledger) Count(acquired bool) { l.stats.count(acquired) }

// CountCommand counts one command that ran on a node.
func (l *Ledger) CountCommand() { l.stats.Commands++ }

// Resource is the shared resource's value.
func (l *Ledger) Resource() int64 { return l.resource.value }

// Write stores v in the shared resource unless fence (0: none) is below the
// highest it has seen; it says whether it did.
func (l *Ledger) Write(v, fence int64) (accepted bool) { return l.resource.write(v, fence) }

// Result is what the run returns, ended at end (cut: why it stopped early,
// "" for none). The events recorded are joined: call it once, last.
func (l *Ledger) Result(end Time, cut string) *Result {
	return l.cfg.result(l.hist.events(), l.stats, end, cut)
}

// At is the time a clock of spec c reads at true time t, once stepped by
// jumped in all: a process's local clock, as Run reads it.
func (c ClockSpec) At(t Time, jumped time.Duration) Time {
	k := clock{spec: c, jumped: jumped}
	return k.at(t)
}

// Draw draws one latency of l from rng, as Run's network does.
func (l Latency) Draw(rng *rand.Rand) time.Duration { return latency(rng, l) }
