package gen

import (
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// big is a scenario with more of everything than a counterexample needs.
func big() *scenarios.Scenario {
	node := 1
	return &scenarios.Scenario{
		Name: "big", Algorithm: "set-nx-px-token", Params: scenarios.Params{TTL: scenarios.Duration(2 * time.Second)},
		Seed: 42, Duration: scenarios.Duration(30 * time.Second), MaxEvents: genMaxEvents,
		Clients: []scenarios.Client{
			{Name: "c1", Iterations: 3, Start: scenarios.Duration(time.Second), Work: scenarios.Duration(400 * time.Millisecond)},
			{Name: "c2", Iterations: 2, Think: scenarios.Duration(300 * time.Millisecond), Clock: scenarios.Clock{DriftPPM: 20_000}},
			{Name: "c3", Iterations: 3, Work: scenarios.Duration(200 * time.Millisecond)},
			{Name: "c4", Iterations: 1},
		},
		Network: scenarios.Network{Request: genBaseLatency, Reply: genBaseLatency, LossReply: 0.1, Timeout: scenarios.Duration(500 * time.Millisecond)},
		Faults: []scenarios.Fault{
			{Kind: scenarios.FaultCrash, Client: "c1", At: scenarios.Duration(2 * time.Second)},
			{Kind: scenarios.FaultPause, Client: "c3", On: &scenarios.Trigger{Client: "c3", Point: scenarios.PointSend, Command: "SET", N: 2}, For: scenarios.Duration(6 * time.Second)},
			{Kind: scenarios.FaultClockJump, Node: &node, At: scenarios.Duration(time.Second), By: scenarios.Duration(-3 * time.Second)},
		},
	}
}

// pausedLong is a stand-in verdict: some client pauses for at least 1s
// while another client exists. It needs no simulation, so the test checks
// the shrinker alone.
func pausedLong(s *scenarios.Scenario) bool {
	if len(s.Clients) < 2 {
		return false
	}
	for _, f := range s.Faults {
		if f.Kind == scenarios.FaultPause && f.For.D() >= time.Second {
			return true
		}
	}
	return false
}

// Shrink drops everything the verdict does not need, lowers what remains,
// keeps a margin (halving, not a search down to the boundary), leaves its
// input alone and gives the same result every time.
func TestShrinkStructural(t *testing.T) {
	s := big()
	before, _ := scenarios.Marshal(s)
	got, tries, capped := Shrink(s, pausedLong, 10_000)
	if after, _ := scenarios.Marshal(s); string(after) != string(before) {
		t.Fatal("Shrink changed its input")
	}
	if capped || tries == 0 || tries > 10_000 {
		t.Fatalf("tries %d, capped %v", tries, capped)
	}
	if !pausedLong(got) || len(got.Clients) != 2 || len(got.Faults) != 1 {
		data, _ := scenarios.Marshal(got)
		t.Fatalf("shrunk to %d clients, %d faults:\n%s", len(got.Clients), len(got.Faults), data)
	}
	f := got.Faults[0]
	if f.For.D() < time.Second || f.For.D() >= 2*time.Second {
		t.Errorf("pause %v, want within [1s, 2s): halved from 6s while it fails", f.For)
	}
	if f.On == nil || *f.On != (scenarios.Trigger{Client: "c1", Point: scenarios.PointAcquired, N: 1}) || f.Client != "c1" {
		t.Errorf("fault %+v (on %+v), want on c1's first acquire", f, f.On)
	}
	for _, c := range got.Clients {
		if c.Iterations != 1 || c.Start != 0 || c.Work != 0 || c.Think != 0 || c.Clock != (scenarios.Clock{}) {
			t.Errorf("client %+v not plain", c)
		}
	}
	if got.Network.LossReply != 0 || got.Seed != 0 || got.Duration.D() != time.Second || got.Params.TTL.D() != time.Second {
		t.Errorf("network %+v, seed %d, duration %v, ttl %v: want no loss, seed 0, 1s, 1s", got.Network, got.Seed, got.Duration, got.Params.TTL)
	}
	again, tries2, _ := Shrink(big(), pausedLong, 10_000)
	if !reflect.DeepEqual(got, again) || tries != tries2 {
		t.Error("two shrinks of the same scenario differ")
	}
}

// A budget stops Shrink after that many calls, with the smallest failing
// scenario found so far.
func TestShrinkBudget(t *testing.T) {
	for _, budget := range []int{0, 1, 5} {
		calls := 0
		got, tries, capped := Shrink(big(), func(s *scenarios.Scenario) bool { calls++; return pausedLong(s) }, budget)
		if tries != budget || calls != budget || !capped || !pausedLong(got) {
			t.Errorf("budget %d: %d tries, %d calls, capped %v, fails %v", budget, tries, calls, capped, pausedLong(got))
		}
	}
}

// Shrinks own no shared state: many at once give what one alone gives (run
// with -race, this also checks that they share nothing).
func TestShrinkConcurrent(t *testing.T) {
	want, _, _ := Shrink(big(), pausedLong, 10_000)
	var wg sync.WaitGroup
	got := make([]*scenarios.Scenario, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _, _ = Shrink(big(), pausedLong, 10_000)
		}()
	}
	wg.Wait()
	for i, g := range got {
		if !reflect.DeepEqual(g, want) {
			t.Fatalf("shrink %d of 8 at once differs from one alone", i)
		}
	}
}

// A real verdict: a generated scenario whose pause breaks set-nx-px-token
// shrinks to two clients and that pause, and the result still fails.
func TestShrinkGeneratedRun(t *testing.T) {
	algo, err := locks.Lookup("set-nx-px-token")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Generator(algo, Options{Classes: []string{scenarios.ClassPause}})
	if err != nil {
		t.Fatal(err)
	}
	unsafe := func(s *scenarios.Scenario) bool {
		o, err := s.Execute("", model.Options{SkipPorcupine: true})
		return err == nil && o.Verdict.Verdict == "unsafe"
	}
	for seed := range 200 {
		s := g.Example(seed)
		if !unsafe(s) {
			continue
		}
		got, _, capped := Shrink(s, unsafe, 2000)
		if !unsafe(got) || len(got.Clients) != 2 || len(got.Faults) != 1 || capped {
			data, _ := scenarios.Marshal(got)
			t.Fatalf("seed %d shrunk to %d clients, %d faults (capped %v):\n%s", seed, len(got.Clients), len(got.Faults), capped, data)
		}
		return
	}
	t.Fatal("no unsafe run in 200 seeds")
}

// Every length field of a fault is shrunk, whatever kind takes it: a new
// kind's field needs no change to the shrinker.
func TestFaultLengthsAreEveryDurationField(t *testing.T) {
	for _, name := range []string{"At", "For", "RestartAfter", "By"} {
		if !slices.Contains(faultLengths, name) {
			t.Errorf("faultLengths %v lack %s", faultLengths, name)
		}
	}
}
