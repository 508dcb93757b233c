package simtest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// Defaults.
const (
	// DefaultRuns is how many scenarios Check runs, a fifth of it with
	// `go test -short`: under a second for a lock of a few commands.
	DefaultRuns = 1000
	// DefaultShrinkTime bounds shrinking: shorter than simrun's, as it runs
	// inside a test.
	DefaultShrinkTime = 10 * time.Second
	// DefaultKey is the lock key a scenario gives the lock.
	DefaultKey = "lock"
	// DefaultName names the lock in scenario names and messages.
	DefaultName = "go-lock"
	// DefaultSaveDir is where Check writes a counterexample, as rapid writes
	// its fail files under testdata/rapid.
	DefaultSaveDir = "testdata/simtest"
)

// DefaultFaults are the fault classes a correct TTL lock survives with no
// fencing: contention, crashed clients, skewed and drifting clocks, and a
// slow, lossy network. Pauses past the TTL, clock jumps and node restarts
// break every such lock; ask for them with Faults to see how.
var DefaultFaults = []string{scenarios.ClassCrash, scenarios.ClassSkew, scenarios.ClassNet}

// DefaultFailOn are the verdicts that fail a test: only safety. A TTL lock
// may legitimately leave a key until it expires (stale) or let a waiter
// wait two TTLs under faults (stuck), and a lock whose Acquire returns an
// error on a timeout is a client-error by design.
var DefaultFailOn = []string{model.VerdictUnsafe}

// Option changes how Check and Replay run.
type Option func(*config) error

type config struct {
	faults      []string
	failOn      []string
	runs        int
	seed        uint64
	workers     int
	shrinkTime  time.Duration
	key         string
	ttl         time.Duration // 0: drawn
	resolution  time.Duration
	name        string
	saveDir     string
	assumes     locks.Assumptions
	anyFault    bool    // fail on a violation outside the assumptions too
	outsideOnly bool    // Explore: the outside search alone
	minHeld     float64 // explore.AnswerOptions.MinHeld
}

func defaults() config {
	return config{faults: DefaultFaults, failOn: DefaultFailOn, seed: 1, shrinkTime: DefaultShrinkTime,
		key: DefaultKey, name: DefaultName, saveDir: DefaultSaveDir}
}

func newConfig(opts []Option) (config, error) {
	c := defaults()
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Faults are the fault classes scenarios combine: none, crash, pause, skew,
// jump, net, restart, failover, or all (scenarios.FaultClasses). Default:
// DefaultFaults.
func Faults(classes ...string) Option {
	return func(c *config) error {
		if len(classes) == 0 {
			return fmt.Errorf("simtest.Faults(): no fault class")
		}
		got, err := scenarios.ParseClasses(strings.Join(classes, ","))
		if err != nil {
			return fmt.Errorf("simtest.Faults(%q): %w", classes, err)
		}
		c.faults = got
		return nil
	}
}

// FailOn are the verdicts that fail the test: unsafe, stuck, stale,
// client-error. Default: DefaultFailOn (unsafe).
func FailOn(verdicts ...string) Option {
	return func(c *config) error {
		for _, v := range verdicts {
			if v == model.VerdictSafe || !slices.Contains(scenarios.Verdicts, v) {
				return fmt.Errorf("simtest.FailOn(%q): %q: want unsafe, stuck, stale or client-error", verdicts, v)
			}
		}
		if len(verdicts) == 0 {
			return fmt.Errorf("simtest.FailOn(): no verdict")
		}
		c.failOn = verdicts
		return nil
	}
}

// Runs is how many scenarios to run before passing. Default: DefaultRuns
// (a fifth with -short).
func Runs(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("simtest.Runs(%d): want at least 1", n)
		}
		c.runs = n
		return nil
	}
}

// Seed picks the scenarios: run i's depends only on the seed, i, the fault
// classes and the lock. Default 1, so a test is the same every time; vary
// it (from a flag, a CI variable) to search further.
func Seed(s uint64) Option {
	return func(c *config) error { c.seed = s; return nil }
}

// Workers runs scenarios in parallel (default: one per core). The result
// does not depend on it, but each Locker must keep its state to itself.
func Workers(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("simtest.Workers(%d): want at least 1", n)
		}
		c.workers = n
		return nil
	}
}

// ShrinkTime bounds shrinking (default DefaultShrinkTime). Shrinking is
// deterministic unless it runs out of time.
func ShrinkTime(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("simtest.ShrinkTime(%s): want a positive duration", d)
		}
		c.shrinkTime = d
		return nil
	}
}

// Key is the lock key the lock is given (Params.Key). Default DefaultKey.
func Key(k string) Option {
	return func(c *config) error {
		if k == "" || len(k) > 512 {
			return fmt.Errorf("simtest.Key(%q): want 1 to 512 bytes", k)
		}
		c.key = k
		return nil
	}
}

// TTL is the lock's own TTL, which every scenario then gives the lock
// (Params.TTL) and sizes its workload and faults by, so that a
// counterexample runs at the TTL the lock has in production. Default: none,
// and each scenario draws one (Params).
func TTL(d time.Duration) Option {
	return func(c *config) error {
		// An hour at most: a run lasts some dozen TTLs, within a scenario's
		// longest duration (scenarios.MaxDuration).
		if d <= 0 || d > time.Hour {
			return fmt.Errorf("simtest.TTL(%s): want a positive duration up to 1h", d)
		}
		c.ttl = d
		return nil
	}
}

// Resolution is the unit of the timestamps the lock writes: time.Second
// makes scenarios draw whole-second TTLs (1s to 4s) instead of tenths
// (0.5s to 4s).
func Resolution(d time.Duration) Option {
	return func(c *config) error {
		if d != time.Second && d != time.Millisecond {
			return fmt.Errorf("simtest.Resolution(%s): want time.Second or time.Millisecond", d)
		}
		c.resolution = d
		return nil
	}
}

// Name names the lock in scenario names and messages. Default DefaultName.
func Name(n string) Option {
	return func(c *config) error {
		if !validName(n) {
			return fmt.Errorf("simtest.Name(%q): want 1 to 64 letters, digits, '-', '_' or '.'", n)
		}
		c.name = n
		return nil
	}
}

// Assumes are what the lock assumes of the world (locks.Assumptions):
// Check's inside search keeps every run inside them, and a violation there
// fails the test. Default: a TTL lock's, whose lease lives on the node's
// TTL (locks.ExpiryTTL) with no WAIT and no fsync.
func Assumes(a locks.Assumptions) Option {
	return func(c *config) error {
		if a.Pause < 0 || a.Wait < 0 {
			return fmt.Errorf("simtest.Assumes: Pause %s and Wait %s: want durations ≥ 0", a.Pause, a.Wait)
		}
		if _, ok := locks.ParseExpiry(a.Expiry.String()); !ok {
			return fmt.Errorf("simtest.Assumes: Expiry %d: want one of %s", a.Expiry, strings.Join(locks.ExpiryNames(), ", "))
		}
		c.assumes = a
		return nil
	}
}

// FailOnAnyFault fails the test on a violation found outside the lock's
// assumptions too, as Check did before it answered twice: a TTL lock then
// fails under a pause past its TTL, as every TTL lock does.
func FailOnAnyFault() Option {
	return func(c *config) error { c.anyFault = true; return nil }
}

// MinHeld is the share of runs (0 to 1) that must reach the critical
// section for Check to pass (explore.DefaultMinHeld by default); 0: no
// floor.
func MinHeld(share float64) Option {
	return func(c *config) error {
		if share < 0 || share > 1 {
			return fmt.Errorf("simtest.MinHeld(%v): want a share from 0 to 1", share)
		}
		c.minHeld = share
		if share == 0 {
			c.minHeld = -1 // explore's "no floor"
		}
		return nil
	}
}

// SaveTo is the directory Check writes the counterexample to, as
// DIR/TestName.yaml; "" writes nothing (the failure still prints it).
// Default DefaultSaveDir.
func SaveTo(dir string) Option {
	return func(c *config) error { c.saveDir = dir; return nil }
}

func validName(n string) bool {
	if n == "" || len(n) > 64 {
		return false
	}
	return strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == ""
}

// Settings are what a list of options sets of a search: the fields a
// front door built on simtest (golock.Compare) reads back, each zero where
// no option set it, so that the caller keeps its own default there.
type Settings struct {
	Faults  []string
	Runs    int
	Seed    uint64
	Key     string
	Name    string
	SaveDir string
}

// SettingsOf applies opts to an empty configuration and returns what they
// set; the first option's error, if any.
func SettingsOf(opts ...Option) (Settings, error) {
	var c config
	for _, o := range opts {
		if err := o(&c); err != nil {
			return Settings{}, err
		}
	}
	return Settings{Faults: c.faults, Runs: c.runs, Seed: c.seed, Key: c.key, Name: c.name, SaveDir: c.saveDir}, nil
}
