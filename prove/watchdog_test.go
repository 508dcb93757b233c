package prove

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// A watchdog-pause holds back the watchdog alone: token-extend's holder
// (TTL 8 s, renewed every 4 s) works 12 s on its watchdog; with the
// watchdog stopped for 12 s the lease lapses under it and the waiter gets
// in (unsafe), while without the fault the watchdog keeps the lease (safe).
// The holder itself is not stopped: it ends its work when it would have
// anyway, where a whole-process pause of the same length delays it.
func TestWatchdogPauseStopsTheWatchdogAlone(t *testing.T) {
	run := func(kind string) (*judge.Outcome, sim.Time) {
		t.Helper()
		s := &scenarios.Scenario{Name: "watchdog", Algorithm: "token-extend", Seed: 1,
			Duration: scenarios.Duration(time.Minute),
			Clients: []scenarios.Client{
				{Name: "c1", Iterations: 1, Work: scenarios.Duration(12 * time.Second)},
				{Name: "c2", Start: scenarios.Duration(5 * time.Second), Iterations: 1}, // retries until about 10 s
			}}
		if kind != "" {
			s.Faults = []scenarios.Fault{{Kind: kind, Client: "c1", For: scenarios.Duration(12 * time.Second),
				On: &scenarios.Trigger{Client: "c1", Point: scenarios.PointAcquired, N: 1}}}
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		o, err := judge.Run(s, "", model.Options{SkipPorcupine: true})
		if err != nil {
			t.Fatal(err)
		}
		// When c1 ended (its one round done).
		var end sim.Time = -1
		for _, e := range o.Result.History.Events {
			if e.Proc == 0 && e.Kind == sim.KindProcEnd {
				end = e.At
			}
		}
		return o, end
	}
	calm, calmEnd := run("")
	dog, dogEnd := run(fault.WatchdogPause.File())
	_, wholeEnd := run(fault.Pause.File())
	if calm.Verdict.Verdict != model.VerdictSafe {
		t.Fatalf("no fault: %s, want safe (the watchdog keeps the lease)", calm.Verdict.Verdict)
	}
	if dog.Verdict.Verdict != model.VerdictUnsafe {
		t.Fatalf("watchdog-pause: %s, want unsafe (the lease lapses under the working holder)", dog.Verdict.Verdict)
	}
	if calmEnd < 0 || dogEnd != calmEnd {
		t.Fatalf("c1 ended at %v with its watchdog paused, at %v without: the holder was stopped", dogEnd, calmEnd)
	}
	if wholeEnd < calmEnd+sim.Time(10*time.Second) {
		t.Fatalf("with a whole pause c1 ended at %v, not 12 s after %v: the test tells nothing", wholeEnd, calmEnd)
	}
	var marked bool
	for _, e := range dog.Result.History.Events {
		marked = marked || e.Kind == sim.KindFault && e.Fault == fault.WatchdogPause && e.Dur == 12*time.Second
	}
	if !marked {
		t.Fatal("the history records no watchdog-pause of 12s")
	}
	if u := dog.Result.Faults; len(u) != 1 || !u[0].Acted {
		t.Fatalf("watchdog-pause that let the lease lapse is classed %+v, want acted", u)
	}
	// The same pause on a lock without a watchdog held nothing back: the
	// run says so rather than pass as tested under it.
	s := &scenarios.Scenario{Name: "no-watchdog", Algorithm: "set-nx-px-token", Seed: 1,
		Duration: scenarios.Duration(time.Minute),
		Clients:  []scenarios.Client{{Name: "c1", Iterations: 1, Work: scenarios.Duration(time.Second)}},
		Faults: []scenarios.Fault{{Kind: fault.WatchdogPause.File(), Client: "c1", For: scenarios.Duration(12 * time.Second),
			On: &scenarios.Trigger{Client: "c1", Point: scenarios.PointAcquired, N: 1}}}}
	o, err := judge.Run(s, "", model.Options{SkipPorcupine: true})
	if err != nil {
		t.Fatal(err)
	}
	if u := o.Result.Faults; len(u) != 1 || u[0].Acted || !strings.Contains(u[0].Why, "watchdog") || !o.Result.Vacuous() {
		t.Fatalf("watchdog-pause on a lock with no watchdog is classed %+v (vacuous %v), want idle, saying why", u, o.Result.Vacuous())
	}
}

// prove plans watchdog-pause by name only, for a lock whose library runs a
// watchdog, and finds what the fault does to token-extend; a lock without
// a watchdog is refused in one line naming the flag.
func TestProveWatchdogPause(t *testing.T) {
	if got, err := ParseClasses("all"); err != nil || len(got) != len(Classes)-1 || strings.Contains(strings.Join(got, ","), ClassDogPause) {
		t.Fatalf("all = %v, %v: every menu class but watchdog-pause", got, err)
	}
	classes, err := ParseClasses(ClassDogPause)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Algorithm: "set-nx-px-token", Classes: classes, MaxFaults: 1}); err == nil ||
		!strings.HasPrefix(err.Error(), "faults: ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("set-nx-px-token under watchdog-pause: %v, want a one-line refusal naming faults", err)
	}
	p, err := New(Options{Algorithm: "token-extend", Classes: classes, MaxFaults: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Found == nil || r.Found.Verdict != model.VerdictUnsafe || len(r.Found.Schedule) == 0 ||
		!strings.HasPrefix(r.Found.Schedule[0].Choice, "watchdog pause") {
		t.Fatalf("token-extend under watchdog-pause: %+v, want unsafe by a watchdog pause", r.Found)
	}
}
