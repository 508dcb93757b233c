package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/locksim/locksim/diff"
	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/resolve"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
)

func cmdDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	oldArg := fs.String("old", "", "the old version: a built-in algorithm's `LOCK` name (see 'simrun list') or an algorithm file's path (required)")
	newArg := fs.String("new", "", "the new version: a built-in algorithm's `LOCK` name or an algorithm file's path (required)")
	faults := fs.String("faults", "all", "fault classes to combine, comma-separated: "+strings.Join(scenarios.FaultClasses, ", ")+", or all")
	runs := fs.Int("runs", diff.DefaultRuns, "compare runs 0 to `N`-1 of each half, stopping at the first worse for the new version")
	seed := fs.Uint64("seed", 1, "search seed: run i's scenario depends only on (seed, i, half, faults, what the two locks share)")
	workers := fs.Int("workers", 0, "parallel runs (0: one per core); the result does not depend on it")
	half := fs.String("search", "both", "`WHICH` half to search: inside (the TTL's assumptions), outside, or both")
	out := addOutFlag(fs, "diff-out", "write each half's shrunk scenario, worse-HALF.yaml, to `DIR`")
	force := fs.Bool("force", false, "overwrite the scenarios an earlier diff left in -o/--out")
	asJSON := fs.Bool("json", false, "print one JSON object")
	shrinkTries := fs.Int("shrink-tries", diff.DefaultShrinkTries, "bound on each shrink, in candidates (each runs both locks; deterministic)")
	shrinkTime := fs.Duration("shrink-time", diff.DefaultShrinkTime, "wall-clock safety net on each shrink")
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	bad := func(flagName string, err error) int {
		return fail(stderr, "diff", fmt.Errorf("--%s: %v", flagName, err))
	}
	if len(pos) != 0 {
		return fail(stderr, "diff", fmt.Errorf("takes no arguments, got %q (give the locks as --old and --new)", pos))
	}
	oldLock, err := resolveDiffLock("old", *oldArg)
	if err != nil {
		return fail(stderr, "diff", err)
	}
	newLock, err := resolveDiffLock("new", *newArg)
	if err != nil {
		return fail(stderr, "diff", err)
	}
	classes, err := scenarios.ParseClasses(*faults)
	if err != nil {
		return bad("faults", err)
	}
	if name, err := firstBad(
		flagCheck{"runs", search.ValidateRuns(*runs)},
		flagCheck{"workers", search.ValidateWorkers(*workers)},
		flagCheck{"search", oneOf(*half, "both", diff.Inside, diff.Outside)},
		flagCheck{"shrink-tries", atLeastOne(*shrinkTries, "")},
		flagCheck{"shrink-time", positive(*shrinkTime)},
		flagCheck{"out", checkDiffOut(*out, *force)},
	); err != nil {
		return bad(name, err)
	}
	o := diff.Options{Old: oldLock.a, New: newLock.a, Classes: classes, Seed: *seed, Runs: *runs,
		ShrinkTries: *shrinkTries, ShrinkTime: *shrinkTime,
		Workers: clampWorkers("diff", *workers, *runs, "runs", stderr)}
	if *half != "both" {
		o.Halves = []string{*half}
	}
	o.FoundBy = fmt.Sprintf("simrun diff --old %s --new %s --faults %s --seed %d",
		shellWord(oldLock.arg), shellWord(newLock.arg), strings.Join(classes, ","), *seed)
	d, err := diff.New(o)
	if err != nil {
		var oe *search.OptionError
		if errors.As(err, &oe) && (oe.Option == "Old" || oe.Option == "New") {
			return fail(stderr, "diff", fmt.Errorf("--%s: %v", strings.ToLower(oe.Option), oe.Err))
		}
		return fail(stderr, "diff", err)
	}
	// Ctrl-C ends the search: the runs finished so far, then exit 130.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt)
	r, err := d.Run(ctx)
	stopSignals()
	interrupted := err != nil && ctx.Err() != nil && r != nil
	if err != nil && !interrupted {
		return fail(stderr, "diff", err)
	}
	rep := diffReportOf(r, oldLock, newLock, interrupted)
	if !interrupted {
		if err := writeDiffScenarios(*out, r, &rep); err != nil {
			return fail(stderr, "diff", err)
		}
	}
	if *asJSON {
		err = writeExploreJSON(stdout, rep)
	} else {
		err = writeDiffSummary(stdout, rep)
	}
	if err != nil {
		return fail(stderr, "diff", err)
	}
	switch {
	case interrupted:
		return exitInterrupted
	case rep.Worse:
		return exitViolation
	case rep.cut > 0:
		return exitIncomplete
	}
	return exitOK
}

// diffLock is one side of a diff: a built-in or an algorithm file.
type diffLock struct {
	arg  string // as given
	file bool
	a    locks.Algorithm
}

// resolveDiffLock reads --old or --new: a path (it holds a / or ends in
// .yaml or .yml) is an algorithm file, anything else a built-in's name,
// so that a file named like a built-in is written ./redlock.
func resolveDiffLock(flagName, v string) (diffLock, error) {
	l := diffLock{arg: v}
	switch {
	case v == "":
		return l, fmt.Errorf("--%s: required: a built-in algorithm's name (see 'simrun list') or an algorithm file", flagName)
	case strings.ContainsAny(v, `/\`) || strings.HasSuffix(v, ".yaml") || strings.HasSuffix(v, ".yml"):
		f, err := loadAlgoFile(v)
		if err != nil {
			return l, fmt.Errorf("--%s: %w", flagName, err)
		}
		l.a, l.file = f.Algorithm, true
		return l, nil
	}
	r, err := resolve.Name(v)
	if err != nil {
		if isFile(v) {
			return l, fmt.Errorf("--%s %s: no built-in of that name; for the algorithm file write ./%s", flagName, v, v)
		}
		return l, fmt.Errorf("--%s: %w", flagName, err)
	}
	l.a = r.Algorithm
	return l, nil
}

// flag is how simrun run is given this lock.
func (l diffLock) flag() string {
	if l.file {
		return "--algo-file " + shellWord(l.arg)
	}
	return "--algo " + shellWord(l.arg)
}

// checkDiffOut refuses to overwrite the scenarios an earlier diff left in
// dir, unless force.
func checkDiffOut(dir string, force bool) error {
	if force {
		return nil
	}
	for _, h := range diff.Halves {
		name := filepath.Join(dir, diffFileName(h))
		if _, err := os.Stat(name); err == nil {
			return fmt.Errorf("%s already holds %s from an earlier diff: give another --out, or --force to overwrite it", dir, diffFileName(h))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

func diffFileName(half string) string { return "worse-" + half + ".yaml" }

// diffReport is diff's result, for people and as JSON.
type diffReport struct {
	Old     diffSide    `json:"old"`
	New     diffSide    `json:"new"`
	Faults  []string    `json:"faults"`
	Seed    uint64      `json:"seed"`
	Runs    int         `json:"runs_limit"` // each half's run-index space
	Workers int         `json:"workers"`
	Worse   bool        `json:"worse"` // a half found a run worse for the new version
	Inside  *diffHalf   `json:"inside,omitempty"`
	Outside *diffHalf   `json:"outside,omitempty"`
	halves  []*diffHalf // in the order searched
	cut     int         // runs cut, over the halves
	// Interrupted: Ctrl-C; what the runs finished show, nothing shrunk.
	Interrupted bool `json:"interrupted,omitempty"`
}

type diffSide struct {
	Lock string `json:"lock"`           // the lock's name
	File string `json:"file,omitempty"` // its algorithm file, as given
}

type diffHalf struct {
	half string
	// Runs counts the runs compared in index order, up to and including
	// the first worse one.
	Runs int `json:"runs"`
	// Worse: a run worse for the new version was found, at Run.
	Worse      bool   `json:"worse"`
	Run        *int   `json:"run,omitempty"`
	OldVerdict string `json:"old_verdict,omitempty"` // at Run
	NewVerdict string `json:"new_verdict,omitempty"`
	NewBroke   string `json:"new_safety_broken,omitempty"`
	// Same, Better and Cut count the other runs: equal verdicts, the new
	// version better, cut at a cap on either side (not compared).
	Same     int  `json:"same"`
	Better   int  `json:"better"`
	Cut      int  `json:"cut"`
	FirstCut *int `json:"first_cut,omitempty"`
	// Shrunk is the counterexample after shrinking, replayed on both with
	// every checker; Counterexample is where it was written and Replay the
	// two commands that replay it, old then new.
	Shrunk         *diffShrunk `json:"shrunk,omitempty"`
	Counterexample string      `json:"counterexample,omitempty"`
	Replay         []string    `json:"replay,omitempty"`
	yaml           []byte
}

type diffShrunk struct {
	Processes  int     `json:"processes"`
	Faults     int     `json:"faults"`
	OldVerdict string  `json:"old_verdict"`
	NewVerdict string  `json:"new_verdict"`
	NewBroke   string  `json:"new_safety_broken,omitempty"`
	Tries      int     `json:"tries"`
	Capped     bool    `json:"capped,omitempty"`
	TimedOut   bool    `json:"timed_out,omitempty"`
	Seconds    float64 `json:"seconds"`
}

func diffReportOf(r *diff.Result, oldLock, newLock diffLock, interrupted bool) diffReport {
	side := func(l diffLock) diffSide {
		s := diffSide{Lock: l.a.Name}
		if l.file {
			s.File = l.arg
		}
		return s
	}
	rep := diffReport{Old: side(oldLock), New: side(newLock), Faults: r.Classes, Seed: r.Seed, Runs: r.Limit,
		Workers: r.Workers, Worse: r.Worse(), Interrupted: interrupted}
	for _, h := range r.Halves {
		x := &diffHalf{half: h.Half, Runs: h.Runs, Same: h.Same, Better: h.Better, Cut: h.Cut}
		if h.CutAt >= 0 {
			x.FirstCut = &h.CutAt
		}
		if f := h.Found; f != nil {
			x.Worse, x.Run = true, &f.Index
			x.OldVerdict, x.NewVerdict, x.NewBroke = f.Pair.Old.Verdict, f.Pair.New.Verdict, f.Pair.New.Broke()
		}
		if c := h.Counterexample; c != nil {
			x.Shrunk = &diffShrunk{Processes: len(c.Clients), Faults: len(c.Faults),
				OldVerdict: h.Old.Verdict.Verdict, NewVerdict: h.New.Verdict.Verdict, NewBroke: h.New.Verdict.Broke(),
				Tries: h.Shrink.Tries, Capped: h.Shrink.Capped, TimedOut: h.Shrink.TimedOut, Seconds: h.Shrink.Elapsed.Seconds()}
		}
		rep.cut += h.Cut
		rep.halves = append(rep.halves, x)
		if h.Half == diff.Inside {
			rep.Inside = x
		} else {
			rep.Outside = x
		}
	}
	return rep
}

// writeDiffScenarios writes each half's shrunk scenario to
// DIR/worse-HALF.yaml and fills in where, and how to replay it.
func writeDiffScenarios(dir string, r *diff.Result, rep *diffReport) error {
	for i, h := range r.Halves {
		if h.Counterexample == nil {
			continue
		}
		data, err := scenarios.Marshal(h.Counterexample)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		path := filepath.Join(dir, diffFileName(h.Half))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		x := rep.halves[i]
		x.Counterexample = path
		x.Replay = []string{replayLine(path) + " " + diffFlag(rep.Old), replayLine(path) + " " + diffFlag(rep.New)}
	}
	return nil
}

// diffFlag is how simrun run is given a side: --algo-file or --algo.
func diffFlag(s diffSide) string {
	if s.File != "" {
		return diffLock{arg: s.File, file: true}.flag()
	}
	return diffLock{arg: s.Lock}.flag()
}

// writeDiffSummary is the result for a person. Run indices start at 0.
func writeDiffSummary(w io.Writer, r diffReport) error {
	b := &strings.Builder{}
	name := func(s diffSide) string {
		if s.File != "" {
			return s.File
		}
		return s.Lock
	}
	fmt.Fprintf(b, "diff       old %s, new %s, under %s, seed %d\n", name(r.Old), name(r.New), strings.Join(r.Faults, ","), r.Seed)
	if r.Interrupted {
		b.WriteString("stopped    interrupted (Ctrl-C): what the runs below show, nothing shrunk\n")
	}
	for _, h := range r.halves {
		fmt.Fprintf(b, "%-10s ", h.half)
		others := fmt.Sprintf("%d same, %d better for new, %d cut", h.Same, h.Better, h.Cut)
		if !h.Worse {
			fmt.Fprintf(b, "none worse for new in %s of %d (%s)\n", text.Count(h.Runs, "run", "s"), r.Runs, others)
		} else {
			fmt.Fprintf(b, "WORSE for new at run %d: old %s, new %s", *h.Run, h.OldVerdict, h.NewVerdict)
			if h.NewBroke != "" {
				b.WriteString(" (" + h.NewBroke + ")")
			}
			fmt.Fprintf(b, "; before it %s\n", others)
		}
		if h.Cut > 0 {
			fmt.Fprintf(b, "           cut: %s ended at a cap (run %d first): not compared\n", text.Count(h.Cut, "run", "s"), *h.FirstCut)
		}
		if s := h.Shrunk; s != nil {
			fmt.Fprintf(b, "           shrunk to %d process%s, %d fault%s in %.2fs: old %s, new %s",
				s.Processes, text.Plural(s.Processes, "es"), s.Faults, text.Plural(s.Faults, "s"), s.Seconds, s.OldVerdict, s.NewVerdict)
			if s.NewBroke != "" {
				b.WriteString(" (" + s.NewBroke + ")")
			}
			if s.TimedOut {
				b.WriteString(" (out of time: perhaps not minimal; raise --shrink-time)")
			}
			b.WriteString("\n")
		}
		if h.Counterexample != "" {
			fmt.Fprintf(b, "           wrote %s\n", h.Counterexample)
			fmt.Fprintf(b, "           replay old: %s\n", h.Replay[0])
			fmt.Fprintf(b, "           replay new: %s\n", h.Replay[1])
		}
	}
	switch {
	case r.Interrupted:
	case r.Worse:
		b.WriteString("verdict    WORSE: the new version fails where the old one did not\n")
	case r.cut > 0:
		b.WriteString("verdict    INCOMPLETE: none worse in the runs compared, but some were cut\n")
	default:
		b.WriteString("verdict    none worse for the new version in the runs searched\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
