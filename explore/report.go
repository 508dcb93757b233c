package explore

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
)

// Report is the stable JSON of an exploration, one shard's or a merged
// one. Later versions only add fields.
type Report struct {
	Algorithm string   `json:"algorithm"`
	Faults    []string `json:"faults"`
	Seed      uint64   `json:"seed"`
	RunsLimit int      `json:"runs_limit"` // the run-index space, [0, runs_limit)
	// Runs counts runs in index order up to and including the one that
	// stopped the search (StoppedAt), or all of them; a shard counts its
	// own. The same whatever the workers.
	Runs       int     `json:"runs"`
	RunsPerSec float64 `json:"runs_per_sec"` // timing: not part of the result
	// Executed counts the runs the workers executed, some past StoppedAt:
	// timing, not part of the result.
	Executed int  `json:"executed,omitempty"`
	Found    bool `json:"found"`
	// Interrupted: the search was stopped (Ctrl-C) before its end; the
	// fields describe the runs finished in index order.
	Interrupted bool `json:"interrupted,omitempty"`
	// StoppedAt is the index of the run that ended the search (the first
	// unsafe one, or the first of the --verdict kinds); null when the search
	// ran out of runs.
	StoppedAt *int `json:"stopped_at"`
	// Verdicts is every failing verdict met, by name, at its first run,
	// and incomplete when a run was cut at a cap before it found anything;
	// the fields beside it describe the worst one.
	Verdicts map[string]VerdictReport `json:"verdicts,omitempty"`
	// IncompleteRuns counts the runs (up to StoppedAt) cut at a cap before
	// they found anything: what they show covers only their prefixes, so a
	// search that found nothing else is incomplete (verdict "incomplete"),
	// not safe. IncompleteAt lists them on a shard's line, for merge.
	IncompleteRuns int   `json:"incomplete_runs"`
	IncompleteAt   []int `json:"incomplete_at,omitempty"`
	// VacuousRuns counts the runs (up to StoppedAt) that had faults planned
	// and none of which touched the lock (sim.Result.Vacuous): nothing found
	// in them says anything about those faults. VacuousAt lists them on a
	// shard's line, for merge.
	VacuousRuns int   `json:"vacuous_runs"`
	VacuousAt   []int `json:"vacuous_at,omitempty"`
	// FirstFoundAfterRuns is the worst verdict's first run index + 1: its
	// place in the whole run order, sharded or not.
	FirstFoundAfterRuns *int     `json:"first_found_after_runs"`
	SecondsToFirst      *float64 `json:"seconds_to_first"` // timing
	// Verdict is the worst verdict found; when nothing counted was found,
	// the worst met (worstMet): safe, incomplete, or with --verdict a kind
	// met but not counted (Found false).
	Verdict string `json:"verdict"`
	// SafetyBroken is, when Verdict is unsafe, which safety its first run
	// broke (model.Verdict.Broke): "lost update", "overlap, resource safe"
	// or "lock broken, resource safe" (Shrunk.SafetyBroken: the shrunk
	// run's).
	SafetyBroken string `json:"safety_broken,omitempty"`
	// Counterexample is the path of the counterexample file, when one was
	// written.
	Counterexample *string `json:"counterexample"`
	Shrunk         *Shrunk `json:"shrunk"`
	ShrinkSeconds  float64 `json:"shrink_seconds,omitempty"` // timing
	// ShrinkTimedOut: shrinking ran out of time, so the counterexample may
	// not be minimal, nor the same on a slower machine.
	ShrinkTimedOut bool `json:"shrink_timed_out,omitempty"`
	// ShrinkCapped: shrinking used its whole budget of runs; the
	// counterexample is the smallest found within it (the same anywhere).
	ShrinkCapped bool   `json:"shrink_capped,omitempty"`
	Workers      int    `json:"workers,omitempty"`
	Shard        string `json:"shard,omitempty"`  // "i/n" on a shard's line
	Shards       int    `json:"shards,omitempty"` // on a merged result: how many shards
	// ScenarioYAML is the counterexample itself, on a shard's line, so that
	// merge can write the winning one.
	ScenarioYAML string `json:"scenario_yaml,omitempty"`
	// LockSHA256 is, on a shard's line of an algorithm file's search, the
	// file's sha256 (with its scripts): merge refuses shards that ran
	// different versions of the lock under one name.
	LockSHA256 string `json:"lock_sha256,omitempty"`
	// Search is "inside" on the line of a shard of the inside search
	// (Options.Inside), "" for the outside one: merge combines lines of
	// one search only.
	Search string `json:"search,omitempty"`
	// Assumptions, Inside and Outside are a two-answer search's (Answer):
	// what the lock was judged against, and each answer. The fields above
	// describe the outside search then (the inside one when it alone ran).
	Assumptions *AssumptionsReport `json:"assumptions,omitempty"`
	Inside      *AnswerReport      `json:"inside,omitempty"`
	Outside     *AnswerReport      `json:"outside,omitempty"`
	_           struct{}           // grows: callers name the fields they set
}

// VerdictReport is one verdict met by a search.
type VerdictReport struct {
	FirstRun int `json:"first_run"` // the first run index with this verdict
	// Cut is why that run stopped at a cap, when it did: "duration limit
	// 14s reached" (always, for incomplete).
	Cut string `json:"cut,omitempty"`
	// SafetyBroken is, for unsafe, which safety its first run broke
	// (Shrunk.SafetyBroken: the shrunk run's).
	SafetyBroken string `json:"safety_broken,omitempty"`
	// Counterexample is the path of its shrunk scenario file, when one was
	// written; Shrunk its size, when it was shrunk.
	Counterexample *string `json:"counterexample"`
	Shrunk         *Shrunk `json:"shrunk,omitempty"`
	// ScenarioYAML is the shrunk scenario on a shard's line, for merge.
	ScenarioYAML string `json:"scenario_yaml,omitempty"`
	// LockSHA256 is, on a shard's line of an algorithm file's search, the
	// file's sha256 (with its scripts): merge refuses shards that ran
	// different versions of the lock under one name.
	LockSHA256 string   `json:"lock_sha256,omitempty"`
	_          struct{} // grows: callers name the fields they set
}

// Shrunk is the size of the shrunk counterexample.
type Shrunk struct {
	Processes int `json:"processes"`
	Faults    int `json:"faults"`
	Events    int `json:"events"` // history events of its run
	// SafetyBroken is, for unsafe, which safety the shrunk run broke. The
	// shrink keeps the verdict, not this: a run that lost an update may
	// shrink to one where the lock overlapped and the resource lost
	// nothing, or the other way round. Read from a Markdown matrix, "" (the
	// table does not show it).
	SafetyBroken string `json:"safety_broken,omitempty"`
}

// Report builds the JSON value of a result. path is where the worst
// verdict's counterexample was written ("" for nowhere); withYAML embeds
// the shrunk scenarios.
func (r *Result) Report(path string, withYAML bool) (Report, error) {
	paths := map[string]string{}
	if r.Search.Found != nil && path != "" {
		paths[r.Search.Found.Verdict] = path
	}
	return r.ReportPaths(paths, withYAML)
}

// ReportPaths is Report with the path of each verdict's counterexample
// file, by verdict.
func (r *Result) ReportPaths(paths map[string]string, withYAML bool) (Report, error) {
	sr := r.Search
	rep := Report{
		Algorithm: r.Algorithm, Faults: r.Classes, Seed: r.Seed, RunsLimit: r.Limit,
		Runs: sr.Runs, Workers: r.Workers, Executed: sr.Executed,
	}
	if secs := sr.Elapsed.Seconds(); secs > 0 {
		rep.RunsPerSec = float64(sr.Executed) / secs
	}
	if r.Shard.Count > 1 {
		rep.Shard = r.Shard.String()
	}
	if sr.Stop >= 0 {
		stop := sr.Stop
		rep.StoppedAt = &stop
	}
	pathOf := func(verdict string) *string {
		if p, ok := paths[verdict]; ok {
			return &p
		}
		return nil
	}
	add := func(f Found, c *scenarios.Scenario, o *judge.Outcome) error {
		if rep.Verdicts == nil {
			rep.Verdicts = map[string]VerdictReport{}
		}
		vr := VerdictReport{FirstRun: f.Index, Cut: f.Cut, SafetyBroken: f.Broke, Counterexample: pathOf(f.Verdict)}
		if c != nil {
			vr.Shrunk = &Shrunk{Processes: len(c.Clients), Faults: len(c.Faults), Events: len(o.Result.History.Events),
				SafetyBroken: o.Verdict.Broke()}
			if withYAML {
				data, err := scenarios.Marshal(c)
				if err != nil {
					return err
				}
				vr.ScenarioYAML = string(data)
			}
		}
		rep.Verdicts[f.Verdict] = vr
		return nil
	}
	for _, x := range r.Others {
		if err := add(x.Found, x.Counterexample, x.Outcome); err != nil {
			return rep, err
		}
	}
	rep.IncompleteRuns, rep.VacuousRuns = sr.Incomplete, sr.Vacuous
	if r.Shard.Count > 1 {
		rep.IncompleteAt, rep.VacuousAt = sr.IncompleteAt, sr.VacuousAt
	}
	if sr.Found == nil {
		rep.Verdict = worstMet(rep.Verdicts)
		return rep, nil
	}
	if err := add(*sr.Found, r.Counterexample, r.Outcome); err != nil {
		return rep, err
	}
	n, secs := sr.Found.Index+1, text.Seconds(sr.ToFirst)
	rep.Found, rep.FirstFoundAfterRuns, rep.SecondsToFirst = true, &n, &secs
	rep.Verdict = sr.Found.Verdict
	if r.Outcome != nil { // the shrunk scenario's, every checker on
		rep.Verdict = r.Outcome.Verdict.Verdict
	}
	rep.SafetyBroken = rep.Verdicts[sr.Found.Verdict].SafetyBroken
	rep.Counterexample = pathOf(sr.Found.Verdict)
	rep.Shrunk = rep.Verdicts[sr.Found.Verdict].Shrunk
	rep.ShrinkSeconds, rep.ShrinkTimedOut, rep.ShrinkCapped = text.Seconds(r.Shrink.Elapsed), r.Shrink.TimedOut, r.Shrink.Capped
	rep.ScenarioYAML = rep.Verdicts[sr.Found.Verdict].ScenarioYAML
	if !withYAML { // the worst one's YAML lives in ScenarioYAML only
		return rep, nil
	}
	vr := rep.Verdicts[sr.Found.Verdict]
	vr.ScenarioYAML = ""
	rep.Verdicts[sr.Found.Verdict] = vr
	return rep, nil
}

// worstMet is the verdict of a search that found nothing it counts: the
// worst verdict met (incomplete when the only runs met were cut; with
// --verdict, a worse kind met but not counted, which neither safe nor
// incomplete may hide), else safe.
func worstMet(met map[string]VerdictReport) string {
	worst := model.VerdictSafe
	for v := range met {
		if model.Rank(v) > model.Rank(worst) {
			worst = v
		}
	}
	return worst
}

// ReadReports reads JSON lines (blank lines are skipped); name is used in
// errors.
func ReadReports(name string, rd io.Reader) ([]Report, error) {
	var out []Report
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64*1024), 4*scenarios.MaxFileSize)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var r Report
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s:%d: not a shard's JSON line: %v", name, line, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// Merge combines the lines of every shard of one search into the result a
// single machine would have reported: the first run of each verdict below
// the lowest stopping run, and the worst verdict among them.
// Every shard must be there, once, and all must have searched the same
// space.
func Merge(lines []Report) (Report, error) {
	if len(lines) == 0 {
		return Report{}, fmt.Errorf("no shard lines to merge")
	}
	first := lines[0]
	var count int
	seen := map[int]bool{}
	for i, l := range lines {
		s, err := search.ParseShard(l.Shard)
		if l.Shard == "" {
			err = fmt.Errorf("no shard field: run explore with --shard i/n")
		}
		if err != nil {
			return Report{}, fmt.Errorf("line %d: shard: %v", i+1, err)
		}
		switch {
		case i == 0:
			count = s.Count
		case s.Count != count:
			return Report{}, fmt.Errorf("line %d: shard %s is not one of %d shards", i+1, l.Shard, count)
		case l.Algorithm != first.Algorithm || !slices.Equal(l.Faults, first.Faults) || l.Seed != first.Seed || l.RunsLimit != first.RunsLimit || l.Search != first.Search:
			return Report{}, fmt.Errorf("line %d: shard %s searched another space (algorithm, faults, seed, runs or search differ from line 1)", i+1, l.Shard)
		}
		if l.LockSHA256 != first.LockSHA256 {
			return Report{}, fmt.Errorf("line %d: shard %s ran another version of the algorithm file (sha256 %.12s…, line 1 %.12s…)",
				i+1, l.Shard, l.LockSHA256, first.LockSHA256)
		}
		if seen[s.Index] {
			return Report{}, fmt.Errorf("line %d: shard %s appears twice", i+1, l.Shard)
		}
		if l.Interrupted { // its runs past the interruption were never looked at
			return Report{}, fmt.Errorf("line %d: shard %s was interrupted: run it again to the end", i+1, l.Shard)
		}
		seen[s.Index] = true
	}
	var missing []string
	for k := range count {
		if !seen[k] {
			missing = append(missing, fmt.Sprintf("%d/%d", k, count))
		}
	}
	if len(missing) > 0 {
		return Report{}, fmt.Errorf("missing shard%s %s: a missing shard may hold a lower failing run", text.Plural(len(missing), "s"), strings.Join(missing, ", "))
	}
	out := Report{Algorithm: first.Algorithm, Faults: first.Faults, Seed: first.Seed, RunsLimit: first.RunsLimit,
		Runs: first.RunsLimit, Shards: count, Search: first.Search}
	// The merged search stopped at the lowest run any shard stopped at;
	// every shard looked at all of its runs below it, so the first run of
	// each verdict below it is the one a single machine finds. A line from
	// before stopped_at stopped where it found.
	stop := math.MaxInt
	stopOf := func(l *Report) int {
		switch {
		case l.StoppedAt != nil:
			return *l.StoppedAt
		case l.Verdicts == nil && l.Found && l.FirstFoundAfterRuns != nil:
			return *l.FirstFoundAfterRuns - 1
		}
		return math.MaxInt
	}
	for i := range lines {
		stop = min(stop, stopOf(&lines[i]))
	}
	var win *Report
	for i := range lines {
		l := &lines[i]
		out.RunsPerSec += l.RunsPerSec // the shards ran side by side
		out.Workers += l.Workers
		out.Executed += l.Executed
		for _, i := range l.IncompleteAt {
			if i <= stop {
				out.IncompleteRuns++
			}
		}
		for _, i := range l.VacuousAt {
			if i <= stop {
				out.VacuousRuns++
			}
		}
		for v, vr := range l.Verdicts {
			if vr.FirstRun > stop {
				continue
			}
			if out.Verdicts == nil {
				out.Verdicts = map[string]VerdictReport{}
			}
			if vr.ScenarioYAML == "" && l.Found && v == l.Verdict {
				vr.ScenarioYAML = l.ScenarioYAML // a line keeps its worst one's there
			}
			if have, ok := out.Verdicts[v]; !ok || vr.FirstRun < have.FirstRun {
				out.Verdicts[v] = vr
			}
		}
		if !l.Found || l.FirstFoundAfterRuns == nil || *l.FirstFoundAfterRuns-1 > stop {
			continue
		}
		// The worst verdict (model.Rank), then its first run.
		if win == nil || model.Rank(l.Verdict) > model.Rank(win.Verdict) ||
			(l.Verdict == win.Verdict && *l.FirstFoundAfterRuns < *win.FirstFoundAfterRuns) {
			win = l
		}
	}
	if stop != math.MaxInt {
		s := stop
		out.StoppedAt, out.Runs = &s, stop+1
	}
	if win == nil {
		out.Verdict = worstMet(out.Verdicts)
	} else {
		out.Found = true
		out.FirstFoundAfterRuns, out.SecondsToFirst = win.FirstFoundAfterRuns, win.SecondsToFirst
		out.Verdict, out.Counterexample, out.Shrunk, out.SafetyBroken = win.Verdict, win.Counterexample, win.Shrunk, win.SafetyBroken
		out.ShrinkSeconds, out.ShrinkTimedOut, out.ShrinkCapped, out.ScenarioYAML = win.ShrinkSeconds, win.ShrinkTimedOut, win.ShrinkCapped, win.ScenarioYAML
	}
	// The shards' paths name files on the machines that ran them: the
	// caller names what it writes. Each verdict keeps its shrunk YAML, if a
	// shard shrank it, for the caller to write or drop.
	out.Counterexample = nil
	for v, vr := range out.Verdicts {
		vr.Counterexample = nil
		out.Verdicts[v] = vr
	}
	return out, nil
}
