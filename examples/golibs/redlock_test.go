package golibs_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/simtest"
)

// redsyncRedlock is redsync with a pool per node as a multi-node lock for
// explore, which draws 3 or 5 nodes. simtest's scenarios have one node;
// a multi-node algorithm is one whose file says nodes:, so it borrows
// examples/redlock.yaml's shape (five nodes, a majority) and runs
// redsync in it.
func redsyncRedlock(t *testing.T) locks.Algorithm {
	base, err := algofile.LoadFile("../redlock.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := base
	a.Name, a.Source, a.Summary = "redsync-pools", "Go code checked by golock", "redsync, a pool per node"
	newLocker := golock.Locker(redsyncLock(0))
	a.New = func(o locks.Params) sim.Locker {
		p := a.With(o)
		return newLocker(simtest.Params{Key: p.Key, TTL: p.TTL})
	}
	return a
}

// TestRedlockExploreVerdicts explores redsync as Redlock (a pool per node,
// quorum N/2+1, 3 or 5 nodes, the file's 10 s TTL, which explore keeps)
// per fault class, 300 runs each. golock.Nodes searches a quorum lock
// through golock.Check without the file (search_test.go).
//
//   - none, crash: safe. A majority of atomic SET NX on distinct nodes;
//     two majorities share a node, which grants one of them; a crashed
//     holder's keys expire.
//   - pause: unsafe. The holder outlives its keys; no fencing.
//   - restart: unsafe. A node restarted without persistence forgets its
//     key, and the next client's majority can use it (Redlock's own
//     warning: delay the restart by the TTL).
//   - net: none found. A lost SET reply makes go-redis wait its 5 s read
//     timeout (redsync's context does not reach the read: go-redis's
//     ContextTimeoutEnabled is off), so Lock returns late with little of
//     its validity left; redsync subtracts the elapsed time, but the
//     README's caller never reads Until and works on past it: unsafe, as
//     redlock-aof-always shows with a node down (catalogue_test.go). Under
//     net, though, a 5 s wait leaves under 5 s of the 10 s TTL, the work
//     drawn stays below half the TTL, and the overlap needs a work longer
//     than what is left and another client's majority in between: the 300
//     runs (seed 1) find none.
//   - failover: unsafe. A promoted replica without the key counts in the
//     next majority.
func TestRedlockExploreVerdicts(t *testing.T) {
	want := map[string]string{"none": "", "crash": "", "pause": "unsafe", "restart": "unsafe", "net": "", "failover": "unsafe"}
	for _, class := range []string{"none", "crash", "pause", "restart", "net", "failover"} {
		var got string
		synctest.Test(t, func(t *testing.T) {
			e, err := explore.New(explore.Options{Lock: redsyncRedlock(t), Classes: []string{class}, Seed: 1,
				Runs: 300, Workers: 1, Verdicts: []string{"unsafe"}, ShrinkTime: 100 * 365 * 24 * time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			r, err := e.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if r.Counterexample != nil {
				got = r.Outcome.Verdict.Verdict
			}
		})
		if got != want[class] {
			t.Errorf("redsync, a pool per node, under %s: found %q, want %q", class, got, want[class])
		}
	}
}
