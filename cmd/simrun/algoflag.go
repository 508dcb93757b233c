package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
)

// algoFlags are --algo NAME and --algo-file FILE, which every command that
// runs a lock takes (explore, matrix): a registered algorithm, or one
// defined in an algorithm file, never both.
type algoFlags struct {
	Name string // --algo
	File string // --algo-file
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
		return loadAlgoFile(f.File)
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
	a, err := locks.LoadFile(path)
	if err != nil {
		if _, serr := scenarios.Load(path); serr == nil {
			return a, fmt.Errorf("--algo-file %s: this is a scenario file, not an algorithm file: "+
				"give it as the scenario ('simrun run %s'), and --algo-file an algorithm file (see examples/)", path, shellWord(path))
		}
	}
	return a, err
}

// resolveScenario is a built-in scenario or a scenario file; given an
// algorithm file instead, it says so and names the flag that takes one.
func resolveScenario(arg string) (*scenarios.Scenario, error) {
	s, err := scenarios.Resolve(arg)
	if err != nil && isFile(arg) {
		if _, aerr := locks.LoadFile(arg); aerr == nil {
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

// replay is the command line that replays a counterexample written to path.
func (f *algoFlags) replay(path string) string {
	if f.File == "" {
		return "simrun run " + shellWord(path)
	}
	return "simrun run " + shellWord(path) + " --algo-file " + shellWord(f.File)
}

// standIn is the algorithm a counterexample of an algorithm file names.
// A scenario file must name a registered algorithm to load; with
// --algo-file the file's lock replaces it, so any single-node built-in
// would do, and the reference lock misleads least when run without it.
const standIn = "set-nx-px-token"

// marshalScenario writes a counterexample as YAML. For an algorithm file it
// names standIn and says so in a comment, so that 'simrun run FILE
// --algo-file ALGO' loads it and nobody mistakes it for the built-in's.
func (f *algoFlags) marshalScenario(s *scenarios.Scenario) ([]byte, error) {
	if f.File == "" {
		return scenarios.Marshal(s)
	}
	c := *s
	c.Algorithm = standIn
	data, err := scenarios.Marshal(&c)
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf("# A counterexample for %s, the lock in the algorithm file %s.\n"+
		"# 'algorithm: %s' only lets this file load: replay it with --algo-file, as in\n"+
		"#   simrun run THIS-FILE --algo-file %s\n", s.Algorithm, f.File, standIn, shellWord(f.File))
	return append([]byte(head), data...), nil
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
