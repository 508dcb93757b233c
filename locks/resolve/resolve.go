// Package resolve turns what names a lock into the locks.Algorithm a run
// builds it from: a registered algorithm's name (--algo, algorithm:), an
// algorithm file (--algo-file), the lock a scenario names itself (its
// algorithm:, or its algorithm_file: checked against the sha256 recorded
// with it) and a lock built by Go code (simtest's NewLocker, golock's
// NewLock). The CLI, simtest and golock all resolve their lock here, so a
// name becomes an Algorithm in one place, and every lock's New comes from
// locks.Define, the one place defaults are merged.
//
// It is its own package, above scenarios and locks/algofile, because it
// reads both a scenario's lock fields and algorithm files, and neither of
// those packages may import the other; it is below every front end, and
// the searches (explore, prove, matrix) take the Algorithm it gives. Its
// errors say what is wrong with the lock in the scenario's or the file's
// words; a front end adds how its user gives another lock (a flag, a test
// helper).
package resolve

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/foreign"
)

// Lock is a resolved lock: the Algorithm to run, and for an algorithm file
// the file and its sum.
type Lock struct {
	Algorithm locks.Algorithm
	// File is the algorithm file the lock was read from, "" for none.
	File string
	// SHA256 is File's sum (algofile.LoadFileSum): the file's sha256
	// followed by the script files it reads. "" for no file.
	SHA256 string
	// Own says the lock is the one the scenario names itself (Own), so the
	// scenario's expect: holds.
	Own bool
}

// Name is the registered algorithm called name.
func Name(name string) (Lock, error) {
	a, err := locks.Lookup(name)
	return Lock{Algorithm: a}, err
}

// File is the algorithm defined in the algorithm file at path, or the lock
// program at path (a .py, .js or .php file, run in a worker of its own: package
// sim/foreign). A file that is no algorithm file but a scenario file is a
// *ScenarioFileError.
func File(path string) (Lock, error) {
	if _, ok := foreign.LangOf(path); ok {
		p, err := foreign.Load(path)
		if err == nil {
			err = p.Check(foreign.Starter{})
		}
		if err != nil {
			return Lock{File: path}, err
		}
		return Lock{Algorithm: p.Algorithm(foreign.Starter{}), File: path, SHA256: p.SHA256}, nil
	}
	a, sum, err := algofile.LoadFileSum(path)
	if err != nil {
		if _, serr := scenarios.Load(path); serr == nil {
			err = &ScenarioFileError{Path: path, Err: err}
		}
	}
	return Lock{Algorithm: a, File: path, SHA256: sum}, err
}

// ScenarioFileError is an algorithm file asked for at Path that is a
// scenario file: Err is why it is no algorithm file.
type ScenarioFileError struct {
	Path string
	Err  error
}

func (e *ScenarioFileError) Error() string {
	return e.Path + ": this is a scenario file, not an algorithm file"
}

func (e *ScenarioFileError) Unwrap() error { return e.Err }

// Go is a lock built by Go code: a says its name, source, summary,
// defaults and assumptions, and mk builds it from a's Defaults merged with
// the scenario's overrides (locks.Define).
func Go(a locks.Algorithm, mk func(locks.Params) sim.Locker) Lock {
	return Lock{Algorithm: locks.Define(a, mk)}
}

var (
	// ErrGoLock is a scenario whose go_lock: names a Go lock: only the Go
	// test that found it can build it.
	ErrGoLock = errors.New("go_lock: a Go lock, which only Go can build")
	// ErrNoLock is a scenario that names no lock.
	ErrNoLock = errors.New("names no lock (no algorithm, algorithm_file or go_lock)")
	// ErrMoved is a recorded algorithm_file that is not there.
	ErrMoved = errors.New("no such file (moved?)")
)

// ChangedError is a recorded algorithm_file whose sum is not the one
// recorded with it: the file was edited since.
type ChangedError struct {
	Path      string // the file, as found from the scenario's folder
	Want, Got string // the recorded sum and the file's now
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("algorithm_file: %s changed since this counterexample was found (sha256 %.12s…, now %.12s…)",
		e.Path, e.Want, e.Got)
}

// Own is the lock scenario s names itself, s read from a file in folder dir
// ("" for the current folder): its registered algorithm, or the algorithm
// file it records, found relative to dir and checked against its sha256.
// A missing file wraps ErrMoved, one whose sum changed is a *ChangedError,
// a Go lock is ErrGoLock and no lock ErrNoLock. The sum is compared before
// any parse error is shown: a scenario from elsewhere may name any path,
// and must not make a front end echo a file its author does not already
// know byte for byte.
func Own(s *scenarios.Scenario, dir string) (Lock, error) {
	switch {
	case s.AlgorithmFile != nil:
		rec := s.AlgorithmFile
		path := rec.In(dir)
		l, err := File(path)
		switch { // the sum is "" when the algorithm file itself could not be read
		case l.SHA256 == "" && errors.Is(err, fs.ErrNotExist) && !errors.As(err, new(*ScenarioFileError)):
			return Lock{}, fmt.Errorf("algorithm_file: %s: %w", path, ErrMoved)
		case l.SHA256 != "" && l.SHA256 != rec.SHA256:
			return Lock{}, &ChangedError{Path: path, Want: rec.SHA256, Got: l.SHA256}
		case err != nil:
			return Lock{}, fmt.Errorf("algorithm_file: %w", err)
		}
		l.Own = true // the very file it was found with
		return l, nil
	case s.GoLock != "":
		return Lock{}, ErrGoLock
	case s.Algorithm == "":
		return Lock{}, ErrNoLock
	}
	l, err := Name(s.Algorithm)
	l.Own = true
	return l, err
}

// Prepare prepares s to run with the lock (scenarios.PrepareWith). A lock
// that is s's own makes the prepared run's Own true, so its expect: holds.
func (l Lock) Prepare(s *scenarios.Scenario) (*scenarios.Prepared, error) {
	p, err := s.PrepareWith(l.Algorithm)
	if err != nil {
		return nil, err
	}
	if l.Own {
		p.Own = true
	}
	return p, nil
}
