package prove

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/scenarios"
)

// A choice is one entry of the fault menu: what may happen to a process at
// one of its choice points (about to send a command, a reply just arrived,
// or the lock just acquired). Every choice is an ordinary scenario fault triggered on that
// event, so a schedule is a scenario file and `simrun run` replays it.
type choice struct {
	class string // the --faults word that switches it on; "" for a delay
	name  string // as a schedule is printed: "pause 15s"
	// fault is the scenario fault, scaled to the lock's TTL and to K (the
	// most faults a schedule may hold).
	fault func(ttl time.Duration, k int) scenarios.Fault
}

// shift is a delay's length.
func (c *choice) shift() time.Duration { return time.Duration(c.fault(0, 0).For) }

// sendOnly says whether the choice is offered at send points only: a lost
// request or reply loses the client's next command, so at a reply or
// acquired point it would lose the same command as at the next send point.
func (c *choice) sendOnly() bool { return c.class == ClassNet }

// Menu classes, as --faults takes them: words of the one vocabulary
// (scenarios.Vocabulary), each meaning the faults it means in explore,
// sized here to the TTL.
const (
	ClassShortPause = scenarios.ClassShortPause // a pause shorter than the TTL: TTL/(2K), so that K of them stay under TTL/2
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

// roundTrip is the fixed request plus reply latency of prove's network.
const roundTrip = 2 * time.Millisecond

// lossTimeout is how long a client waits for a lost request's or reply's
// answer before it times out (prove's network has no timeout of its own):
// a client's usual timeout, 100 ms, but at most TTL/10, so that waiting it
// out stays well inside the lease.
func lossTimeout(ttl time.Duration) time.Duration { return min(100*time.Millisecond, ttl/10) }

var menu = []choice{
	{ClassShortPause, "pause TTL/2K", func(ttl time.Duration, k int) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultPause, For: scenarios.Duration(ttl / time.Duration(2*max(k, 1)))}
	}},
	{ClassLongPause, "pause 3·TTL/2", func(ttl time.Duration, _ int) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultPause, For: scenarios.Duration(ttl + ttl/2)}
	}},
	{ClassCrash, "crash", func(time.Duration, int) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultCrash}
	}},
	{ClassClientJump, "clock +TTL/2", func(ttl time.Duration, _ int) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultClockJump, By: scenarios.Duration(ttl / 2)}
	}},
	{ClassClientJump, "clock -TTL/2", func(ttl time.Duration, _ int) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultClockJump, By: scenarios.Duration(-ttl / 2)}
	}},
	{ClassNet, "lost request", func(ttl time.Duration, _ int) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultLoseRequest, For: scenarios.Duration(lossTimeout(ttl))}
	}},
	{ClassNet, "lost reply", func(ttl time.Duration, _ int) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultLoseReply, For: scenarios.Duration(lossTimeout(ttl))}
	}},
	// Last, so that the choices above keep their order. Long enough that a
	// renewal due in it comes after the lease has lapsed.
	{ClassDogPause, "watchdog pause 3·TTL/2", func(ttl time.Duration, _ int) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultDogPause, For: scenarios.Duration(ttl + ttl/2)}
	}},
}

// delays are the interleaving choices, bounded apart from the faults
// (Options.MaxDelays): the network is fixed, so the order of events is
// chosen by holding a process back at a choice point. 1 ns loses every tie
// at that instant (events at one instant otherwise run in the order they
// were scheduled); 1 ms lets one request of another process arrive first;
// 2 ms, a whole round trip of it. Each is a pause in the scenario file.
var delays = []choice{
	{"", "delay 1ns", func(time.Duration, int) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultPause, For: scenarios.Duration(time.Nanosecond)}
	}},
	{"", "delay 1ms", func(time.Duration, int) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultPause, For: scenarios.Duration(roundTrip / 2)}
	}},
	{"", "delay 2ms", func(time.Duration, int) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultPause, For: scenarios.Duration(roundTrip)}
	}},
}

// maxShift is the longest delay (races.go looks that far after an event).
const maxShift = roundTrip

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
		out[i] = choice{ClassRestart, fmt.Sprintf("restart node%d", i), func(time.Duration, int) scenarios.Fault {
			n := i
			return scenarios.Fault{Kind: scenarios.FaultNodeRestart, Node: &n}
		}}
	}
	return out
}

// nodeJumpChoices are the node-jump class's choices for a lock on nodes
// nodes: node i's clock jumps forward by the TTL, so every key it holds
// expires at once (Redlock's clock-jump objection); one choice per node. A
// lock on one node has none, as for restartChoices.
func nodeJumpChoices(nodes int) []choice {
	if nodes < 2 {
		return nil
	}
	out := make([]choice, nodes)
	for i := range nodes {
		out[i] = choice{ClassNodeJump, fmt.Sprintf("node%d clock +TTL", i), func(ttl time.Duration, _ int) scenarios.Fault {
			n := i
			return scenarios.Fault{Kind: scenarios.FaultClockJump, Node: &n, By: scenarios.Duration(ttl)}
		}}
	}
	return out
}

// menuOf is the menu the classes switch on for a lock on nodes nodes, in
// menu order, then the delays when any may be taken.
func menuOf(classes []string, maxDelays, nodes int) []choice {
	var out []choice
	for _, c := range menu {
		if slices.Contains(classes, c.class) {
			out = append(out, c)
		}
	}
	if slices.Contains(classes, ClassRestart) {
		out = append(out, restartChoices(nodes)...)
	}
	if slices.Contains(classes, ClassNodeJump) {
		out = append(out, nodeJumpChoices(nodes)...)
	}
	if maxDelays > 0 {
		out = append(out, delays...)
	}
	return out
}
