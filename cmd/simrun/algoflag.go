package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/locks/resolve"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// algoFlags are --algo NAME and --algo-file FILE, which every command that
// runs a lock takes (explore, matrix): a registered algorithm, or one
// defined in an algorithm file, never both.
type algoFlags struct {
	Name string // --algo
	File string // --algo-file
	sum  string // the file's, once resolve loaded it (resolve.File)
}

// addAlgoFlags registers --algo (with its command's usage) and --algo-file.
func addAlgoFlags(fs *flag.FlagSet, algoUsage string) *algoFlags {
	f := &algoFlags{}
	fs.StringVar(&f.Name, "algo", "", algoUsage)
	fs.StringVar(&f.File, "algo-file", "", "the algorithm defined in `FILE` (see examples/README.md), or the lock program FILE (.py, .js, .php: docs/foreign.md); excludes --algo")
	return f
}

var (
	errAlgoBoth = errors.New("--algo and --algo-file are mutually exclusive: give one")
	errAlgoNone = errors.New("--algo: required: the algorithm to search (see 'simrun list'), or --algo-file FILE")
)

// resolve is the algorithm the flags name: looked up, or loaded from the
// file (package resolve). Neither flag is errAlgoNone; callers with a
// default check Given.
func (f *algoFlags) resolve() (locks.Algorithm, error) {
	switch {
	case f.Name != "" && f.File != "":
		return locks.Algorithm{}, errAlgoBoth
	case f.File != "":
		l, err := loadAlgoFile(f.File)
		f.sum = l.SHA256
		return l.Algorithm, err
	case f.Name != "":
		l, err := resolve.Name(f.Name)
		if err != nil {
			if isFile(f.Name) {
				return l.Algorithm, fmt.Errorf("--algo takes a built-in algorithm's name; for the algorithm file %s use --algo-file", f.Name)
			}
			return l.Algorithm, fmt.Errorf("--algo: %w", err)
		}
		return l.Algorithm, nil
	}
	return locks.Algorithm{}, errAlgoNone
}

// prepare prepares s, given on the command line as arg, with the lock the
// flags name (looked up or loaded once), or else with the lock s names
// itself (prepareOwn).
func (f *algoFlags) prepare(s *scenarios.Scenario, arg string) (*scenarios.Prepared, error) {
	if !f.Given() {
		return prepareOwn(s, arg)
	}
	a, err := f.resolve()
	if err != nil {
		return nil, err
	}
	return resolve.Lock{Algorithm: a}.Prepare(s)
}

// executeOwn runs s, given on the command line as arg, against the lock it
// names itself (no --algo or --algo-file).
func executeOwn(s *scenarios.Scenario, arg string) (*judge.Outcome, error) {
	p, err := prepareOwn(s, arg)
	if err != nil {
		return nil, err
	}
	return judge.Prepared(s, p, model.Options{})
}

// prepareOwn prepares s, given on the command line as arg, with the lock it
// names itself (resolve.Own): its registered algorithm, or the algorithm
// file it records, found relative to the scenario file and checked against
// its sha256: a missing file or one whose sum changed is an error, never a
// run of some other lock. A Go lock, or no lock, is a one-line error saying
// what to give instead.
func prepareOwn(s *scenarios.Scenario, arg string) (*scenarios.Prepared, error) {
	l, err := resolve.Own(s, filepath.Dir(arg))
	var changed *resolve.ChangedError
	var sf *resolve.ScenarioFileError
	switch {
	case errors.Is(err, resolve.ErrGoLock):
		return nil, fmt.Errorf("%s: go_lock: %s: simtest found this for a Go lock, which only Go can build: "+
			"replay it in that test with simtest.Replay(t, newLocker, %s), or give --algo NAME or --algo-file FILE to run its fault plan against another lock",
			arg, s.GoLock, strconv.Quote(arg))
	case errors.Is(err, resolve.ErrNoLock):
		return nil, fmt.Errorf("%s %v: give --algo NAME (see 'simrun list') or --algo-file FILE", arg, err)
	case errors.Is(err, resolve.ErrMoved):
		return nil, fmt.Errorf("%s: %v: give the lock with --algo-file FILE", arg, err)
	case errors.As(err, &changed):
		return nil, fmt.Errorf("%s: %v: to replay it against the file as it is now, give --algo-file %s", arg, err, shellWord(changed.Path))
	case errors.As(err, &sf):
		return nil, fmt.Errorf("%s: algorithm_file: %w", arg, scenarioFileErr(sf))
	case err != nil && s.AlgorithmFile != nil:
		return nil, fmt.Errorf("%s: %w", arg, err)
	case err != nil:
		return nil, err
	}
	p, err := l.Prepare(s)
	if err != nil && l.File != "" {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	return p, err
}

// loadAlgoFile loads an algorithm file (resolve.File); given a scenario
// file instead, it says so.
func loadAlgoFile(path string) (resolve.Lock, error) {
	l, err := resolve.File(path)
	if sf := (*resolve.ScenarioFileError)(nil); errors.As(err, &sf) {
		err = scenarioFileErr(sf)
	}
	return l, err
}

// scenarioFileErr words a scenario file given as an algorithm file, with
// the flags that take each.
func scenarioFileErr(sf *resolve.ScenarioFileError) error {
	return fmt.Errorf("--algo-file %s: this is a scenario file, not an algorithm file: "+
		"give it as the scenario ('simrun run %s'), and --algo-file an algorithm file (see examples/)", sf.Path, shellWord(sf.Path))
}

// resolveScenario is a built-in scenario or a scenario file; given an
// algorithm file instead, it says so and names the flag that takes one.
func resolveScenario(arg string) (*scenarios.Scenario, error) {
	s, err := scenarios.Resolve(arg)
	if err != nil && isFile(arg) {
		if _, aerr := algofile.LoadFile(arg); aerr == nil {
			return nil, fmt.Errorf("%s is an algorithm file, not a scenario: pass it with --algo-file "+
				"('simrun run SCENARIO --algo-file %s')", arg, shellWord(arg))
		}
	}
	return s, err
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// Given says whether either flag was set.
func (f *algoFlags) Given() bool { return f.Name != "" || f.File != "" }

// replayLine is the command line that replays a counterexample written to
// path: the file names its lock, so nothing else is needed.
func replayLine(path string) string { return "simrun run " + shellWord(path) }

// marshalScenario writes a counterexample found with these flags, to be
// written into folder dir, as YAML. For an algorithm file it records the
// file, relative to dir, and its sum in place of the algorithm's name, so
// that 'simrun run FILE' replays that file and tells an edited one.
func (f *algoFlags) marshalScenario(s *scenarios.Scenario, dir string) ([]byte, error) {
	if f.File == "" {
		return scenarios.Marshal(s)
	}
	if f.sum == "" {
		return nil, fmt.Errorf("--algo-file %s: not loaded", f.File) // resolve was not called: a bug
	}
	c := *s
	c.Algorithm = ""
	c.AlgorithmFile = &scenarios.AlgorithmFile{Path: scenarios.RelativePath(dir, f.File), SHA256: f.sum}
	return scenarios.Marshal(&c)
}

// recordShardLock makes r's counterexamples record the algorithm file as
// it was given (relative to the folder the shard ran in), for the YAML of a
// shard's JSON line: merge, run in the same folder of the same checkout,
// makes it relative to where it writes the file (relocateLock).
func (f *algoFlags) recordShardLock(r *explore.Result) {
	if f.File == "" {
		return
	}
	record := func(c *scenarios.Scenario) {
		if c != nil {
			c.Algorithm = ""
			c.AlgorithmFile = &scenarios.AlgorithmFile{Path: filepath.ToSlash(f.File), SHA256: f.sum}
		}
	}
	record(r.Counterexample)
	for _, x := range r.Others {
		record(x.Counterexample)
	}
}

// relocateLock rewrites the YAML of a shard's counterexample to be written
// into folder dir: a relative algorithm_file path, relative to the folder
// merge runs in, becomes relative to dir. Any other YAML comes back as is.
func relocateLock(yaml, dir string) (string, error) {
	s, err := scenarios.Parse("the shard's counterexample", []byte(yaml))
	if err != nil {
		return "", err
	}
	if s.AlgorithmFile == nil || filepath.IsAbs(filepath.FromSlash(s.AlgorithmFile.Path)) {
		return yaml, nil
	}
	s.AlgorithmFile.Path = scenarios.RelativePath(dir, s.AlgorithmFile.In("."))
	data, err := scenarios.Marshal(s)
	return string(data), err
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
