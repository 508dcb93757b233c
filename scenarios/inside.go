package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/locksim/locksim/locks"
)

// InsideTTL reports whether a run of the scenario stays inside the
// assumptions of a TTL lock, and if not, why: the longest work time, plus
// the most one client is paused in all, plus twice the longest round trip,
// plus the largest clock drift over the TTL, is below the TTL; and no node
// restarts or has its clock jump. A lock like set-nx-px-token promises
// safety only there. The lock is the one the scenario names.
func (s *Scenario) InsideTTL() error {
	algo, err := locks.Lookup(s.Algorithm)
	if err != nil {
		return err
	}
	return s.InsideTTLWith(algo)
}

// InsideTTLWith is InsideTTL for a given lock (an algorithm file's, or a
// registered one run in place of the scenario's own), with the scenario's
// parameters over its defaults. The error says which assumption breaks:
// "c1's pause of 35s exceeds what a 30s TTL allows".
func (s *Scenario) InsideTTLWith(algo locks.Algorithm) error {
	ttl := algo.With(s.LockParams()).TTL
	if l := algo.Lifetime(s.LockParams()); l > 0 && l < ttl {
		ttl = l
	}
	var work time.Duration
	worker := ""
	for _, c := range s.Clients {
		if d := c.Work.D(); d > work {
			work, worker = d, c.Name
		}
	}
	paused := make([]time.Duration, len(s.Clients))
	pauses := make([]int, len(s.Clients))
	for i := range s.Faults {
		f := &s.Faults[i]
		kind := fileFaultOf(f.Kind) // faultkinds.go
		if kind == nil {
			continue
		}
		if kind.outsideTTL != nil {
			if why := kind.outsideTTL(f); why != "" {
				return fmt.Errorf("faults[%d] (%s): %s", i, f.Kind, why)
			}
		}
		if sk, d := kind.build(f); sk.Pauses() {
			if c := s.clientIndex(f.Client); c >= 0 {
				paused[c] += d
				pauses[c]++
			}
		}
	}
	var pause time.Duration
	pauser := -1
	for i, d := range paused {
		if d > pause {
			pause, pauser = d, i
		}
	}
	rtt := s.Network.Request.Max.D() + s.Network.Reply.Max.D()
	clocks := make([]Clock, len(s.Clients))
	for i, c := range s.Clients {
		clocks[i] = c.Clock
	}
	ppm := LargestDrift(s.Nodes, clocks)
	drift := ttl * time.Duration(ppm) / 1_000_000
	used := work + pause + 2*rtt + drift
	if used < ttl {
		return nil
	}
	if ttl <= 0 {
		return fmt.Errorf("the lock has no TTL: nothing frees a lock its holder leaves behind")
	}
	pauseWords, exceeds := "", "exceeds"
	if pauser >= 0 {
		pauseWords = fmt.Sprintf("%s's pause of %s", s.Clients[pauser].Name, pause)
		if pauses[pauser] > 1 {
			pauseWords = fmt.Sprintf("%s's %d pauses of %s in all", s.Clients[pauser].Name, pauses[pauser], pause)
			exceeds = "exceed"
		}
	}
	switch {
	case pause >= ttl:
		return fmt.Errorf("%s %s what a %s TTL allows", pauseWords, exceeds, ttl)
	case work >= ttl:
		return fmt.Errorf("%s's work of %s exceeds what a %s TTL allows", worker, work, ttl)
	}
	var terms []string
	if work > 0 {
		terms = append(terms, fmt.Sprintf("%s's work of %s", worker, work))
	}
	if pause > 0 {
		terms = append(terms, pauseWords)
	}
	if rtt > 0 {
		terms = append(terms, fmt.Sprintf("2 round trips of %s", rtt))
	}
	if drift > 0 {
		terms = append(terms, fmt.Sprintf("%s of clock drift (%d ppm)", drift, ppm))
	}
	return fmt.Errorf("%s add up to %s, which a %s TTL does not allow", strings.Join(terms, ", "), used, ttl)
}

// LargestDrift is the largest clock drift, in ppm either way, of the nodes
// and the client clocks: what InsideTTL counts against the TTL, and what the
// generator (explore/gen) keeps room for when it stays inside.
func LargestDrift(nodes []Node, clients []Clock) int64 {
	var m int64
	for _, n := range nodes {
		m = max(m, n.Clock.DriftPPM, -n.Clock.DriftPPM)
	}
	for _, c := range clients {
		m = max(m, c.DriftPPM, -c.DriftPPM)
	}
	return m
}
