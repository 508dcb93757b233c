package prove

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/internal/racedetect"
)

// sameFindings compares a reduced enumeration with the full one: the same
// outcome, the same verdicts met, each at the same first schedule, on
// both sides of the lock's assumptions and on both together.
func sameFindings(full, reduced *Result) error {
	if full.Proved() != reduced.Proved() || (full.Incomplete > 0) != (reduced.Incomplete > 0) {
		return fmt.Errorf("proved %v (incomplete %d) in full, %v (incomplete %d) reduced",
			full.Proved(), full.Incomplete, reduced.Proved(), reduced.Incomplete)
	}
	if full.ProvedInside() != reduced.ProvedInside() || (full.Inside.Incomplete > 0) != (reduced.Inside.Incomplete > 0) {
		return fmt.Errorf("proved inside %v (incomplete %d) in full, %v (incomplete %d) reduced",
			full.ProvedInside(), full.Inside.Incomplete, reduced.ProvedInside(), reduced.Inside.Incomplete)
	}
	if !slices.Equal(full.NeverInside, reduced.NeverInside) {
		return fmt.Errorf("never inside %v in full, %v reduced", full.NeverInside, reduced.NeverInside)
	}
	for _, c := range []struct {
		side          string
		full, reduced []Found
	}{{"both", full.Met, reduced.Met}, {"inside", full.Inside.Met, reduced.Inside.Met}, {"outside", full.Outside.Met, reduced.Outside.Met}} {
		if err := sameMet(c.full, c.reduced); err != nil {
			return fmt.Errorf("%s: %w", c.side, err)
		}
	}
	return nil
}

// sameMet compares two lists of verdicts met, each at its first schedule.
func sameMet(full, reduced []Found) error {
	verdicts := func(met []Found) []string {
		var out []string
		for _, m := range met {
			out = append(out, m.Verdict)
		}
		return out
	}
	if !slices.Equal(verdicts(full), verdicts(reduced)) {
		return fmt.Errorf("met %v in full, %v reduced", verdicts(full), verdicts(reduced))
	}
	for i := range full {
		if !slices.Equal(full[i].Schedule, reduced[i].Schedule) || full[i].Outside != reduced[i].Outside {
			return fmt.Errorf("%s first at %v (outside %q) in full, at %v (outside %q) reduced",
				full[i].Verdict, full[i].Schedule, full[i].Outside, reduced[i].Schedule, reduced[i].Outside)
		}
	}
	return nil
}

// reductionSpaces are small spaces with each verdict prove meets, and a
// proof: the reductions must find what the full enumeration finds.
var reductionSpaces = []Options{
	{Algorithm: "set-nx-px-token", Rounds: 1, Classes: []string{ClassShortPause, ClassCrash}, MaxFaults: 2},
	{Algorithm: "set-nx-px-token", Rounds: 1, Classes: []string{ClassCrash, ClassClientJump}, MaxFaults: 1, MaxDelays: 1},
	{Algorithm: "set-nx-px-token", Rounds: 1, Classes: []string{ClassLongPause}, MaxFaults: 1},
	{Algorithm: "setnx-del", Rounds: 1, Classes: []string{ClassNet}, MaxFaults: 1},
	{Algorithm: "setnx-del-recover", Clients: 3, Rounds: 1, Classes: []string{ClassCrash}, MaxFaults: 1, MaxDelays: 1},
	{Algorithm: "php-eval", Rounds: 1, Classes: []string{ClassShortPause}, MaxFaults: 1},
	{Algorithm: "python-setnx", Rounds: 1, Classes: []string{ClassLongPause}, MaxFaults: 1},
	{Algorithm: "java-getset", Rounds: 1, Classes: []string{ClassClientJump}, MaxFaults: 2, MaxDelays: 0},
	{Algorithm: "redlock", Rounds: 1, Classes: []string{ClassRestart}, MaxFaults: 1, MaxDelays: 0},
	prunedSmall,
	// Delays that find what they find: a reordering alone, a reordering
	// after a fault, and spaces where most delays race nothing.
	{Algorithm: "python-setnx", Classes: []string{ClassShortPause}, MaxDelays: 1},
	{Algorithm: "php-eval", Classes: []string{ClassShortPause}, MaxFaults: 1, MaxDelays: 1},
	{Algorithm: "setnx-getset", Classes: []string{ClassNet}, MaxFaults: 1, MaxDelays: 1},
	{Algorithm: "java-getset", Classes: []string{ClassClientJump}, MaxFaults: 2, MaxDelays: 1},
}

// reductions are what the full space (ReduceOff, DelaysAll) is compared
// with: each state reduction with every delay, and with delays where they
// race (the default).
var reductions = []struct {
	reduce Reduction
	delays Delays
}{{ReduceHistory, DelaysAll}, {ReduceSummary, DelaysAll}, {ReduceHistory, DelaysRaces}, {ReduceSummary, DelaysRaces}}

// prunedSmall is a space both reductions prune (a second crash of a
// client already crashed; 41 schedules, 37 reduced), small enough for the
// race detector, whose memory grows with every run a test binary makes.
var prunedSmall = Options{Algorithm: "php-eval", Rounds: 1, Classes: []string{ClassCrash}, MaxFaults: 2}

// TestReductionsFindWhatTheFullSpaceFinds: soundness on small spaces. The
// full enumeration (ReduceOff, DelaysAll) runs every branch the reductions
// prune and every delay; any verdict found only there, or first found
// elsewhere, fails.
func TestReductionsFindWhatTheFullSpaceFinds(t *testing.T) {
	spaces := reductionSpaces
	switch {
	case racedetect.Enabled:
		t.Log("under -race, one space (prunedSmall); the plain go test checks them all")
		spaces = []Options{prunedSmall}
	case testing.Short():
		spaces = spaces[1:4] // one that the summary prunes, two small
	}
	var pruned, unraced int64
	for _, o := range spaces {
		o.Reduce, o.Delays = ReduceOff, DelaysAll
		full := run(t, o)
		t.Logf("%s %v K=%d D=%d: %d schedules", o.Algorithm, o.Classes, o.MaxFaults, o.MaxDelays, full.Explored)
		for _, red := range reductions {
			o.Reduce, o.Delays = red.reduce, red.delays
			r := run(t, o)
			if err := sameFindings(full, r); err != nil {
				t.Errorf("%s %v K=%d D=%d, reduce %s, delays %s: %v", o.Algorithm, o.Classes, o.MaxFaults, o.MaxDelays, red.reduce, red.delays, err)
			}
			if r.Explored > full.Explored {
				t.Errorf("%s %v, reduce %s, delays %s: %d schedules, more than the full space's %d", o.Algorithm, o.Classes, red.reduce, red.delays, r.Explored, full.Explored)
			}
			t.Logf("  reduce %s, delays %s: %d schedules, %d pruned", red.reduce, red.delays, r.Explored, r.Pruned)
			switch red {
			case reductions[1]:
				pruned += full.Explored - r.Explored
			case reductions[2]:
				unraced += full.Explored - r.Explored
			}
		}
	}
	if pruned == 0 {
		t.Error("the summary reduction pruned nothing on any space: the test shows nothing")
	}
	if unraced == 0 && !racedetect.Enabled { // prunedSmall has no delays
		t.Error("delays where they race cut nothing on any space: the test shows nothing")
	}
}

// TestReductionProperty: on random small spaces, reduced and full prove
// agree (sameFindings).
func TestReductionProperty(t *testing.T) {
	// Not python-setnx: its waiters retry so often that its spaces take
	// minutes.
	algos := []string{"set-nx-px-token", "setnx-del", "setnx-del-recover", "setnx-getset", "php-eval", "java-getset", "fenced-token", "token-extend"}
	checks := 100
	if testing.Short() {
		checks = 10
	}
	pruning, unraced := 0, 0 // cases the summary pruned in, cases races cut delays in
	setChecks(t, checks)
	rapid.Check(t, func(rt *rapid.T) {
		o := Options{
			Algorithm: rapid.SampledFrom(algos).Draw(rt, "algorithm"),
			Clients:   rapid.IntRange(1, 3).Draw(rt, "clients"),
			Rounds:    rapid.IntRange(1, 2).Draw(rt, "rounds"),
			MaxFaults: rapid.IntRange(0, 2).Draw(rt, "K"),
			MaxDelays: rapid.IntRange(0, 1).Draw(rt, "D"),
		}
		classes := []string{ClassShortPause, ClassLongPause, ClassCrash, ClassClientJump, ClassNet}
		o.Classes = rapid.SliceOfNDistinct(rapid.SampledFrom(classes), 1, 2, rapid.ID[string]).Draw(rt, "classes")
		keepSmall(&o)
		o.Reduce, o.Delays = ReduceOff, DelaysAll
		full := run(t, o)
		rt.Logf("%+v: %d schedules", o, full.Explored)
		// Every state reduction with delays where they race (the default
		// among them), and the summary with every delay.
		for _, red := range reductions[1:] {
			o.Reduce, o.Delays = red.reduce, red.delays
			r := run(t, o)
			if err := sameFindings(full, r); err != nil {
				rt.Fatalf("reduce %s, delays %s: %v", red.reduce, red.delays, err)
			}
			if red.reduce == ReduceSummary && r.Pruned > 0 {
				pruning++
			}
			if red.delays == DelaysRaces && r.Explored < full.Explored-r.Pruned {
				unraced++
			}
		}
	})
	if !testing.Short() { // rapid runs a fifth of the cases under -short
		if pruning == 0 {
			t.Error("the summary pruned in no case: the property shows nothing")
		}
		if unraced == 0 {
			t.Error("delays where they race cut nothing in any case: the property shows nothing")
		}
	}
}

// setChecks makes rapid.Check run n cases (the default 100 would take
// minutes), unless -rapid.checks was given.
func setChecks(t *testing.T, n int) {
	f := flag.Lookup("rapid.checks")
	if f == nil {
		t.Fatal("rapid registers no -rapid.checks flag")
	}
	old := f.Value.String()
	if old != "100" {
		return // asked for on the command line
	}
	if err := f.Value.Set(strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

// The pruning decisions are taken in canonical order, whatever the number
// of workers: the same counts and the same findings with 1 and 2.
func TestReductionSameWhateverWorkers(t *testing.T) {
	o := Options{Algorithm: "set-nx-px-token", Rounds: 1, Classes: []string{ClassCrash, ClassClientJump}, MaxFaults: 1, MaxDelays: 1, Reduce: ReduceSummary}
	if racedetect.Enabled {
		t.Log("under -race, the smaller space prunedSmall; the plain go test checks this one")
		o = prunedSmall
		o.Reduce = ReduceSummary
	}
	o.Workers = 1
	one := run(t, o)
	o.Workers = 2
	two := run(t, o)
	if one.Explored != two.Explored || one.Pruned != two.Pruned || one.Pruned == 0 {
		t.Fatalf("1 worker: %d run, %d pruned; 2 workers: %d run, %d pruned", one.Explored, one.Pruned, two.Explored, two.Pruned)
	}
	if err := sameFindings(one, two); err != nil {
		t.Fatal(err)
	}
}

// keepSmall bounds a property test's drawn space to seconds: more clients
// and rounds, fewer choices. Lost commands multiply a lone client's
// choices too: one client under net with K=2 and a delay is 258,622
// schedules for fenced-token (100 s), where K+D=2 is at most thousands.
func keepSmall(o *Options) {
	net := slices.Contains(o.Classes, ClassNet)
	switch work := o.Clients * o.Rounds; {
	case work > 2:
		o.MaxFaults, o.MaxDelays = min(o.MaxFaults, 1), 0
	case work == 2 || net:
		o.MaxDelays = min(o.MaxDelays, 2-o.MaxFaults)
	}
}

// TestVouchCovers: a point vouches for another only with no smaller budget
// of either kind and no less room, in time and in events, before the
// run's caps; and a run's memo entry for a later one only with no smaller
// budget. Each condition is one case that must not vouch.
func TestVouchCovers(t *testing.T) {
	base := vouch{now: 100, events: 50, budget: budgetOf(1, 1)}
	if !base.covers(base) {
		t.Error("a point does not vouch for its equal")
	}
	for _, c := range []struct {
		name string
		v    vouch
	}{
		{"fewer faults", vouch{now: 100, events: 50, budget: budgetOf(0, 1)}},
		{"fewer delays", vouch{now: 100, events: 50, budget: budgetOf(1, 0)}},
		{"less time", vouch{now: 99, events: 50, budget: budgetOf(1, 1)}},
		{"fewer events", vouch{now: 100, events: 49, budget: budgetOf(1, 1)}},
	} {
		if c.v.covers(base) {
			t.Errorf("%s: %+v vouches for %+v", c.name, c.v, base)
		}
		if !base.covers(c.v) {
			t.Errorf("%s: %+v does not vouch for the smaller %+v", c.name, base, c.v)
		}
	}
	if budgetOf(8, 8) != (budget{8, 8}) {
		t.Error("the largest budgets do not fit")
	}
}
