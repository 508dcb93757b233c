package simtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/resolve"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// Params are what a scenario gives the lock it makes.
type Params struct {
	Key string
	// TTL is drawn per scenario (tenths of a second from 0.5s to 4s, or
	// whole seconds with Resolution(time.Second)) unless the TTL option
	// fixes it, and every client's work stays below it. A lock that ignores
	// it and keeps its own TTL may be reported unsafe for work it never
	// promised to cover.
	TTL time.Duration
}

// NewLocker makes the lock for one process incarnation: the engine calls it
// for every process and again when a crashed one restarts, so the Locker's
// fields are that process's memory. Locks must not share mutable state.
type NewLocker func(Params) sim.Locker

// Failure is a violation Explore found, shrunk.
type Failure struct {
	Verdict string
	Run     int            // the failing run's index
	Outcome *judge.Outcome // the counterexample's run, every checker on
	YAML    []byte         // the counterexample file, as written to Path
	Path    string         // "" when it was not written
	Message string         // what Check reports
}

// Check explores newLocker under the options' fault classes twice: inside
// the lock's assumptions (Assumes; a TTL lock's by default), where a
// violation is a bug in the lock, and outside them, where it finds the
// breaking point, the smallest fault that breaks the lock. On a violation
// inside whose verdict is in FailOn it reports the shrunk counterexample
// with t.Errorf and returns false; the test goes on. The outside answer
// is logged (t.Logf), and fails the test only with FailOnAnyFault. Runs cut
// at a cap with nothing found fail it too (ErrIncomplete), and so does a
// search in which fewer than MinHeld of the runs ever held the lock
// (ErrUntested). It returns true when it passed.
func Check(t testing.TB, newLocker NewLocker, opts ...Option) bool {
	t.Helper()
	c, err := newConfig(opts)
	if err != nil {
		t.Errorf("%v", err)
		return false
	}
	if c.runs == 0 && testing.Short() {
		c.runs = DefaultRuns / 5
	}
	f, a, err := run(newLocker, c, fileName(t.Name()), "simtest.Check in "+t.Name(), t.Name())
	if a != nil {
		if line := OutsideLine(a); line != "" {
			t.Logf("%s", line)
		}
	}
	switch {
	case err != nil:
		t.Errorf("simtest: %v", err)
		return false
	case f != nil:
		t.Errorf("%s", f.Message)
		return false
	}
	return true
}

// Explore is the one search Check ran before it answered twice, without a
// test: the lock's default generator, which draws past its assumptions,
// and any violation found (as FailOnAnyFault; callers that answer a test
// of their own build on it, golock among them). It returns the failure,
// or nil when no run failed (ErrIncomplete when some were cut at a cap,
// ErrUntested when too few held the lock). The counterexample is written
// as DIR/NAME-seedS.yaml. Answer gives both answers.
func Explore(newLocker NewLocker, opts ...Option) (*Failure, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	c.anyFault, c.outsideOnly = true, true
	f, _, err := run(newLocker, c, fmt.Sprintf("%s-seed%d.yaml", c.name, c.seed), "simtest.Explore", c.name)
	return f, err
}

// Answer is Check without a test: both answers (explore.Answers), and the
// failure Check would report, nil when it would pass (ErrIncomplete,
// ErrUntested as Check fails). The counterexample is written as
// DIR/NAME-seedS.yaml.
func Answer(newLocker NewLocker, opts ...Option) (*Failure, *explore.Answers, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, nil, err
	}
	return run(newLocker, c, fmt.Sprintf("%s-seed%d.yaml", c.name, c.seed), "simtest.Answer", c.name)
}

// OutsideLine is the outside answer in one line, for a test's log (Check
// logs it; golock.Check too).
func OutsideLine(a *explore.Answers) string {
	switch {
	case a.Outside == nil:
		return ""
	case a.Breaking != nil:
		return fmt.Sprintf("simtest: outside the lock's assumptions (%s): %s (run %d under %s; %s)",
			a.Assumptions.Words(), a.Breaking.Words, a.Breaking.Run, a.Breaking.Class, a.Breaking.Why)
	case a.Outside.Search.Found == nil:
		return fmt.Sprintf("simtest: outside the lock's assumptions: nothing found in %d runs", a.Outside.Search.Runs)
	}
	return ""
}

// algorithm makes newLocker a locks.Algorithm that explore and scenarios
// can run without registering it (resolve.Go: New gets the defaults merged).
func algorithm(newLocker NewLocker, c config) locks.Algorithm {
	return resolve.Go(locks.Algorithm{
		Name:     c.name,
		Source:   "Go code checked by simtest",
		Summary:  "a Go lock under test",
		Defaults: locks.Params{Key: c.key, TTL: cmp.Or(c.ttl, 30*time.Second), Resolution: c.resolution},
		Assumes:  c.assumes,
	}, func(p locks.Params) sim.Locker { return newLocker(Params{Key: p.Key, TTL: p.TTL}) }).Algorithm
}

// run explores; a counterexample is written to file, says it was found by
// by, and records goLock (the test's name, else the lock's) as its lock.
func run(newLocker NewLocker, c config, file, by, goLock string) (*Failure, *explore.Answers, error) {
	if newLocker == nil {
		return nil, nil, fmt.Errorf("no NewLocker")
	}
	runs := c.runs
	if runs == 0 {
		runs = DefaultRuns
	}
	foundBy := fmt.Sprintf("%s, faults %s, seed %d", by, strings.Join(c.faults, ","), c.seed)
	// A Go lock takes its TTL from Params, so the TTL is drawn unless the
	// TTL option gives the lock's own: the 30 s of algorithm's Defaults is
	// only a placeholder.
	o := explore.Options{Lock: algorithm(newLocker, c), Classes: c.faults, Seed: c.seed,
		Runs: runs, Workers: c.workers, Verdicts: c.failOn, ShrinkTime: c.shrinkTime, FoundBy: foundBy, DrawTTL: c.ttl == 0}
	a, err := explore.Answer(context.Background(), o, explore.AnswerOptions{MinHeld: c.minHeld, Outside: c.outsideOnly})
	if err != nil {
		return nil, nil, err
	}
	// The answer that fails the test: the inside one, or with
	// FailOnAnyFault the outside search's find when nothing failed inside.
	r, find := a.Inside, a.InsideFind
	if find == nil && c.anyFault && a.Outside.Counterexample != nil {
		r = a.Outside
		find = &explore.Find{Verdict: r.Outcome.Verdict.Verdict, Run: r.Search.Found.Index, Counterexample: r.Counterexample, Outcome: r.Outcome}
	}
	if find == nil {
		searched, why := a.Inside, a.InsideUntested
		if searched == nil {
			searched, why = a.Outside, a.OutsideUntested
		}
		if why != "" {
			return nil, a, fmt.Errorf("%w: %s", ErrUntested, why)
		}
		return nil, a, incomplete(searched.Search)
	}
	f := &Failure{Verdict: find.Verdict, Run: find.Run, Outcome: find.Outcome}
	ce := find.Counterexample
	ce.Source = "simtest"
	ce.Summary = fmt.Sprintf("%s %s under %s: run %d of %s, seed %d, shrunk",
		c.name, f.Verdict, strings.Join(r.Classes, ","), f.Run, by, c.seed)
	var path, saveErr string
	if c.saveDir != "" {
		path = filepath.Join(c.saveDir, file)
	}
	if f.YAML, err = marshal(ce, c, path, goLock); err != nil {
		return nil, a, err
	}
	if path != "" {
		if err := save(path, f.YAML); err != nil {
			saveErr = err.Error()
		} else {
			f.Path = path
		}
	}
	where := "inside its assumptions"
	if ce.InsideOf(o.Lock) != nil {
		where = "outside its assumptions"
	}
	f.Message = message(f, ce, r, c, where, path, saveErr)
	return f, a, nil
}

// ErrUntested is what Check and Explore return when too few runs reached
// the critical section (MinHeld): a search in which no client held the
// lock tested nothing, and is not a pass.
var ErrUntested = errors.New("too few runs held the lock: untested, not a pass")

// ErrIncomplete is what Check and Explore return when no run failed but
// some were cut at a cap (events, duration) before they ended: nothing
// found covers only their prefixes, which is not a pass.
var ErrIncomplete = errors.New("runs cut at a cap: incomplete, not a pass")

// incomplete is ErrIncomplete with the runs it names, or nil.
func incomplete(sr *explore.SearchResult) error {
	if sr.Incomplete == 0 {
		return nil
	}
	first := sr.IncompleteAt[0]
	why := ""
	for _, f := range sr.Met {
		if f.Index == first {
			why = ", " + f.Cut
		}
	}
	return fmt.Errorf("%w: %s of %d ended at a cap with nothing found (first: run %d%s); "+
		"a lock that never returns from Acquire or Release keeps its run from ending",
		ErrIncomplete, text.Count(sr.Incomplete, "run", "s"), sr.Runs, first, why)
}

// marshal writes the counterexample recording the Go lock (go_lock:), the
// key made explicit, and a header that says how to replay it.
func marshal(s *scenarios.Scenario, c config, path, goLock string) ([]byte, error) {
	cp := *s
	cp.Algorithm, cp.GoLock = "", goLock
	cp.Params.Key = c.key // so any lock it is replayed against runs on the lock's key
	data, err := scenarios.Marshal(&cp)
	if err != nil {
		return nil, err
	}
	if path == "" {
		path = "FILE"
	}
	head := fmt.Sprintf("# A counterexample simtest found for %s, a Go lock (go_lock: names its test).\n"+
		"# Only Go can build the lock, so replay it in that test with\n"+
		"#   %s\n", s.Algorithm, replayCall(path, c))
	return append([]byte(head), data...), nil
}

func save(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// message is the failure as a person reads it: what broke, the file, how
// to replay it, and what simrun can and cannot do with it.
func message(f *Failure, ce *scenarios.Scenario, r *explore.Result, c config, where, path, saveErr string) string {
	b := &strings.Builder{}
	fmt.Fprintf(b, "simtest: %s is %s %s under %s (seed %d, run %d of runs 0 to %d), shrunk to %d process%s and %d fault%s",
		c.name, strings.ToUpper(f.Verdict), where, strings.Join(r.Classes, ","), c.seed, f.Run, r.Limit-1,
		len(ce.Clients), text.Plural(len(ce.Clients), "es"), len(ce.Faults), text.Plural(len(ce.Faults), "s"))
	if r.Shrink.TimedOut {
		b.WriteString(" (shrinking ran out of time: perhaps not minimal)")
	}
	b.WriteString(":\n")
	for _, v := range f.Outcome.Verdict.Violations {
		fmt.Fprintf(b, "  %s (%s): %s\n", v.Kind, strings.Join(v.Processes, ", "), v.Detail)
	}
	switch {
	case f.Path != "":
		fmt.Fprintf(b, "\ncounterexample, written to %s:\n\n", f.Path)
	case saveErr != "":
		fmt.Fprintf(b, "\ncounterexample (writing %s failed: %s; save it there yourself):\n\n", path, saveErr)
	default:
		b.WriteString("\ncounterexample (save it as a file, FILE below):\n\n")
		path = "FILE"
	}
	b.Write(f.YAML)
	fmt.Fprintf(b, "\nreplay it in Go (fails while the lock still breaks there):\n\n\t%s\n\n", replayCall(path, c))
	fmt.Fprintf(b, "simrun cannot build a Go lock: 'simrun run %s --algo set-nx-px-token --trace' shows\n"+
		"the same fault plan against a built-in lock, not yours.", path)
	return b.String()
}

// replayCall is the Go line that replays path with the verdicts that failed.
func replayCall(path string, c config) string {
	call := fmt.Sprintf("simtest.Replay(t, newLocker, %q", path)
	if !slices.Equal(c.failOn, DefaultFailOn) {
		quoted := make([]string, len(c.failOn))
		for i, v := range c.failOn {
			quoted[i] = strconv.Quote(v)
		}
		call += ", simtest.FailOn(" + strings.Join(quoted, ", ") + ")"
	}
	return call + ")"
}

// fileName makes a test's name a file name: subtests' slashes and anything
// a file system may refuse become '_'.
func fileName(test string) string {
	b := []byte(test)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '.') {
			b[i] = '_'
		}
	}
	return string(b) + ".yaml"
}

// fails says whether a verdict is one of c's failing ones.
func (c config) fails(verdict string) bool { return slices.Contains(c.failOn, verdict) }
