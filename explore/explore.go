// Package explore searches for counterexamples: it runs an algorithm under
// many random scenarios of chosen fault classes, records the first run of
// every verdict it meets, stops at the first unsafe run (or the first of the
// verdicts asked for), and shrinks the worst verdict found (package shrink) to
// a small scenario that still fails the same way.
//
// Determinism is the product. Run i's scenario is a pure function of (seed,
// i, algorithm, fault classes); the result is the first run index of each
// verdict, whatever the number of workers or shards; nothing but the
// reported timings reads the host clock.
package explore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/locksim/locksim/explore/gen"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
	"github.com/locksim/locksim/sim"
	"pgregory.net/rapid"
)

// Explorer holds what every run of one search shares.
type Explorer struct {
	opts    Options
	algo    locks.Algorithm
	classes []string
	gen     *rapid.Generator[*scenarios.Scenario]
}

// New checks the options and builds the scenario generator.
func New(o Options) (*Explorer, error) {
	algo, err := o.algorithm()
	if err != nil {
		return nil, err
	}
	classes := o.Classes
	if len(classes) == 0 {
		classes = []string{"all"}
	}
	classes, err = scenarios.ParseClasses(strings.Join(classes, ","))
	if err != nil {
		return nil, optErr("Classes", err)
	}
	if err := search.RunsAndWorkers(&o.Runs, &o.Workers, DefaultRuns); err != nil {
		return nil, err
	}
	if o.Shard == (search.Shard{}) {
		o.Shard = search.Shard{Index: 0, Count: 1}
	}
	if err := o.Shard.Check(); err != nil {
		return nil, optErr("Shard", fmt.Errorf("%s: %w", o.Shard, err))
	}
	if err := search.ValidateVerdicts(o.Verdicts); err != nil {
		return nil, optErr("Verdicts", err)
	}
	if o.ShrinkTime <= 0 {
		o.ShrinkTime = DefaultShrinkTime
	}
	if o.ShrinkTries <= 0 {
		o.ShrinkTries = DefaultShrinkTries
	}
	g, err := gen.Generator(algo, gen.Options{Classes: classes, DrawTTL: o.DrawTTL, Inside: o.Inside})
	if err != nil {
		return nil, err
	}
	o.Classes = classes
	return &Explorer{opts: o, algo: algo, classes: classes, gen: g}, nil
}

// algorithm is Lock when it is set, else the registered Algorithm.
func (o Options) algorithm() (locks.Algorithm, error) {
	switch {
	case o.Lock.New == nil:
		a, err := locks.Lookup(o.Algorithm)
		if err != nil {
			return a, optErr("Algorithm", err)
		}
		return a, nil
	case o.Algorithm != "":
		return o.Lock, optErr("Lock", fmt.Errorf("%s: give Algorithm or Lock, not both", o.Lock.Name))
	case o.Lock.Name == "":
		return o.Lock, optErr("Lock", errors.New("has no Name"))
	}
	return o.Lock, nil
}

// Options are the explorer's options with defaults filled in.
func (e *Explorer) Options() Options { return e.opts }

// RunSeed is the seed of rapid's bit stream for run i. It fits in 31 bits,
// because Generator.Example takes an int (32 bits on some machines), and it
// is never 0 (rapid.Check, which once replayed it, took 0 for a random seed).
func RunSeed(seed uint64, i int) uint64 {
	z := splitmix(seed^splitmix(uint64(i)+0x6c6f636b73696d)) & math.MaxInt32 // "locksim"
	if z == 0 {
		z = 1
	}
	return z
}

func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Scenario is run i's scenario: a pure function of (seed, i, algorithm,
// fault classes).
func (e *Explorer) Scenario(i int) *scenarios.Scenario {
	s := e.gen.Example(int(RunSeed(e.opts.Seed, i)))
	s.Name = e.runName(i)
	return s
}

// runName is run i's scenario name, explore-ALGO-seedSEED-runI (with
// -inside before -run for the inside search), made without fmt: every run
// is named.
func (e *Explorer) runName(i int) string {
	b := make([]byte, 0, 64)
	b = append(append(b, "explore-"...), e.algo.Name...)
	b = strconv.AppendUint(append(b, "-seed"...), e.opts.Seed, 10)
	if e.opts.Inside {
		b = append(b, "-inside"...)
	}
	b = strconv.AppendInt(append(b, "-run"...), int64(i), 10)
	return string(b)
}

// Verdict runs a scenario and judges it with the direct checkers only
// (porcupine is left out for speed). A caller that keeps nothing of the run
// releases it (sim.Result.Release).
func (e *Explorer) Verdict(s *scenarios.Scenario) (model.Verdict, *sim.Result, error) {
	p, err := s.PrepareWith(e.algo)
	if err != nil {
		return model.Verdict{}, nil, err
	}
	res, v, err := judge.Verdict(p, model.Options{SkipPorcupine: true})
	return v, res, err
}

// Result is a whole exploration: the search, the shrunk counterexample and
// its replay with every checker.
type Result struct {
	Algorithm string
	Classes   []string
	Seed      uint64
	Limit     int // the run-index space, [0, Limit)
	Shard     search.Shard
	Workers   int
	Search    *SearchResult
	// Counterexample is the shrunk scenario of the worst verdict found
	// (Search.Found), its expect set to the verdict of Outcome, so `simrun
	// run` replays it and agrees.
	Counterexample *scenarios.Scenario
	Outcome        *judge.Outcome // the counterexample run with all checks (porcupine too)
	Shrink         ShrinkStats
	// Others are the other verdicts met (Search.Met but Found), worst
	// first; each failing one is shrunk only with Options.ShrinkAll, an
	// incomplete one never.
	Others []Other
	_      struct{} // grows: callers name the fields they set
}

// Other is a verdict met besides the worst one.
type Other struct {
	Found Found
	// Counterexample and Outcome are as Result's, nil when not shrunk.
	Counterexample *scenarios.Scenario
	Outcome        *judge.Outcome
	Shrink         ShrinkStats
}

// Run searches, and shrinks the worst verdict found (every other one too
// with Options.ShrinkAll) and replays each shrunk scenario with every
// checker.
func (e *Explorer) Run(ctx context.Context) (*Result, error) {
	o := e.opts
	sr, err := e.Search(ctx)
	if sr == nil {
		return nil, err
	}
	r := &Result{Algorithm: e.algo.Name, Classes: e.classes, Seed: o.Seed, Limit: o.Runs, Shard: o.Shard,
		Workers: o.Workers, Search: sr}
	for _, f := range sr.Met {
		if sr.Found == nil || f.Verdict != sr.Found.Verdict {
			r.Others = append(r.Others, Other{Found: f})
		}
	}
	if err != nil { // interrupted: the search so far, nothing shrunk
		return r, err
	}
	if sr.Found == nil && !(o.ShrinkAll && len(r.Others) > 0) {
		return r, nil
	}
	if o.Progress != nil {
		o.Progress(Progress{Runs: sr.Executed, Elapsed: sr.Elapsed, Found: true, Shrinking: true})
	}
	if sr.Found != nil {
		if r.Counterexample, r.Outcome, r.Shrink, err = e.shrinkAndFinish(ctx, sr.Found); err != nil {
			return nil, err
		}
	}
	if o.ShrinkAll {
		for i := range r.Others {
			x := &r.Others[i]
			if x.Found.Verdict == model.VerdictIncomplete {
				// A cut run is not shrunk: it failed nothing, and its
				// candidates run to the cap. Its index says where it is.
				continue
			}
			if x.Counterexample, x.Outcome, x.Shrink, err = e.shrinkAndFinish(ctx, &x.Found); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

func (e *Explorer) shrinkAndFinish(ctx context.Context, f *Found) (*scenarios.Scenario, *judge.Outcome, ShrinkStats, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, ShrinkStats{}, err
	}
	shrunk, stats := e.Shrink(f.Index, f.Verdict)
	c, out, err := e.Finish(shrunk, f)
	return c, out, stats, err
}

// FoundByLine is the first line of a counterexample's narrative, without
// its full stop: "Found by: BY (run N, VERDICT), then shrunk". by is what
// finds the same runs again (Options.FoundBy).
func FoundByLine(by string, run int, verdict string) string {
	return fmt.Sprintf("Found by: %s (run %d, %s), then shrunk", by, run, verdict)
}

// foundBy is Options.FoundBy, or what it defaults to.
func (e *Explorer) foundBy() string {
	classes := strings.Join(e.classes, ",")
	search := ""
	if e.opts.Inside {
		search = " --search inside"
	}
	switch {
	case e.opts.FoundBy != "":
		return e.opts.FoundBy + search
	case e.opts.Lock.New == nil && e.opts.DrawTTL:
		return fmt.Sprintf("simrun explore --algo %s --faults %s --seed %d --draw-ttl%s", e.algo.Name, classes, e.opts.Seed, search)
	case e.opts.Lock.New == nil:
		return fmt.Sprintf("simrun explore --algo %s --faults %s --seed %d%s", e.algo.Name, classes, e.opts.Seed, search)
	}
	// Not registered: only the caller knows where the lock came from.
	return fmt.Sprintf("exploring %s under %s, seed %d%s", e.algo.Name, classes, e.opts.Seed, strings.TrimPrefix(search, " --search"))
}

// Finish names the shrunk scenario, tells where it came from, replays it
// with every checker and records the verdict it replays with.
func (e *Explorer) Finish(s *scenarios.Scenario, f *Found) (*scenarios.Scenario, *judge.Outcome, error) {
	c := *s
	c.Name = e.runName(f.Index)
	where := ""
	if e.opts.Inside {
		where = " inside its assumptions"
	}
	c.Summary = fmt.Sprintf("%s %s under %s%s: run %d of simrun explore --seed %d, shrunk",
		e.algo.Name, f.Verdict, strings.Join(e.classes, ","), where, f.Index, e.opts.Seed)
	c.Source = "simrun explore"
	p, err := c.PrepareWith(e.algo)
	if err != nil {
		return nil, nil, err
	}
	o, err := judge.Prepared(&c, p, model.Options{})
	if err != nil {
		return nil, nil, err
	}
	c.Expect = o.Verdict.Verdict
	var b strings.Builder
	b.WriteString(FoundByLine(e.foundBy(), f.Index, f.Verdict) + ".\n")
	for _, v := range o.Verdict.Violations {
		fmt.Fprintf(&b, "%s (%s): %s\n", v.Kind, strings.Join(v.Processes, ", "), v.Detail)
	}
	c.Narrative = b.String()
	o.Scenario = &c
	return &c, o, nil
}
