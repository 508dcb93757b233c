// Package diff compares two versions of a lock: it runs the same random
// scenarios on an old and a new version and looks for the runs where the
// new version's verdict is worse than the old one's, once inside the TTL's
// assumptions (there a worse verdict is a bug the change brought in) and
// once outside them (there it is a limit the change moved), and shrinks the
// first such run of each half to a small scenario that stays worse for the
// new version. It is how a team guards a lock change.
//
// Determinism is the product, as in package explore: run i's scenario is a
// pure function of (seed, i, half, fault classes, what the two locks share),
// and the result is the same whatever the workers.
package diff

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/explore/gen"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
	"github.com/locksim/locksim/sim"
	"pgregory.net/rapid"
)

// The two halves of a comparison.
const (
	Inside  = "inside"  // scenarios inside the TTL's assumptions (gen.Options.Inside)
	Outside = "outside" // any scenario of the fault classes
)

// Halves are both halves, in the order they are searched and reported.
var Halves = []string{Inside, Outside}

// Defaults.
const (
	// DefaultRuns is the run-index space of each half: every index runs
	// both locks, so a comparison of both halves makes four runs an index.
	DefaultRuns        = 2000
	DefaultShrinkTries = explore.DefaultShrinkTries
	DefaultShrinkTime  = explore.DefaultShrinkTime
)

// Options say what to compare.
type Options struct {
	Old, New locks.Algorithm // both required, each with a Name
	Classes  []string        // fault classes (scenarios.ParseClasses); empty: all
	Seed     uint64
	Runs     int      // each half's run-index space, [0, Runs); 0: DefaultRuns
	Workers  int      // 0: one per core (GOMAXPROCS)
	Halves   []string // Inside, Outside or both; empty: both
	// ShrinkTries bounds each shrink by a count of simulated candidates
	// (each runs both locks); 0: DefaultShrinkTries.
	ShrinkTries int
	// ShrinkTime is a wall-clock safety net only; 0: DefaultShrinkTime.
	ShrinkTime time.Duration
	// OwnRenewals draws renewals only for a lock whose library runs its
	// watchdog (sim.SelfRenewing), as explore does, not for every lock
	// that can extend: for a lock that is an Extender whatever its leases
	// (golock's, whose Lease.Extend may be nil), where a drawn renewal
	// would end the client on both sides.
	OwnRenewals bool
	// FoundBy is what finds the same runs again, written into a
	// counterexample's narrative ("simrun diff --old a.yaml --new b.yaml
	// --faults pause --seed 1"); "" names the locks, classes and seed.
	FoundBy string
	_       struct{} // grows: callers name the fields they set
}

// Differ holds what every run of one comparison shares.
type Differ struct {
	opts    Options
	classes []string
	shared  locks.Algorithm
	// ownTTL: the two locks' TTLs differ, so scenarios carry none and each
	// lock runs with its own (sharedLock).
	ownTTL bool
	bound  time.Duration // the shorter lifetime (or TTL): what inside means
	gens   map[string]*rapid.Generator[*scenarios.Scenario]
}

func optErr(option string, err error) error { return &search.OptionError{Option: option, Err: err} }

// New checks the options and builds each half's scenario generator.
func New(o Options) (*Differ, error) {
	for _, side := range []struct {
		name string
		a    locks.Algorithm
	}{{"Old", o.Old}, {"New", o.New}} {
		switch {
		case side.a.New == nil:
			return nil, optErr(side.name, errors.New("required: the lock to compare"))
		case side.a.Name == "":
			return nil, optErr(side.name, errors.New("has no Name"))
		}
		if err := side.a.Validate(locks.Params{}); err != nil {
			return nil, optErr(side.name, err)
		}
	}
	classes := o.Classes
	if len(classes) == 0 {
		classes = []string{"all"}
	}
	classes, err := scenarios.ParseClasses(strings.Join(classes, ","))
	if err != nil {
		return nil, optErr("Classes", err)
	}
	o.Classes = classes
	if err := search.RunsAndWorkers(&o.Runs, &o.Workers, DefaultRuns); err != nil {
		return nil, err
	}
	if len(o.Halves) == 0 {
		o.Halves = Halves
	}
	for _, h := range o.Halves {
		if !slices.Contains(Halves, h) {
			return nil, optErr("Halves", fmt.Errorf("%q: want inside or outside", h))
		}
	}
	if o.ShrinkTries <= 0 {
		o.ShrinkTries = DefaultShrinkTries
	}
	if o.ShrinkTime <= 0 {
		o.ShrinkTime = DefaultShrinkTime
	}
	shared, ownTTL, err := sharedLock(o.Old, o.New, !o.OwnRenewals)
	if err != nil {
		return nil, err
	}
	d := &Differ{opts: o, classes: classes, shared: shared, ownTTL: ownTTL, gens: map[string]*rapid.Generator[*scenarios.Scenario]{}}
	d.bound = shared.With(locks.Params{}).TTL
	if l := shared.Lifetime(locks.Params{}); l > 0 && l < d.bound {
		d.bound = l
	}
	for _, h := range o.Halves {
		g, err := gen.Generator(shared, gen.Options{Classes: classes, Inside: h == Inside})
		if err != nil {
			return nil, err
		}
		d.gens[h] = g
	}
	return d, nil
}

// Options are the options with defaults filled in.
func (d *Differ) Options() Options { return d.opts }

// sharedLock is the lock run i's scenario is drawn for: what the two locks
// share, so that the scenario is the same whichever is run.
//
//   - Nodes: both on one node, or both on the 3 or 5 drawn; a lock on one
//     node and a lock on several are refused (they would not see the same
//     nodes fail).
//   - TTL: the one both have. When they differ the scenario is sized by the
//     shorter and carries none, so each lock runs with its own: a version
//     that shortened its TTL is judged with it.
//   - Lifetime: the shorter, so that inside holds for both.
//   - What only running a lock tells (the commands an event trigger may
//     name, whether re-entry is drawn): the old lock's, the baseline the
//     new one must not do worse on. A trigger on a command the new lock
//     never sends does not fire in its run.
//   - Renewals: drawn whenever the old lock can extend its lease, not only
//     when its library runs the watchdog itself (drawRenewals), so that a
//     change to an extend is exercised; with Options.OwnRenewals only then.
//
// Every other constant (key, retries, their sleep) stays each lock's own:
// it is part of the version compared.
func sharedLock(old, nw locks.Algorithm, renewals bool) (locks.Algorithm, bool, error) {
	multi := func(a locks.Algorithm) bool { return a.NodesNeeded(locks.Params{Nodes: 3}) == 3 }
	if multi(old) != multi(nw) {
		several, one := old.Name, nw.Name
		if multi(nw) {
			several, one = nw.Name, old.Name
		}
		return locks.Algorithm{}, false, optErr("New", fmt.Errorf("%s runs on several nodes and %s on one: diff compares two locks on the same nodes", several, one))
	}
	po, pn := old.With(locks.Params{}), nw.With(locks.Params{})
	p := po
	ownTTL := false
	switch {
	case po.TTL == 0:
		p.TTL = pn.TTL
	case pn.TTL != 0 && pn.TTL != po.TTL:
		p.TTL, ownTTL = min(po.TTL, pn.TTL), true
	}
	p.Resolution = max(po.Resolution, pn.Resolution)
	a := locks.Algorithm{
		Name:     "diff",
		Source:   locks.Reference,
		Summary:  fmt.Sprintf("what %s and %s share", old.Name, nw.Name),
		Defaults: p,
		New: func(q locks.Params) sim.Locker {
			l := old.New(q)
			if own, ok := l.(sim.SelfRenewing); ok && own.RenewEvery() > 0 {
				return l
			}
			if ext, ok := l.(sim.Extender); ok && renewals {
				return drawRenewals{Locker: l, ext: ext, every: max(old.With(q).TTL/3, scenarios.MinRenewEvery)}
			}
			return l
		},
	}
	lifetime := func(q locks.Params) time.Duration {
		lo, ln := old.Lifetime(q), nw.Lifetime(q)
		switch {
		case lo <= 0:
			return ln
		case ln <= 0:
			return lo
		}
		return min(lo, ln)
	}
	return locks.Custom(a, lifetime, multi(old), nil), ownTTL, nil
}

// Scenario is run i's scenario of a half: drawn by the half's generator
// from run i's seed (explore.RunSeed), naming no lock.
func (d *Differ) Scenario(half string, i int) *scenarios.Scenario {
	s := d.gens[half].Example(int(explore.RunSeed(d.opts.Seed, i)))
	s.Name = fmt.Sprintf("diff-%s-seed%d-run%d", half, d.opts.Seed, i)
	s.Algorithm = "" // either lock replays it: --algo-file OLD and --algo-file NEW
	if d.ownTTL {
		s.Params.TTL = 0
	}
	return s
}

// Pair is the two verdicts of one scenario.
type Pair struct {
	Old, New model.Verdict
}

// Worse says whether the new lock did worse than the old one.
func (p Pair) Worse() bool { return Worse(p.New.Verdict, p.Old.Verdict) }

// Better says whether the new lock did better than the old one.
func (p Pair) Better() bool { return Worse(p.Old.Verdict, p.New.Verdict) }

// Cut says whether either run was cut at a cap: such a pair is not
// compared, as a cut run found nothing.
func (p Pair) Cut() bool {
	return p.Old.Verdict == model.VerdictIncomplete || p.New.Verdict == model.VerdictIncomplete
}

// Worse says whether verdict a is worse than verdict b in the order of
// search.WorstFirst, safe after every failing verdict. Incomplete (a run cut
// at a cap) is worse and better than nothing.
func Worse(a, b string) bool {
	ra, rb := rank(a), rank(b)
	return ra >= 0 && rb >= 0 && ra < rb
}

// rank is a verdict's place in search.WorstFirst, safe last; -1 for
// incomplete or an unknown verdict.
func rank(v string) int {
	if v == model.VerdictSafe {
		return len(search.WorstFirst)
	}
	return slices.Index(search.WorstFirst, v)
}

// Compare runs s on both locks and judges each with the direct checkers
// only (porcupine is left out for speed, as explore's search does).
func (d *Differ) Compare(s *scenarios.Scenario) (Pair, error) {
	var p Pair
	var err error
	if p.Old, err = verdict(d.opts.Old, s); err != nil {
		return p, fmt.Errorf("old %s: %w", d.opts.Old.Name, err)
	}
	if p.New, err = verdict(d.opts.New, s); err != nil {
		return p, fmt.Errorf("new %s: %w", d.opts.New.Name, err)
	}
	return p, nil
}

func verdict(a locks.Algorithm, s *scenarios.Scenario) (model.Verdict, error) {
	p, err := s.PrepareWith(a)
	if err != nil {
		return model.Verdict{}, err
	}
	res, v, err := judge.Verdict(p, model.Options{SkipPorcupine: true})
	res.Release() // nothing of the run is kept but its verdict
	return v, err
}

// Outcomes replays s on both locks with every checker (porcupine too).
func (d *Differ) Outcomes(s *scenarios.Scenario) (old, nw *judge.Outcome, err error) {
	run := func(a locks.Algorithm) (*judge.Outcome, error) {
		p, err := s.PrepareWith(a)
		if err != nil {
			return nil, err
		}
		return judge.Prepared(s, p, model.Options{})
	}
	if old, err = run(d.opts.Old); err != nil {
		return nil, nil, fmt.Errorf("old %s: %w", d.opts.Old.Name, err)
	}
	if nw, err = run(d.opts.New); err != nil {
		return nil, nil, fmt.Errorf("new %s: %w", d.opts.New.Name, err)
	}
	return old, nw, nil
}

// insideProxy is a registered lock whose lifetime is its TTL: inside
// stands it in for the pair, with the shared bound as its TTL, so that
// scenarios.Scenario.InsideTTL, which looks the lock up by name, judges a
// scenario against the bound the generator kept it inside.
const insideProxy = "set-nx-px-token"

// Inside says whether s lies inside the TTL's assumptions for both locks,
// and if not, why.
func (d *Differ) Inside(s *scenarios.Scenario) error {
	c := *s
	c.Algorithm, c.AlgorithmFile = insideProxy, nil
	c.Params.TTL = scenarios.Duration(d.bound)
	return c.InsideTTL()
}

// drawRenewals is, to the generator only, a lock that can extend its lease
// shown as one whose library renews it: the generator draws a watchdog
// period for each client only for such a lock (a lock that merely offers
// Extend leaves the loop to its user), and diff wants every extend
// exercised. The runs themselves use the locks as they are: a client with
// a drawn renew_every renews through Extend, the others never do.
type drawRenewals struct {
	sim.Locker
	ext   sim.Extender
	every time.Duration
}

func (r drawRenewals) Extend(p sim.Proc, l sim.Lease) (bool, error) { return r.ext.Extend(p, l) }
func (r drawRenewals) RenewEvery() time.Duration                    { return r.every }
