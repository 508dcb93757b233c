package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/prove"
)

// proveJSON is what prove prints with --json, and as one line per shard.
type proveJSON struct {
	Algorithm   string       `json:"algorithm"`
	Clients     int          `json:"clients"`
	Rounds      int          `json:"rounds"`
	Faults      []string     `json:"faults"`
	MaxFaults   int          `json:"max_faults"`
	MaxDelays   int          `json:"max_delays"`
	Shard       string       `json:"shard,omitempty"`
	TTL         string       `json:"ttl"`
	Proved      bool         `json:"proved"`
	Explored    int64        `json:"explored"`
	Pruned      int64        `json:"pruned"`
	Incomplete  int64        `json:"incomplete"`
	Depth       int          `json:"depth"`
	Seconds     float64      `json:"seconds"`
	Interrupted bool         `json:"interrupted,omitempty"`
	Verdict     string       `json:"verdict"`
	Schedule    []prove.Step `json:"schedule"`
	Path        []int        `json:"path,omitempty"`
	// Counterexample is the shrunk scenario file written, "" when none.
	Counterexample string `json:"counterexample"`
}

func cmdProve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("prove", flag.ContinueOnError)
	af := addAlgoFlags(fs, "the algorithm to prove (see 'simrun list'); this or --algo-file is required")
	clients := fs.Int("clients", 2, "`N` clients")
	rounds := fs.Int("rounds", 2, "`R` acquire → critical section → release rounds per client")
	faults := fs.String("faults", "all", "the fault menu, comma-separated: "+strings.Join(prove.Classes, ", ")+", or all")
	maxFaults := fs.Int("max-faults", 1, "at most `K` faults in one schedule")
	maxDelays := fs.Int("max-delays", 1, "at most `D` delays (reorderings) in one schedule, besides the faults")
	workers := fs.Int("workers", 0, "parallel runs (0: one per core); the result does not depend on it")
	shard := fs.String("shard", "", "enumerate shard `i/n` of the space (split by the first choice) and print one JSON line")
	out := fs.String("o", "prove-counterexample.yaml", "write the shrunk counterexample to `FILE`")
	force := fs.Bool("force", false, "overwrite an existing -o FILE")
	asJSON := fs.Bool("json", false, "print one JSON object, no progress")
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	bad := func(flagName string, err error) int {
		return fail(stderr, "prove", fmt.Errorf("--%s: %v", flagName, err))
	}
	if len(pos) != 0 {
		return fail(stderr, "prove", fmt.Errorf("takes no arguments, got %q", pos))
	}
	a, err := af.resolve()
	if err != nil {
		return fail(stderr, "prove", err)
	}
	o := prove.Options{Clients: *clients, Rounds: *rounds, MaxFaults: *maxFaults, MaxDelays: *maxDelays, Workers: *workers}
	if af.File == "" {
		o.Algorithm = a.Name
	} else {
		o.Lock = a
	}
	if o.Classes, err = prove.ParseClasses(*faults); err != nil {
		return bad("faults", err)
	}
	if name, err := firstBad(
		flagCheck{"clients", within(*clients, 1, 64)},
		flagCheck{"rounds", within(*rounds, 1, 100)},
		flagCheck{"max-faults", within(*maxFaults, 0, 8)},
		flagCheck{"max-delays", within(*maxDelays, 0, 8)},
		flagCheck{"workers", explore.CheckWorkers(*workers)},
	); err != nil {
		return bad(name, err)
	}
	sharded := *shard != ""
	if sharded {
		s, err := explore.ParseShard(*shard)
		if err != nil {
			return bad("shard", err)
		}
		o.Shard = prove.Shard{Index: s.Index, Count: s.Count}
	} else if !*force {
		if _, err := os.Stat(*out); err == nil {
			return fail(stderr, "prove", fmt.Errorf("-o: %s exists: move it, or give --force", *out))
		}
	}
	if !*asJSON && !sharded && exploreTerminal(stdout) {
		o.Progress = proveProgress(stdout)
	}
	p, err := prove.New(o)
	if err != nil {
		return fail(stderr, "prove", err)
	}
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt)
	r, err := p.Run(ctx)
	stopSignals()
	if o.Progress != nil {
		fmt.Fprint(stdout, "\r\033[K")
	}
	if err != nil {
		return fail(stderr, "prove", err)
	}
	rep := proveJSON{Algorithm: r.Algorithm, Clients: r.Clients, Rounds: r.Rounds, Faults: r.Classes,
		MaxFaults: r.MaxFaults, MaxDelays: r.MaxDelays, TTL: r.TTL.String(), Proved: r.Proved(),
		Explored: r.Explored, Pruned: r.Pruned, Incomplete: r.Incomplete, Depth: r.Depth,
		Seconds: r.Elapsed.Seconds(), Interrupted: r.Interrupted, Verdict: "safe", Schedule: []prove.Step{}}
	if sharded {
		rep.Shard = *shard
	}
	if r.Found != nil {
		rep.Verdict, rep.Schedule, rep.Path = r.Found.Verdict, r.Found.Schedule, r.Found.Path
		if !sharded {
			s, _, _, err := p.Shrink(r.Found)
			if err != nil {
				return fail(stderr, "prove", err)
			}
			s.Summary = "found by simrun prove: " + stepsText(r.Found.Schedule)
			data, err := af.marshalScenario(s, filepath.Dir(*out))
			if err == nil {
				err = os.WriteFile(*out, data, 0o644)
			}
			if err != nil {
				return fail(stderr, "prove", fmt.Errorf("-o: %w", err))
			}
			rep.Counterexample = *out
		}
	} else if r.Incomplete > 0 {
		rep.Verdict = "incomplete"
	}
	switch {
	case sharded:
		err = json.NewEncoder(stdout).Encode(rep)
	case *asJSON:
		err = writeExploreJSON(stdout, rep)
	default:
		err = writeProveSummary(stdout, rep)
	}
	if err != nil {
		return fail(stderr, "prove", err)
	}
	switch {
	case r.Interrupted:
		return exitInterrupted
	case r.Found != nil:
		return exitViolation
	case r.Incomplete > 0:
		return exitIncomplete
	}
	return exitOK
}

func within(n, lo, hi int) error {
	if n < lo || n > hi {
		return fmt.Errorf("%d is not within %d to %d", n, lo, hi)
	}
	return nil
}

func stepsText(steps []prove.Step) string {
	if len(steps) == 0 {
		return "no fault"
	}
	var b []string
	for _, s := range steps {
		b = append(b, s.String())
	}
	return strings.Join(b, ", then ")
}

func writeProveSummary(w io.Writer, r proveJSON) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "prove      %s, %d clients × %d rounds, faults %s, K=%d faults + %d delays (TTL %s)\n",
		r.Algorithm, r.Clients, r.Rounds, strings.Join(r.Faults, ","), r.MaxFaults, r.MaxDelays, r.TTL)
	fmt.Fprintf(b, "schedules  %d explored, %d pruned, %d incomplete, depth %d, %.1f s\n", r.Explored, r.Pruned, r.Incomplete, r.Depth, r.Seconds)
	switch {
	case r.Interrupted:
		b.WriteString("result     interrupted: nothing proved\n")
	case r.Counterexample != "":
		fmt.Fprintf(b, "result     %s: %s\n", strings.ToUpper(r.Verdict), stepsText(r.Schedule))
		fmt.Fprintf(b, "shrunk     %s\nreplay     %s\n", r.Counterexample, replayLine(r.Counterexample))
	case r.Proved:
		b.WriteString("result     proved within bounds: no schedule of this space breaks the lock\n")
	default:
		fmt.Fprintf(b, "result     not proved: %d schedules were cut at a cap\n", r.Incomplete)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func proveProgress(w io.Writer) func(prove.Progress) {
	return func(p prove.Progress) {
		rate := float64(p.Explored) / max(p.Elapsed.Seconds(), 1e-9)
		fmt.Fprintf(w, "\r\033[Kproving  %d schedules explored  %d pruned  %.0f/s  depth %d  %s", p.Explored, p.Pruned, rate, p.Depth, p.Elapsed.Round(100*time.Millisecond))
	}
}

