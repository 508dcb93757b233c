package shrink

import (
	"reflect"
	"time"

	"github.com/locksim/locksim/scenarios"
)

// The cheap steps of Shrink (shrink.go) that lower numbers: the TTL, the
// run's length, clocks, network, nodes, each fault's target, trigger and
// lengths, each client's workload.

// numbers makes every other cheap step once and reports whether one was
// kept.
func (sh *shrinker) numbers() bool {
	changed := false
	// The lock's TTL: shorter, in whole seconds down to 1s (algorithms that
	// write whole-second timestamps), then in tenths if it was not whole.
	if !sh.keepTTL {
		changed = sh.lowerTTL(time.Second) || changed
	}
	if !sh.keepTTL && sh.cur.Params.TTL.D()%time.Second != 0 { // drawn in tenths: the algorithm takes them
		changed = sh.lowerTTL(100*time.Millisecond) || changed
	}
	// The run: shorter, in whole seconds.
	changed = sh.halve(func(c *scenarios.Scenario) *scenarios.Duration { return &c.Duration }, time.Second) || changed
	// Clocks, network, nodes.
	changed = sh.edit(func(c *scenarios.Scenario) { c.Nodes = nil }) || changed
	for i := range sh.cur.Nodes {
		changed = sh.clock(func(c *scenarios.Scenario) *scenarios.Clock { return &c.Nodes[i].Clock }) || changed
	}
	changed = sh.edit(func(c *scenarios.Scenario) { c.Network.LossRequest = 0 }) || changed
	changed = sh.edit(func(c *scenarios.Scenario) { c.Network.LossReply = 0 }) || changed
	changed = sh.edit(func(c *scenarios.Scenario) { c.Network.Request, c.Network.Reply = QuietLatency, QuietLatency }) || changed
	if sh.cur.Params.Nodes > 1 {
		changed = sh.edit(func(c *scenarios.Scenario) {
			c.Params.Nodes -= 2 // a majority needs an odd count
			c.Nodes = c.Nodes[:min(len(c.Nodes), c.Params.Nodes)]
			for j := range c.Faults { // a fault on a node gone: on the last left
				if n := c.Faults[j].Node; n != nil && *n >= c.Params.Nodes {
					*n = c.Params.Nodes - 1
				}
			}
		}) || changed
	}
	// Faults.
	for i := range sh.cur.Faults {
		if i >= len(sh.cur.Faults) {
			break
		}
		// Aimed at, or waiting for, an earlier client: the later ones may
		// then go. Both at once first, when the fault waits for its
		// target.
		if f := sh.cur.Faults[i]; f.Client != "" && f.On != nil && f.On.Client == f.Client {
			for j := range clientNumber(f.Client) {
				if sh.edit(func(c *scenarios.Scenario) {
					c.Faults[i].Client, c.Faults[i].On.Client = clientName(j), clientName(j)
				}) {
					changed = true
					break
				}
			}
		}
		for j := range clientNumber(sh.cur.Faults[i].Client) {
			if sh.cur.Faults[i].Client != "" && sh.edit(func(c *scenarios.Scenario) { c.Faults[i].Client = clientName(j) }) {
				changed = true
				break
			}
		}
		if on := sh.cur.Faults[i].On; on != nil {
			for j := range clientNumber(on.Client) {
				if sh.edit(func(c *scenarios.Scenario) { c.Faults[i].On.Client = clientName(j) }) {
					changed = true
					break
				}
			}
		}
		// On the plainest event of a client's, the first time it got or
		// released the lock, instead of at a time or on a later event: it
		// then keeps its place in the story when clients, iterations and
		// times go.
		if on := sh.cur.Faults[i].On; on == nil || on.Point != scenarios.PointAcquired || on.N != 1 || on.Command != "" {
		event:
			for j := range sh.cur.Clients {
				for _, point := range []string{scenarios.PointAcquired, scenarios.PointReleased} {
					name := sh.cur.Clients[j].Name
					if sh.edit(func(c *scenarios.Scenario) {
						c.Faults[i].At, c.Faults[i].On = 0, &scenarios.Trigger{Client: name, Point: point, N: 1}
					}) {
						changed = true
						break event
					}
				}
			}
		}
		if sh.cur.Faults[i].On != nil {
			changed = sh.count(func(c *scenarios.Scenario) *int { return &c.Faults[i].On.N }, 1) || changed
			changed = sh.edit(func(c *scenarios.Scenario) { c.Faults[i].On.Command = "" }) || changed
		}
		for _, name := range faultLengths {
			changed = sh.halve(func(c *scenarios.Scenario) *scenarios.Duration {
				return reflect.ValueOf(&c.Faults[i]).Elem().FieldByName(name).Addr().Interface().(*scenarios.Duration)
			}, time.Millisecond) || changed
		}
	}
	// Clients: every client's workload plainest at once (one iteration, no
	// start delay, work or think), then each one's number by number.
	changed = sh.edit(func(c *scenarios.Scenario) {
		for i := range c.Clients {
			cl := &c.Clients[i]
			cl.Iterations, cl.Start, cl.Work, cl.Think = min(cl.Iterations, 1), 0, 0, 0
		}
	}) || changed
	// The story earlier: the first client starts at 0, and faults at a
	// time come as much earlier.
	if shift := sh.firstStart(); shift > 0 {
		changed = sh.edit(func(c *scenarios.Scenario) {
			for i := range c.Clients {
				c.Clients[i].Start -= shift
			}
			for i := range c.Faults {
				if c.Faults[i].On == nil {
					c.Faults[i].At = max(c.Faults[i].At-shift, 0)
				}
			}
		}) || changed
	}
	for i := range sh.cur.Clients {
		if i >= len(sh.cur.Clients) {
			break
		}
		changed = sh.count(func(c *scenarios.Scenario) *int { return &c.Clients[i].Iterations }, 1) || changed
		changed = sh.count(func(c *scenarios.Scenario) *int { return &c.Clients[i].Reenter }, 0) || changed
		for _, d := range []func(c *scenarios.Scenario) *scenarios.Duration{
			func(c *scenarios.Scenario) *scenarios.Duration { return &c.Clients[i].Start },
			func(c *scenarios.Scenario) *scenarios.Duration { return &c.Clients[i].Work },
			func(c *scenarios.Scenario) *scenarios.Duration { return &c.Clients[i].Think },
			func(c *scenarios.Scenario) *scenarios.Duration { return &c.Clients[i].RenewEvery },
		} {
			changed = sh.halve(d, time.Millisecond) || changed
		}
		changed = sh.clock(func(c *scenarios.Scenario) *scenarios.Clock { return &c.Clients[i].Clock }) || changed
	}
	changed = sh.edit(func(c *scenarios.Scenario) { c.Seed = 0 }) || changed
	return changed
}

// faultLengths names every scenarios.Duration field of a fault (at, for,
// restart_after, by, and whatever a new kind adds), in field order.
var faultLengths = func() []string {
	var out []string
	t := reflect.TypeOf(scenarios.Fault{})
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && f.Type == reflect.TypeOf(scenarios.Duration(0)) {
			out = append(out, f.Name)
		}
	}
	return out
}()

// halve tries the duration field at zero, then halved (truncated to unit,
// and, for a duration that cannot be zero, not below one unit) while the
// scenario fails. A length of one unit or less is left alone when zero
// does not fail.
func (sh *shrinker) halve(field func(*scenarios.Scenario) *scenarios.Duration, unit time.Duration) bool {
	if *field(sh.cur) == 0 {
		return false
	}
	// Forwards before backwards (a clock jump): the generator's plainest.
	if d := *field(sh.cur); d < 0 && sh.edit(func(c *scenarios.Scenario) { *field(c) = -d }) {
		return true
	}
	if unit < time.Second && sh.edit(func(c *scenarios.Scenario) { *field(c) = 0 }) {
		return true
	}
	changed := false
	for {
		d := field(sh.cur).D()
		h := d / 2
		if unit >= time.Second {
			h = (h + unit - 1).Truncate(unit) // a run lasts whole seconds
		} else {
			h = h.Truncate(unit)
		}
		if h == 0 || h == d || !sh.edit(func(c *scenarios.Scenario) { *field(c) = scenarios.Duration(h) }) {
			return changed
		}
		changed = true
	}
}

// lowerTTL searches, by halving the distance, for the smallest whole
// number of units to which the TTL can be lowered while the scenario
// fails, keeping the generator's rules that make a counterexample about
// faults and not about a workload that ignores its TTL: every client's
// work stays within half the TTL (the candidates stop there), its think
// time and the client timeout are cut to half and a quarter of it, the
// timeout never below the longest round trip or 10ms.
func (sh *shrinker) lowerTTL(unit time.Duration) bool {
	ttl := sh.cur.Params.TTL.D()
	if ttl <= unit || ttl%unit != 0 {
		return false
	}
	var work time.Duration
	for _, c := range sh.cur.Clients {
		work = max(work, c.Work.D())
	}
	lo, hi := max(1, int((2*work+unit-1)/unit)), int(ttl/unit) // in units; hi fails
	changed := false
	for lo < hi {
		mid := lo + (hi-lo)/2
		if sh.edit(func(c *scenarios.Scenario) { withTTL(c, time.Duration(mid)*unit) }) {
			hi, changed = mid, true
		} else {
			lo = mid + 1
		}
	}
	return changed
}

// withTTL sets c's TTL to ttl and cuts what the generator bounds by it.
func withTTL(c *scenarios.Scenario, ttl time.Duration) {
	c.Params.TTL = scenarios.Duration(ttl)
	for i := range c.Clients {
		c.Clients[i].Think = min(c.Clients[i].Think, scenarios.Duration(ttl/2))
	}
	rtt := c.Network.Request.Max + c.Network.Reply.Max
	if c.Network.Timeout > 0 {
		c.Network.Timeout = max(min(c.Network.Timeout, scenarios.Duration(ttl/4)), rtt, scenarios.Duration(10*time.Millisecond))
	}
}

// count lowers an integer field to lo, else by binary search to the
// smallest value above lo that still fails (counts are small: iterations,
// an event's number).
func (sh *shrinker) count(field func(*scenarios.Scenario) *int, lo int) bool {
	hi := *field(sh.cur) // fails
	if hi <= lo {
		return false
	}
	changed := false
	for lo < hi {
		mid := lo + (hi-lo)/2
		if sh.edit(func(c *scenarios.Scenario) { *field(c) = mid }) {
			hi, changed = mid, true
		} else {
			lo = mid + 1
		}
	}
	return changed
}

// clock tries a right clock, then the offset and the drift halved.
func (sh *shrinker) clock(field func(*scenarios.Scenario) *scenarios.Clock) bool {
	if *field(sh.cur) == (scenarios.Clock{}) {
		return false
	}
	if sh.edit(func(c *scenarios.Scenario) { *field(c) = scenarios.Clock{} }) {
		return true
	}
	changed := sh.halve(func(c *scenarios.Scenario) *scenarios.Duration { return &field(c).Offset }, time.Millisecond)
	for field(sh.cur).DriftPPM != 0 {
		d := field(sh.cur).DriftPPM
		if !sh.edit(func(c *scenarios.Scenario) { field(c).DriftPPM = d / 2 }) {
			break
		}
		changed = true
	}
	return changed
}

// firstStart is when the first client starts.
func (sh *shrinker) firstStart() scenarios.Duration {
	first := sh.cur.Clients[0].Start
	for _, c := range sh.cur.Clients {
		first = min(first, c.Start)
	}
	return first
}
