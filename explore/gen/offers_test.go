package gen

import (
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// extender is a built-in lock whose lease can be extended.
type extender interface {
	sim.Locker
	sim.Extender
}

// offeringLock is token-extend telling the generator what a Go library
// under golock tells it: renewed every third of the TTL (sim.SelfRenewing),
// faults aimed at its Extend (Renewable), three nodes (FixedNodes), a
// client that waits up to 40 s for a command (CallBudgeter).
type offeringLock struct {
	extender
	ttl time.Duration
}

func (l offeringLock) RenewEvery() time.Duration          { return l.ttl / 3 }
func (offeringLock) Renewal() (extends, ownWatchdog bool) { return true, false }
func (offeringLock) Nodes() int                           { return 3 }
func (offeringLock) CallBudget() time.Duration            { return 40 * time.Second }

func offering(t *testing.T) (plain, offered locks.Algorithm) {
	plain, err := locks.Lookup("token-extend")
	if err != nil {
		t.Fatal(err)
	}
	offered = plain
	offered.New = func(p locks.Params) sim.Locker {
		return offeringLock{extender: plain.New(p).(extender), ttl: plain.With(p).TTL}
	}
	return plain, offered
}

// TestWhatALockOffersIsDrawn: a lock that offers renewal, nodes and a call
// budget gets scenarios on its nodes, renewals, faults aimed at its
// renewals (a pause or a lost reply at the command its Extend sends), and
// runs long enough for its client to wait out its budget once a round.
// The same lock offering nothing draws none of it.
func TestWhatALockOffersIsDrawn(t *testing.T) {
	plain, offered := offering(t)
	_, extend := probeCommands(offered, true)
	if extend == "" {
		t.Fatal("the probe saw no command of an Extend")
	}
	for _, c := range []struct {
		algo    locks.Algorithm
		offered bool
	}{{offered, true}, {plain, false}} {
		g, err := Generator(c.algo, Options{Classes: []string{"pause", "net"}})
		if err != nil {
			t.Fatal(err)
		}
		var threeNodes, renewed, aimedPauses, lostReplies, budgeted int
		const seeds = 200
		for seed := range seeds {
			s := g.Example(seed)
			if len(s.Nodes) == 3 {
				threeNodes++
			}
			rounds := 0
			for _, cl := range s.Clients {
				rounds += cl.Iterations
				if cl.RenewEvery > 0 {
					renewed++
				}
			}
			if s.Duration.D() >= 2*time.Duration(rounds)*40*time.Second {
				budgeted++
			}
			for _, f := range s.Faults {
				switch {
				case f.Kind == fault.LoseReply.File():
					lostReplies++ // the generator draws none otherwise
					if f.On == nil || f.On.Command != extend || f.On.Point != scenarios.PointSend {
						t.Fatalf("seed %d: a lost reply not aimed at a renewal's %s: %+v", seed, extend, f.On)
					}
				case f.Kind == fault.Pause.File() && f.On != nil && f.On.Command == extend:
					aimedPauses++
				}
			}
		}
		if c.offered && (threeNodes != seeds || budgeted != seeds || renewed == 0 || aimedPauses == 0 || lostReplies == 0) ||
			!c.offered && (threeNodes != 0 || budgeted == seeds || lostReplies != 0) {
			t.Errorf("offered %v, %d seeds: %d on 3 nodes, %d long enough for the budget, %d clients renewing, "+
				"%d pauses at the %s of a renewal, %d lost replies", c.offered, seeds, threeNodes, budgeted, renewed, aimedPauses, extend, lostReplies)
		}
	}
}
