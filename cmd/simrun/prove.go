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
	Delays      string       `json:"delays"`
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
}

// proveMet is a verdict met and its first schedule in canonical order.
type proveMet struct {
	Verdict  string       `json:"verdict"`
	Schedule []prove.Step `json:"schedule"`
	Path     []int        `json:"path"`
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
	workers := fs.Int("workers", 0, "parallel runs (0: one per core); the result does not depend on it")
	shard := fs.String("shard", "", "enumerate shard `i/n` of the space (split by the first choice) and print one JSON line")
	out := addOutFlag(fs, "prove-counterexample.yaml", "write the shrunk counterexample to `FILE`")
	force := fs.Bool("force", false, "overwrite an existing -o/--out FILE")
	asJSON := fs.Bool("json", false, "print one JSON object, no progress")
	merge := fs.Bool("merge", false, "combine the JSON lines of --shard runs (FILE... or stdin) into one result; give the shards' --algo or --algo-file")
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
	if *merge {
		return proveMerge(pos, a, af, *out, *force, *asJSON, *workers, stdout, stderr)
	}
	o := prove.Options{Clients: *clients, Rounds: *rounds, MaxFaults: *maxFaults, MaxDelays: *maxDelays, Workers: *workers}
	red, redErr := prove.ParseReduction(*reduce)
	o.Reduce = red
	del, delErr := prove.ParseDelays(*delays)
	o.Delays = del
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
		flagCheck{"workers", search.CheckWorkers(*workers)},
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
		MaxFaults: r.MaxFaults, MaxDelays: r.MaxDelays, Reduce: r.Reduce.String(), Delays: r.Delays.String(), TTL: r.TTL.String(), Proved: r.Proved(),
		Explored: r.Explored, Pruned: r.Pruned, Incomplete: r.Incomplete, Depth: r.Depth,
		Seconds: text.Seconds(r.Elapsed), Interrupted: r.Interrupted, Verdict: "safe", Schedule: []prove.Step{}}
	if sharded {
		rep.Shard, rep.LockSHA256 = *shard, af.sum
	}
	for _, f := range r.Met {
		rep.Met = append(rep.Met, proveMet{Verdict: f.Verdict, Schedule: f.Schedule, Path: f.Path})
	}
	if r.Found != nil {
		rep.Verdict, rep.Schedule, rep.Path = r.Found.Verdict, r.Found.Schedule, r.Found.Path
		if !sharded && !r.Interrupted { // interrupted: what was met, nothing shrunk
			if err := writeProveCounterexample(p, r.Found, af, *out); err != nil {
				return fail(stderr, "prove", err)
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
	fmt.Fprintf(b, "schedules  %d explored, %d pruned, %d incomplete, depth %d, %.1f s\n", r.Explored, r.Pruned, r.Incomplete, r.Depth, r.Seconds)
	switch {
	case r.Interrupted && len(r.Met) > 0:
		b.WriteString("result     interrupted: nothing shrunk; met so far, worst first:\n")
		for _, m := range r.Met {
			fmt.Fprintf(b, "met        %s: %s\n", strings.ToUpper(m.Verdict), stepsText(m.Schedule))
		}
	case r.Interrupted && r.Depth < 0:
		b.WriteString("result     interrupted: nothing proved\n")
	case r.Interrupted:
		fmt.Fprintf(b, "result     interrupted: nothing proved (every schedule of at most %d choices had run, none failed)\n", r.Depth)
	case r.Counterexample != "":
		fmt.Fprintf(b, "result     %s: %s\n", strings.ToUpper(r.Verdict), stepsText(r.Schedule))
		for _, m := range r.Met {
			if m.Verdict != r.Verdict {
				fmt.Fprintf(b, "also met   %s: %s\n", m.Verdict, stepsText(m.Schedule))
			}
		}
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
// of one space, each once; the counts summed; each verdict met at its first
// schedule up to the first unsafe one in canonical order (mergeMet), and
// the worst of them rebuilt from its schedule, shrunk and written to out.
func proveMerge(files []string, a locks.Algorithm, af *algoFlags, out string, force, asJSON bool, workers int, stdout, stderr io.Writer) int {
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
	m.Shard, m.LockSHA256 = "", ""
	m.Explored, m.Pruned, m.Incomplete, m.Seconds, m.Depth = 0, 0, 0, 0, 0
	m.Proved, m.Verdict, m.Schedule, m.Path = true, "safe", []prove.Step{}, nil
	var count int
	seen := map[int]bool{}
	var met []proveMet
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
			l.Reduce == m.Reduce && l.Delays == m.Delays
		switch {
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
		m.Incomplete += l.Incomplete
		m.Seconds = max(m.Seconds, l.Seconds)
		if i == 0 || l.Depth < m.Depth {
			m.Depth = l.Depth // every shard finished that pass
		}
		met = append(met, l.Met...)
		if len(l.Met) == 0 && l.Verdict != "safe" && l.Verdict != "incomplete" { // a line without met
			met = append(met, proveMet{Verdict: l.Verdict, Schedule: l.Schedule, Path: l.Path})
		}
	}
	m.Met = mergeMet(met)
	if len(seen) != count {
		return fail(stderr, "prove", fmt.Errorf("--merge: %d of %d shards given", len(seen), count))
	}
	code := exitOK
	switch {
	case len(m.Met) > 0:
		won := m.Met[0] // worst first
		m.Proved, m.Verdict, m.Schedule, m.Path = false, won.Verdict, won.Schedule, won.Path
		if err := checkOutFile(out, force); err != nil {
			return fail(stderr, "prove", err)
		}
		o := prove.Options{Clients: m.Clients, Rounds: m.Rounds, Classes: m.Faults, MaxFaults: m.MaxFaults, MaxDelays: m.MaxDelays, Workers: workers}
		if m.Reduce == "" {
			m.Reduce = prove.ReduceOff.String() // a line from before state pruning
		}
		if o.Reduce, err = prove.ParseReduction(m.Reduce); err != nil {
			return fail(stderr, "prove", fmt.Errorf("--merge: reduce: %w", err))
		}
		if m.Delays == "" {
			m.Delays = prove.DelaysAll.String() // a line from before races
		}
		if o.Delays, err = prove.ParseDelays(m.Delays); err != nil {
			return fail(stderr, "prove", fmt.Errorf("--merge: delays: %w", err))
		}
		if af.File == "" {
			o.Algorithm = a.Name
		} else {
			o.Lock = a
		}
		p, err := prove.New(o)
		if err != nil {
			return fail(stderr, "prove", err)
		}
		s, err := p.Scenario(won.Schedule)
		if err != nil {
			return fail(stderr, "prove", fmt.Errorf("--merge: %w", err))
		}
		if err := writeProveCounterexample(p, &prove.Found{Verdict: won.Verdict, Schedule: won.Schedule, Path: won.Path, Scenario: s}, af, out); err != nil {
			return fail(stderr, "prove", err)
		}
		m.Counterexample = out
		code = exitViolation
	case m.Incomplete > 0:
		m.Proved, m.Verdict = false, "incomplete"
		code = exitIncomplete
	}
	if asJSON {
		err = writeExploreJSON(stdout, m)
	} else {
		err = writeProveSummary(stdout, m)
	}
	if err != nil {
		return fail(stderr, "prove", err)
	}
	return code
}

// mergeMet is what one machine would have met: the search stops at the
// first unsafe schedule in canonical order, so a verdict counts only at or
// before it, each at its first schedule; worst first.
func mergeMet(all []proveMet) []proveMet {
	var stop []int
	for _, x := range all {
		if x.Verdict == model.VerdictUnsafe && (stop == nil || pathBefore(x.Path, stop)) {
			stop = x.Path
		}
	}
	var out []proveMet
	for _, x := range all {
		if stop != nil && pathBefore(stop, x.Path) {
			continue // past the stop: another shard stopped before it
		}
		k := slices.IndexFunc(out, func(y proveMet) bool { return y.Verdict == x.Verdict })
		switch {
		case k < 0:
			out = append(out, x)
		case pathBefore(x.Path, out[k].Path):
			out[k] = x
		}
	}
	slices.SortFunc(out, func(a, b proveMet) int { return model.Rank(b.Verdict) - model.Rank(a.Verdict) })
	return out
}

// pathBefore says whether schedule path a comes before b in canonical
// order: fewer choices first, then by child index at each level.
func pathBefore(a, b []int) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return slices.Compare(a, b) < 0
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
