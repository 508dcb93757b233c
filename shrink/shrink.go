// Package shrink makes a failing scenario smaller while it still fails: the
// shrinker explore and prove use to turn a run that broke a lock into the
// smallest counterexample they write out.
//
// It works on the scenario itself, not on the bits a generator drew it
// from, so it shrinks any scenario (a generated run, a prove
// counterexample, a hand-written file) and owns no state outside one call:
// calls may run at the same time.
//
// Why our own and not rapid's: rapid v1.3.0 shrinks only inside
// rapid.Check, which takes its seed, case count and time bound from
// process-wide command-line flags, so driving it outside `go test` meant
// rewriting those flags under a mutex (one shrink at a time, and a race
// with any other rapid use in the process). Shrinking the structure is
// also the better fit: dropping a client or a fault shifts every later draw
// of the bit stream, which rapid's passes over bits handle badly, while
// here a drop is one candidate.
package shrink

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"reflect"

	"github.com/locksim/locksim/scenarios"
)

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
// it; generated names are renumbered c1, c2, …); merge two faults that act
// as one (clock jumps of one clock at one instant: merge.go); a shorter
// TTL and run; plain nodes (no clock, persistence or replicas), else true
// node clocks; a quiet network (the generator's latencies, no loss); fewer
// nodes (a fault on a node gone moves to the last left); per fault an
// earlier client as target and trigger, the plainest trigger (a client's
// first acquire or release, instead of a time or a later event), and every
// length (each scenarios.Duration field of Fault, so a new fault kind needs
// no change here) forwards, zero, or halved; every client plain at once,
// the story shifted to start at 0, then per client fewer iterations, no
// start delay, work, think, watchdog or reentry, a right clock; seed 0.
// Lengths are halved while fails holds, not searched down to their
// boundary: a counterexample keeps a margin. When a round keeps nothing,
// each drop is tried again with every event trigger lowered by one and
// with scenario seeds 0 to shrinkReseeds-1 (other network dice), and the
// rounds go on if one of those is kept.
//
// A candidate equal to one already tried is not run again (the verdict is
// a function of the scenario), and a candidate a scenario file could not
// hold (loads) is not run: what Shrink returns always loads again.
func Shrink(s *scenarios.Scenario, fails func(*scenarios.Scenario) bool, budget int) (shrunk *scenarios.Scenario, tries int, capped bool) {
	return With(s, fails, budget, Options{})
}

// Options change what Shrink may make smaller.
type Options struct {
	// KeepTTL leaves the TTL as it is: a scenario drawn with the lock's
	// own TTL (explore's Options.DrawTTL unset) stays a scenario of that lock as
	// written.
	KeepTTL bool
	_       struct{} // grows: callers name the fields they set
}

// With is Shrink with options.
func With(s *scenarios.Scenario, fails func(*scenarios.Scenario) bool, budget int, o Options) (shrunk *scenarios.Scenario, tries int, capped bool) {
	sh := &shrinker{fails: fails, budget: budget, cur: s.Clone(), tried: map[[sha256.Size]byte]bool{}, keepTTL: o.KeepTTL}
	sh.tried[sh.key(sh.cur)] = true
	for round := 0; round < shrinkRounds && !sh.capped; round++ {
		changed := sh.drops()
		changed = sh.merges() || changed
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
// (the same plan may still fail with other dice).
const shrinkReseeds = 128

type shrinker struct {
	fails  func(*scenarios.Scenario) bool
	budget int
	tries  int
	capped bool
	cur    *scenarios.Scenario
	tried  map[[sha256.Size]byte]bool // candidates run, by their file's hash (looked up, never ranged)
	keyBuf []byte                     // key's scratch
	// keepTTL: the TTL is the lock's own and is not lowered.
	keepTTL bool
}

// key is the hash of s as a file: two scenarios have the same key exactly
// when scenarios.Marshal writes them alike (TestShrinkKeyIsTheFile).
// Marshal itself took half of a shrink's time, more than running the
// candidates, so the key hashes what it writes without writing YAML: every
// exported field, in order, recursively, as Marshal writes every one and
// tells any two values apart, with its two merges made here too: a nil list
// is written as an empty one, and a zero float with either sign as 0 (the
// fields are omitempty, and -0 counts as empty).
func (sh *shrinker) key(s *scenarios.Scenario) [sha256.Size]byte {
	sh.keyBuf = appendKey(sh.keyBuf[:0], reflect.ValueOf(s).Elem())
	return sha256.Sum256(sh.keyBuf)
}

// appendKey appends an encoding of v from which v can be read back given
// its type: lengths before lists and strings, a mark before a pointer's
// value. A kind no scenario field has yet panics, so a new one is noticed
// at its first test.
func appendKey(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if t.Field(i).IsExported() { // what Marshal writes
				b = appendKey(b, v.Field(i))
			}
		}
	case reflect.Slice:
		b = binary.AppendUvarint(b, uint64(v.Len())) // nil as empty
		for i := range v.Len() {
			b = appendKey(b, v.Index(i))
		}
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 0)
		}
		b = appendKey(append(b, 1), v.Elem())
	case reflect.String:
		b = append(binary.AppendUvarint(b, uint64(v.Len())), v.String()...)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b = binary.AppendVarint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b = binary.AppendUvarint(b, v.Uint())
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1)
		}
		b = append(b, 0)
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		switch {
		case f == 0:
			f = 0 // -0 too
		case math.IsNaN(f):
			f = math.NaN() // one NaN, as YAML's .nan
		}
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	default:
		panic("shrink: key: a scenario field of kind " + v.Kind().String())
	}
	return b
}

// try runs candidate c and keeps it when it fails. It reports whether it
// did; nil, an unchanged scenario and one tried before are not run.
func (sh *shrinker) try(c *scenarios.Scenario) bool {
	if c == nil || sh.capped {
		return false
	}
	k := sh.key(c)
	if sh.tried[k] || !loads(c) {
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
		generated = generated && cl.Name == clientName(j)
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
		rename[c.Clients[j].Name] = clientName(j)
		c.Clients[j].Name = clientName(j)
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

// loads says whether c passes the checks a scenario file does when it is
// loaded (its lock aside: the lock shrunk against is given to fails, and
// may be one that is not registered), so that a shrunk counterexample
// written out always loads again: a lose-reply whose for: was shrunk to 0
// with no network timeout, say, is refused, not kept.
func loads(c *scenarios.Scenario) bool {
	v := *c
	v.Algorithm, v.AlgorithmFile, v.GoLock = "", nil, ""
	return v.Validate() == nil
}
