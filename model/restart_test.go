package model

import (
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

// persistedRestart: node n restarts at at with persistence mode and the
// watched key k as the reload left it.
func (b *hist) persistedRestart(n int, at sim.Time, mode sim.Persistence, k sim.KeyState) *hist {
	return b.add(sim.Event{At: at, Kind: sim.KindFault, Proc: -1, Node: n, Fault: fault.NodeRestart,
		Value: int64(mode), Key: k})
}

// A key left by a release stays stale through a restart that kept it, and
// goes with one that lost it (the same history otherwise: only the restart
// event's Key differs).
func TestStaleThroughAPersistedRestart(t *testing.T) {
	tests := []struct {
		name    string
		h       sim.History
		verdict string
	}{
		{"aof-always kept the key", leftover(keyVal("tok-c1", -1)).persistedRestart(0, ms(600), sim.PersistAlways, keyVal("tok-c1", -1)).build(), VerdictStale},
		{"aof-everysec lost it", leftover(keyVal("tok-c1", -1)).persistedRestart(0, ms(600), sim.PersistEverysec, sim.KeyState{}).build(), VerdictSafe},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(tc.h, Options{TTL: 10 * time.Second})
			if v.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s: %+v", v.Verdict, tc.verdict, v.Violations)
			}
		})
	}
}

func TestRestartLossWords(t *testing.T) {
	for _, c := range []struct {
		e    sim.Event
		want string
	}{
		{sim.Event{Kind: sim.KindFault, Fault: fault.NodeRestart}, "data lost"},
		{sim.Event{Kind: sim.KindFault, Fault: fault.NodeRestart, Value: int64(sim.PersistEverysec)}, "aof-everysec reload, no key"},
		{sim.Event{Kind: sim.KindFault, Fault: fault.NodeRestart, Value: int64(sim.PersistAlways), Key: keyVal("t", -1)}, "aof-always reload, key kept"},
		// A failover's Value is the lane it promoted, not a persistence.
		{sim.Event{Kind: sim.KindFault, Fault: fault.Failover, Value: int64(sim.PersistAlways), Key: keyVal("t", -1)}, "data lost"},
	} {
		if got := RestartLoss(c.e); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}
