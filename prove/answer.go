package prove

import (
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// Answer is what the enumeration says of one side of the lock's
// assumptions (scenarios.(*Scenario).InsideTTL): inside, where a violation
// is a bug in the lock, or outside, where it is the known limit.
type Answer struct {
	Schedules  int64 // schedules of this side run and judged
	Incomplete int64 // of them, cut at a cap
	// Skipped counts, outside only, the schedules not run once the outside
	// answer was settled by an unsafe one: nothing worse can follow, and
	// an extension of an outside schedule is outside too (its faults are
	// the parent's and more).
	Skipped int64
	// Found is the worst verdict met on this side, at its first schedule;
	// nil: none.
	Found *Found
	// Met is the first schedule of every failing verdict met on this
	// side, worst first.
	Met []Found
}

// NeverInside is a fault class of the menu that no schedule inside the
// assumptions holds, and why: the reason of its first schedule.
type NeverInside struct {
	Class string `json:"class"`
	Why   string `json:"why"`
}

// ProvedInside says whether every inside schedule within the bounds ran,
// and none failed, and there was at least one.
func (r *Result) ProvedInside() bool {
	return r.Inside.Found == nil && r.Inside.Incomplete == 0 && !r.Interrupted && r.Inside.Schedules > 0
}

// classifier says whether a schedule's scenario lies inside the lock's
// assumptions: "" if it does, else the assumption it breaks.
type classifier func(s *scenarios.Scenario) string

// classifierFor is the classifier of the lock a: the scenario judged
// against a's own assumptions (scenarios.InsideOf), a registered lock's or
// an algorithm file's (its assumes: section).
func classifierFor(a locks.Algorithm) classifier {
	return func(s *scenarios.Scenario) string { return reason(s.InsideOf(a)) }
}

func reason(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// outsideOf classifies a schedule by its faults on the base workload.
func (p *Prover) outsideOf(faults []scenarios.Fault) string {
	s := *p.base // InsideTTL reads the scenario, never writes it
	s.Faults = faults
	return p.classify(&s)
}

// shortPause sizes the short pause: TTL/2K, unless K of them on one client,
// with the work, the delays and the round trips, would leave the lock's
// assumptions; then the longest whole number of milliseconds that stays
// inside, named by its length. When even no pause leaves room (work past
// the TTL), TTL/2K stays: the answers say that no such schedule is inside.
func (p *Prover) shortPause(z sizes, maxDelays int) (time.Duration, string) {
	k := max(z.k, 1)
	want := z.ttl / time.Duration(2*k)
	inside := func(d time.Duration) bool {
		var fs []scenarios.Fault
		for range k {
			fs = append(fs, scenarios.Fault{Kind: fault.Pause.File(), Client: p.names[0], For: scenarios.Duration(d)})
		}
		for range maxDelays {
			fs = append(fs, scenarios.Fault{Kind: fault.Pause.File(), Client: p.names[0], For: scenarios.Duration(z.longestDelay())})
		}
		return p.outsideOf(fs) == ""
	}
	if inside(want) || !inside(time.Millisecond) {
		return want, ""
	}
	lo, hi := int64(1), int64(want/time.Millisecond) // inside at lo ms, not at hi
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; inside(time.Duration(mid) * time.Millisecond) {
			lo = mid
		} else {
			hi = mid
		}
	}
	d := time.Duration(lo) * time.Millisecond
	return d, "pause " + d.String()
}

// sides is the enumeration's record of both answers, in canonical order.
type sides struct {
	inside, outside side
	// settled: an outside schedule was unsafe; outside schedules after it
	// are not run.
	settled bool
	// insideWith counts, by menu class, the inside schedules holding a
	// fault of it; whyOutside is the first outside reason met with it.
	insideWith map[string]int64
	whyOutside map[string]string
}

type side struct {
	schedules, incomplete, skipped int64
	met                            map[string]*node
}

func newSides() *sides {
	return &sides{inside: side{met: map[string]*node{}}, outside: side{met: map[string]*node{}},
		insideWith: map[string]int64{}, whyOutside: map[string]string{}}
}

// judge records n, judged in canonical order (or skips it: outside, after
// the outside answer), and returns it if it is unsafe inside: the
// enumeration stops there and only there.
func (w *walker) judge(n *node) *node {
	sd := w.sides
	w.noteClasses(n)
	s := &sd.inside
	if n.outside != "" {
		if sd.settled {
			sd.outside.skipped++
			return nil
		}
		s = &sd.outside
	}
	w.explored.Add(1)
	s.schedules++
	switch {
	case n.unrun:
		w.unrun++
		if w.p.onUnrun != nil {
			w.p.onUnrun(n.steps, n.jump, n.verdict)
		}
	case w.p.opts.Jumps == JumpsUnread && w.p.lastIsJump(n):
		w.jumpsRan++
	}
	w.keepReads(n)
	switch {
	case n.verdict == model.VerdictIncomplete:
		w.incomplete.Add(1)
		s.incomplete++
	case violation(n.verdict):
		if s.met[n.verdict] == nil {
			s.met[n.verdict] = n
		}
		if n.verdict == model.VerdictUnsafe {
			if n.outside == "" {
				return n
			}
			sd.settled = true
		}
	}
	return nil
}

// noteClasses counts n's fault classes on its side.
func (w *walker) noteClasses(n *node) {
	var seen []string
	for _, st := range n.steps {
		c := w.p.choiceNamed(st.Choice)
		if c == nil || c.class == "" || slices.Contains(seen, c.class) {
			continue
		}
		seen = append(seen, c.class)
		if n.outside == "" {
			w.sides.insideWith[c.class]++
		} else if w.sides.whyOutside[c.class] == "" {
			w.sides.whyOutside[c.class] = n.outside
		}
	}
}

// answer is one side's Answer, its finds worst first.
func (p *Prover) answer(s *side) Answer {
	a := Answer{Schedules: s.schedules, Incomplete: s.incomplete, Skipped: s.skipped}
	for _, n := range s.met {
		a.Met = append(a.Met, p.found(n))
	}
	// Worst first: the verdicts are distinct, so the order is the ranks'.
	slices.SortFunc(a.Met, func(x, y Found) int { return model.Rank(y.Verdict) - model.Rank(x.Verdict) })
	if len(a.Met) > 0 {
		a.Found = &a.Met[0]
	}
	return a
}

func (p *Prover) found(n *node) Found {
	return Found{Verdict: n.verdict, Schedule: n.steps, Path: n.path, Scenario: p.scenario(n), Outside: n.outside}
}

// MetOf is what both sides met together: each verdict at its first
// schedule in canonical order, worst first.
func MetOf(inside, outside []Found) []Found {
	var out []Found
	for _, f := range append(slices.Clone(inside), outside...) {
		k := slices.IndexFunc(out, func(g Found) bool { return g.Verdict == f.Verdict })
		switch {
		case k < 0:
			out = append(out, f)
		case PathBefore(f.Path, out[k].Path):
			out[k] = f
		}
	}
	slices.SortFunc(out, func(x, y Found) int { return model.Rank(y.Verdict) - model.Rank(x.Verdict) })
	return out
}

// PathBefore says whether schedule path a comes before b in canonical
// order: fewer choices first, then by child index at each level.
func PathBefore(a, b []int) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return slices.Compare(a, b) < 0
}

// neverInside lists, in menu order, the classes no inside schedule held.
func (p *Prover) neverInside(sd *sides) []NeverInside {
	var out []NeverInside
	if p.opts.MaxFaults == 0 {
		return nil // no fault was offered at all
	}
	for _, c := range p.opts.Classes {
		if sd.insideWith[c] == 0 {
			why := sd.whyOutside[c]
			if why == "" {
				why = "no schedule held it"
			}
			out = append(out, NeverInside{Class: c, Why: why})
		}
	}
	return out
}

// faultsHash sums what of a schedule's faults the classifier reads (all
// but their triggers), so that a state reduction that forgets the past
// keeps schedules of other faults apart: their extensions may lie on
// other sides of the assumptions.
func faultsHash(faults []scenarios.Fault) uint64 {
	h := fnv.New64a()
	for _, f := range faults {
		node := -1
		if f.Node != nil {
			node = *f.Node
		}
		fmt.Fprintf(h, "%s|%s|%d|%d|%d|%d;", f.Kind, f.Client, node, f.For, f.By, f.RestartAfter)
	}
	return h.Sum64()
}
