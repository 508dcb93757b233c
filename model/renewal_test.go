package model

import (
	"slices"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// Each kind of extend gives its own lease: renewed, one TTL from its
// return; unanswered or failed with an error, one TTL from its invoke;
// answered "no", nothing.
func TestRenewalLeases(t *testing.T) {
	ms := func(n int) sim.Time { return sim.Time(time.Duration(n) * time.Millisecond) }
	ev := func(at int, k sim.Kind, held bool, err string) sim.Event {
		return sim.Event{At: ms(at), Kind: k, Proc: 0, Node: -1, Held: held, Err: err}
	}
	h := sim.History{Procs: []string{"c1"}, Nodes: 1, Events: []sim.Event{
		ev(0, sim.KindLockInvoke, false, ""),
		ev(1, sim.KindLockReturn, true, ""),
		ev(10, sim.KindExtendInvoke, false, ""),
		ev(12, sim.KindExtendReturn, true, ""),
		ev(20, sim.KindExtendInvoke, false, ""),
		ev(25, sim.KindExtendReturn, false, "timeout: reply lost"),
		ev(30, sim.KindExtendInvoke, false, ""),
		ev(31, sim.KindExtendReturn, false, ""),
		ev(40, sim.KindExtendInvoke, false, ""), // never answered
	}}
	tr := extract(&h)
	got := renewalLeases(tr, ms(100))
	want := []span{{ms(10), ms(112)}, {ms(20), ms(120)}, {ms(40), ms(140)}}
	if !slices.Equal(got, want) {
		t.Fatalf("renewal leases %v, want %v", got, want)
	}
	// The first failed extend (the error at 25ms) ended the hold.
	if len(tr.holds) != 1 || tr.holds[0].to != ms(25) || tr.holds[0].end != endLost {
		t.Fatalf("hold %+v, want ended lost at 25ms", tr.holds)
	}
}

// A renewal failure the holder was not told of (Silent) ends no hold: the
// hold lasts to the release, so a second holder meanwhile overlaps it.
func TestSilentRenewalFailureKeepsTheHold(t *testing.T) {
	ms := func(n int) sim.Time { return sim.Time(time.Duration(n) * time.Millisecond) }
	h := sim.History{Procs: []string{"c1"}, Nodes: 1, Events: []sim.Event{
		{At: ms(0), Kind: sim.KindLockInvoke, Node: -1},
		{At: ms(1), Kind: sim.KindLockReturn, Node: -1, Held: true},
		{At: ms(10), Kind: sim.KindExtendInvoke, Node: -1},
		{At: ms(11), Kind: sim.KindExtendReturn, Node: -1, Silent: true},
		{At: ms(50), Kind: sim.KindReleaseInvoke, Node: -1},
		{At: ms(51), Kind: sim.KindReleaseReturn, Node: -1},
	}}
	tr := extract(&h)
	if len(tr.holds) != 1 || tr.holds[0].end == endLost || tr.holds[0].to < ms(50) {
		t.Fatalf("hold %+v, want it to last to the release at 50ms", tr.holds)
	}
	// The same failure told (not Silent) ends the hold at 11ms.
	h.Events[3].Silent = false
	tr = extract(&h)
	if len(tr.holds) != 1 || tr.holds[0].end != endLost || tr.holds[0].to != ms(11) {
		t.Fatalf("told: hold %+v, want ended lost at 11ms", tr.holds)
	}
}
