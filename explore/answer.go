package explore

// Two answers for one search: inside the lock's assumptions, where any
// violation is a bug in the lock, and outside them, where the answer is the
// breaking point, the smallest fault found that breaks it.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
)

// DefaultMinHeld is the share of runs that must reach the critical section
// (some Acquire returned the lock) for a search to answer at all: below it,
// most runs tested only the failure to acquire, and a search that found
// nothing in them says nothing of mutual exclusion. A healthy lock under
// any fault class reaches it in nearly every run (the smallest share among
// the built-in locks' searches is in docs/verdicts.md).
const DefaultMinHeld = 0.5

// AnswerOptions tune Answer beyond the search's Options.
type AnswerOptions struct {
	// MinHeld is the share of runs that must reach the critical section;
	// 0: DefaultMinHeld; negative: no floor.
	MinHeld float64
	// Inside and Outside choose the searches; both false: both.
	Inside, Outside bool
	_               struct{} // grows: callers name the fields they set
}

// Answers are a search answered twice.
type Answers struct {
	Algorithm   string
	Assumptions locks.Assumptions
	// Inside is the inside search (Options.Inside), nil when not asked for.
	Inside *Result
	// Outside is the search of the lock's default generator, which draws
	// past its assumptions (today's explore), nil when not asked for.
	Outside *Result
	// InsideFind is the inside answer's failing run: the inside search's
	// counterexample, or else the outside search's when that one lies
	// inside the assumptions (FromOutside); nil when none failed.
	InsideFind  *Find
	FromOutside bool
	// Breaking is the outside answer's breaking point: nil when the
	// outside search found nothing, or only runs inside the assumptions.
	Breaking *BreakingPoint
	// Also are other breaking points met on the way (the whole search's,
	// when a search of the pause class alone gave the one reported).
	Also []BreakingPoint
	// InsideUntested and OutsideUntested say, in one line, why a search
	// answers nothing: too few of its runs ever held the lock ("" when
	// enough did).
	InsideUntested, OutsideUntested string
	MinHeld                         float64
}

// Find is one failing run and its shrunk counterexample.
type Find struct {
	Verdict        string
	Run            int
	Counterexample *scenarios.Scenario
	Outcome        *judge.Outcome
}

// BreakingPoint is the smallest fault found that takes a lock outside its
// assumptions and breaks it: the outside search's counterexample, shrunk,
// then the size of the fault that takes it outside searched by bisection
// (for a sizeless fault such as a node restart, the fault itself).
type BreakingPoint struct {
	Verdict string
	// Class is the fault class of the search that found it; Run its run.
	Class string
	Run   int
	// Assumption is what the run breaks (scenarios.Assume*); Kind the
	// fault or quantity whose size was searched: pause, clocks, work,
	// network, drift, clock-jump, node-restart, failover, timeout; plan
	// when no size of it matters, the fault plan breaks it.
	Assumption string
	Kind       string
	// Size is the smallest size that still breaks the lock, 0 for a
	// sizeless fault; Inside the largest tried that does not (or that lies
	// inside), the bisection's other end.
	Size, Below time.Duration
	// Words say it for a person: "unsafe from a pause of 2.97s with 30ms
	// of work, TTL 3s".
	Words string
	// Why is the assumption it breaks, in InsideOf's words.
	Why            string
	Counterexample *scenarios.Scenario
	Outcome        *judge.Outcome
	Tries          int // runs the bisection made
}

// Answer runs the inside search and the outside search of o (o.Inside is
// ignored) and answers both: the inside verdict, and the outside breaking
// point. The outside search is today's explore, run for run; when it
// breaks the lock with something other than a pause and its classes hold
// the pause class, a search of the pause class alone (same seed, same
// runs) gives the breaking point reported, the TTL's own limit, and the
// whole search's goes in Also.
func Answer(ctx context.Context, o Options, ao AnswerOptions) (*Answers, error) {
	if !ao.Inside && !ao.Outside {
		ao.Inside, ao.Outside = true, true
	}
	minHeld := ao.MinHeld
	if minHeld == 0 {
		minHeld = DefaultMinHeld
	}
	a := &Answers{MinHeld: minHeld}
	if ao.Inside {
		oi := o
		oi.Inside = true
		e, r, err := runSearch(ctx, oi)
		if e == nil {
			return nil, err
		}
		a.Algorithm, a.Assumptions, a.Inside = e.algo.Name, e.algo.Assumes, r
		if err != nil {
			return a, err
		}
		a.InsideUntested = untested(r.Search, minHeld)
		if r.Counterexample != nil {
			a.InsideFind = &Find{Verdict: r.Outcome.Verdict.Verdict, Run: r.Search.Found.Index, Counterexample: r.Counterexample, Outcome: r.Outcome}
		}
	}
	if !ao.Outside {
		return a, nil
	}
	oo := o
	oo.Inside = false
	e, r, err := runSearch(ctx, oo)
	if e == nil {
		return nil, err
	}
	a.Algorithm, a.Assumptions, a.Outside = e.algo.Name, e.algo.Assumes, r
	if err != nil {
		return a, err
	}
	a.OutsideUntested = untested(r.Search, minHeld)
	bp, err := a.breakingOf(ctx, e, r, ao.Inside)
	if err != nil || bp == nil || bp.Kind == scenarios.TermPause || len(e.classes) < 2 || !slices.Contains(e.classes, scenarios.ClassPause) {
		a.Breaking = bp
		return a, err
	}
	// The whole search broke the lock with something else first: the
	// pause class alone says where the TTL itself gives way.
	op := oo
	op.Classes = []string{scenarios.ClassPause}
	ep, rp, err := runSearch(ctx, op)
	if ep == nil {
		return nil, err
	}
	a.Breaking = bp
	if err != nil {
		return a, err
	}
	pp, err := a.breakingOf(ctx, ep, rp, ao.Inside)
	if pp != nil {
		a.Breaking, a.Also = pp, append(a.Also, *bp)
	}
	return a, err
}

// runSearch makes the explorer of o and runs it: a nil Explorer when o is
// refused, else the result so far with the context's error when
// interrupted.
func runSearch(ctx context.Context, o Options) (*Explorer, *Result, error) {
	e, err := New(o)
	if err != nil {
		return nil, nil, err
	}
	r, err := e.Run(ctx)
	return e, r, err
}

// breakingOf is the breaking point of one outside search's result; a run
// of it that lies inside the assumptions becomes the inside answer when
// the inside search found none (and was asked for).
func (a *Answers) breakingOf(ctx context.Context, e *Explorer, r *Result, inside bool) (*BreakingPoint, error) {
	bp, in, err := e.breaking(ctx, r)
	if in != nil && a.InsideFind == nil && inside {
		a.InsideFind, a.FromOutside = in, true
	}
	return bp, err
}

// untested is the line that says a search tested too little: fewer than
// minHeld of its runs ever held the lock ("" when enough did).
func untested(sr *SearchResult, minHeld float64) string {
	if minHeld < 0 || sr.Runs == 0 || float64(sr.Runs-sr.NeverHeld) >= minHeld*float64(sr.Runs) {
		return ""
	}
	why := ""
	if sr.NeverHeldWhy != "" {
		why = " (run " + fmt.Sprint(sr.NeverHeldAt[0]) + ": " + sr.NeverHeldWhy + ")"
	}
	if sr.NeverHeld == sr.Runs {
		return fmt.Sprintf("no client ever held the lock in %s%s: nothing was tested", text.Count(sr.Runs, "run", "s"), why)
	}
	return fmt.Sprintf("only %d of %d runs reached the critical section, below the %.0f%% a search needs%s",
		sr.Runs-sr.NeverHeld, sr.Runs, 100*minHeld, why)
}

// breaking finds the breaking point of an outside search's result: nil
// when it found nothing. When its counterexample (or a smaller fault on
// the way down) lies inside the assumptions, that run is an inside finding
// and is returned as in.
func (e *Explorer) breaking(ctx context.Context, r *Result) (bp *BreakingPoint, in *Find, err error) {
	if r.Counterexample == nil {
		return nil, nil, nil
	}
	return e.breakingAt(ctx, r.Counterexample, r.Search.Found, r.Outcome.Verdict.Verdict, r.Outcome)
}

// BreakingPointOf is the breaking point of run f of this explorer's
// search, which failed with verdict (c its counterexample, shrunk): nil
// when c, or a smaller fault on the way down, lies inside the lock's
// assumptions (a finding of the inside answer's, not a limit).
func (e *Explorer) BreakingPointOf(ctx context.Context, c *scenarios.Scenario, f *Found, verdict string) (*BreakingPoint, error) {
	bp, _, err := e.breakingAt(ctx, c, f, verdict, nil)
	return bp, err
}

// breakingAt is breaking for counterexample c of run f, which failed with
// verdict (outcome: its replay with every checker, for the inside finding
// when c lies inside; nil to replay it then).
func (e *Explorer) breakingAt(ctx context.Context, c *scenarios.Scenario, f *Found, verdict string, outcome *judge.Outcome) (bp *BreakingPoint, in *Find, err error) {
	var out *scenarios.Outside
	if err := c.InsideOf(e.algo); err == nil {
		return nil, &Find{Verdict: verdict, Run: f.Index, Counterexample: c, Outcome: outcome}, nil
	} else if !errors.As(err, &out) {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	bp = &BreakingPoint{Verdict: verdict, Class: strings.Join(e.classes, ","), Run: f.Index, Assumption: out.Assumption}
	k := knobsFor(c, out)
	bp.Kind = k.kind
	at, sizeless := c, false
	if len(k.sizes) > 0 || k.ppm {
		fails := func(s *scenarios.Scenario) bool {
			v, res, err := e.Verdict(s)
			res.Release()
			bp.Tries++
			return err == nil && v.Verdict == verdict
		}
		steps := k.stepsOf(c)
		lo, hi := 0, steps
		if zero := k.scaled(c, 0, steps); fails(zero) {
			// The size is not what breaks it. At size 0 inside the
			// assumptions, it is a bug inside; else the fault plan breaks
			// it: keep the run as found.
			if zero.InsideOf(e.algo) == nil {
				fin, o, err := e.Finish(zero, f)
				if err != nil {
					return nil, nil, err
				}
				return nil, &Find{Verdict: o.Verdict.Verdict, Run: f.Index, Counterexample: fin, Outcome: o}, nil
			}
			sizeless = true
		} else {
			for hi-lo > 1 {
				mid := lo + (hi-lo)/2
				if s := k.scaled(c, mid, steps); fails(s) {
					hi = mid
				} else {
					lo = mid
				}
			}
			at = k.scaled(c, hi, steps)
			bp.Below = k.size(k.scaled(c, lo, steps))
		}
	}
	if !sizeless {
		bp.Size = k.size(at)
	}
	fin, o, err := e.Finish(at, f)
	if err != nil {
		return nil, nil, err
	}
	if err := fin.InsideOf(e.algo); err == nil {
		// Bisection came back inside and it still fails: a bug inside.
		return nil, &Find{Verdict: o.Verdict.Verdict, Run: f.Index, Counterexample: fin, Outcome: o}, nil
	} else if errors.As(err, &out) {
		bp.Why = out.Words
	}
	bp.Counterexample, bp.Outcome, bp.Verdict = fin, o, o.Verdict.Verdict
	bp.Words = breakingWords(e.algo, fin, bp, out)
	return bp, nil, nil
}

// knob is what the bisection scales: sizes in the scenario, all by one
// factor, and how the breaking point names it.
type knob struct {
	kind  string
	sizes []func(s *scenarios.Scenario) *scenarios.Duration
	ppm   bool // drift: the clocks' ppm, scaled the same way
}

// knobsFor picks what to scale from the assumption the run breaks: the
// largest term of a lease overrun, the jumping node's clock, or nothing for
// a sizeless fault (a restart, a failover, a timeout below WAIT's).
func knobsFor(c *scenarios.Scenario, out *scenarios.Outside) knob {
	faults := func(pick func(f *scenarios.Fault) *scenarios.Duration) []func(*scenarios.Scenario) *scenarios.Duration {
		var ks []func(*scenarios.Scenario) *scenarios.Duration
		for i := range c.Faults {
			if pick(&c.Faults[i]) != nil {
				ks = append(ks, func(s *scenarios.Scenario) *scenarios.Duration { return pick(&s.Faults[i]) })
			}
		}
		return ks
	}
	switch out.Assumption {
	case scenarios.AssumePause:
		return knob{kind: scenarios.TermPause, sizes: faults(pauseLength)}
	case scenarios.AssumeNodeClock:
		i := out.Fault
		return knob{kind: "clock-jump", sizes: []func(*scenarios.Scenario) *scenarios.Duration{
			func(s *scenarios.Scenario) *scenarios.Duration { return &s.Faults[i].By }}}
	case scenarios.AssumeRestart:
		return knob{kind: fault.NodeRestart.File()}
	case scenarios.AssumeFailover:
		return knob{kind: fault.Failover.File()}
	case scenarios.AssumeTimeout:
		return knob{kind: "timeout"}
	case scenarios.AssumeRenewal:
		return knob{kind: scenarios.AssumeRenewal}
	}
	k := knob{kind: out.Largest}
	switch out.Largest {
	case scenarios.TermPause:
		k.sizes = faults(pauseLength)
	case scenarios.TermClocks:
		k.sizes = faults(func(f *scenarios.Fault) *scenarios.Duration {
			if f.EngineKind() == fault.ClientJump {
				return &f.By
			}
			return nil
		})
		for i := range c.Clients {
			if c.Clients[i].Clock.Offset != 0 {
				k.sizes = append(k.sizes, func(s *scenarios.Scenario) *scenarios.Duration { return &s.Clients[i].Clock.Offset })
			}
		}
	case scenarios.TermWork:
		for i := range c.Clients {
			k.sizes = append(k.sizes, func(s *scenarios.Scenario) *scenarios.Duration { return &s.Clients[i].Work })
		}
	case scenarios.TermNetwork:
		k.sizes = []func(*scenarios.Scenario) *scenarios.Duration{
			func(s *scenarios.Scenario) *scenarios.Duration { return &s.Network.Request.Min },
			func(s *scenarios.Scenario) *scenarios.Duration { return &s.Network.Request.Max },
			func(s *scenarios.Scenario) *scenarios.Duration { return &s.Network.Reply.Min },
			func(s *scenarios.Scenario) *scenarios.Duration { return &s.Network.Reply.Max },
		}
	case scenarios.TermDrift:
		k.ppm = true
	}
	return k
}

func pauseLength(f *scenarios.Fault) *scenarios.Duration {
	if f.Kind == fault.Pause.File() {
		return &f.For
	}
	return nil
}

// stepsOf is the bisection's grid for scenario c: its largest size in
// milliseconds (a thousandth of the drift), so that the answer is exact to
// a millisecond.
func (k knob) stepsOf(c *scenarios.Scenario) int {
	if k.ppm {
		return 1000
	}
	var m time.Duration
	for _, f := range k.sizes {
		d := f(c).D()
		m = max(m, d, -d)
	}
	return int(min(max(m/time.Millisecond, 1), 1_000_000))
}

// scaled is a copy of c with every size of k multiplied by n/steps.
func (k knob) scaled(c *scenarios.Scenario, n, steps int) *scenarios.Scenario {
	s := cloneScenario(c)
	for _, f := range k.sizes {
		orig, n, steps := int64(*f(c)), int64(n), int64(steps)
		*f(s) = scenarios.Duration(orig/steps*n + orig%steps*n/steps) // orig × n/steps without overflow
	}
	if k.ppm {
		for i := range s.Nodes {
			s.Nodes[i].Clock.DriftPPM = s.Nodes[i].Clock.DriftPPM * int64(n) / int64(steps)
		}
		for i := range s.Clients {
			s.Clients[i].Clock.DriftPPM = s.Clients[i].Clock.DriftPPM * int64(n) / int64(steps)
		}
	}
	return s
}

// size is the largest of k's sizes in s (0 for drift, whose size is in
// ppm: breakingWords reads it from the clocks).
func (k knob) size(s *scenarios.Scenario) time.Duration {
	var m time.Duration
	for _, f := range k.sizes {
		d := f(s).D()
		m = max(m, d, -d)
	}
	return m
}

// cloneScenario copies the parts of s the bisection changes.
func cloneScenario(c *scenarios.Scenario) *scenarios.Scenario {
	s := *c
	s.Faults = slices.Clone(c.Faults)
	s.Clients = slices.Clone(c.Clients)
	s.Nodes = slices.Clone(c.Nodes)
	return &s
}

// breakingWords say a breaking point: "unsafe from a pause of 2.97s with
// 30ms of work, TTL 3s".
func breakingWords(algo locks.Algorithm, s *scenarios.Scenario, bp *BreakingPoint, out *scenarios.Outside) string {
	ttl := algo.With(s.LockParams()).TTL
	work := time.Duration(0)
	for _, c := range s.Clients {
		if out != nil && c.Name == out.Client {
			work = c.Work.D()
		}
	}
	var what string
	sized := bp.Kind == scenarios.TermPause || bp.Kind == scenarios.TermClocks || bp.Kind == scenarios.TermWork ||
		bp.Kind == scenarios.TermNetwork || bp.Kind == "clock-jump"
	if sized && bp.Size == 0 { // a size found is at least one step: this one did not matter
		bp.Kind = "plan"
	}
	switch bp.Kind {
	case scenarios.TermPause:
		what = fmt.Sprintf("a pause of %s with %s of work", bp.Size, work)
	case scenarios.TermClocks:
		what = fmt.Sprintf("client clocks %s apart", bp.Size)
	case scenarios.TermWork:
		what = fmt.Sprintf("%s of work", bp.Size)
	case scenarios.TermNetwork:
		what = fmt.Sprintf("a one-way latency of %s", bp.Size)
	case scenarios.TermDrift:
		what = fmt.Sprintf("clock drift of %d ppm", scenarios.LargestDrift(s.Nodes, clientClocks(s)))
	case "clock-jump":
		what = fmt.Sprintf("a node clock jump of %s", bp.Size)
	case fault.NodeRestart.File():
		what = "a node restart that loses the lock"
	case fault.Failover.File():
		what = "a failover that loses the lock"
	case "timeout":
		what = fmt.Sprintf("a client timeout of %s", s.Network.Timeout.D())
	case scenarios.AssumeRenewal:
		what = fmt.Sprintf("a renewal's lost reply, which its client waits %s for", s.LostReplyWait(algo))
	default:
		what = "its fault plan, whatever the size of its faults"
	}
	if ttl > 0 {
		what += fmt.Sprintf(", TTL %s", ttl)
	}
	return fmt.Sprintf("%s from %s", bp.Verdict, what)
}

func clientClocks(s *scenarios.Scenario) []scenarios.Clock {
	out := make([]scenarios.Clock, len(s.Clients))
	for i, c := range s.Clients {
		out[i] = c.Clock
	}
	return out
}
