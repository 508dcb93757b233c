package sim

import (
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
)

// Result.LastClockRead numbers, for each process, the trigger points that
// had come when it last read its clock: a lock that reads it before its
// second command has read it after the first point and before the third.
func TestLastClockRead(t *testing.T) {
	body := func(p Proc) (Lease, error) {
		Do(p, 0, "SET", "k", "v") // points 1, 2: send and reply
		p.Now()
		Do(p, 0, "GET", "k") // points 3, 4
		return Lease{Held: true}, nil
	}
	calls := 0
	res, err := oneProc(body, func(c *Config) { c.OnPoint = func(Point, int, Time, int) { calls++ } })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.LastClockRead) != 1 || res.LastClockRead[0] != 2 || calls < 4 {
		t.Fatalf("last clock read %v after %d points, want [2]", res.LastClockRead, calls)
	}
	// The same without OnPoint, where a coroutine begins its commands
	// itself (runOwn): a send that fires nothing still counts.
	if plain, err := oneProc(body, nil); err != nil || len(plain.LastClockRead) != 1 || plain.LastClockRead[0] != 2 {
		t.Fatalf("without OnPoint: last clock read %v, %v; want [2]", plain.LastClockRead, err)
	}
	if !res.Room(1) {
		t.Error("a short run has no room for one event more")
	}
	// Never read: -1, with OnPoint or without.
	quiet := func(p Proc) (Lease, error) { Do(p, 0, "SET", "k", "v"); return Lease{Held: true}, nil }
	if res, err := oneProc(quiet, func(c *Config) { c.OnPoint = func(Point, int, Time, int) {} }); err != nil || len(res.LastClockRead) != 1 || res.LastClockRead[0] != -1 {
		t.Fatalf("never read: %v, %v", res.LastClockRead, err)
	}
	if res, err := oneProc(quiet, nil); err != nil || len(res.LastClockRead) != 1 || res.LastClockRead[0] != -1 {
		t.Fatalf("without OnPoint: %v, %v", res.LastClockRead, err)
	}
	// The claim prove rests on: a jump at a point after the last read
	// leaves the history as it was, but for its own fault event.
	jumped, err := oneProc(body, func(c *Config) {
		c.OnPoint = func(Point, int, Time, int) {}
		c.Faults = []Fault{{Kind: fault.ClientJump, Proc: 0, Dur: time.Hour, On: Trigger{Point: PointSend, Proc: 0, N: 2}}}
	})
	if err != nil {
		t.Fatal(err)
	}
	var kept []Event
	for _, e := range jumped.History.Events {
		if e.Kind != KindFault {
			kept = append(kept, e)
		}
	}
	if len(kept) != len(jumped.History.Events)-1 {
		t.Fatalf("the jump recorded %d events", len(jumped.History.Events)-len(kept))
	}
	h := jumped.History
	h.Events = kept
	if h.Digest() != res.History.Digest() {
		t.Error("a jump after the last clock read changed the history")
	}
}

// Config.StateFrom: OnState is told of the points from the StateFrom-th
// on, OnPoint of every one, and the run is the same.
func TestStateFrom(t *testing.T) {
	cfg := standardConfig(3)
	var all, from []int
	calls := 0
	cfg.OnPoint = func(Point, int, Time, int) { calls++ }
	cfg.OnState = func(Point, int, StateKeys) { all = append(all, calls) }
	whole, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	calls = 0
	cfg.StateFrom = 10
	cfg.OnState = func(Point, int, StateKeys) { from = append(from, calls) }
	part, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != calls || len(from) != calls-9 || from[0] != 10 {
		t.Fatalf("%d points: OnState told of %d, and from the 10th of %d (first %v)", calls, len(all), len(from), from[:1])
	}
	if whole.History.Digest() != part.History.Digest() {
		t.Error("StateFrom changed the run")
	}
}
