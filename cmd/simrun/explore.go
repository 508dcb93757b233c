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
	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/reports"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
	"golang.org/x/term"
)

// exploreHTML renders a counterexample's HTML report into DIR/report.html.
var exploreHTML func(io.Writer, *judge.Outcome) error = reports.WriteHTML

func cmdExplore(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	af := addAlgoFlags(fs, "the algorithm to search (see 'simrun list'); this or --algo-file is required")
	faults := fs.String("faults", "all", "fault classes to combine, comma-separated: "+strings.Join(scenarios.FaultClasses, ", ")+", or all")
	runs := fs.Int("runs", explore.DefaultRuns, "search runs 0 to `N`-1, stopping early at the first unsafe run (the whole run-index space when sharded)")
	seed := fs.Uint64("seed", 1, "search seed: run i's scenario depends only on (seed, i, algorithm, faults)")
	workers := fs.Int("workers", 0, "parallel runs (0: one per core); the result does not depend on it")
	out := addOutFlag(fs, "explore-out", "write counterexample.yaml and the reports to `DIR` when a violation is found")
	asJSON := fs.Bool("json", false, "print one JSON object, no progress")
	shard := fs.String("shard", "", "run shard `i/n` of the run indices (0 ≤ i < n) and print one JSON line for 'simrun merge'")
	verdicts := fs.String("verdict", "", "stop at the first run with one of these verdicts, comma-separated, and count only them as found (default: stop at unsafe, count any but safe)")
	shrink := fs.String("shrink", "worst", "`WHICH` verdicts to shrink: worst (the worst found) or all (every one met)")
	shrinkTries := fs.Int("shrink-tries", explore.DefaultShrinkTries, "bound on shrinking, in simulated runs (deterministic)")
	shrinkTime := fs.Duration("shrink-time", explore.DefaultShrinkTime, "wall-clock safety net on shrinking")
	force := fs.Bool("force", false, "overwrite the counterexample an earlier search left in -o/--out")
	redis := fs.String("redis", "", "run against real Redis at `ADDR` in wall-clock time (at most 200 --runs, no shrinking)")
	drawTTL := fs.Bool("draw-ttl", false, "draw each run's TTL from 0.5 to 4 s (default: the lock's own, a file's as written; always with --redis)")
	searchFlag := fs.String("search", "", "`WHICH` searches: both (inside the lock's assumptions, then outside them, with the breaking point), inside or outside "+
		"(default both; with --shard or --redis, outside: a shard's line is one search, and 'simrun merge' combines the lines of one; shard the inside search with --search inside)")
	failOn := fs.String("fail-on", "inside", "`WHICH` answer sets the exit status: inside (a violation inside the lock's assumptions, or too few runs that held the lock) or any (any violation found, as explore exited before it answered twice)")
	minHeld := fs.Float64("min-held", explore.DefaultMinHeld, "the `SHARE` of runs (0 to 1) that must reach the critical section for a search to answer; 0: no floor")
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	bad := func(flagName string, err error) int {
		return fail(stderr, "explore", fmt.Errorf("--%s: %v", flagName, err))
	}
	if len(pos) != 0 {
		return fail(stderr, "explore", fmt.Errorf("takes no arguments, got %q", pos))
	}
	// Against real Redis a run takes its TTL in wall-clock time: a lock's own
	// 30 s would make each run minutes long, so --redis draws TTLs.
	o := explore.Options{Seed: *seed, Runs: *runs, Workers: *workers, ShrinkTries: *shrinkTries, ShrinkTime: *shrinkTime,
		DrawTTL: *drawTTL || *redis != ""}
	a, err := af.resolve() // both, neither, an unknown name, or the file's errors (naming its field)
	if err != nil {
		return fail(stderr, "explore", err)
	}
	if af.File == "" {
		o.Algorithm = a.Name // a registered lock's counterexample says simrun explore --algo
	} else {
		o.Lock = a
	}
	classes, err := scenarios.ParseClasses(*faults)
	if err != nil {
		return bad("faults", err)
	}
	o.Classes = classes
	if af.File != "" {
		o.FoundBy = fmt.Sprintf("simrun explore --algo-file %s --faults %s --seed %d", shellWord(af.File), strings.Join(classes, ","), *seed)
		if *drawTTL {
			o.FoundBy += " --draw-ttl"
		}
	}
	if *verdicts != "" {
		o.Verdicts = strings.Split(*verdicts, ",")
	}
	// The checks explore makes are its own functions, called once, here,
	// where the flag is known: nothing translates an explore error back.
	if name, err := firstBad(
		flagCheck{"runs", search.ValidateRuns(*runs)},
		flagCheck{"workers", search.ValidateWorkers(*workers)},
		flagCheck{"shrink-tries", atLeastOne(*shrinkTries, "")},
		flagCheck{"shrink-time", positive(*shrinkTime)},
		flagCheck{"shrink", oneOf(*shrink, "worst", "all")},
		flagCheck{"verdict", search.ValidateVerdicts(o.Verdicts)},
		flagCheck{"search", oneOfOrEmpty(*searchFlag, "both", "inside", "outside")},
		flagCheck{"fail-on", oneOf(*failOn, "inside", "any")},
		flagCheck{"min-held", share(*minHeld)},
	); err != nil {
		return bad(name, err)
	}
	if *shard == "" {
		if err := checkOut(*out, *force); err != nil {
			return bad("out", err)
		}
	}
	o.Workers = clampWorkers("explore", *workers, *runs, "runs", stderr)
	o.ShrinkAll = *shrink == "all"
	if *shard != "" {
		if o.Shard, err = search.ParseShard(*shard); err != nil {
			return bad("shard", err)
		}
	}
	sharded := *shard != ""
	which := *searchFlag
	switch {
	case which == "both" && sharded:
		return bad("search", fmt.Errorf("both: a shard runs one search: run the shards with --search inside and with --search outside, and merge each"))
	case which != "" && which != "outside" && *redis != "":
		return bad("search", fmt.Errorf("%s: --redis runs the outside search only", which))
	case which == "" && (sharded || *redis != ""):
		which = "outside"
	case which == "":
		which = "both"
	}
	if which == "inside" && sharded {
		o.Inside = true
	}
	if !*asJSON && !sharded && exploreTerminal(stdout) {
		o.Progress = exploreProgress(stdout)
	}
	e, err := explore.New(o) // every option it checks is checked above
	if err != nil {
		return fail(stderr, "explore", err)
	}
	if *redis != "" {
		return exploreReal(e, *redis, *runs, *shard, *asJSON, *out, af, stdout, stderr)
	}
	if !sharded {
		held := *minHeld
		if held == 0 {
			held = -1 // no floor
		}
		ao := explore.AnswerOptions{MinHeld: held, Inside: which != "outside", Outside: which != "inside"}
		return exploreAnswers(o, ao, *asJSON, *out, *failOn == "any", af, stdout, stderr)
	}
	// Ctrl-C ends the search: the summary of the runs finished so far,
	// then exit 130 as a shell does for SIGINT.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt)
	r, err := e.Run(ctx)
	stopSignals()
	if o.Progress != nil {
		fmt.Fprint(stdout, "\r\033[K") // clear the progress line
	}
	interrupted := r != nil && r.Search.Interrupted
	if err != nil && !interrupted {
		return fail(stderr, "explore", err)
	}
	paths := map[string]string{}
	if !interrupted {
		if paths, err = writeExploreArtifacts(*out, r, af); err != nil {
			return fail(stderr, "explore", err)
		}
	}
	if sharded {
		af.recordShardLock(r) // the YAML in the shard's line, which merge writes
	}
	rep, err := r.ReportPaths(paths, sharded)
	if err != nil {
		return fail(stderr, "explore", err)
	}
	rep.Interrupted = interrupted
	if sharded {
		rep.LockSHA256 = af.sum // "" for a registered algorithm
		if o.Inside {
			rep.Search = "inside"
		}
	}
	switch {
	case sharded:
		err = json.NewEncoder(stdout).Encode(rep) // one line
	case *asJSON:
		err = writeExploreJSON(stdout, rep)
	default:
		err = writeExploreSummary(stdout, rep, *out)
	}
	if err != nil {
		return fail(stderr, "explore", err)
	}
	return exploreExit(rep, interrupted)
}

// exploreExit is explore's exit status: 130 interrupted, 1 a violation
// found, 3 nothing found but some runs were cut at a cap (nothing found in
// a prefix is not a pass), 0 nothing found.
func exploreExit(rep explore.Report, interrupted bool) int {
	switch {
	case interrupted:
		return exitInterrupted
	case rep.Found:
		return exitViolation
	case rep.IncompleteRuns > 0:
		return exitIncomplete
	}
	return exitOK
}

// exitInterrupted is a shell's exit status for a program ended by SIGINT.
const exitInterrupted = 130

// writeExploreArtifacts writes DIR/counterexample.yaml, DIR/report.txt and
// DIR/report.html for the worst verdict found, and
// DIR/counterexample-VERDICT.yaml for each other verdict shrunk; it returns
// the path of each counterexample, by verdict. It writes nothing when
// nothing was shrunk.
func writeExploreArtifacts(dir string, r *explore.Result, af *algoFlags) (map[string]string, error) {
	paths := map[string]string{}
	write := func(name string, c *scenarios.Scenario) (string, error) { return writeScenario(dir, name, c, af) }
	if r.Counterexample != nil {
		path, err := write("counterexample.yaml", r.Counterexample)
		if err != nil {
			return nil, err
		}
		paths[r.Search.Found.Verdict] = path
	}
	for _, x := range r.Others {
		if x.Counterexample == nil {
			continue
		}
		path, err := write("counterexample-"+x.Found.Verdict+".yaml", x.Counterexample)
		if err != nil {
			return nil, err
		}
		paths[x.Found.Verdict] = path
	}
	if r.Counterexample == nil {
		return paths, nil
	}
	rep, err := r.ReportPaths(paths, false)
	if err != nil {
		return nil, err
	}
	if err := writeExploreReports(dir, r.Outcome, rep); err != nil {
		return nil, err
	}
	return paths, nil
}

// writeExploreReports writes DIR/report.txt, the search's summary and the
// counterexample's run, and DIR/report.html.
func writeExploreReports(dir string, o *judge.Outcome, rep explore.Report) error {
	if err := writeFile(filepath.Join(dir, "report.txt"), func(w io.Writer) error {
		if err := writeExploreSummary(w, rep, ""); err != nil {
			return err
		}
		fmt.Fprintln(w)
		return reports.WriteText(w, o)
	}); err != nil {
		return err
	}
	if exploreHTML == nil {
		return nil
	}
	return writeFile(filepath.Join(dir, "report.html"), func(w io.Writer) error { return exploreHTML(w, o) })
}

// writeExploreSummary is the result for a person. Every counterexample
// file names its lock, so 'simrun run FILE' alone replays it.
//
// Numbering: run indices start at 0 ("run 5" is the sixth run), counts are
// counts ("6 runs").
func writeExploreSummary(w io.Writer, r explore.Report, dir string) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "explore    %s under %s, seed %d\n", r.Algorithm, strings.Join(r.Faults, ","), r.Seed)
	fmt.Fprintf(b, "runs       %d of %d", r.Runs, r.RunsLimit)
	if r.Runs > 0 && r.Shard == "" { // a shard's runs are not consecutive
		fmt.Fprintf(b, " (run 0 to run %d)", r.Runs-1)
	}
	var timing []string
	if r.Executed > r.Runs {
		timing = append(timing, fmt.Sprintf("%d executed", r.Executed))
	}
	if r.RunsPerSec > 0 {
		timing = append(timing, fmt.Sprintf("%.0f runs/s", r.RunsPerSec))
	}
	if r.Workers > 0 && r.RunsPerSec > 0 {
		timing = append(timing, fmt.Sprintf("%d worker%s", r.Workers, text.Plural(r.Workers, "s")))
	}
	if len(timing) > 0 {
		fmt.Fprintf(b, ", %s", strings.Join(timing, ", "))
	}
	if r.Shards > 0 {
		fmt.Fprintf(b, " over %d shards", r.Shards)
	}
	b.WriteString("\n")
	if r.Interrupted {
		b.WriteString("stopped    interrupted (Ctrl-C): what the runs above show, nothing shrunk\n")
	}
	if !r.Found {
		b.WriteString("found      nothing\n")
		if r.IncompleteRuns > 0 {
			b.WriteString("verdict    INCOMPLETE, not safe\n")
		}
	} else {
		fmt.Fprintf(b, "found      %s at run %d", strings.ToUpper(r.Verdict), *r.FirstFoundAfterRuns-1)
		if r.SecondsToFirst != nil && *r.SecondsToFirst > 0 {
			fmt.Fprintf(b, " after %.3fs", *r.SecondsToFirst)
		}
		if r.SafetyBroken != "" {
			b.WriteString(": " + r.SafetyBroken)
		}
		b.WriteString("\n")
	}
	if r.VacuousRuns > 0 {
		// Said whatever was found: nothing found in such runs says nothing
		// of their faults.
		fmt.Fprintf(b, "vacuous    %s of %d: %s\n", text.Count(r.VacuousRuns, "run", "s"), r.Runs, reports.NoFaultActed)
	}
	for _, v := range search.WorstFirst { // the other verdicts met, worst first
		x, ok := r.Verdicts[v]
		if !ok || (r.Found && v == r.Verdict) {
			continue
		}
		fmt.Fprintf(b, "also met   %s at run %d", v, x.FirstRun)
		switch {
		case x.Counterexample != nil:
			fmt.Fprintf(b, ": %s\n", replayLine(*x.Counterexample))
		case r.Interrupted || r.Shards > 0: // nothing to shrink here
			b.WriteString("\n")
		default:
			fmt.Fprintf(b, " (not shrunk: --shrink all shrinks it)\n")
		}
	}
	if x, ok := r.Verdicts[model.VerdictIncomplete]; ok && r.IncompleteRuns > 0 {
		// Said even when something worse was found: a cut run may hide more.
		fmt.Fprintf(b, "cut        %s ended at a cap with nothing found: run %d first, %s\n",
			text.Count(r.IncompleteRuns, "run", "s"), x.FirstRun, x.Cut)
	}
	if !r.Found {
		_, err := io.WriteString(w, b.String())
		return err
	}
	if s := r.Shrunk; s != nil {
		fmt.Fprintf(b, "shrunk     to %d process%s, %d fault%s, %d events", s.Processes, text.Plural(s.Processes, "es"), s.Faults, text.Plural(s.Faults, "s"), s.Events)
		if r.ShrinkSeconds > 0 {
			fmt.Fprintf(b, " in %.2fs", r.ShrinkSeconds)
		}
		if s.SafetyBroken != "" && s.SafetyBroken != r.SafetyBroken {
			// Shrinking keeps the verdict, not which safety broke.
			b.WriteString(": " + s.SafetyBroken)
		}
		if r.ShrinkTimedOut {
			b.WriteString(" (out of time: perhaps not minimal; raise --shrink-time)")
		}
		b.WriteString("\n")
	}
	if r.Counterexample != nil {
		fmt.Fprintf(b, "wrote      %s", *r.Counterexample)
		if dir != "" {
			fmt.Fprintf(b, " and the reports in %s", dir)
		}
		fmt.Fprintf(b, "\nreplay     %s\n", replayLine(*r.Counterexample))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeExploreJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// exploreProgress draws "runs, runs/s, found" on one terminal line.
func exploreProgress(w io.Writer) func(explore.Progress) {
	return func(p explore.Progress) {
		rate := float64(p.Runs) / max(p.Elapsed.Seconds(), 1e-9)
		found := "no"
		switch {
		case p.Shrinking:
			found = "yes, shrinking it"
		case p.Found:
			found = "yes, finishing the lower runs"
		}
		if p.Worst != "" && !p.Found && !p.Shrinking {
			found = p.Worst + ", searching on"
		}
		// p.Runs counts runs executed in any order; the summary then counts
		// the runs in index order up to the one that stopped the search.
		fmt.Fprintf(w, "\r\033[Kexploring  %d runs executed  %.0f runs/s  %s  found: %s", p.Runs, rate, p.Elapsed.Round(100*time.Millisecond), found)
	}
}

func exploreTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
