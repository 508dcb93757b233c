package gen

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/scenarios"
	"pgregory.net/rapid"
)

// The draw helpers: every number the generator draws is made of single
// bits (genBit), in an order that is part of every explore digest.

func genClientName(i int) string {
	if i >= 0 && i < len(clientNames) {
		return clientNames[i] // a run names its clients at every draw: no new string each time
	}
	return "c" + strconv.Itoa(i+1)
}

// clientNames are genClientName's first names, made once.
var clientNames = func() []string {
	names := make([]string, genMaxClients)
	for i := range names {
		names[i] = "c" + strconv.Itoa(i+1)
	}
	return names
}()

// clientNumber is i for the name genClientName(i).
func clientNumber(name string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "c"))
	return max(n-1, 0)
}

// drawDur draws a duration within [lo, hi] in whole steps from lo.
func drawDur(t *rapid.T, label string, lo, hi, step time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(drawInt(t, label, 0, int((hi-lo)/step)))*step
}

func drawLatency(t *rapid.T, label string) scenarios.Latency {
	var minLabel, spreadLabel string
	switch label { // the generator's two, written out so that no draw builds them
	case "request":
		minLabel, spreadLabel = "request min", "request spread"
	case "reply":
		minLabel, spreadLabel = "reply min", "reply spread"
	default:
		minLabel, spreadLabel = label+" min", label+" spread"
	}
	lo := drawDur(t, minLabel, 0, genMaxLatency/2, time.Millisecond)
	hi := lo + drawDur(t, spreadLabel, 0, genMaxLatency/2, time.Millisecond)
	return scenarios.Latency{Min: scenarios.Duration(lo), Max: scenarios.Duration(hi)}
}

// clockLabels are the labels of one clock's draws (rapid shows them in its
// logs), made once per clock name rather than at every draw.
type clockLabels struct{ offsetLess, offsetBehind, driftLess, driftSlow, skewed string }

func newClockLabels(name string) clockLabels {
	return clockLabels{name + " offset less", name + " offset behind", name + " drift less", name + " drift slow", name + " skewed"}
}

// nodeClockLabels and clientClockLabels are the labels of the clocks the
// generator draws: node0, node1, … and c1, c2, ….
var nodeClockLabels, clientClockLabels = func() (nodes, clients []clockLabels) {
	for i := range scenarios.MaxNodes {
		nodes = append(nodes, newClockLabels("node"+strconv.Itoa(i)))
	}
	for i := range genMaxClients {
		clients = append(clients, newClockLabels(genClientName(i)))
	}
	return nodes, clients
}()

// clockLabelsOf is labels[i], or made now past the table.
func clockLabelsOf(labels []clockLabels, i int, name func(int) string) clockLabels {
	if i < len(labels) {
		return labels[i]
	}
	return newClockLabels(name(i))
}

// drawClock: offsets up to two TTLs either way, drift up to 5% either way.
// Both shrink towards their largest value ahead: a counterexample whose
// clock is far off, not one that fails by a lucky millisecond.
func drawClock(t *rapid.T, label clockLabels, ttl time.Duration) scenarios.Clock {
	off := 2*ttl - drawDur(t, label.offsetLess, 0, 2*ttl, 10*time.Millisecond)
	if drawBool(t, label.offsetBehind) {
		off = -off
	}
	drift := int64(genMaxDrift - 1000*drawInt(t, label.driftLess, 0, genMaxDrift/1000))
	if drawBool(t, label.driftSlow) {
		drift = -drift
	}
	if !drawBool(t, label.skewed) {
		return scenarios.Clock{} // most clocks are right: skew is one clock against the others
	}
	return scenarios.Clock{Offset: scenarios.Duration(off), DriftPPM: drift}
}

// genBit is the only rapid generator the scenario generator draws from:
// every number is made of single bits. rapid's biased integers carry a 53-bit
// block each, and minimizing such blocks took most of a shrink's runs.
var genBit = rapid.Bool()

func init() { _ = genBit.String() } // computed once, before any concurrent use

func drawBool(t *rapid.T, label string) bool { return genBit.Draw(t, label) }

// drawInt draws an integer within [lo, hi], about uniformly, from
// bits.Len(hi-lo) bits, most significant first; clearing bits lowers it, so
// it shrinks towards lo.
func drawInt(t *rapid.T, label string, lo, hi int) int {
	if hi <= lo {
		return lo
	}
	span := uint64(hi - lo)
	k := bits.Len64(span)
	var u uint64
	for i := k - 1; i >= 0; i-- {
		if genBit.Draw(t, label) {
			u |= 1 << i
		}
	}
	return lo + int(u*(span+1)>>k)
}

// drawList draws minN to maxN elements, each followed by the bit that says
// whether another follows (drawn below minN too, where it is ignored);
// rapid.SliceOfN decides with a 53-bit coin per element, which cost
// thousands of shrinking runs. The elements are drawn straight from t, not
// each inside a rapid.Custom group: a group draws no bit, it only steered
// rapid's own shrinking, which explore no longer uses (Shrink works on the
// scenario), and it cost a rapid.T and a deferred recover per element and a
// generator per list (a scenario's allocations went from 28 to 15). The
// bits, hence every scenario, are the same either way.
func drawList[E any](t *rapid.T, label string, minN, maxN int, elem func(*rapid.T) E) []E {
	another := anotherOf(label)
	var buf [genMaxClients]E // room for every list the generator draws: one allocation, in Clone
	out := buf[:0]
	for len(out) < maxN {
		out = append(out, elem(t))
		more := drawBool(t, another) // drawn even below minN
		if len(out) >= minN && !more {
			break
		}
	}
	return slices.Clone(out)
}

// anotherOf is the label of drawList's "another follows" bit, written out
// for the generator's lists so that no draw builds it.
func anotherOf(label string) string {
	switch label {
	case "clients":
		return "another of the clients"
	case "faults":
		return "another of the faults"
	case "failovers":
		return "another of the failovers"
	}
	return "another of the " + label
}
