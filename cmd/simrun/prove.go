package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/prove"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
)

// proveJSON is what prove prints with --json, and as one line per shard.
type proveJSON struct {
	Algorithm string   `json:"algorithm"`
	Clients   int      `json:"clients"`
	Rounds    int      `json:"rounds"`
	Faults    []string `json:"faults"`
	MaxFaults int      `json:"max_faults"`
	MaxDelays int      `json:"max_delays"`
	// Reduce is the state pruning used: shards merge only with their
	// like, since a pruned point shifts the canonical positions after it.
	Reduce string `json:"reduce"`
	// Delays says where delays were offered: shards merge only with their
	// like, as for Reduce.
	Delays string `json:"delays"`
	// Jumps, Unrun and JumpsRan are there with --jumps unread (the
	// default) only: --jumps run's output is as before the flag. Shards
	// merge only with their like.
	Jumps       string       `json:"jumps,omitempty"`
	Unrun       int64        `json:"unrun,omitempty"`
	JumpsRan    int64        `json:"jumps_ran,omitempty"`
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
	// Met is the first schedule of every failing verdict met, worst first
	// (the one above among them): the enumeration stops only at unsafe.
	Met []proveMet `json:"met,omitempty"`
	// Counterexample is the shrunk scenario file written, "" when none.
	Counterexample string `json:"counterexample"`
	// LockSHA256 is the --algo-file's sum, in a shard's line.
	LockSHA256 string `json:"lock_sha256,omitempty"`
	// Bounds and Parameters are what the result holds for: the space
	// enumerated and what each of its schedules holds fixed.
	Bounds     proveBounds `json:"bounds"`
	Parameters proveParams `json:"parameters"`
	// FailOn is which answer the exit status follows: inside or any.
	FailOn string `json:"fail_on,omitempty"`
	// Inside and Outside answer each side of the lock's assumptions.
	Inside  proveAnswer `json:"inside"`
	Outside proveAnswer `json:"outside"`
}

// proveBounds is the space: its sizes, its menu and its reductions.
type proveBounds struct {
	Clients   int                `json:"clients"`
	Rounds    int                `json:"rounds"`
	Faults    []string           `json:"faults"`
	MaxFaults int                `json:"max_faults"`
	MaxDelays int                `json:"max_delays"`
	Delays    string             `json:"delays"`
	Reduce    string             `json:"reduce"`
	Jumps     string             `json:"jumps,omitempty"` // --jumps unread only
	Menu      []prove.MenuChoice `json:"menu"`
}

// proveParams are prove.Parameters, durations as Go writes them.
type proveParams struct {
	TTL         string `json:"ttl"`
	Lifetime    string `json:"lifetime"`
	Work        string `json:"work"`
	Think       string `json:"think"`
	Latency     string `json:"latency"`
	LossTimeout string `json:"loss_timeout"`
	Key         string `json:"key"`
	Retries     int    `json:"retries"`
	RetrySleep  string `json:"retry_sleep"`
	Nodes       int    `json:"nodes"`
	Clocks      string `json:"clocks"`
	Seed        uint64 `json:"seed"`
	Duration    string `json:"duration"`
}

// proveAnswer is one side's answer.
type proveAnswer struct {
	// Verdict is the worst met on this side; "safe" when none, and
	// "incomplete" when a schedule of it was cut at a cap.
	Verdict    string       `json:"verdict"`
	Proved     *bool        `json:"proved,omitempty"` // inside only: proved within bounds
	Schedules  int64        `json:"schedules"`
	Incomplete int64        `json:"incomplete"`
	Skipped    int64        `json:"skipped,omitempty"`
	Schedule   []prove.Step `json:"schedule"`
	Path       []int        `json:"path,omitempty"`
	// Breaks is the assumption the outside schedule breaks.
	Breaks         string              `json:"breaks,omitempty"`
	Met            []proveMet          `json:"met,omitempty"`
	Counterexample string              `json:"counterexample"`
	NeverInside    []prove.NeverInside `json:"never_inside,omitempty"`
	// Base is, inside, the assumption even the fault-free schedule breaks.
	Base string `json:"base,omitempty"`
}

// proveMet is a verdict met and its first schedule in canonical order.
type proveMet struct {
	Verdict  string       `json:"verdict"`
	Schedule []prove.Step `json:"schedule"`
	Path     []int        `json:"path"`
	Breaks   string       `json:"breaks,omitempty"` // outside: the assumption it breaks
}

func cmdProve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("prove", flag.ContinueOnError)
	af := addAlgoFlags(fs, "the algorithm to prove (see 'simrun list'); this or --algo-file is required")
	clients := fs.Int("clients", 2, "`N` clients")
	rounds := fs.Int("rounds", 2, "`R` acquire → critical section → release rounds per client")
	faults := fs.String("faults", "all", proveFaultsHelp())
	maxFaults := fs.Int("max-faults", 1, "at most `K` faults in one schedule")
	maxDelays := fs.Int("max-delays", 1, "at most `D` delays (reorderings) in one schedule, besides the faults")
	reduce := fs.String("reduce", "history", "state pruning: `R` is history (state and whole past), summary (state and the lock's story) or off")
	delays := fs.String("delays", "races", "where delays are offered: `W` is races (where one reorders an event with a conflicting one) or all (every point)")
	jumps := fs.String("jumps", "unread", "schedules with a client's clock jump: `W` is unread (one whose client never reads its clock after the jump, in the run of the schedule without it, takes that run's verdict unrun) or run (every one)")
	workers := fs.Int("workers", 0, "parallel runs (0: one per core); the result does not depend on it")
	shard := fs.String("shard", "", "enumerate shard `i/n` of the space (split by the first choice) and print one JSON line")
	out := addOutFlag(fs, "prove-counterexample.yaml", "write the shrunk inside counterexample to `FILE`, the outside one to FILE-outside")
	force := fs.Bool("force", false, "overwrite an existing -o/--out FILE")
	asJSON := fs.Bool("json", false, "print one JSON object, no progress")
	merge := fs.Bool("merge", false, "combine the JSON lines of --shard runs (FILE... or stdin) into one result; give the shards' --algo or --algo-file")
	work := fs.Duration("work", 0, "each critical section holds for `D` (0: TTL/10, or the lock's retry sleep if shorter)")
	latency := fs.Duration("latency", 0, "the network's fixed latency each way, `D` (0: 1ms); the delays are 1ns, D and 2D")
	ttl := fs.Duration("ttl", 0, "the lock's TTL, `D` (0: the lock's own); the menu's pauses and jumps scale to it")
	failOn := fs.String("fail-on", "inside", "exit 1 on a violation `W`: inside the lock's assumptions, or any (also outside)")
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	bad := func(flagName string, err error) int {
		return fail(stderr, "prove", fmt.Errorf("--%s: %v", flagName, err))
	}
	if len(pos) != 0 && !*merge {
		return fail(stderr, "prove", fmt.Errorf("takes no arguments, got %q", pos))
	}
	a, err := af.resolve()
	if err != nil {
		return fail(stderr, "prove", err)
	}
	if err := checkFailOn(*failOn); err != nil {
		return bad("fail-on", err)
	}
	if *merge {
		return proveMerge(pos, a, af, *out, *force, *asJSON, *workers, *failOn, stdout, stderr)
	}
	o := prove.Options{Clients: *clients, Rounds: *rounds, MaxFaults: *maxFaults, MaxDelays: *maxDelays, Workers: *workers,
		Work: *work, Latency: *latency, TTL: *ttl}
	red, redErr := prove.ParseReduction(*reduce)
	o.Reduce = red
	del, delErr := prove.ParseDelays(*delays)
	o.Delays = del
	jmp, jmpErr := prove.ParseJumps(*jumps)
	o.Jumps = jmp
	if af.File == "" {
		o.Algorithm = a.Name
	} else {
		o.Lock = a
	}
	if o.Classes, err = prove.ParseClasses(*faults); err != nil {
		return bad("faults", err)
	}
	if name, err := firstBad(
		flagCheck{"clients", prove.CheckClients(*clients)},
		flagCheck{"rounds", prove.CheckRounds(*rounds)},
		flagCheck{"max-faults", prove.CheckMaxFaults(*maxFaults)},
		flagCheck{"max-delays", prove.CheckMaxDelays(*maxDelays)},
		flagCheck{"reduce", redErr},
		flagCheck{"delays", delErr},
		flagCheck{"jumps", jmpErr},
		flagCheck{"workers", search.ValidateWorkers(*workers)},
		flagCheck{"work", prove.CheckWork(*work)},
		flagCheck{"latency", prove.CheckLatency(*latency)},
		flagCheck{"ttl", prove.CheckTTL(a, *ttl)},
	); err != nil {
		return bad(name, err)
	}
	sharded := *shard != ""
	if sharded {
		if o.Shard, err = search.ParseShard(*shard); err != nil {
			return bad("shard", err)
		}
	} else if err := checkOutFile(*out, *force); err != nil {
		return fail(stderr, "prove", err)
	} else if err := checkOutFile(outsideFile(*out), *force); err != nil {
		return fail(stderr, "prove", err)
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
	rep := proveReport(r, *failOn)
	if sharded {
		rep.Shard, rep.LockSHA256 = *shard, af.sum
	} else if !r.Interrupted { // interrupted: what was met, nothing shrunk
		for _, c := range []struct {
			ans  *proveAnswer
			f    *prove.Found
			file string
		}{{&rep.Inside, r.Inside.Found, *out}, {&rep.Outside, r.Outside.Found, outsideFile(*out)}} {
			if c.f == nil {
				continue
			}
			if err := writeProveCounterexample(p, c.f, af, c.file); err != nil {
				return fail(stderr, "prove", err)
			}
			c.ans.Counterexample = c.file
		}
		rep.Counterexample = topCounterexample(rep)
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
	if r.Interrupted {
		return exitInterrupted
	}
	return proveExit(rep)
}

// checkFailOn reads --fail-on.
func checkFailOn(w string) error {
	if w != failOnInside && w != failOnAny {
		return fmt.Errorf("%q is not %s or %s", w, failOnInside, failOnAny)
	}
	return nil
}

// --fail-on's words: the exit status follows the inside answer (a correct
// TTL lock exits 0), or any violation, inside or outside.
const (
	failOnInside = "inside"
	failOnAny    = "any"
)

// proveExit is the exit status of a finished result: 1 on a violation of
// the answer --fail-on names, else 3 when that answer was cut at a cap or,
// inside, had no schedule to judge; else 0.
func proveExit(r proveJSON) int {
	if r.FailOn == failOnAny {
		switch {
		case len(r.Met) > 0:
			return exitViolation
		case r.Incomplete > 0:
			return exitIncomplete
		}
		return exitOK
	}
	switch {
	case len(r.Inside.Met) > 0:
		return exitViolation
	case r.Inside.Incomplete > 0 || r.Inside.Schedules == 0:
		return exitIncomplete
	}
	return exitOK
}

// outsideFile is where the outside counterexample goes, beside -o FILE's
// inside one: prove-counterexample.yaml, prove-counterexample-outside.yaml.
func outsideFile(out string) string {
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + "-outside" + ext
}

// topCounterexample is the file of the worst verdict met on either side
// (the top-level verdict), "" when none was written.
func topCounterexample(r proveJSON) string {
	if len(r.Met) == 0 {
		return ""
	}
	if r.Met[0].Breaks != "" {
		return r.Outside.Counterexample
	}
	return r.Inside.Counterexample
}

// proveReport is a result as prove prints it, before any file is written.
func proveReport(r *prove.Result, failOn string) proveJSON {
	pm := r.Params
	rep := proveJSON{Algorithm: r.Algorithm, Clients: r.Clients, Rounds: r.Rounds, Faults: r.Classes,
		MaxFaults: r.MaxFaults, MaxDelays: r.MaxDelays, Reduce: r.Reduce.String(), Delays: r.Delays.String(), TTL: r.TTL.String(), Proved: r.Proved(),
		Explored: r.Explored, Pruned: r.Pruned, Incomplete: r.Incomplete, Depth: r.Depth,
		Seconds: text.Seconds(r.Elapsed), Interrupted: r.Interrupted, Verdict: "safe", Schedule: []prove.Step{},
		Bounds: proveBounds{Clients: r.Clients, Rounds: r.Rounds, Faults: r.Classes, MaxFaults: r.MaxFaults, MaxDelays: r.MaxDelays,
			Delays: r.Delays.String(), Reduce: r.Reduce.String(), Menu: r.Menu},
		Parameters: proveParams{TTL: pm.TTL.String(), Lifetime: pm.Lifetime.String(), Work: pm.Work.String(), Think: "0s",
			Latency: pm.Latency.String(), LossTimeout: pm.LossTimeout.String(), Key: pm.Key, Retries: pm.Retries,
			RetrySleep: pm.RetrySleep.String(), Nodes: pm.Nodes, Clocks: "exact: no offset, no drift", Seed: pm.Seed, Duration: pm.Duration.String()},
		FailOn: failOn,
		Inside: answerJSON(r.Inside), Outside: answerJSON(r.Outside)}
	rep.Met = metJSON(r.Met)
	if r.Jumps != prove.JumpsRun {
		rep.Jumps, rep.Bounds.Jumps, rep.Unrun, rep.JumpsRan = r.Jumps.String(), r.Jumps.String(), r.Unrun, r.JumpsRan
	}
	if r.Found != nil {
		rep.Verdict, rep.Schedule, rep.Path = r.Found.Verdict, r.Found.Schedule, r.Found.Path
	} else if r.Incomplete > 0 {
		rep.Verdict = "incomplete"
	}
	proved := r.ProvedInside()
	rep.Inside.Proved = &proved
	rep.Inside.NeverInside = r.NeverInside
	rep.Inside.Base = r.BaseOutside
	return rep
}

func answerJSON(a prove.Answer) proveAnswer {
	out := proveAnswer{Verdict: "safe", Schedules: a.Schedules, Incomplete: a.Incomplete, Skipped: a.Skipped, Schedule: []prove.Step{}, Met: metJSON(a.Met)}
	switch {
	case a.Found != nil:
		out.Verdict, out.Schedule, out.Path, out.Breaks = a.Found.Verdict, a.Found.Schedule, a.Found.Path, a.Found.Outside
	case a.Incomplete > 0:
		out.Verdict = "incomplete"
	}
	return out
}

func metJSON(met []prove.Found) []proveMet {
	var out []proveMet
	for _, f := range met {
		out = append(out, proveMet{Verdict: f.Verdict, Schedule: f.Schedule, Path: f.Path, Breaks: f.Outside})
	}
	return out
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
	where := ""
	if r.MaxDelays > 0 && r.Delays == prove.DelaysRaces.String() {
		where = " where they race"
	}
	fmt.Fprintf(b, "prove      %s, %d clients × %d rounds, faults %s, K=%d faults + %d delays%s (TTL %s)\n",
		r.Algorithm, r.Clients, r.Rounds, strings.Join(r.Faults, ","), r.MaxFaults, r.MaxDelays, where, r.TTL)
	writeProveBounds(b, r)
	fmt.Fprintf(b, "schedules  %d explored, %d pruned, %d incomplete, depth %d, %.1f s\n", r.Explored, r.Pruned, r.Incomplete, r.Depth, r.Seconds)
	if r.Jumps != "" && slices.Contains(r.Faults, prove.ClassClientJump) { // no jumps, nothing to say
		fmt.Fprintf(b, "jumps      %s: %d of them taken unrun (a clock jump its client never read after), %d ending in a jump ran\n", r.Jumps, r.Unrun, r.JumpsRan)
	}
	switch {
	case r.Interrupted && len(r.Met) > 0:
		b.WriteString("result     interrupted: nothing shrunk; met so far, worst first:\n")
		for _, m := range r.Met {
			fmt.Fprintf(b, "met        %s: %s%s\n", strings.ToUpper(m.Verdict), stepsText(m.Schedule), sideText(m.Breaks))
		}
	case r.Interrupted && r.Depth < 0:
		b.WriteString("result     interrupted: nothing proved\n")
	case r.Interrupted:
		fmt.Fprintf(b, "result     interrupted: nothing proved (every schedule of at most %d choices had run, none failed)\n", r.Depth)
	default:
		writeProveAnswers(b, r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeProveBounds writes what the result holds for: the menu and the
// reductions, and every parameter the space held fixed.
func writeProveBounds(b *strings.Builder, r proveJSON) {
	var menu, delays []string
	for _, c := range r.Bounds.Menu {
		if c.Class == "" {
			delays = append(delays, strings.TrimPrefix(c.Choice, "delay "))
			continue
		}
		if c.Size != "" && !strings.HasSuffix(c.Choice, c.Size) {
			menu = append(menu, c.Choice+" = "+c.Size)
		} else {
			menu = append(menu, c.Choice)
		}
	}
	if r.MaxFaults == 0 || len(menu) == 0 {
		menu = []string{"no faults"}
	}
	if r.MaxDelays == 0 {
		delays = []string{"none"}
	}
	fmt.Fprintf(b, "menu       %s; delays %s; reduce %s\n", strings.Join(menu, ", "), strings.Join(delays, ", "), r.Reduce)
	pm := r.Parameters
	retries := "retries for ever"
	if pm.Retries > 0 {
		retries = fmt.Sprintf("%d tries", pm.Retries)
	}
	fmt.Fprintf(b, "fixed      work %s, no think time, latency %s each way (no jitter, no loss but the menu's), lost command timed out after %s,\n",
		pm.Work, pm.Latency, pm.LossTimeout)
	fmt.Fprintf(b, "           TTL %s (lifetime %s), key %s, %s %s apart, %d node(s), clocks exact, seed %d, runs capped at %s\n",
		pm.TTL, pm.Lifetime, pm.Key, retries, pm.RetrySleep, pm.Nodes, pm.Seed, pm.Duration)
	fmt.Fprintf(b, "assumed    the lock's own (scenarios.InsideOf): a violation inside them is a bug, outside them the known limit\n")
}

// sideText says which side of the assumptions a schedule lies on.
func sideText(breaks string) string {
	if breaks == "" {
		return " (inside)"
	}
	return " (outside: " + breaks + ")"
}

// writeProveAnswers writes the inside and outside answers, what else each
// met, and the counterexamples written.
func writeProveAnswers(b *strings.Builder, r proveJSON) {
	in, out := r.Inside, r.Outside
	switch {
	case len(in.Met) > 0:
		fmt.Fprintf(b, "inside     %s: %s: a bug, inside the lock's assumptions\n", strings.ToUpper(in.Verdict), stepsText(in.Schedule))
	case in.Schedules == 0:
		fmt.Fprintf(b, "inside     not proved: no schedule of this space is inside the lock's assumptions (fault-free: %s)\n", in.Base)
	case in.Incomplete > 0:
		fmt.Fprintf(b, "inside     not proved: %d of %d schedules inside the assumptions were cut at a cap\n", in.Incomplete, in.Schedules)
	case len(in.NeverInside) == len(r.Faults) && len(r.Faults) > 0 && r.MaxFaults > 0:
		fmt.Fprintf(b, "inside     proved within bounds without faults only: %d schedules inside, none breaks the lock; no fault of the menu stays inside\n", in.Schedules)
	default:
		fmt.Fprintf(b, "inside     proved within bounds: %d schedules inside the assumptions, none breaks the lock\n", in.Schedules)
	}
	for _, n := range in.NeverInside {
		fmt.Fprintf(b, "           %s is never inside: %s\n", n.Class, n.Why)
	}
	switch {
	case len(out.Met) > 0:
		fmt.Fprintf(b, "outside    %s: %s\n           breaks: %s\n", strings.ToUpper(out.Verdict), stepsText(out.Schedule), out.Breaks)
	case out.Schedules == 0:
		b.WriteString("outside    no schedule of this space leaves the lock's assumptions\n")
	case out.Incomplete > 0:
		fmt.Fprintf(b, "outside    nothing broke the lock; %d of %d schedules outside were cut at a cap\n", out.Incomplete, out.Schedules)
	default:
		fmt.Fprintf(b, "outside    nothing broke the lock in %d schedules outside its assumptions\n", out.Schedules)
	}
	for _, c := range []struct {
		name string
		a    proveAnswer
	}{{"inside", in}, {"outside", out}} {
		for _, m := range c.a.Met {
			if m.Verdict != c.a.Verdict {
				fmt.Fprintf(b, "also met   %s %s: %s\n", c.name, m.Verdict, stepsText(m.Schedule))
			}
		}
	}
	for _, c := range []struct{ name, file string }{{"inside", in.Counterexample}, {"outside", out.Counterexample}} {
		if c.file != "" {
			fmt.Fprintf(b, "shrunk     %s: %s\nreplay     %s\n", c.name, c.file, replayLine(c.file))
		}
	}
}

func proveProgress(w io.Writer) func(prove.Progress) {
	return func(p prove.Progress) {
		rate := float64(p.Explored) / max(p.Elapsed.Seconds(), 1e-9)
		fmt.Fprintf(w, "\r\033[Kproving  %d schedules explored  %d pruned  %.0f/s  depth %d  %s", p.Explored, p.Pruned, rate, p.Depth, p.Elapsed.Round(100*time.Millisecond))
	}
}

// writeProveCounterexample shrinks the found schedule and writes it to out.
func writeProveCounterexample(p *prove.Prover, f *prove.Found, af *algoFlags, out string) error {
	s, _, _, err := p.Shrink(f)
	if err != nil {
		return err
	}
	s.Summary = "found by simrun prove: " + stepsText(f.Schedule)
	data, err := af.marshalScenario(s, filepath.Dir(out))
	if err == nil {
		err = os.WriteFile(out, data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	return nil
}

// proveMerge combines the lines of 'prove --shard i/n' runs: every shard
// of one space and one set of parameters, each once; the counts summed;
// on each side of the lock's assumptions, each verdict met at its first
// schedule up to where one machine would have stopped (mergeMet), and the
// worst of each side rebuilt from its schedule, shrunk and written out.
func proveMerge(files []string, a locks.Algorithm, af *algoFlags, out string, force, asJSON bool, workers int, failOn string, stdout, stderr io.Writer) int {
	var lines []proveJSON
	err := readInputs(files, func(name string, rd io.Reader) error {
		dec := json.NewDecoder(rd)
		dec.DisallowUnknownFields()
		for n := 1; ; n++ {
			var l proveJSON
			if err := dec.Decode(&l); err == io.EOF {
				return nil
			} else if err != nil {
				return fmt.Errorf("--merge: %s: line %d: not a prove --shard line: %v", name, n, err)
			}
			lines = append(lines, l)
		}
	})
	if err != nil {
		return fail(stderr, "prove", err)
	}
	if len(lines) == 0 {
		return fail(stderr, "prove", errors.New("--merge: no shard lines"))
	}
	m := lines[0]
	m.Shard, m.LockSHA256, m.FailOn = "", "", failOn
	m.Explored, m.Pruned, m.Incomplete, m.Seconds, m.Depth, m.Unrun, m.JumpsRan = 0, 0, 0, 0, 0, 0, 0
	m.Proved, m.Verdict, m.Schedule, m.Path = true, "safe", []prove.Step{}, nil
	m.Inside, m.Outside = proveAnswer{Base: m.Inside.Base, NeverInside: m.Inside.NeverInside}, proveAnswer{}
	var count int
	seen := map[int]bool{}
	var inMet, outMet []proveMet
	for i := range lines {
		l := &lines[i]
		sh, err := search.ParseShard(l.Shard)
		if err != nil {
			return fail(stderr, "prove", fmt.Errorf("--merge: line %d: shard %q: %v", i+1, l.Shard, err))
		}
		idx, n := sh.Index, sh.Count
		if count == 0 {
			count = n
		}
		same := l.Algorithm == m.Algorithm && l.Clients == m.Clients && l.Rounds == m.Rounds &&
			strings.Join(l.Faults, ",") == strings.Join(m.Faults, ",") && l.MaxFaults == m.MaxFaults && l.MaxDelays == m.MaxDelays &&
			l.Reduce == m.Reduce && l.Delays == m.Delays && l.Jumps == m.Jumps && reflect.DeepEqual(l.Bounds, m.Bounds)
		switch {
		case l.Parameters.Work == "":
			return fail(stderr, "prove", fmt.Errorf("--merge: line %d (shard %s) names no parameters: it is from an older simrun; run the shard again", i+1, l.Shard))
		case l.Parameters != m.Parameters:
			return fail(stderr, "prove", fmt.Errorf("--merge: line %d (shard %s) ran other parameters (%s) than line 1 (%s)", i+1, l.Shard, paramsText(l.Parameters), paramsText(m.Parameters)))
		case !same || n != count:
			return fail(stderr, "prove", fmt.Errorf("--merge: line %d (shard %s) is of another space or split", i+1, l.Shard))
		case seen[idx]:
			return fail(stderr, "prove", fmt.Errorf("--merge: shard %d/%d given twice", idx, n))
		case l.Interrupted:
			return fail(stderr, "prove", fmt.Errorf("--merge: shard %s was interrupted", l.Shard))
		case l.Algorithm != a.Name || l.LockSHA256 != af.sum:
			return fail(stderr, "prove", fmt.Errorf("--merge: shard %s ran %s (sum %q), not the lock given", l.Shard, l.Algorithm, l.LockSHA256))
		}
		seen[idx] = true
		m.Explored += l.Explored
		m.Pruned += l.Pruned
		m.Unrun += l.Unrun
		m.JumpsRan += l.JumpsRan
		m.Incomplete += l.Incomplete
		m.Seconds = max(m.Seconds, l.Seconds)
		if i == 0 || l.Depth < m.Depth {
			m.Depth = l.Depth // every shard finished that pass
		}
		for _, c := range []struct{ into, from *proveAnswer }{{&m.Inside, &l.Inside}, {&m.Outside, &l.Outside}} {
			c.into.Schedules += c.from.Schedules
			c.into.Incomplete += c.from.Incomplete
			c.into.Skipped += c.from.Skipped
		}
		inMet, outMet = append(inMet, l.Inside.Met...), append(outMet, l.Outside.Met...)
		// A class is never inside only if it is so in every shard.
		m.Inside.NeverInside = slices.DeleteFunc(m.Inside.NeverInside, func(n prove.NeverInside) bool {
			return !slices.ContainsFunc(l.Inside.NeverInside, func(k prove.NeverInside) bool { return k.Class == n.Class })
		})
	}
	if len(seen) != count {
		return fail(stderr, "prove", fmt.Errorf("--merge: %d of %d shards given", len(seen), count))
	}
	// One machine stops at the first inside unsafe schedule, and runs no
	// outside one after the first outside unsafe one.
	inStop := unsafeStop(inMet)
	outStop := unsafeStop(outMet)
	if inStop != nil && (outStop == nil || prove.PathBefore(inStop, outStop)) {
		outStop = inStop
	}
	m.Inside.Met, m.Outside.Met = mergeMet(inMet, inStop), mergeMet(outMet, outStop)
	m.Met = mergeMet(append(slices.Clone(m.Inside.Met), m.Outside.Met...), nil)
	for _, ans := range []*proveAnswer{&m.Inside, &m.Outside} {
		ans.Verdict, ans.Schedule = "safe", []prove.Step{}
		if len(ans.Met) > 0 {
			w := ans.Met[0]
			ans.Verdict, ans.Schedule, ans.Path, ans.Breaks = w.Verdict, w.Schedule, w.Path, w.Breaks
		} else if ans.Incomplete > 0 {
			ans.Verdict = "incomplete"
		}
	}
	proved := len(m.Inside.Met) == 0 && m.Inside.Incomplete == 0 && m.Inside.Schedules > 0
	m.Inside.Proved = &proved
	switch {
	case len(m.Met) > 0:
		won := m.Met[0] // worst first
		m.Proved, m.Verdict, m.Schedule, m.Path = false, won.Verdict, won.Schedule, won.Path
	case m.Incomplete > 0:
		m.Proved, m.Verdict = false, "incomplete"
	}
	if len(m.Met) > 0 {
		p, err := mergedProver(m, a, af, workers)
		if err != nil {
			return fail(stderr, "prove", err)
		}
		for _, c := range []struct {
			ans  *proveAnswer
			file string
		}{{&m.Inside, out}, {&m.Outside, outsideFile(out)}} {
			if len(c.ans.Met) == 0 {
				continue
			}
			if err := checkOutFile(c.file, force); err != nil {
				return fail(stderr, "prove", err)
			}
			won := c.ans.Met[0]
			s, err := p.Scenario(won.Schedule)
			if err != nil {
				return fail(stderr, "prove", fmt.Errorf("--merge: %w", err))
			}
			f := &prove.Found{Verdict: won.Verdict, Schedule: won.Schedule, Path: won.Path, Scenario: s, Outside: won.Breaks}
			if err := writeProveCounterexample(p, f, af, c.file); err != nil {
				return fail(stderr, "prove", err)
			}
			c.ans.Counterexample = c.file
		}
		m.Counterexample = topCounterexample(m)
	}
	if asJSON {
		err = writeExploreJSON(stdout, m)
	} else {
		err = writeProveSummary(stdout, m)
	}
	if err != nil {
		return fail(stderr, "prove", err)
	}
	return proveExit(m)
}

// mergedProver is the prover of the merged lines' space and parameters,
// which rebuilds and shrinks their schedules.
func mergedProver(m proveJSON, a locks.Algorithm, af *algoFlags, workers int) (*prove.Prover, error) {
	o := prove.Options{Clients: m.Clients, Rounds: m.Rounds, Classes: m.Faults, MaxFaults: m.MaxFaults, MaxDelays: m.MaxDelays, Workers: workers}
	var err error
	if o.Reduce, err = prove.ParseReduction(m.Reduce); err != nil {
		return nil, fmt.Errorf("--merge: reduce: %w", err)
	}
	if o.Delays, err = prove.ParseDelays(m.Delays); err != nil {
		return nil, fmt.Errorf("--merge: delays: %w", err)
	}
	if m.Jumps != "" {
		if o.Jumps, err = prove.ParseJumps(m.Jumps); err != nil {
			return nil, fmt.Errorf("--merge: jumps: %w", err)
		}
	}
	for _, d := range []struct {
		field, value string
		into         *time.Duration
	}{{"work", m.Parameters.Work, &o.Work}, {"latency", m.Parameters.Latency, &o.Latency}, {"ttl", m.Parameters.TTL, &o.TTL}} {
		if *d.into, err = time.ParseDuration(d.value); err != nil {
			return nil, fmt.Errorf("--merge: parameters.%s: %w", d.field, err)
		}
	}
	if af.File == "" {
		o.Algorithm = a.Name
	} else {
		o.Lock = a
	}
	return prove.New(o)
}

// paramsText is a shard's parameters in a line.
func paramsText(p proveParams) string {
	return fmt.Sprintf("work %s, latency %s, TTL %s", p.Work, p.Latency, p.TTL)
}

// unsafeStop is the path of the first unsafe schedule in canonical order,
// nil when none.
func unsafeStop(all []proveMet) []int {
	var stop []int
	for _, x := range all {
		if x.Verdict == model.VerdictUnsafe && (stop == nil || prove.PathBefore(x.Path, stop)) {
			stop = x.Path
		}
	}
	return stop
}

// mergeMet is what one machine would have met: a verdict counts only at
// or before stop (nil: everywhere), each at its first schedule; worst
// first.
func mergeMet(all []proveMet, stop []int) []proveMet {
	var out []proveMet
	for _, x := range all {
		if stop != nil && prove.PathBefore(stop, x.Path) {
			continue // past the stop: another shard stopped before it
		}
		k := slices.IndexFunc(out, func(y proveMet) bool { return y.Verdict == x.Verdict })
		switch {
		case k < 0:
			out = append(out, x)
		case prove.PathBefore(x.Path, out[k].Path):
			out[k] = x
		}
	}
	slices.SortFunc(out, func(a, b proveMet) int { return model.Rank(b.Verdict) - model.Rank(a.Verdict) })
	return out
}

// proveFaultsHelp is --faults' help: every class of the one vocabulary,
// those prove takes (a class made of others with its parts) and those it
// refuses, as simrun list shows them.
func proveFaultsHelp() string {
	var taken, refused []string
	isPart := map[string]bool{}
	for _, c := range scenarios.Vocabulary {
		for _, p := range c.Parts {
			isPart[p] = true
		}
	}
	for _, c := range scenarios.Vocabulary {
		switch {
		case c.NotProved != "":
			refused = append(refused, c.Name)
		case len(c.Parts) > 0:
			taken = append(taken, c.Name+" ("+strings.Join(c.Parts, ", ")+")")
		case !isPart[c.Name]:
			taken = append(taken, c.Name)
		}
	}
	return "fault classes, comma-separated, or all: " + strings.Join(taken, ", ") +
		"; not " + strings.Join(refused, ", ") + " (see simrun list)"
}
