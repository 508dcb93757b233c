package golock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/diff"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/simtest"
)

// Compare runs the same scenarios on two versions of a lock, oldLock (the
// last release, say) and newLock (the change under test), and fails t when
// a run's verdict is worse for newLock than for oldLock, once inside the
// TTL's assumptions and once outside them (package diff). The first such
// run of each half is shrunk so that it stays worse for newLock, replayed
// twice on each version inside a synctest bubble (a run that does not
// replay is ErrNondeterministic), and reported with its scenario; with
// With(simtest.SaveTo(dir)) it is also written to
// DIR/NAME-worse-HALF.yaml, which golock.Replay(t, newLock, FILE) and
// golock.Run replay on either version. Runs cut at a cap with nothing worse
// found fail t too: nothing found in them is no pass. Renewals are drawn
// only for a library's own watchdog (diff.Options.OwnRenewals): whether a
// Lease has an Extend is known only once the lock runs.
//
// Options: Faults (default DefaultFaults), and With(simtest.Runs(n)) for
// each half's runs (default diff.DefaultRuns, a fifth of it with -short),
// With(simtest.Seed(s)), With(simtest.Key(k)), With(simtest.Name(n)) and
// With(simtest.SaveTo(dir)); the others are Check's alone.
func Compare(t *testing.T, oldLock, newLock NewLock, opts ...Option) bool {
	t.Helper()
	c, err := CompareResult(t, oldLock, newLock, opts...)
	if err != nil {
		t.Errorf("golock.Compare: %v", err)
		return false
	}
	if msg := c.Message(); msg != "" {
		t.Errorf("%s", msg)
		return false
	}
	return true
}

// Comparison is what Compare found.
type Comparison struct {
	Result *diff.Result
	// YAML and Paths are each half's shrunk scenario, by half, and where
	// it was written ("" unless SaveTo was given).
	YAML  map[string][]byte
	Paths map[string]string
	name  string
}

// Worse says whether a half found a run worse for the new version.
func (c *Comparison) Worse() bool { return c.Result.Worse() }

// Message is what Compare fails the test with; "" when nothing worse was
// found and no run was cut.
func (c *Comparison) Message() string {
	var b strings.Builder
	cut := 0
	for _, h := range c.Result.Halves {
		cut += h.Cut
		if h.Counterexample == nil {
			continue
		}
		f := h.Found
		fmt.Fprintf(&b, "golock.Compare: %s: the new version is %s where the old one is %s, %s the TTL's assumptions "+
			"(run %d of %d, seed %d, faults %s); shrunk, old %s, new %s:\n",
			c.name, strings.ToUpper(f.Pair.New.Verdict), f.Pair.Old.Verdict, h.Half, f.Index, c.Result.Limit,
			c.Result.Seed, strings.Join(c.Result.Classes, ","), h.Old.Verdict.Verdict, h.New.Verdict.Verdict)
		for _, v := range h.New.Verdict.Violations {
			fmt.Fprintf(&b, "  new %s (%s): %s\n", v.Kind, strings.Join(v.Processes, ", "), v.Detail)
		}
		if p := c.Paths[h.Half]; p != "" {
			fmt.Fprintf(&b, "written to %s: golock.Replay(t, newLock, %q) replays it\n", p, p)
		} else {
			fmt.Fprintf(&b, "\n%s\n", c.YAML[h.Half])
		}
	}
	if b.Len() == 0 && cut > 0 {
		fmt.Fprintf(&b, "golock.Compare: %s: none worse for the new version, but %d runs were cut at a cap on one side: "+
			"nothing found in them is no pass", c.name, cut)
	}
	return b.String()
}

// CompareResult is Compare returning what it found instead of failing t.
func CompareResult(t *testing.T, oldLock, newLock NewLock, opts ...Option) (*Comparison, error) {
	t.Helper()
	if oldLock == nil || newLock == nil {
		return nil, errors.New("golock.Compare: give both versions of the lock")
	}
	co, err := compareOptions(opts)
	if err != nil {
		return nil, err
	}
	if co.runs == 0 {
		co.runs = diff.DefaultRuns
		if testing.Short() {
			co.runs /= 5
		}
	}
	guards := []*guard{{}, {}}
	side := func(newLock NewLock, which string, g *guard) locks.Algorithm {
		a := algorithm(newLock, g)
		a.Name = co.name + "-" + which
		if co.key != "" {
			a.Defaults.Key = co.key
		}
		return a
	}
	oldSide, newSide := side(oldLock, "old", guards[0]), side(newLock, "new", guards[1])
	c := &Comparison{YAML: map[string][]byte{}, Paths: map[string]string{}, name: co.name}
	if left := inBubble(t, func() {
		// One worker: the bubble has one clock. Shrinking is bounded by its
		// count of candidates: the bubble's clock is not the wall clock.
		var d *diff.Differ
		if d, err = diff.New(diff.Options{Old: oldSide, New: newSide, Classes: co.faults, Seed: co.seed, Runs: co.runs,
			Workers: 1, ShrinkTime: 100 * 365 * 24 * time.Hour,
			// A golock lock is an Extender whether or not its Lease has
			// an Extend: renewals are drawn only for a library's own
			// watchdog, as Check draws them.
			OwnRenewals: true,
			FoundBy:     fmt.Sprintf("golock.Compare in %s, faults %s, seed %d", t.Name(), strings.Join(co.faults, ","), co.seed)}); err != nil {
			return
		}
		c.Result, err = d.Run(context.Background())
		if out := cmp.Or(guards[0].first(), guards[1].first()); out != nil {
			err = out
		}
		if err != nil {
			return
		}
		for _, h := range c.Result.Halves {
			if h.Counterexample == nil {
				continue
			}
			for _, x := range []struct {
				lock   NewLock
				digest string
			}{{oldLock, h.Old.Digest}, {newLock, h.New.Digest}} {
				o, rerr := RunInBubble(x.lock, h.Counterexample)
				if rerr != nil {
					err = rerr
					return
				}
				if o.Digest != x.digest {
					err = fmt.Errorf("the scenario found did not replay: %w (digests %.12s and %.12s): does the library read crypto/rand or the unseeded math/rand? Give it Env.Token and Env.Rand",
						ErrNondeterministic, x.digest, o.Digest)
					return
				}
			}
		}
	}); left != nil {
		return nil, left
	}
	if err != nil {
		return nil, err
	}
	for _, h := range c.Result.Halves {
		if h.Counterexample == nil {
			continue
		}
		data, err := scenarios.Marshal(h.Counterexample)
		if err != nil {
			return nil, err
		}
		c.YAML[h.Half] = data
		if co.saveDir != "" {
			path := filepath.Join(co.saveDir, co.name+"-worse-"+h.Half+".yaml")
			if err := os.MkdirAll(co.saveDir, 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				return nil, err
			}
			c.Paths[h.Half] = path
		}
	}
	return c, nil
}

// compareOpts are the options Compare shares with Check.
type compareOpts struct {
	faults  []string
	runs    int
	seed    uint64
	key     string
	name    string
	saveDir string
}

// compareOptions reads the options Compare shares with Check
// (simtest.SettingsOf); one that sets nothing keeps Compare's default.
func compareOptions(opts []Option) (compareOpts, error) {
	co := compareOpts{faults: DefaultFaults, seed: 1, name: "go-lock"}
	var all []simtest.Option
	for _, o := range opts {
		if o.err != nil {
			return co, o.err
		}
		if o.o != nil {
			all = append(all, o.o)
		}
	}
	set, err := simtest.SettingsOf(all...)
	if err != nil {
		return co, err
	}
	if len(set.Faults) > 0 {
		co.faults = set.Faults
	}
	co.runs = set.Runs
	co.seed = cmp.Or(set.Seed, co.seed)
	co.key = set.Key
	co.name = cmp.Or(set.Name, co.name)
	co.saveDir = set.SaveDir
	return co, nil
}
