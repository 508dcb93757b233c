package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/locks"
)

// InsideTTL reports whether a run of the scenario stays inside the
// assumptions of a TTL lock, and if not, why: the longest work time, plus
// the most one client is paused in all, plus twice the longest round trip,
// plus the largest clock drift over the TTL, is below the TTL; and no node
// restarts or has its clock jump. A lock like set-nx-px-token promises
// safety only there.
func (s *Scenario) InsideTTL() error {
	algo, err := locks.Lookup(s.Algorithm)
	if err != nil {
		return err
	}
	ttl := algo.With(s.LockParams()).TTL
	if l := algo.Lifetime(s.LockParams()); l > 0 && l < ttl {
		ttl = l
	}
	var work time.Duration
	for _, c := range s.Clients {
		work = max(work, c.Work.D())
	}
	paused := make([]time.Duration, len(s.Clients))
	for i := range s.Faults {
		f := &s.Faults[i]
		kind := fileFaultOf(f.Kind) // faultkinds.go
		if kind == nil {
			continue
		}
		if kind.outsideTTL != nil {
			if why := kind.outsideTTL(f); why != "" {
				return fmt.Errorf("faults[%d]: %s", i, why)
			}
		}
		if sk, d := kind.build(f); sk.Pauses() {
			if c := s.clientIndex(f.Client); c >= 0 {
				paused[c] += d
			}
		}
	}
	pause := slices.Max(append(paused, 0))
	rtt := s.Network.Request.Max.D() + s.Network.Reply.Max.D()
	clocks := make([]Clock, len(s.Clients))
	for i, c := range s.Clients {
		clocks[i] = c.Clock
	}
	drift := ttl * time.Duration(LargestDrift(s.Nodes, clocks)) / 1_000_000
	if used := work + pause + 2*rtt + drift; used >= ttl {
		return fmt.Errorf("work %s + pauses %s + 2 × round trip %s + drift %s = %s, not below the TTL %s",
			work, pause, rtt, drift, used, ttl)
	}
	return nil
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
