// Package golock runs a real Go lock library, unmodified, inside locksim's
// simulation in simulated time: each simulated process gets connections to
// the simulated nodes (Env.Dial, and Env's dialer functions in the shapes
// Go Redis clients take), and the whole run is inside a testing/synctest
// bubble whose clock the engine moves from event to event, so the
// library's time.Now, timers, context deadlines and read deadlines follow
// the simulation.
//
// The user writes how the library acquires (NewLock); Check explores the
// lock under fault classes, as simtest.Check does for a lock written against
// sim.Proc, renewing a lease that has Extend; Replay replays the
// counterexample Check wrote as a regression test that fails while the
// library still breaks there; Run runs one scenario of the catalogue or a
// file and returns its outcome without failing the test:
//
//	func TestRedsync(t *testing.T) {
//		golock.Check(t, func(env *golock.Env) golock.Acquire {
//			pool := goredis.NewPool(goredisenv.Client(env, 0)) // node 0
//			m := redsync.New(pool).NewMutex(env.Key, redsync.WithExpiry(env.TTL),
//				redsync.WithGenValueFunc(env.Token), // not crypto/rand
//				redsync.WithRetryDelayFunc(func(int) time.Duration { // not math/rand
//					return time.Duration(50+env.Rand.IntN(200)) * time.Millisecond
//				}))
//			return func(ctx context.Context) (*golock.Lease, error) {
//				if err := m.LockContext(ctx); err != nil {
//					return nil, err
//				}
//				return &golock.Lease{Token: m.Value(), Release: func(ctx context.Context) error {
//					_, err := m.UnlockContext(ctx)
//					return err
//				}, Extend: func(ctx context.Context) error { // renewed in the search
//					if ok, err := m.ExtendContext(ctx); !ok || err != nil {
//						return errors.Join(redsync.ErrExtendFailed, err)
//					}
//					return nil
//				}}, nil
//			}
//		}, golock.Faults("pause"), golock.TTL(8*time.Second))
//	}
//
// # Modules
//
// This package is a module of its own, github.com/locksim/locksim/golock,
// that requires locksim and nothing else: no client library and no lock
// library enters the graph of a user who requires it, so the versions
// their own go.mod names are the versions their tests run (minimal version
// selection lifts a dependency to the highest version any module in the
// graph requires). The ready clients are modules of their own for the same
// reason, one per client library, each requiring that client alone:
// golock/goredisenv (go-redis v9), golock/goredisv8env (go-redis v8),
// golock/redigoenv (redigo) and golock/rueidisenv (rueidis). A user requires the one for the client
// their lock library takes. A client that none of them makes is given one
// of Env's dialer functions (DialContext, NetDial, DialFn, DialCtxFn) and
// an address from Env.Addr.
package golock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/resolve"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/reports"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/bubble"
	"github.com/locksim/locksim/simtest"
)

// Lease is a lock the library says it holds.
type Lease struct {
	Token   string                          // for reports; "" if the library hides it
	Release func(ctx context.Context) error // required
	// Extend renews the lease (redsync's Extend, bsm/redislock's Refresh):
	// nil when it did, an error when the lock is lost. Check renews a
	// lease that has it: every client's watchdog calls it every third of
	// the TTL or a drawn period, while its work runs past the TTL. A
	// scenario whose clients renew (renew_every) calls it too; there a
	// lease without it cannot be renewed, which ends the process as a
	// client error.
	Extend func(ctx context.Context) error
}

// Acquire takes the lock once, with the library's own retry policy: a
// lease when it holds it; an error (or a nil lease) when it does not. An
// error counts as not held (real libraries report a lock held by someone
// else as one: redsync.ErrFailed, redislock.ErrNotObtained) unless it is
// Fatal: then the process ends with it as its client error, as a caller
// that panics or exits on it. ctx is the process's life: a crash cancels
// it.
type Acquire func(ctx context.Context) (*Lease, error)

// Fatal marks an error that ends the process, as a panic or log.Fatal of
// the caller would.
func Fatal(err error) error {
	if err == nil {
		return nil
	}
	return &fatalError{err}
}

type fatalError struct{ err error }

func (f *fatalError) Error() string { return f.err.Error() }
func (f *fatalError) Unwrap() error { return f.err }

// NewLock makes the lock for one process incarnation: the engine calls it
// for every process and again when a crashed one restarts, with a fresh
// Env (the clients it makes from it are fresh too), so what it makes is
// that process's memory.
type NewLock func(env *Env) Acquire

// Locker makes newLock a sim.Locker factory for simtest and scenarios. Its
// lockers work only inside a synctest bubble (Check and Run make one).
// Searched through explore directly, its leases are not renewed: Check
// learns what the library offers first (a probe run) and searches with it.
func Locker(newLock NewLock) simtest.NewLocker { return lockerOf(newLock, nil, nil) }

func lockerOf(newLock NewLock, s *search, g *guard) simtest.NewLocker {
	return func(p simtest.Params) sim.Locker {
		return &locker{newLock: newLock, key: p.Key, ttl: p.TTL, search: s, guard: g}
	}
}

// locker is one incarnation's lock: the library's objects are made on its
// first Acquire, when the run's Library for the process exists.
type locker struct {
	newLock NewLock
	key     string
	ttl     time.Duration
	search  *search // nil outside Check
	guard   *guard  // the dials outside the simulation of its runs
	lib     *bubble.Library
	env     *Env
	acquire Acquire // made by newLock in the first Acquire's call
	held    *Lease
}

// search is what the lockers of one Check share: its options, what the
// probe learnt of the library, and what every Acquire did (one worker: the
// runs take turns).
type search struct {
	opts    config
	extends bool // a lease had Extend
	// acquires counts the Acquire calls, held those that held; firstErr
	// is the first error an Acquire returned.
	acquires, held int
	firstErr       string
	// outside: the first error was a dial of the real network.
	outside bool
	guard   *guard
}

// Renewal tells the generator (explore/gen.Renewable) whether the lease
// can be extended, as the probe found, so that faults are aimed at its
// renewals, and whether the library renews by itself (Watchdog).
func (l *locker) Renewal() (extends, ownWatchdog bool) {
	if l.search == nil {
		return false, false
	}
	return l.search.extends, l.search.opts.watchdog
}

// RenewEvery makes the lock sim.SelfRenewing in a search whose lease has
// Extend: a client with no renew_every of its own renews every third of
// the TTL (Redisson's default, and what redsync's and bsm/redislock's
// READMEs leave to their users), so that a search draws renewal periods
// and a shrunk counterexample's renew_every: 0 still renews. 0 (no
// renewal unless the scenario asks) outside a search: a catalogue
// scenario's client renews only as written.
func (l *locker) RenewEvery() time.Duration {
	if l.search == nil || !l.search.extends {
		return 0
	}
	return max(l.ttl/3, scenarios.MinRenewEvery)
}

// Nodes tells the generator (explore/gen.FixedNodes) how many nodes to
// give the lock (the Nodes option).
func (l *locker) Nodes() int {
	if l.search == nil {
		return 0
	}
	return l.search.opts.nodes
}

// CallBudget tells the generator (sim.CallBudgeter) the longest a
// command of golock/goredisenv's clients may take before go-redis gives
// up: each of its tries may dial a fresh connection, whose handshake waits
// up to the dial timeout, then waits up to the read timeout for the reply.
func (l *locker) CallBudget() time.Duration {
	return (ClientMaxRetries + 1) * (ClientDialTimeout + ClientReadTimeout)
}

func (l *locker) setup(p sim.Proc) error {
	if l.lib != nil {
		return nil
	}
	lib, err := bubble.LibraryFor(p, synctest.Wait)
	if err != nil {
		return err
	}
	l.env = &Env{Key: l.key, TTL: l.ttl, Nodes: p.Nodes(), Rand: p.Rand(), lib: lib, guard: l.guard}
	l.lib = lib
	return nil
}

var errNoAcquire = errors.New("golock: NewLock returned no Acquire")

// The timeouts and retries of the go-redis clients golock/goredisenv
// makes: go-redis v9.23.0's defaults, exported so that the call budget
// (CallBudget) and that module name the same figures.
const (
	ClientDialTimeout = 5 * time.Second
	ClientReadTimeout = 5 * time.Second // the write timeout follows it
	ClientMaxRetries  = 3
)

func (l *locker) Acquire(p sim.Proc) (sim.Lease, error) {
	if err := l.setup(p); err != nil {
		return sim.Lease{}, err
	}
	var lease *Lease
	var err error
	// The lock is made in the same call as it first acquires: one
	// goroutine where two would take the same instant.
	l.lib.Call(p, func(ctx context.Context) {
		if l.acquire == nil {
			if l.acquire = l.newLock(l.env); l.acquire == nil {
				err = errNoAcquire
				return
			}
		}
		lease, err = l.acquire(ctx)
	})
	if err == errNoAcquire {
		return sim.Lease{}, err
	}
	if out := l.guard.first(); out != nil {
		return sim.Lease{}, out // the run is void: end the process
	}
	l.count(lease, err)
	var fe *fatalError
	if errors.As(err, &fe) {
		return sim.Lease{}, fe.err
	}
	if err != nil || lease == nil {
		return sim.Lease{}, nil
	}
	if lease.Release == nil {
		return sim.Lease{}, errors.New("golock: a Lease without Release")
	}
	l.held = lease
	return sim.Lease{Held: true, Token: lease.Token}, nil
}

// count notes what an Acquire of a search did: held or not, the first
// error, and whether the lease can be extended.
func (l *locker) count(lease *Lease, err error) {
	s := l.search
	if s == nil {
		return
	}
	s.acquires++
	switch {
	case err != nil:
		if s.firstErr == "" {
			s.firstErr, s.outside = err.Error(), realDial(err)
		}
	case lease != nil:
		s.held++
		s.extends = s.extends || lease.Extend != nil
	}
}

// Extend runs the lease's Extend, from the process's watchdog.
func (l *locker) Extend(p sim.Proc, _ sim.Lease) (bool, error) {
	lease := l.held
	if lease == nil || lease.Extend == nil {
		return false, errors.New("golock: the lease has no Extend")
	}
	var err error
	l.lib.Call(p, func(ctx context.Context) { err = lease.Extend(ctx) })
	return err == nil, nil
}

// Release runs the lease's Release. An error ends the process as a client
// error, as a caller that panics on a failed unlock (redsync's README) or
// returns it: a Release that does not want that returns nil.
func (l *locker) Release(p sim.Proc, _ sim.Lease) error {
	lease := l.held
	if lease == nil {
		return errors.New("golock: Release without a held lease")
	}
	l.held = nil
	var err error
	l.lib.Call(p, func(ctx context.Context) { err = lease.Release(ctx) })
	return err
}

// Check explores the lock under the options' fault classes, as
// simtest.Check does, and answers twice: it fails the test on a violation
// inside the lock's assumptions (a bug in the library as used) and logs
// the outside answer, the breaking point (golock.With(simtest.
// FailOnAnyFault()) fails on any violation; Explore is the one search of
// any violation). It runs inside a synctest bubble: one worker (the bubble's
// clock is one), and shrinking bounded by its count of runs only (the
// bubble's clock is not the wall clock). Client clock classes (skew, jump)
// are refused: a library reads time.Now, the run's one clock.
//
// A probe run first learns what the library offers: a lease with Extend is
// renewed in the search (each client draws a renewal period, holds past
// the TTL for it to cover, and faults aimed at its renewals), as explore
// renews a lock with a watchdog. Run lengths budget go-redis's own
// timeouts and retries (CallBudget), so that a run cut at its duration is
// a real hang. A search in which no Acquire ever held the lock fails with
// ErrNeverHeld, naming the first Acquire's error. A counterexample is
// replayed twice before it is reported: a lock whose runs do not replay
// (it reads crypto/rand or the unseeded math/rand, or races) fails the
// test as nondeterministic instead.
func Check(t *testing.T, newLock NewLock, opts ...Option) bool {
	t.Helper()
	f, a, err := search2(t, newLock, true, opts)
	if a != nil {
		if line := simtest.OutsideLine(a); line != "" {
			t.Logf("%s", line)
		}
	}
	switch {
	case err != nil:
		t.Errorf("golock: %v", err)
		return false
	case f != nil:
		t.Errorf("%s", f.Message)
		return false
	}
	return true
}

// ErrNeverHeld is what a search gets in which no client ever held the
// lock: it tested nothing (a client that cannot reach the run's nodes, a
// lock that always reports itself taken).
var ErrNeverHeld = errors.New("no client ever held the lock")

// Explore is Check returning what it found instead of failing t: the
// shrunk failure, or nil; ErrNondeterministic when the failure does not
// replay, ErrNeverHeld when no Acquire held the lock.
func Explore(t *testing.T, newLock NewLock, opts ...Option) (*simtest.Failure, error) {
	t.Helper()
	f, _, err := search2(t, newLock, false, opts)
	return f, err
}

// Answer is Check returning both answers instead of failing t: the shrunk
// failure inside the lock's assumptions (nil when none), and the answers,
// the outside one's breaking point among them (nil when the search was
// refused). Its errors are Explore's.
func Answer(t *testing.T, newLock NewLock, opts ...Option) (*simtest.Failure, *explore.Answers, error) {
	t.Helper()
	return search2(t, newLock, true, opts)
}

// search2 is Explore's one search (answer false: simtest.Explore, any
// violation) or Check's two answers (answer true: simtest.Answer, a
// violation inside the lock's assumptions, the outside answer in a).
func search2(t *testing.T, newLock NewLock, answer bool, opts []Option) (f *simtest.Failure, a *explore.Answers, err error) {
	t.Helper()
	all := []simtest.Option{simtest.Faults(DefaultFaults...)}
	var cfg config
	for _, o := range opts {
		if o.err != nil {
			return nil, nil, o.err
		}
		if o.o != nil {
			all = append(all, o.o)
		}
		if o.set != nil {
			o.set(&cfg)
		}
	}
	// One worker: the bubble has one clock. Shrinking is bounded by its
	// count of runs: the bubble's clock is not the wall clock.
	all = append(all, simtest.Workers(1), simtest.ShrinkTime(100*365*24*time.Hour))
	s := &search{opts: cfg, guard: &guard{}}
	if left := inBubble(t, func() {
		if err = s.probe(newLock, cmp.Or(cfg.ttl, 8*time.Second), cfg.nodes); err != nil {
			return
		}
		if answer {
			f, a, err = simtest.Answer(lockerOf(newLock, s, s.guard), all...)
		} else {
			f, err = simtest.Explore(lockerOf(newLock, s, s.guard), all...)
		}
		if out := s.guard.first(); out != nil {
			f, a, err = nil, nil, out
			return
		}
		if err != nil || f == nil {
			return
		}
		err = replays(newLock, f.YAML, f.Outcome.Digest)
	}); left != nil {
		return nil, nil, left
	}
	if f == nil && (err == nil || errors.Is(err, simtest.ErrIncomplete) || errors.Is(err, simtest.ErrUntested)) && s.held == 0 {
		return nil, a, s.neverHeld()
	}
	if err == nil && f != nil {
		err = replayedByGolock(f)
	}
	return f, a, err
}

// probe runs the lock once, one client alone on this many nodes with this
// TTL, to learn whether its lease has Extend. What its Acquire did is then
// forgotten: only the search's runs count for ErrNeverHeld.
func (s *search) probe(newLock NewLock, ttl time.Duration, nodes int) error {
	sc := &scenarios.Scenario{Name: "golock probe", Seed: 1, Duration: scenarios.Duration(time.Minute),
		Params:  scenarios.Params{TTL: scenarios.Duration(ttl)},
		Clients: []scenarios.Client{{Name: "c1", Iterations: 1, Work: scenarios.Duration(10 * time.Millisecond)}},
		Network: scenarios.Network{Request: probeLatency, Reply: probeLatency, Timeout: scenarios.Duration(time.Second)}}
	if nodes > 1 {
		sc.Nodes = make([]scenarios.Node, nodes)
	}
	p, err := sc.PrepareWith(algorithmOf(newLock, s, s.guard))
	if err != nil {
		return err
	}
	if _, err := sim.Run(p.Config); err != nil {
		return err
	}
	if out := s.guard.first(); out != nil {
		return out
	}
	s.acquires, s.held, s.firstErr, s.outside = 0, 0, "", false
	return nil
}

var probeLatency = scenarios.Latency{Min: scenarios.Duration(time.Millisecond), Max: scenarios.Duration(time.Millisecond)}

// neverHeld is ErrNeverHeld with what the Acquires did, in one line.
func (s *search) neverHeld() error {
	why := "every Acquire returned no lease and no error"
	if s.firstErr != "" {
		why = "the first Acquire's error: " + strings.Join(strings.Fields(s.firstErr), " ")
		if s.outside {
			why = "the client dialed outside the simulation (a real address, not Env's dialer or Dial); " + why
		}
	}
	return fmt.Errorf("%w in %d Acquire calls: the search tested nothing; %s", ErrNeverHeld, s.acquires, why)
}

// simtestReplay is the replay line simtest writes into a counterexample
// and its message, with its FailOn verdicts if any.
var simtestReplay = regexp.MustCompile(`simtest\.Replay\(t, newLocker, ("[^"]*")(?:, simtest\.FailOn\(([^)]*)\))?\)`)

// replayedByGolock makes the counterexample's file and message name
// golock.Replay, which replays a library's lock, instead of simtest.Replay.
func replayedByGolock(f *simtest.Failure) error {
	fix := func(b []byte) []byte {
		return simtestReplay.ReplaceAllFunc(b, func(m []byte) []byte {
			g := simtestReplay.FindSubmatch(m)
			call := "golock.Replay(t, newLock, " + string(g[1])
			if len(g[2]) > 0 {
				call += ", " + string(g[2])
			}
			return []byte(call + ")")
		})
	}
	f.YAML, f.Message = fix(f.YAML), string(fix([]byte(f.Message)))
	f.Message = strings.Replace(f.Message, "simrun cannot build a Go lock", "simrun cannot run a Go library", 1)
	if f.Path != "" {
		return os.WriteFile(f.Path, f.YAML, 0o644)
	}
	return nil
}

// Replay runs a counterexample file (or a catalogue scenario) against the
// lock, as Run does, and fails t when its verdict is one of failOn
// (default: unsafe), with the run's report: a regression test that fails
// while the library still breaks there.
func Replay(t *testing.T, newLock NewLock, scenario string, failOn ...string) *judge.Outcome {
	t.Helper()
	if len(failOn) == 0 {
		failOn = simtest.DefaultFailOn
	}
	o, err := Run(t, newLock, scenario)
	if err != nil {
		t.Errorf("golock.Replay: %v", err)
		return nil
	}
	if slices.Contains(failOn, o.Verdict.Verdict) {
		var b strings.Builder
		fmt.Fprintf(&b, "golock.Replay: %s on %s:\n\n", strings.ToUpper(o.Verdict.Verdict), scenario)
		if err := reports.WriteText(&b, o); err != nil {
			fmt.Fprintf(&b, "(no report: %v)", err)
		}
		t.Errorf("%s", b.String())
	}
	return o
}

// DefaultFaults are the fault classes Check explores unless Faults says
// otherwise: those that reach a library (no client clocks).
var DefaultFaults = []string{scenarios.ClassCrash, scenarios.ClassPause, scenarios.ClassNet}

// Option is one of Check's options: Faults, Nodes, TTL, Watchdog, or any
// simtest option (With).
type Option struct {
	o   simtest.Option
	set func(*config)
	err error
}

// config is what golock's own options set.
type config struct {
	nodes    int           // 0 or 1: one node
	ttl      time.Duration // 0: drawn
	watchdog bool
}

// With passes a simtest option (Runs, Seed, FailOn, Key, Name, SaveTo,
// Resolution) to the exploration. Workers and ShrinkTime are Check's own.
func With(o simtest.Option) Option { return Option{o: o} }

// Faults are the fault classes to explore (simtest.Faults). The client
// clock classes, skew and jump, are refused: a library reads time.Now, the
// run's one clock, which no client's skew or jump can reach. Node clocks
// do move, in scenarios that set them.
func Faults(classes ...string) Option {
	for _, c := range classes {
		if c == scenarios.ClassSkew || c == scenarios.ClassJump || c == "all" {
			return Option{err: fmt.Errorf("golock.Faults(%q): %s: a Go library reads time.Now, the run's one clock: client clock skew and jumps cannot reach it", classes, c)}
		}
	}
	return Option{o: simtest.Faults(classes...)}
}

// Nodes runs every scenario on n nodes, Env.Nodes saying so, for a
// client of each (goredisenv.Clients): a quorum lock (redsync with a pool
// per client) is searched through Check directly. Node faults (restart, failover) then pick among the n.
// Default: one node.
func Nodes(n int) Option {
	if n < 1 || n > scenarios.MaxNodes {
		return Option{err: fmt.Errorf("golock.Nodes(%d): want 1 to %d", n, scenarios.MaxNodes)}
	}
	return Option{set: func(c *config) { c.nodes = n }}
}

// TTL gives every scenario the lock's own TTL (Env.TTL), where by default
// each draws one from 0.5 to 4 s: the workload and faults are sized by it,
// and a counterexample runs at the lock's real TTL.
func TTL(d time.Duration) Option {
	if d <= 0 || d > time.Hour {
		return Option{err: fmt.Errorf("golock.TTL(%s): want a positive duration up to 1h", d)}
	}
	return Option{o: simtest.TTL(d), set: func(c *config) { c.ttl = d }}
}

// Watchdog says the library renews a held lease by itself (a goroutine of
// its own, as Redisson's watchdog): holds past the TTL are drawn for it to
// cover, and, when the Lease has Extend too, renewal periods of 0 (none of
// Check's, the library's alone) among the drawn ones.
func Watchdog() Option { return Option{set: func(c *config) { c.watchdog = true }} }

// ErrNondeterministic is what a lock whose runs do not replay gets.
var ErrNondeterministic = errors.New("nondeterministic: the same scenario and seed gave two histories")

// Run runs one scenario (a catalogue name or a file) against the lock
// inside a bubble, with every checker, twice: a second history that
// differs from the first is ErrNondeterministic, not a verdict. Run only
// returns the outcome: it never fails t, whatever the verdict (o.Verdict
// prints as words: "unsafe: overlap (c1, c2)"). Replay is the regression
// test that fails t on a violation, with the run's report.
func Run(t *testing.T, newLock NewLock, scenario string) (o *judge.Outcome, err error) {
	t.Helper()
	if left := inBubble(t, func() {
		var s *scenarios.Scenario
		if s, err = scenarios.Resolve(scenario); err != nil {
			return
		}
		if o, err = RunInBubble(newLock, s); err != nil {
			return
		}
		var again *judge.Outcome
		if again, err = RunInBubble(newLock, s); err == nil && again.Digest != o.Digest {
			err = fmt.Errorf("%s: %w (digests %.12s and %.12s): does the library read crypto/rand or the unseeded math/rand? Give it Env.Token and Env.Rand",
				scenario, ErrNondeterministic, o.Digest, again.Digest)
		}
	}); left != nil {
		return nil, left
	}
	return o, err
}

// ErrGoroutineLeft is a goroutine of the lock that did not end with the
// runs: every run cancels its processes' contexts and closes their
// connections when it ends, and a goroutine that waits on neither (a
// watchdog ticking on context.Background) would run forever.
var ErrGoroutineLeft = errors.New("a goroutine of the lock outlived the run")

// inBubble runs f in a synctest bubble. A goroutine of the bubble still
// there when f has returned and the rest have ended (a minute of the
// bubble's time after) makes synctest panic with every stack: inBubble
// names the oldest one in a line instead.
func inBubble(t *testing.T, f func()) (err error) {
	var left string
	defer func() {
		if v := recover(); v != nil {
			if left == "" {
				panic(v)
			}
			err = fmt.Errorf("%w: %s; end it when its context is cancelled", ErrGoroutineLeft, left)
		}
	}()
	synctest.Test(t, func(*testing.T) {
		f()
		// Goroutines unwinding from the last cancel end; one that waits
		// on a timer of its own first (go-redis's pool backing off a dial
		// the closed run refused) ends within its bubble time: only one
		// still there after a minute of it is left.
		for range 60 {
			synctest.Wait()
			if left = leftInBubble(); left == "" {
				break
			}
			time.Sleep(time.Second)
		}
	})
	return nil
}

var bubbleOf = regexp.MustCompile(`^goroutine \d+ \[[^\n]*, synctest bubble (\d+)[\] ]`)

// leftInBubble describes, from the stacks of all goroutines, the oldest
// goroutine of the caller's bubble that is not testing's own or the
// caller: where it waits and who started it; "" when there is none.
func leftInBubble() string {
	blocks := strings.Split(bubble.Stacks(), "\n\n")
	own := bubbleOf.FindStringSubmatch(blocks[0]) // the caller's goroutine comes first
	if own == nil {
		return ""
	}
	// The oldest goroutine the lock's code started is named: the ones
	// go-redis's pool started for it (a dial it retries) are its
	// consequences. Goroutine ids are handed out from a batch per
	// processor, so a dial started after the lock's goroutine may have the
	// smaller id: started by go-redis ranks after any other, whatever the
	// ids say.
	count, first, firstID, firstLib := 0, "", 0, false
	for _, b := range blocks[1:] {
		m := bubbleOf.FindStringSubmatch(b)
		if m == nil || m[1] != own[1] || strings.Contains(b, "testingSynctestTest") ||
			strings.Contains(b, "testing.tRunner") {
			continue
		}
		count++
		lines := strings.Split(b, "\n")
		by := ""
		for _, l := range lines {
			if c, ok := strings.CutPrefix(l, "created by "); ok {
				by, _, _ = strings.Cut(c, " in goroutine")
				break
			}
		}
		lib := strings.HasPrefix(by, "github.com/redis/go-redis/")
		id, _ := strconv.Atoi(strings.Fields(b)[1])
		if first != "" && (lib && !firstLib || lib == firstLib && id > firstID) {
			continue
		}
		firstID, firstLib = id, lib
		state := strings.TrimSuffix(strings.SplitN(lines[0], "[", 2)[1], "]:")
		state, _, _ = strings.Cut(state, ", synctest")
		at := ""
		if len(lines) > 1 {
			at = lines[1]
			if k := strings.LastIndexByte(at, '('); k > 0 {
				at = at[:k] // its arguments: a method's name keeps its receiver
			}
		}
		first = fmt.Sprintf("%s in %s", state, at)
		if by != "" {
			first += ", started by " + by
		}
	}
	if count > 1 {
		first += fmt.Sprintf(" (and %d more)", count-1)
	}
	return first
}

// replays runs a counterexample again and compares its digest.
func replays(newLock NewLock, yaml []byte, digest string) error {
	s, err := scenarios.Parse("counterexample", yaml)
	if err != nil {
		return err
	}
	o, err := RunInBubble(newLock, s)
	if err != nil {
		return err
	}
	if o.Digest != digest {
		return fmt.Errorf("the counterexample found did not replay: %w (digests %.12s and %.12s): does the library read crypto/rand or the unseeded math/rand? Give it Env.Token and Env.Rand",
			ErrNondeterministic, digest, o.Digest)
	}
	return nil
}

// RunInBubble runs one scenario against the lock, once, for a caller
// already inside a synctest bubble. A counterexample a search wrote
// (go_lock: set) runs as the search ran it: a lease with Extend is renewed
// every third of the TTL by a client whose renew_every is 0 (RenewEvery),
// which a probe run finds out first.
func RunInBubble(newLock NewLock, s *scenarios.Scenario) (*judge.Outcome, error) {
	if err := refuseClientClocks(s); err != nil {
		return nil, err
	}
	var srch *search
	g := &guard{}
	if s.GoLock != "" {
		srch = &search{guard: g}
		ttl := cmp.Or(s.Params.TTL.D(), algorithm(newLock, g).Defaults.TTL)
		if err := srch.probe(newLock, ttl, len(s.Nodes)); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	p, err := s.PrepareWith(algorithmOf(newLock, srch, g))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	o, err := judge.Prepared(s, p, model.Options{})
	if out := g.first(); out != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, out)
	}
	return o, err
}

// algorithm makes newLock a locks.Algorithm a scenario can run: its key and
// TTL are the scenario's, else "lock" and 8 s (redsync's default expiry).
func algorithm(newLock NewLock, g *guard) locks.Algorithm { return algorithmOf(newLock, nil, g) }

func algorithmOf(newLock NewLock, s *search, g *guard) locks.Algorithm {
	newLocker := lockerOf(newLock, s, g)
	return resolve.Go(locks.Algorithm{
		Name:     "go-lock",
		Source:   "Go code checked by golock",
		Summary:  "a real Go lock library",
		Defaults: locks.Params{Key: "lock", TTL: 8 * time.Second, Resolution: time.Millisecond},
	}, func(p locks.Params) sim.Locker { return newLocker(simtest.Params{Key: p.Key, TTL: p.TTL}) }).Algorithm
}

// refuseClientClocks refuses a scenario whose clients' clocks differ from
// true time: a library reads time.Now, which is the bubble's, one clock for
// every goroutine. Node clocks (their offsets, drifts and jumps) apply.
func refuseClientClocks(s *scenarios.Scenario) error {
	for _, c := range s.Clients {
		if c.Clock != (scenarios.Clock{}) {
			return fmt.Errorf("clients: %s: clock: a Go library reads time.Now, the run's one clock: client clock skew cannot reach it", c.Name)
		}
	}
	for i, f := range s.Faults {
		if f.Kind == "proc-clock-jump" {
			return fmt.Errorf("faults[%d]: proc-clock-jump: a Go library reads time.Now, the run's one clock: a client clock jump cannot reach it", i)
		}
	}
	return nil
}
