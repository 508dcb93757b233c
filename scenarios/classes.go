package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/fault"
)

// The fault classes are the one vocabulary of --faults: explore, the
// matrix's columns, simtest and prove take the same words meaning the same
// faults. A class is a named set of fault kinds (the fault table's Classes); how
// large each fault is, each command decides (explore draws sizes at random,
// prove offers a few fixed ones scaled to the TTL). A command that cannot
// offer a class refuses it, saying why. They live with the scenario so
// that reports and every command can name them without importing a search.

// Fault classes: the kinds of trouble a scenario brings.
const (
	ClassNone       = "none"        // no faults: contention only
	ClassCrash      = "crash"       // clients crash (at a time or on an event), some come back fresh
	ClassPause      = "pause"       // clients stop (a GC pause, a VM migration): short-pause and long-pause
	ClassShortPause = "short-pause" // a client stops for less than the TTL
	ClassLongPause  = "long-pause"  // a client stops for longer than the TTL
	ClassSkew       = "skew"        // client and node clocks start apart and drift (never a jump)
	ClassJump       = "jump"        // client and node clocks jump forwards or backwards: client-jump and node-jump
	ClassClientJump = "client-jump" // a client's clock jumps (clock-jump on a client)
	ClassNodeJump   = "node-jump"   // a node's clock jumps (clock-jump on a node)
	ClassNet        = "net"         // requests or replies lost, the client times out (explore: latency too)
	ClassRestart    = "restart"     // nodes restart and lose their data
	ClassFailover   = "failover"    // nodes have replicas; a primary is lost and a replica promoted
)

// ClassDogPause is prove's class of a client's watchdog stopping alone,
// for longer than the TTL, while the holder works on.
const ClassDogPause = "watchdog-pause"

// A FaultClass is one word of the vocabulary and what each command does
// with it.
type FaultClass struct {
	Name   string
	Faults string // what the class brings, as simrun list says it
	// Parts, when set, are the classes this one is made of: a command
	// that offers the parts but not the whole takes the whole as its parts.
	Parts []string
	// NotExplored and NotProved say why explore (with the matrix and
	// simtest) or prove cannot offer the class; "" when it does.
	NotExplored, NotProved string
}

// Vocabulary lists every fault class, in the order simrun list prints
// them: explore's classes in FaultClasses order, each followed by the
// finer classes it is made of.
var Vocabulary = []FaultClass{
	{Name: ClassNone, Faults: "no faults: contention only",
		NotProved: "prove always enumerates the delays; with --max-faults 0 it runs no fault"},
	{Name: ClassCrash, Faults: "clients crash; in explore some come back as fresh processes"},
	{Name: ClassPause, Faults: "clients stop, for less or more than the TTL (a GC pause, a VM migration)",
		Parts: []string{ClassShortPause, ClassLongPause}},
	{Name: ClassShortPause, Faults: "a client stops for less than the TTL",
		NotExplored: "explore's pause draws pauses of every length: use pause"},
	{Name: ClassLongPause, Faults: "a client stops for longer than the TTL",
		NotExplored: "explore's pause draws pauses of every length: use pause"},
	{Name: ClassSkew, Faults: "client and node clocks start apart and drift",
		NotProved: "clock drift is not a fault at one instant; prove's clock faults are client-jump and node-jump"},
	{Name: ClassJump, Faults: "client and node clocks jump forwards or backwards",
		Parts: []string{ClassClientJump, ClassNodeJump}},
	{Name: ClassClientJump, Faults: "a client's clock jumps",
		NotExplored: "explore's jump draws client and node clock jumps together: use jump"},
	{Name: ClassNodeJump, Faults: "a node's clock jumps",
		NotExplored: "explore's jump draws client and node clock jumps together: use jump"},
	{Name: ClassNet, Faults: "requests and replies are lost and the client times out; in explore latency varies too"},
	{Name: ClassRestart, Faults: "nodes restart and lose their data"},
	{Name: ClassFailover, Faults: "nodes have replicas; a primary is lost and a replica promoted",
		NotProved: "prove's nodes have no replicas; a node that loses its data is restart"},
	{Name: ClassDogPause, Faults: "a client's watchdog alone stops for longer than the TTL; the holder works on",
		NotExplored: "explore's pause stops the whole client, its watchdog with it; prove plans a watchdog's own pause"},
}

// Kinds are the fault kinds a command may plan under the class, as the
// fault table's classes say; none for a class that is all configuration
// (skew's drift; net's random latency and loss in explore).
func (c *FaultClass) Kinds() []fault.Kind { return fault.OfClass(c.Name) }

// ClassNames lists the names of the Vocabulary, in its order.
func ClassNames() []string {
	out := make([]string, len(Vocabulary))
	for i, c := range Vocabulary {
		out[i] = c.Name
	}
	return out
}

// ClassOf is the class named name, or nil.
func ClassOf(name string) *FaultClass {
	for i := range Vocabulary {
		if Vocabulary[i].Name == name {
			return &Vocabulary[i]
		}
	}
	return nil
}

// FaultClasses lists the classes explore draws (and so the matrix's
// columns, and simtest's), in a stable order: the order is part of every
// explore digest, so a new class goes last.
var FaultClasses = []string{ClassNone, ClassCrash, ClassPause, ClassSkew, ClassJump, ClassNet, ClassRestart, ClassFailover}

// ParseClasses reads a comma-separated list of fault classes ("crash,pause")
// or "all", for explore, the matrix and simtest. The result is in the order
// of FaultClasses, without repeats; "none" combined with other classes adds
// nothing. A class of the vocabulary explore does not draw is refused,
// saying why.
func ParseClasses(list string) ([]string, error) {
	want := map[string]bool{}
	for _, c := range strings.Split(list, ",") {
		c = strings.TrimSpace(c)
		switch {
		case c == "all":
			for _, k := range FaultClasses {
				want[k] = true
			}
		case slices.Contains(FaultClasses, c):
			want[c] = true
		case ClassOf(c) != nil:
			return nil, fmt.Errorf("fault class %q: %s", c, ClassOf(c).NotExplored)
		default:
			return nil, fmt.Errorf("%q is not a fault class (valid: %s, all)", c, strings.Join(FaultClasses, ", "))
		}
	}
	var out []string
	for _, c := range FaultClasses { // the fixed order, not the map's
		if want[c] && (c != ClassNone || len(want) == 1) {
			out = append(out, c)
		}
	}
	return out, nil
}
