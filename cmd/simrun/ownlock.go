package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

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
// names itself: its registered algorithm, or the algorithm file it records,
// found relative to the scenario file and checked against its sha256. A Go
// lock, or no lock, is a one-line error saying what to give instead.
func prepareOwn(s *scenarios.Scenario, arg string) (*scenarios.Prepared, error) {
	switch {
	case s.AlgorithmFile != nil:
		return prepareRecordedFile(s, arg)
	case s.GoLock != "":
		return nil, fmt.Errorf("%s: go_lock: %s: simtest found this for a Go lock, which only Go can build: "+
			"replay it in that test with simtest.Replay(t, newLocker, %s), or give --algo NAME or --algo-file FILE to run its fault plan against another lock",
			arg, s.GoLock, strconv.Quote(arg))
	case s.Algorithm == "":
		return nil, fmt.Errorf("%s names no lock (no algorithm, algorithm_file or go_lock): give --algo NAME (see 'simrun list') or --algo-file FILE", arg)
	}
	return s.Prepare("")
}

// prepareRecordedFile prepares s with its algorithm_file, the very file it
// was found with: a missing file or one whose sum changed is an error, never
// a run of some other lock. The sum is compared before any parse error is
// shown: a scenario from elsewhere may name any path, and must not make
// simrun echo a file its author does not already know byte for byte.
func prepareRecordedFile(s *scenarios.Scenario, arg string) (*scenarios.Prepared, error) {
	rec := s.AlgorithmFile
	path := rec.In(filepath.Dir(arg))
	a, sum, err := loadAlgoFileSum(path)
	switch { // sum is "" when the algorithm file itself could not be read
	case sum == "" && errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: algorithm_file: %s: no such file (moved?): give the lock with --algo-file FILE", arg, path)
	case sum != "" && sum != rec.SHA256:
		return nil, fmt.Errorf("%s: algorithm_file: %s changed since this counterexample was found (sha256 %.12s…, now %.12s…): "+
			"to replay it against the file as it is now, give --algo-file %s", arg, path, rec.SHA256, sum, shellWord(path))
	case err != nil:
		return nil, fmt.Errorf("%s: algorithm_file: %w", arg, err)
	}
	p, err := s.PrepareWith(a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	p.Own = true // the lock it was found with: its expect: holds
	return p, nil
}
