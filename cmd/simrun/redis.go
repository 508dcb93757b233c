package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/realtime"
	"github.com/locksim/locksim/reports"
	"github.com/locksim/locksim/scenarios"
)

// executeReal runs the prepared s against real Redis at addrs in wall-clock
// time (run --redis): the same preparation as a simulated run, another
// backend.
func executeReal(s *scenarios.Scenario, p *scenarios.Prepared, addrs string) (*judge.Outcome, error) {
	if addrs == realtime.Start {
		defer stopServersOnSignal()()
	}
	o, err := realtime.Execute(s, p, addrs)
	if err != nil {
		return nil, fmt.Errorf("--redis: %w", err)
	}
	return o, nil
}

// stopServersOnSignal makes Ctrl-C (SIGINT) or SIGTERM during a run on
// servers locksim started stop them and remove their directory, then exit
// 130 as a shell does for SIGINT; the function it returns ends that.
func stopServersOnSignal() func() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			realtime.StopStarted()
			fmt.Fprintln(os.Stderr, "simrun: interrupted: the servers locksim started are stopped")
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

// exploreJSONReal is explore --redis --json's object.
type exploreJSONReal struct {
	Algorithm      string   `json:"algorithm"`
	Faults         []string `json:"faults"`
	Backend        string   `json:"backend"`
	Runs           int      `json:"runs"`
	RunsLimit      int      `json:"runs_limit"`
	Refused        int      `json:"refused"`
	Found          bool     `json:"found"`
	IncompleteRuns int      `json:"incomplete_runs"`
	Verdict        string   `json:"verdict,omitempty"`
	FirstFound     *int     `json:"first_found_after_runs,omitempty"`
	SecondsToFirst *float64 `json:"seconds_to_first,omitempty"`
	Counterexample *string  `json:"counterexample,omitempty"`
}

// exploreReal is explore --redis: the search's runs against a real server,
// a few at a time, in wall-clock time. No shrinking (it takes thousands of
// runs): the failing run's scenario is written as it is.
func exploreReal(e *explore.Explorer, addr string, runs int, shard string, asJSON bool, dir string, af *algoFlags,
	stdout, stderr io.Writer) int {
	if shard != "" {
		return fail(stderr, "explore", fmt.Errorf("--shard: not with --redis: shard a simulated search"))
	}
	if addr == realtime.Start {
		defer stopServersOnSignal()()
	}
	r, err := realtime.Search(context.Background(), e, addr, runs)
	if err != nil {
		if strings.HasPrefix(err.Error(), "--") {
			return fail(stderr, "explore", err)
		}
		return fail(stderr, "explore", fmt.Errorf("--redis: %w", err))
	}
	o := e.Options()
	name := o.Algorithm
	if name == "" {
		name = o.Lock.Name
	}
	j := exploreJSONReal{Algorithm: name, Faults: o.Classes, Backend: "redis " + addr, Runs: r.Runs,
		RunsLimit: runs, Refused: r.Refused, Found: r.Found != nil, IncompleteRuns: r.Incomplete, Verdict: r.Verdict()}
	if r.Found != nil {
		s := *r.Found.Scenario
		s.Summary = fmt.Sprintf("%s %s under %s: run %d of simrun explore --seed %d --redis, as it ran (not shrunk)",
			name, r.Found.Verdict, strings.Join(o.Classes, ","), r.Found.Index, o.Seed)
		s.Expect = ""
		data, err := af.marshalScenario(&s, dir)
		if err == nil {
			err = os.MkdirAll(dir, 0o755)
		}
		path := filepath.Join(dir, "counterexample.yaml")
		if err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
		if err == nil {
			err = writeFile(filepath.Join(dir, "report.txt"), func(w io.Writer) error { return reports.WriteText(w, r.Outcome) })
		}
		if err != nil {
			return fail(stderr, "explore", err)
		}
		n, secs := r.Found.Index+1, text.Seconds(r.ToFirst)
		j.FirstFound, j.SecondsToFirst, j.Counterexample = &n, &secs, &path
	}
	if asJSON {
		err = writeExploreJSON(stdout, j)
	} else {
		b := &strings.Builder{}
		fmt.Fprintf(b, "explore    %s under %s, seed %d, against %s in wall-clock time\n", name, strings.Join(o.Classes, ","), o.Seed, j.Backend)
		fmt.Fprintf(b, "runs       %d of %d (%d at once", r.Runs, runs, r.Parallel)
		if r.Refused > 0 {
			fmt.Fprintf(b, "; %d refused: a fault these servers cannot take", r.Refused)
		}
		b.WriteString(")\n")
		switch {
		case r.Found == nil && r.Incomplete > 0:
			fmt.Fprintf(b, "found      nothing, but %s ended at a cap first: INCOMPLETE, not safe\n",
				text.Count(r.Incomplete, "run", "s"))
		case r.Found == nil:
			b.WriteString("found      nothing\n")
		default:
			fmt.Fprintf(b, "found      %s at run %d after %.1fs\n", strings.ToUpper(r.Found.Verdict), r.Found.Index, r.ToFirst.Seconds())
			fmt.Fprintf(b, "wrote      %s and %s (not shrunk)\n", *j.Counterexample, filepath.Join(dir, "report.txt"))
			fmt.Fprintf(b, "replay     %s --redis %s\n", replayLine(*j.Counterexample), addr)
			b.WriteString("           (without --redis it replays in simulation, where a race real timing won may go\n" +
				"           the other way)\n")
		}
		_, err = io.WriteString(stdout, b.String())
	}
	if err != nil {
		return fail(stderr, "explore", err)
	}
	switch {
	case r.Found != nil:
		return exitViolation
	case r.Incomplete > 0:
		return exitIncomplete
	}
	return exitOK
}
