// Package realtime runs scenarios and searches against real Redis servers in
// wall-clock time: the scenario layer over realtime/engine.Run and the realredis
// wire. simrun's --redis flags land here.
package realtime

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/realtime/engine"
	"github.com/locksim/locksim/realtime/realredis"
	"github.com/locksim/locksim/scenarios"
)

// Start, given as the address, makes Execute start what the scenario
// needs (realredis.StartSpecs: one throwaway redis-server per node, with the
// node's persistence, under libfaketime when its clock moves) and stop it
// afterwards; a node restart then restarts the server's process.
const Start = "start"

// StartParts is what Start can carry out (libfaketime permitting: without
// it, starting a node whose clock moves fails, saying so).
var StartParts = engine.Parts{Processes: true, Clocks: true, Replicas: true}

// Execute runs a prepared scenario against the servers at addrs (see
// realredis.ParseAddrs, or Start), refusing one the servers cannot take.
func Execute(s *scenarios.Scenario, p *scenarios.Prepared, addrs string) (*judge.Outcome, error) {
	parts := engine.Parts{}
	if addrs == Start {
		parts = StartParts
	}
	if err := engine.CheckWith(&p.Config, parts); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	var w *realredis.Wire
	var err error
	if addrs == Start {
		srv, serr := startTracked(realredis.SpecsFor(&p.Config))
		if serr != nil {
			return nil, serr
		}
		defer stopTracked(srv)
		if w, err = realredis.OpenServers(srv); err != nil {
			return nil, err
		}
		srv.AlignToSecond()
	} else {
		w, err = realredis.Open(addrs, len(p.Config.Nodes))
	}
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return Judge(s, p, w, w.Name(), model.Options{})
}

// Judge runs p, already prepared from s, against real servers through w, in
// wall-clock time (engine.Run), and judges the history with the checkers a
// simulated run's goes through (judge.Judged). backend names w for reports
// ("redis 127.0.0.1:6379").
func Judge(s *scenarios.Scenario, p *scenarios.Prepared, w engine.Wire, backend string, opts model.Options) (*judge.Outcome, error) {
	res, err := engine.Run(p.Config, w)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return judge.Judged(s, p, res, backend, opts), nil
}

// started holds the servers Execute started and has not stopped yet, for
// StopStarted.
var started = struct {
	sync.Mutex
	set map[*realredis.Servers]bool
}{set: map[*realredis.Servers]bool{}}

func startTracked(specs []realredis.ServerSpec) (*realredis.Servers, error) {
	srv, err := realredis.StartSpecs(specs)
	if err != nil {
		return nil, err
	}
	started.Lock()
	started.set[srv] = true
	started.Unlock()
	return srv, nil
}

func stopTracked(srv *realredis.Servers) {
	started.Lock()
	delete(started.set, srv)
	started.Unlock()
	srv.Stop()
}

// StopStarted stops every server Execute started and has not stopped yet,
// and removes their directories: simrun calls it on Ctrl-C (SIGINT) or
// SIGTERM before it exits. (Servers still starting then die with simrun:
// the kernel kills them when it exits, see realredis's dieWithParent.)
func StopStarted() {
	started.Lock()
	var all []*realredis.Servers
	for srv := range started.set {
		all = append(all, srv)
	}
	clear(started.set)
	started.Unlock()
	for _, srv := range all {
		srv.Stop()
	}
}

// StartParallel is how many runs of a search with Start run at once, each
// on the servers it starts (with replicas and Sentinels, a run is up to
// four processes per node).
const StartParallel = 4

// MaxRuns bounds a real-time search: each run takes its scenario's time in
// wall-clock time (seconds to a minute), so a search of thousands belongs to
// the simulation.
const MaxRuns = 200

// Databases is how many databases a default redis-server has: a search on
// one server runs that many single-node runs at once, each on its own.
const Databases = 16

// SearchResult is a real-time search's outcome.
type SearchResult struct {
	Found   *explore.Found // nil: no run failed
	Outcome *judge.Outcome // the failing run, as it ran on the server
	Runs    int            // runs up to and including the found one (or all)
	Refused int            // runs the real server cannot take (a node clock fault)
	// Incomplete counts the runs (of Runs) cut at a cap, their duration
	// above all, before they found anything: as in explore.Search, not a
	// find, and a search that found nothing else is incomplete, not safe.
	Incomplete int
	Elapsed    time.Duration // wall time of the whole search
	ToFirst    time.Duration // wall time until the found run was judged
	RunTime    time.Duration // the runs' own wall times, summed: one run at a time would take this
	Parallel   int           // runs at once
}

// Verdict is the search's verdict: the found run's, incomplete when nothing
// was found but runs were cut at a cap (explore's JSON says the same), else
// none.
func (r *SearchResult) Verdict() string {
	switch {
	case r.Found != nil:
		return r.Found.Verdict
	case r.Incomplete > 0:
		return model.VerdictIncomplete
	}
	return ""
}

// Search runs e's runs [0, runs) against the server at addr, Databases/nodes
// at a time on their own databases, or with addr Start StartParallel at a
// time on servers each run starts; indices are claimed in order and the
// lowest failing index wins, as in explore.Search. Runs the servers cannot
// take are skipped and counted.
func Search(ctx context.Context, e *explore.Explorer, addr string, runs int) (*SearchResult, error) {
	if runs < 1 || runs > MaxRuns {
		return nil, fmt.Errorf("--runs: %d: with --redis at most %d (each run takes its scenario's duration in wall-clock time)", runs, MaxRuns)
	}
	parts := StartParts
	if addr != Start {
		parts = engine.Parts{}
		if _, err := realredis.ParseAddrs(addr, 1); err != nil {
			return nil, err
		}
	}
	o := e.Options()
	algo := o.Lock
	if algo.New == nil {
		var err error
		if algo, err = locks.Lookup(o.Algorithm); err != nil {
			return nil, err
		}
	}
	first, err := e.Scenario(0).PrepareWith(algo)
	if err != nil {
		return nil, err
	}
	nodes := len(first.Config.Nodes)
	parallel := min(runs, max(1, Databases/nodes))
	if addr == Start {
		parallel = min(runs, StartParallel)
	}
	start := time.Now()
	var (
		mu      sync.Mutex
		next    int
		best    = runs
		res     = &SearchResult{Parallel: parallel}
		took    = make([]time.Duration, runs)
		cut     []int // indices of incomplete runs
		runErr  error
		errAt   = runs
		wg      sync.WaitGroup
		claimed = func() (int, bool) {
			mu.Lock()
			defer mu.Unlock()
			if next >= runs || next > best || ctx.Err() != nil {
				return 0, false
			}
			next++
			return next - 1, true
		}
	)
	for slot := range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := claimed()
				if !ok {
					return
				}
				s := e.Scenario(i)
				p, err := s.PrepareWith(algo)
				if err == nil && engine.CheckWith(&p.Config, parts) != nil {
					mu.Lock()
					res.Refused++
					mu.Unlock()
					continue
				}
				var out *judge.Outcome
				if err == nil {
					switch {
					case addr == Start:
						out, err = Execute(s, p, Start) // its own servers
					case len(p.Config.Nodes) > nodes:
						err = fmt.Errorf("run %d needs %d nodes, the search planned %d", i, len(p.Config.Nodes), nodes)
					default:
						out, err = Execute(s, p, fmt.Sprintf("%s/%d", addr, slot*nodes))
					}
				}
				mu.Lock()
				switch {
				case err != nil:
					if i < errAt {
						runErr, errAt = fmt.Errorf("run %d: %w", i, err), i
					}
					best = min(best, i)
				default:
					took[i] = time.Duration(out.Result.End)
					if out.Verdict.Verdict == model.VerdictIncomplete {
						cut = append(cut, i)
					}
					if e.Counts(out.Verdict.Verdict) && (res.Found == nil || i < res.Found.Index) {
						res.Found = &explore.Found{Index: i, Verdict: out.Verdict.Verdict, Scenario: s}
						res.Outcome, res.ToFirst = out, time.Since(start)
						best = min(best, i)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if runErr != nil && (res.Found == nil || errAt < res.Found.Index) {
		return nil, runErr
	}
	res.Elapsed = time.Since(start)
	res.Runs = runs
	if res.Found != nil {
		res.Runs = res.Found.Index + 1
	}
	for _, d := range took[:res.Runs] {
		res.RunTime += d
	}
	for _, i := range cut {
		if i < res.Runs {
			res.Incomplete++
		}
	}
	return res, nil
}
