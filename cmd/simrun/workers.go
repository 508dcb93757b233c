package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// clampWorkers bounds --workers by the jobs (runs, cells) there are and the cores there
// are: more workers than runs would sit idle, and more than cores would only
// take turns on them while each holds a run's memory. The result does not
// depend on workers, so clamping changes nothing but speed; it is said on
// stderr so that nobody thinks 64 workers ran.
func clampWorkers(cmd string, workers, jobs int, unit string, stderr io.Writer) int {
	if workers == 0 {
		return 0 // one per core, explore's default
	}
	cores := runtime.GOMAXPROCS(0)
	n := min(workers, jobs, cores)
	if n < workers {
		fmt.Fprintf(stderr, "simrun %s: --workers %d clamped to %d (%d %s, %d cores)\n", cmd, workers, n, jobs, unit, cores)
	}
	return n
}

// checkOut refuses to let explore overwrite the counterexample an earlier
// search left in dir: it may be the only copy of a failure that took hours
// to find. --force allows it.
func checkOut(dir string, force bool) error {
	if force {
		return nil
	}
	// counterexample.yaml, counterexample-VERDICT.yaml of --shrink all, and
	// the two answers' inside.yaml and outside.yaml.
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	for _, e := range entries {
		if n := e.Name(); n == "counterexample.yaml" || n == "inside.yaml" || n == "outside.yaml" ||
			strings.HasPrefix(n, "counterexample-") && strings.HasSuffix(n, ".yaml") {
			return fmt.Errorf("%s already holds a counterexample (%s): give another --out, or --force to overwrite it", dir, n)
		}
	}
	return nil
}

// checkOutFile is checkOut for a command that writes one file (prove's
// -o): an existing one is kept unless --force.
func checkOutFile(path string, force bool) error {
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("-o: %s exists: move it, or give --force", path)
	}
	return nil
}

// flagCheck is a flag and what checking its value said.
type flagCheck struct {
	flag string
	err  error
}

// firstBad is the first flag whose check failed, in the order given.
func firstBad(checks ...flagCheck) (string, error) {
	for _, c := range checks {
		if c.err != nil {
			return c.flag, c.err
		}
	}
	return "", nil
}

// atLeastOne refuses n < 1; why, if given, says why in parentheses.
func atLeastOne(n int, why string) error {
	if n >= 1 {
		return nil
	}
	if why != "" {
		return fmt.Errorf("%d: must be at least 1 (%s)", n, why)
	}
	return fmt.Errorf("%d: must be at least 1", n)
}

// notNegative refuses n < 0; zero says what 0 means.
func notNegative(n int, zero string) error {
	if n < 0 {
		return fmt.Errorf("%d: must be 0 (%s) or more", n, zero)
	}
	return nil
}

// positive refuses a duration that is not above zero.
func positive(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%s: must be positive", d)
	}
	return nil
}

// oneOf refuses a value that is none of the words.
func oneOf(v string, words ...string) error {
	if slices.Contains(words, v) {
		return nil
	}
	return fmt.Errorf("%q: want %s", v, strings.Join(words, " or "))
}

// oneOfOrEmpty is oneOf, or "" for a flag left to its default.
func oneOfOrEmpty(v string, words ...string) error {
	if v == "" {
		return nil
	}
	return oneOf(v, words...)
}

// share refuses a share outside [0, 1].
func share(f float64) error {
	if f >= 0 && f <= 1 {
		return nil
	}
	return fmt.Errorf("%v: want a share from 0 to 1", f)
}
