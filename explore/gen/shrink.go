package gen

import (
	"crypto/sha256"
	"reflect"
	"time"

	"github.com/locksim/locksim/scenarios"
)

// The scenario shrinker. It works on the scenario itself, not on the bits
// the generator drew it from, so it shrinks any scenario (a generated run,
// a prove counterexample, a hand-written file) and owns no state outside
// one call: calls may run at the same time.
//
// Why our own and not rapid's (issue 19): rapid v1.3.0 shrinks only inside
// rapid.Check, which takes its seed, case count and time bound from
// process-wide command-line flags, so driving it outside `go test` meant
// rewriting those flags under a mutex (one shrink at a time, and a race
// with any other rapid use in the process). Shrinking the structure is
// also the better fit: dropping a client or a fault shifts every later draw
// of the bit stream, which rapid's passes over bits handle badly (the old
// path needed a structural pass after rapid anyway), while here a drop is
// one candidate. rapid stays for generation (Generator.Example, which reads
// rapid's flags and sets none) and for property tests.

// Shrink returns a scenario with no more clients or faults than s for
// which fails still holds, how many times it called fails, and whether it
// stopped because budget calls were made (then the result is the smallest
// found within them). s must fail; it is not modified. fails should refuse
// what its caller does not want shrunk into (prove, say, a scenario outside
// the TTL's assumptions); Shrink keeps the generator's own rules only where
// a step could break them (the TTL stays above twice the longest work).
//
// It is greedy, to a fixpoint: it tries one simplification at a time and
// keeps each after which fails holds, in a fixed order, so the result
// depends only on s, fails and budget (not the machine, the time or the
// workers), provided fails is a pure function of its scenario. Each round:
// drop a fault, drop a client (with the faults aimed at it or waiting for
// it; generated names are renumbered c1, c2, …); a shorter TTL and run;
// true clocks, a quiet network (the generator's latencies, no loss), fewer
// nodes; per fault an earlier client as target and trigger, the first node,
// the plainest trigger (a client's first acquire or release, instead of a
// time or a later event), and every length (each scenarios.Duration field
// of Fault, so a new fault kind needs no change here) forwards, zero, or
// halved; every client plain at once, the story shifted to start at 0, then
// per client fewer iterations, no start delay, work, think, watchdog or
// reentry, a right clock; seed 0. Lengths are halved while fails holds, not
// searched down to their boundary: a counterexample keeps a margin. When a
// round keeps nothing, each drop is tried again with every event trigger
// lowered by one and with scenario seeds 0 to shrinkReseeds-1 (other
// network dice), and the rounds go on if one of those is kept.
//
// A candidate equal to one already tried is not run again (the verdict is
// a function of the scenario), and a candidate that validation refuses
// counts as not failing (fails says so).
func Shrink(s *scenarios.Scenario, fails func(*scenarios.Scenario) bool, budget int) (shrunk *scenarios.Scenario, tries int, capped bool) {
	sh := &shrinker{fails: fails, budget: budget, cur: s.Clone(), tried: map[[sha256.Size]byte]bool{}}
	if k, ok := sh.key(sh.cur); ok {
		sh.tried[k] = true
	}
	for round := 0; round < shrinkRounds && !sh.capped; round++ {
		changed := sh.drops()
		changed = sh.numbers() || changed
		if !changed && !sh.dropVariants() {
			break
		}
	}
	return sh.cur, sh.tries, sh.capped
}

// shrinkRounds bounds the passes: a safety net, as every kept step makes
// the scenario smaller and the budget ends the search anyway.
const shrinkRounds = 64

// shrinkReseeds is how many scenario seeds a drop is tried again with
// (Simplify's trick: the same plan may still fail with other dice).
const shrinkReseeds = 128

type shrinker struct {
	fails  func(*scenarios.Scenario) bool
	budget int
	tries  int
	capped bool
	cur    *scenarios.Scenario
	tried  map[[sha256.Size]byte]bool // candidates run, by their file's hash (looked up, never ranged)
}

// key is the hash of s as a file, and false when it does not marshal
// (never the case for a scenario that loads; such a candidate is not run).
func (sh *shrinker) key(s *scenarios.Scenario) ([sha256.Size]byte, bool) {
	b, err := scenarios.Marshal(s)
	return sha256.Sum256(b), err == nil
}

// try runs candidate c and keeps it when it fails. It reports whether it
// did; nil, an unchanged scenario and one tried before are not run.
func (sh *shrinker) try(c *scenarios.Scenario) bool {
	if c == nil || sh.capped {
		return false
	}
	k, ok := sh.key(c)
	if !ok || sh.tried[k] {
		return false
	}
	if sh.tries >= sh.budget {
		sh.capped = true
		return false
	}
	sh.tries++
	sh.tried[k] = true
	if !sh.fails(c) {
		return false
	}
	sh.cur = c
	return true
}

// edit tries a copy of the current scenario changed by fn.
func (sh *shrinker) edit(fn func(c *scenarios.Scenario)) bool {
	c := sh.cur.Clone()
	fn(c)
	return sh.try(c)
}

// drops tries dropping each fault, then each client, the last first, and
// reports whether one was kept.
func (sh *shrinker) drops() bool {
	changed := false
	for i := len(sh.cur.Faults) - 1; i >= 0; i-- {
		if i < len(sh.cur.Faults) && sh.try(withoutFault(sh.cur, i)) {
			changed = true
		}
	}
	for i := len(sh.cur.Clients) - 1; i >= 0; i-- {
		if i < len(sh.cur.Clients) && len(sh.cur.Clients) > 1 && sh.try(withoutClient(sh.cur, i)) {
			changed = true
		}
	}
	return changed
}

// numbers makes every other cheap step once and reports whether one was
// kept.
func (sh *shrinker) numbers() bool {
	changed := false
	// The lock's TTL: shorter, in whole seconds down to 1s (algorithms that
	// write whole-second timestamps), then in tenths if it was not whole.
	changed = sh.lowerTTL(time.Second) || changed
	if sh.cur.Params.TTL.D()%time.Second != 0 { // drawn in tenths: the algorithm takes them
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
	changed = sh.edit(func(c *scenarios.Scenario) { c.Network.Request, c.Network.Reply = genBaseLatency, genBaseLatency }) || changed
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
					c.Faults[i].Client, c.Faults[i].On.Client = genClientName(j), genClientName(j)
				}) {
					changed = true
					break
				}
			}
		}
		for j := range clientNumber(sh.cur.Faults[i].Client) {
			if sh.cur.Faults[i].Client != "" && sh.edit(func(c *scenarios.Scenario) { c.Faults[i].Client = genClientName(j) }) {
				changed = true
				break
			}
		}
		if on := sh.cur.Faults[i].On; on != nil {
			for j := range clientNumber(on.Client) {
				if sh.edit(func(c *scenarios.Scenario) { c.Faults[i].On.Client = genClientName(j) }) {
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

// dropVariants is the expensive step, made when the cheap ones no longer
// help: every drop again, with the event triggers lowered by one (a trigger
// waiting for a waiter's 3rd SETNX may now want its 2nd), then with other
// scenario seeds. It stops at the first kept.
func (sh *shrinker) dropVariants() bool {
	nf, nc := len(sh.cur.Faults), len(sh.cur.Clients)
	var drops []*scenarios.Scenario
	for i := nf - 1; i >= 0; i-- {
		drops = append(drops, withoutFault(sh.cur, i))
	}
	for i := nc - 1; i >= 0 && nc > 1; i-- {
		drops = append(drops, withoutClient(sh.cur, i))
	}
	for _, d := range drops {
		variants := []*scenarios.Scenario{d}
		if lower := lowerTriggers(d); lower != nil {
			if sh.try(lower) {
				return true
			}
			variants = append(variants, lower)
		}
		for _, v := range variants {
			for seed := uint64(0); seed < shrinkReseeds; seed++ {
				if seed == v.Seed {
					continue
				}
				r := v.Clone()
				r.Seed = seed
				if sh.try(r) {
					return true
				}
			}
		}
	}
	return false
}

// withoutFault is s without fault i.
func withoutFault(s *scenarios.Scenario, i int) *scenarios.Scenario {
	c := s.Clone()
	c.Faults = append(c.Faults[:i], c.Faults[i+1:]...)
	return c
}

// lowerTriggers is s with every event count above 1 lowered by one, or nil
// when there is none.
func lowerTriggers(s *scenarios.Scenario) *scenarios.Scenario {
	c := s.Clone()
	lowered := false
	for i := range c.Faults {
		if on := c.Faults[i].On; on != nil && on.N > 1 {
			on.N--
			lowered = true
		}
	}
	if !lowered {
		return nil
	}
	return c
}

// withoutClient drops client i and the faults that target it or wait for
// its events. When the clients are named as the generator names them (c1,
// c2, …), the rest are named so again, in order; other names are kept.
func withoutClient(s *scenarios.Scenario, i int) *scenarios.Scenario {
	c := s.Clone()
	generated := true
	for j, cl := range c.Clients {
		generated = generated && cl.Name == genClientName(j)
	}
	gone := c.Clients[i].Name
	c.Clients = append(c.Clients[:i], c.Clients[i+1:]...)
	var faults []scenarios.Fault
	for _, f := range c.Faults {
		if f.Client == gone || (f.On != nil && f.On.Client == gone) {
			continue
		}
		faults = append(faults, f)
	}
	c.Faults = faults
	if !generated {
		return c
	}
	rename := map[string]string{}
	for j := range c.Clients {
		rename[c.Clients[j].Name] = genClientName(j)
		c.Clients[j].Name = genClientName(j)
	}
	for j := range c.Faults {
		f := &c.Faults[j]
		if f.Client != "" {
			f.Client = rename[f.Client]
		}
		if f.On != nil {
			f.On.Client = rename[f.On.Client]
		}
	}
	return c
}

// firstStart is when the first client starts.
func (sh *shrinker) firstStart() scenarios.Duration {
	first := sh.cur.Clients[0].Start
	for _, c := range sh.cur.Clients {
		first = min(first, c.Start)
	}
	return first
}
