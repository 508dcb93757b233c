package gen

import "github.com/locksim/locksim/scenarios"

// The structural shrinker, apart from the generator whose output it
// shrinks: it shares only the generator's naming of clients (c1, c2, …) and
// its quiet network (genBaseLatency).

// Simplify makes structural simplifications that rapid's shrinking of the
// generator's bits cannot (dropping a client shifts every later draw): drop
// a fault, drop a client, reset a field to its zero, one at a time, keeping
// each change after which fails still holds. It repeats until nothing
// changes and returns the simplest scenario and how many candidates it
// tried. A drop that no longer fails is tried again with scenario seeds 0
// to simplifyReseeds-1 (other network dice). Deterministic: the candidates
// come in a fixed order.
func Simplify(s *scenarios.Scenario, fails func(*scenarios.Scenario) bool) (*scenarios.Scenario, int) {
	cur, tries := s.Clone(), 0
	for pass := 0; pass < 8; pass++ {
		changed := false
		for k := 0; ; k++ {
			c, ok := simplifyStep(cur, k)
			if !ok {
				break
			}
			if c == nil {
				continue // does not apply
			}
			tries++
			if fails(c) {
				cur, changed = c, true
				continue
			}
			if k >= len(cur.Faults)+len(cur.Clients) {
				continue
			}
			// Dropping a client or a fault shifts what the rest do: a
			// trigger waiting for a waiter's 3rd SETNX may now want its
			// 2nd, and the same plan may still fail with other dice.
			variants := []*scenarios.Scenario{c}
			if lower := lowerTriggers(c); lower != nil {
				tries++
				if fails(lower) {
					cur, changed = lower, true
					continue
				}
				variants = append(variants, lower)
			}
		reseed:
			for _, v := range variants {
				for seed := uint64(0); seed < simplifyReseeds; seed++ {
					if seed == v.Seed {
						continue
					}
					r := v.Clone()
					r.Seed = seed
					tries++
					if fails(r) {
						cur, changed = r, true
						break reseed
					}
				}
			}
		}
		if !changed {
			break
		}
	}
	return cur, tries
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

// simplifyReseeds is how many scenario seeds Simplify tries when dropping a
// client or a fault alone does not fail.
const simplifyReseeds = 128

// simplifyStep is candidate k for s: a simpler copy, nil when candidate k
// changes nothing, ok false past the last candidate.
func simplifyStep(s *scenarios.Scenario, k int) (c *scenarios.Scenario, ok bool) {
	nf, nc := len(s.Faults), len(s.Clients)
	switch {
	case k < nf: // drop a fault, the last first
		c = s.Clone()
		i := nf - 1 - k
		c.Faults = append(c.Faults[:i], c.Faults[i+1:]...)
		return c, true
	case k < nf+nc: // drop a client, the last first
		if nc <= 1 {
			return nil, true
		}
		return withoutClient(s, nc-1-(k-nf)), true
	}
	k -= nf + nc
	const perClient = 5
	if k < nc*perClient {
		i, what := k/perClient, k%perClient
		c = s.Clone()
		cl := &c.Clients[i]
		switch what {
		case 0:
			cl.Iterations = min(cl.Iterations, 1)
		case 1:
			cl.Start = 0
		case 2:
			cl.Work = 0
		case 3:
			cl.Think = 0
		case 4:
			cl.Clock = scenarios.Clock{}
		}
		return changedOrNil(s, c), true
	}
	k -= nc * perClient
	const perFault = 3
	if k < nf*perFault {
		i, what := k/perFault, k%perFault
		c = s.Clone()
		f := &c.Faults[i]
		switch what {
		case 0:
			if f.On != nil {
				f.On.N = 1
			}
		case 1:
			if f.On != nil && f.On.Command != "" {
				f.On.Command = ""
			}
		case 2:
			f.RestartAfter = 0
		}
		return changedOrNil(s, c), true
	}
	k -= nf * perFault
	c = s.Clone()
	switch k {
	case 0:
		c.Network.LossRequest = 0
	case 1:
		c.Network.LossReply = 0
	case 2:
		c.Network.Request, c.Network.Reply = genBaseLatency, genBaseLatency
	case 3:
		c.Nodes = nil
	case 4:
		c.Seed = 0
	default:
		return nil, false
	}
	return changedOrNil(s, c), true
}

// changedOrNil is c, or nil when it equals s: a candidate that changes nothing.
func changedOrNil(s, c *scenarios.Scenario) *scenarios.Scenario {
	a, _ := scenarios.Marshal(s)
	b, _ := scenarios.Marshal(c)
	if string(a) == string(b) {
		return nil
	}
	return c
}

// withoutClient drops client i, the faults that target it or wait for its
// events, and names the rest c1, c2, … again in order.
func withoutClient(s *scenarios.Scenario, i int) *scenarios.Scenario {
	c := s.Clone()
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
