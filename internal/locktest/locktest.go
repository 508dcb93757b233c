// Package locktest holds what the tests of several packages share: locks that
// misbehave on purpose, for the packages that must notice them (explore,
// simtest), and World, a small sequential stand-in for the engine on which
// the tests of the lock algorithms (locks, locks/algofile) drive one lock call
// at a time.
package locktest

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// NeverReturns releases as its inner lock does, then sleeps for a day
// inside Release. Its hold ended at the Release call, so no checker blames
// it, but no run ends before its duration cap: every run is cut with
// nothing found, incomplete.
func NeverReturns(l sim.Locker) sim.Locker { return neverReturns{l} }

type neverReturns struct{ sim.Locker }

func (l neverReturns) Release(p sim.Proc, lease sim.Lease) error {
	if err := l.Locker.Release(p, lease); err != nil {
		return err
	}
	p.Sleep(24 * time.Hour)
	return nil
}
