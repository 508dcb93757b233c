// Package locks holds the lock algorithms locksim runs: one file per
// algorithm, each reproducing its document (Documents) step by step with
// the document's constants and bugs, plus three reference algorithms that
// come from no document. A registry maps stable names to constructors.
// Locks written as algorithm files are read by package locks/algofile into
// the same Algorithm, which runs like a built-in.
package locks

import (
	"fmt"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// Forever as Params.Retries means Acquire tries until it gets the lock.
const Forever = -1

// Reference is the Source of the algorithms that come from no document.
const Reference = "reference"

// Params are an algorithm's constants. Each algorithm's Defaults are its
// document's; in overrides a zero field keeps the default. An algorithm
// ignores the fields it has no use for (its Defaults leave them zero).
type Params struct {
	// Key is the lock key.
	Key string
	// TTL is the lock timeout: how far ahead the timestamp in the value
	// points, or the TTL the key is given.
	TTL time.Duration
	// Retries is how many times Acquire tries in all, the first try
	// included (PHP's LOCK_RETRY_MAX = 3 means three tries); Forever: no
	// bound.
	Retries int
	// RetrySleep is the pause between tries.
	RetrySleep time.Duration
	// Resolution is the unit of the timestamps the algorithm writes and
	// compares: time.Second for int(time.time()), time.Millisecond for
	// System.currentTimeMillis().
	Resolution time.Duration
	// Nodes is how many Redis nodes the algorithm uses (Redlock).
	Nodes int
	// TokenScope is how long a random token lives: TokenTry ("" too), a
	// fresh one for every try, or TokenAcquire, one per Acquire call reused
	// by its retries, as bsm/redislock's Obtain does (tokenscope.go).
	TokenScope string
}

// Algorithm is one registered lock algorithm.
type Algorithm struct {
	Name    string
	Source  string // a Document's ID, or Reference
	Summary string // one line
	// Defaults are the document's constants.
	Defaults Params
	// Scripts names the Lua scripts the algorithm EVALs (source → name: its
	// file, or the step that runs it), so reports show a name, not code.
	Scripts map[string]string
	// New makes the algorithm for one process incarnation; zero fields of p
	// take the defaults (Define makes it so).
	New func(p Params) sim.Locker
	// Assumes is what the lock assumes of the world: a run inside it that
	// fails is a bug in the lock (assumptions.go).
	Assumes Assumptions

	lifetime  func(Params) time.Duration
	multiNode bool
	check     func(Params) error // limits of this algorithm, beyond the common ones
}

// Custom completes a defined outside this package (an algorithm file) with
// what the registry's own constructors set: its lifetime for given
// parameters, whether it runs on Params.Nodes nodes (else on one), and its
// limits beyond the common ones (nil: none).
func Custom(a Algorithm, lifetime func(Params) time.Duration, multiNode bool, check func(Params) error) Algorithm {
	a.lifetime, a.multiNode, a.check = lifetime, multiNode, check
	return a
}

// With merges overrides into the defaults: zero fields keep the defaults.
func (a Algorithm) With(o Params) Params {
	p := a.Defaults
	if o.Key != "" {
		p.Key = o.Key
	}
	if o.TTL != 0 {
		p.TTL = o.TTL
	}
	if o.Retries != 0 {
		p.Retries = o.Retries
	}
	if o.RetrySleep != 0 {
		p.RetrySleep = o.RetrySleep
	}
	if o.Resolution != 0 {
		p.Resolution = o.Resolution
	}
	if o.Nodes != 0 {
		p.Nodes = o.Nodes
	}
	if o.TokenScope != "" {
		p.TokenScope = o.TokenScope
	}
	return p
}

// Validate reports overrides the algorithm cannot run with.
func (a Algorithm) Validate(o Params) error {
	p := a.With(o)
	switch {
	case p.TTL < 0:
		return fmt.Errorf("%s: ttl %s is negative", a.Name, p.TTL)
	case p.Retries < Forever:
		return fmt.Errorf("%s: retries %d: want a count of tries ≥ 1, or %d for no bound", a.Name, p.Retries, Forever)
	case p.RetrySleep < 0:
		return fmt.Errorf("%s: retry sleep %s is negative", a.Name, p.RetrySleep)
	case p.Resolution < 0:
		return fmt.Errorf("%s: resolution %s is negative", a.Name, p.Resolution)
	case p.Nodes < 0:
		return fmt.Errorf("%s: nodes %d is negative", a.Name, p.Nodes)
	case p.TokenScope != "" && p.TokenScope != TokenTry && p.TokenScope != TokenAcquire:
		return fmt.Errorf("%s: token_scope %q: want %s or %s", a.Name, p.TokenScope, TokenTry, TokenAcquire)
	}
	if a.check != nil {
		return a.check(p)
	}
	return nil
}

// Lifetime is how long a lock taken with p can outlive its holder before
// another process may take it (an upper bound, timestamp truncation
// included). 0 means the lock never expires. Liveness calls a process
// stuck when it has been trying for 2 × Lifetime.
func (a Algorithm) Lifetime(o Params) time.Duration {
	p := a.With(o)
	if a.lifetime == nil {
		return p.TTL // an Algorithm built outside this package
	}
	return a.lifetime(p)
}

// NodesNeeded is how many Redis nodes a run of the algorithm needs.
func (a Algorithm) NodesNeeded(o Params) int {
	if !a.multiNode {
		return 1
	}
	return a.With(o).Nodes
}

// registry is in the stable order All returns: the documents' algorithms
// (grouped by document), then the references.
var registry = []Algorithm{
	setnxDelAlgorithm,
	setnxDelRecoverAlgorithm,
	setnxGetsetAlgorithm,
	setnxGetsetCheckedAlgorithm,
	setnxExpireAlgorithm,
	javaGetsetAlgorithm,
	phpEvalAlgorithm,
	pythonSetnxAlgorithm,
	phpSetGetAlgorithm,
	setNXPXTokenAlgorithm,
	fencedTokenAlgorithm,
	redlockAlgorithm,
	tokenExtendAlgorithm,
	hashReentrantWatchdogAlgorithm,
	setNXPXWaitAlgorithm,
}

// All lists every algorithm in a stable order.
func All() []Algorithm {
	return append([]Algorithm(nil), registry...)
}

// Names lists every algorithm's name in the order of All.
func Names() []string {
	names := make([]string, len(registry))
	for i, a := range registry {
		names[i] = a.Name
	}
	return names
}

// Lookup finds an algorithm by its stable name.
func Lookup(name string) (Algorithm, error) {
	for _, a := range registry {
		if a.Name == name {
			return a, nil
		}
	}
	return Algorithm{}, fmt.Errorf("unknown algorithm %q (valid: %s)", name, strings.Join(Names(), ", "))
}

// register fills in the parts every entry shares: New (Define), with the
// entry's name given to its constructor.
func register(a Algorithm, mk func(name string, p Params) sim.Locker) Algorithm {
	name := a.Name
	return Define(a, func(p Params) sim.Locker { return mk(name, p) })
}

// Define gives a its New: mk gets a's Defaults merged with the overrides
// New is called with (With), so a caller passing raw overrides, as a
// scenario does, gets the lock's own constants. It is the one place
// defaults are merged into what a lock is built with: the registry's
// entries, algorithm files (package locks/algofile) and Go locks (package
// locks/resolve) all take their New from it.
func Define(a Algorithm, mk func(p Params) sim.Locker) Algorithm {
	defaults := a
	a.New = func(o Params) sim.Locker { return mk(defaults.With(o)) }
	return a
}
