package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/scenarios"
)

// algoFlags are --algo NAME and --algo-file FILE, which every command that
// runs a lock takes (explore, matrix): a registered algorithm, or one
// defined in an algorithm file, never both.
type algoFlags struct {
	Name string // --algo
	File string // --algo-file
	sum  string // the file's, once resolve loaded it (algofile.LoadFileSum)
}

// addAlgoFlags registers --algo (with its command's usage) and --algo-file.
func addAlgoFlags(fs *flag.FlagSet, algoUsage string) *algoFlags {
	f := &algoFlags{}
	fs.StringVar(&f.Name, "algo", "", algoUsage)
	fs.StringVar(&f.File, "algo-file", "", "the algorithm defined in `FILE` (see examples/README.md); excludes --algo")
	return f
}

var (
	errAlgoBoth = errors.New("--algo and --algo-file are mutually exclusive: give one")
	errAlgoNone = errors.New("--algo: required: the algorithm to search (see 'simrun list'), or --algo-file FILE")
)

// resolve is the algorithm the flags name: looked up, or loaded from the
// file. Neither flag is errAlgoNone; callers with a default check Given.
func (f *algoFlags) resolve() (locks.Algorithm, error) {
	switch {
	case f.Name != "" && f.File != "":
		return locks.Algorithm{}, errAlgoBoth
	case f.File != "":
		a, sum, err := loadAlgoFileSum(f.File)
		f.sum = sum
		return a, err
	case f.Name != "":
		a, err := locks.Lookup(f.Name)
		if err != nil {
			if isFile(f.Name) {
				return a, fmt.Errorf("--algo takes a built-in algorithm's name; for the algorithm file %s use --algo-file", f.Name)
			}
			return a, fmt.Errorf("--algo: %w", err)
		}
		return a, nil
	}
	return locks.Algorithm{}, errAlgoNone
}

// loadAlgoFile loads an algorithm file; given a scenario file instead, it
// says so.
func loadAlgoFile(path string) (locks.Algorithm, error) {
	a, _, err := loadAlgoFileSum(path)
	return a, err
}

// loadAlgoFileSum is loadAlgoFile with the file's sum (algofile.LoadFileSum).
func loadAlgoFileSum(path string) (locks.Algorithm, string, error) {
	a, sum, err := algofile.LoadFileSum(path)
	if err != nil {
		if _, serr := scenarios.Load(path); serr == nil {
			return a, sum, fmt.Errorf("--algo-file %s: this is a scenario file, not an algorithm file: "+
				"give it as the scenario ('simrun run %s'), and --algo-file an algorithm file (see examples/)", path, shellWord(path))
		}
	}
	return a, sum, err
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
