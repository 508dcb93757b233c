// Package locktest holds locks that misbehave on purpose, for the tests of
// the packages that must notice them (explore, simtest).
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
