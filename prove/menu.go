package prove

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/scenarios"
)

// A choice is one entry of the fault menu: what may happen to a process at
// one of its choice points (about to send a command, a reply just arrived,
// or the lock just acquired). Every choice is an ordinary scenario fault triggered on that
// event, so a schedule is a scenario file and `simrun run` replays it.
type choice struct {
	class string // the --faults word that switches it on; "" for a delay
	name  string // as a schedule is printed: "pause 15s"
	// fault is the scenario fault, sized to the space (sizes); its
	// trigger and client are the step's.
	fault scenarios.Fault
}

// shift is a delay's length.
func (c *choice) shift() time.Duration { return time.Duration(c.fault.For) }

// sendOnly says whether the choice is offered at send points only: a lost
// request or reply loses the client's next command, so at a reply or
// acquired point it would lose the same command as at the next send point.
func (c *choice) sendOnly() bool { return c.class == ClassNet }

// sizes are what the menu's choices are sized to: the space's fixed
// parameters (Parameters) and K.
type sizes struct {
	ttl     time.Duration // the lock's lifetime (noTTL for one that never expires)
	k       int           // the most faults one schedule holds
	latency time.Duration // one way, request and reply alike
	// short is the short pause: TTL/2K, or less when the work and the
	// delays leave less room inside the lock's assumptions (shortPause);
	// shortName names it when it is less.
	short     time.Duration
	shortName string
}

// lossTimeout is how long a client waits for a lost request's or reply's
// answer before it times out (prove's network has no timeout of its own):
// a client's usual timeout, 100 ms, but at most TTL/10, so that waiting it
// out stays well inside the lease, and at least two round trips.
func (z sizes) lossTimeout() time.Duration {
	return max(min(100*time.Millisecond, z.ttl/10), 4*z.latency)
}

// longestDelay is the longest delay choice: a whole round trip (races.go
// looks that far after an event).
func (z sizes) longestDelay() time.Duration { return 2 * z.latency }

// Menu classes, as --faults takes them: words of the one vocabulary
// (scenarios.Vocabulary), each meaning the faults it means in explore,
// sized here to the TTL.
const (
	ClassShortPause = scenarios.ClassShortPause // a pause inside the TTL: TTL/(2K), so that K of them stay under TTL/2, or less (shortPause)
	ClassLongPause  = scenarios.ClassLongPause  // a pause longer than the TTL: 3·TTL/2
	ClassCrash      = scenarios.ClassCrash      // the process dies, no restart
	ClassClientJump = scenarios.ClassClientJump // the process's clock jumps by ±TTL/2 from then on
	ClassNet        = scenarios.ClassNet        // the command being sent loses its request or its reply; the client times out
	ClassRestart    = scenarios.ClassRestart    // a node restarts empty, for a lock on several nodes (restartChoices)
	ClassNodeJump   = scenarios.ClassNodeJump   // a node's clock jumps forward by the TTL, for a lock on several nodes (nodeJumpChoices)
	ClassDogPause   = scenarios.ClassDogPause   // the process's watchdog alone stops for 3·TTL/2: its lease lapses while the holder works
)

// Classes lists the menu classes in menu order; a new class goes last, so
// that the order of the old ones' schedules, and so which counterexample
// comes first, stays. Every one is a word of scenarios.Vocabulary that
// prove does not refuse (TestClassesAreTheVocabulary).
var Classes = []string{ClassShortPause, ClassLongPause, ClassCrash, ClassClientJump, ClassNet, ClassRestart, ClassNodeJump, ClassDogPause}

// allClasses are what "all" (and no --faults) means: every menu class but
// watchdog-pause, which needs the holders to work past the TTL on their
// watchdog (holdPastTTL), a different base run with many more choice
// points (a waiter retries all that time); it is asked for by name.
var allClasses = slices.DeleteFunc(slices.Clone(Classes), func(c string) bool { return c == ClassDogPause })

// nodeClasses are the classes whose choices act on a node: only for a lock
// on several nodes (a single node's restart or clock jump loses any lock).
var nodeClasses = []string{ClassRestart, ClassNodeJump}

// noTTL is the TTL the menu scales to for a lock that never expires.
const noTTL = 30 * time.Second

// defaultLatency is prove's network latency each way unless
// Options.Latency says otherwise: fixed, no loss.
const defaultLatency = time.Millisecond

// maxShift is the longest delay at the default latency.
const maxShift = 2 * defaultLatency

// menuEntry is one row of the fault menu, sized when a space is built.
type menuEntry struct {
	class, name string
	fault       func(z sizes) scenarios.Fault
}

var menu = []menuEntry{
	{ClassShortPause, "pause TTL/2K", func(z sizes) scenarios.Fault {
		return scenarios.Fault{Kind: fault.Pause.File(), For: scenarios.Duration(z.short)}
	}},
	{ClassLongPause, "pause 3·TTL/2", func(z sizes) scenarios.Fault {
		return scenarios.Fault{Kind: fault.Pause.File(), For: scenarios.Duration(z.ttl + z.ttl/2)}
	}},
	{ClassCrash, "crash", func(sizes) scenarios.Fault {
		return scenarios.Fault{Kind: fault.Crash.File()}
	}},
	{ClassClientJump, "clock +TTL/2", func(z sizes) scenarios.Fault {
		return scenarios.Fault{Kind: fault.ClientJump.File(), By: scenarios.Duration(z.ttl / 2)}
	}},
	{ClassClientJump, "clock -TTL/2", func(z sizes) scenarios.Fault {
		return scenarios.Fault{Kind: fault.ClientJump.File(), By: scenarios.Duration(-z.ttl / 2)}
	}},
	{ClassNet, "lost request", func(z sizes) scenarios.Fault {
		return scenarios.Fault{Kind: fault.LoseRequest.File(), For: scenarios.Duration(z.lossTimeout())}
	}},
	{ClassNet, "lost reply", func(z sizes) scenarios.Fault {
		return scenarios.Fault{Kind: fault.LoseReply.File(), For: scenarios.Duration(z.lossTimeout())}
	}},
	// Last, so that the choices above keep their order. Long enough that a
	// renewal due in it comes after the lease has lapsed.
	{ClassDogPause, "watchdog pause 3·TTL/2", func(z sizes) scenarios.Fault {
		return scenarios.Fault{Kind: fault.WatchdogPause.File(), For: scenarios.Duration(z.ttl + z.ttl/2)}
	}},
}

// delayChoices are the interleaving choices, bounded apart from the faults
// (Options.MaxDelays): the network is fixed, so the order of events is
// chosen by holding a process back at a choice point. 1 ns loses every tie
// at that instant (events at one instant otherwise run in the order they
// were scheduled); one latency (1 ms by default) lets one request of
// another process arrive first; two, a whole round trip of it. Each is a
// pause in the scenario file.
func delayChoices(z sizes) []choice {
	var out []choice
	for _, d := range []time.Duration{time.Nanosecond, z.latency, z.longestDelay()} {
		out = append(out, choice{"", "delay " + d.String(), scenarios.Fault{Kind: fault.Pause.File(), For: scenarios.Duration(d)}})
	}
	return out
}

// ParseClasses reads --faults: fault classes, comma-separated, or "all"
// (every menu class). A class made of menu classes (pause, jump) is taken
// as its parts; a class of the vocabulary prove cannot offer is refused,
// saying why.
func ParseClasses(list string) ([]string, error) {
	if strings.TrimSpace(list) == "all" {
		return slices.Clone(allClasses), nil
	}
	var out []string
	for _, w := range strings.Split(list, ",") {
		w = strings.TrimSpace(w)
		words := []string{w}
		if c := scenarios.ClassOf(w); c != nil && len(c.Parts) > 0 {
			words = c.Parts
		}
		for _, w := range words {
			switch c := scenarios.ClassOf(w); {
			case c != nil && c.NotProved != "":
				return nil, fmt.Errorf("fault class %q: %s", w, c.NotProved)
			case !slices.Contains(Classes, w):
				return nil, fmt.Errorf("%q is not a fault class (prove takes %s, or all)", w, strings.Join(Offered(), ", "))
			}
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	// Menu order, whatever the order given: the enumeration's order (and so
	// which counterexample comes first) does not depend on how it was typed.
	slices.SortFunc(out, func(a, b string) int { return slices.Index(Classes, a) - slices.Index(Classes, b) })
	return out, nil
}

// Offered lists, in the vocabulary's order, the classes --faults takes:
// the menu classes and those made of them.
func Offered() []string {
	var out []string
	for _, c := range scenarios.Vocabulary {
		if c.NotProved == "" {
			out = append(out, c.Name)
		}
	}
	return out
}

// restartChoices are the restart class's choices for a lock on nodes
// nodes: node i restarts at once with no data (persistence none), one
// choice per node, since which node loses the lock matters. A lock on one
// node has none: its node's restart loses the lock, outside the
// assumptions of every single-node lock (New refuses the class alone).
func restartChoices(nodes int) []choice {
	if nodes < 2 {
		return nil
	}
	out := make([]choice, nodes)
	for i := range nodes {
		n := i
		out[i] = choice{ClassRestart, fmt.Sprintf("restart node%d", i), scenarios.Fault{Kind: fault.NodeRestart.File(), Node: &n}}
	}
	return out
}

// nodeJumpChoices are the node-jump class's choices for a lock on nodes
// nodes: node i's clock jumps forward by the TTL, so every key it holds
// expires at once (Redlock's clock-jump objection); one choice per node. A
// lock on one node has none, as for restartChoices.
func nodeJumpChoices(nodes int, z sizes) []choice {
	if nodes < 2 {
		return nil
	}
	out := make([]choice, nodes)
	for i := range nodes {
		n := i
		out[i] = choice{ClassNodeJump, fmt.Sprintf("node%d clock +TTL", i), scenarios.Fault{Kind: fault.NodeJump.File(), Node: &n, By: scenarios.Duration(z.ttl)}}
	}
	return out
}

// menuOf is the menu the classes switch on for a lock on nodes nodes,
// sized to z, in menu order, then the delays when any may be taken.
func menuOf(classes []string, maxDelays, nodes int, z sizes) []choice {
	var out []choice
	for _, c := range menu {
		if slices.Contains(classes, c.class) {
			name := c.name
			if c.class == ClassShortPause && z.shortName != "" {
				name = z.shortName
			}
			out = append(out, choice{c.class, name, c.fault(z)})
		}
	}
	if slices.Contains(classes, ClassRestart) {
		out = append(out, restartChoices(nodes)...)
	}
	if slices.Contains(classes, ClassNodeJump) {
		out = append(out, nodeJumpChoices(nodes, z)...)
	}
	if maxDelays > 0 {
		out = append(out, delayChoices(z)...)
	}
	return out
}
