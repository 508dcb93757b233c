package diff

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/internal/racedetect"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/mutants"
	"github.com/locksim/locksim/scenarios"
	"pgregory.net/rapid"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
	"github.com/locksim/locksim/internal/searchtest"
)

// TestMain: these tests are searches, run as simrun runs them (internal/searchtest).
func TestMain(m *testing.M) { searchtest.Main(m) }

// twin is a lock and a second copy of it, made apart: a built-in looked up
// twice, or a file loaded twice.
type twin struct {
	name     string
	old, new locks.Algorithm
}

func twins(t testing.TB) []twin {
	var out []twin
	for _, a := range locks.All() {
		b, err := locks.Lookup(a.Name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, twin{a.Name, a, b})
	}
	files, err := filepath.Glob("../examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example files: %v", err)
	}
	for _, f := range files {
		a, err := algofile.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := algofile.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, twin{f, a, b})
	}
	return out
}

// sameEverywhere runs both halves and fails unless every run gave both
// sides the same verdict.
func sameEverywhere(t interface{ Fatalf(string, ...any) }, tw twin, classes []string, seed uint64, runs int) {
	d, err := New(Options{Old: tw.old, New: tw.new, Classes: classes, Seed: seed, Runs: runs, Workers: 1})
	if err != nil {
		t.Fatalf("%s: %v", tw.name, err)
	}
	for _, h := range Halves {
		for i := range runs {
			p, err := d.Compare(d.Scenario(h, i))
			if err != nil {
				t.Fatalf("%s %s run %d: %v", tw.name, h, i, err)
			}
			if p.Old.Verdict != p.New.Verdict || p.Worse() || p.Better() {
				t.Fatalf("%s under %s, seed %d, %s run %d: one lock twice gave %s and %s", tw.name, classes, seed, h, i, p.Old.Verdict, p.New.Verdict)
			}
		}
	}
}

// TestIdenticalLocksNeverDiffer is the property diff rests on: a lock
// compared with itself is never worse, for every built-in and every
// example file, whatever the fault classes and seed.
func TestIdenticalLocksNeverDiffer(t *testing.T) {
	all := twins(t)
	classes := []string{scenarios.ClassNone, scenarios.ClassCrash, scenarios.ClassPause, scenarios.ClassNet,
		scenarios.ClassSkew, scenarios.ClassRestart, scenarios.ClassFailover, "all"}
	runs := 4
	if testing.Short() {
		runs = 2
	}
	// Every lock, under every class listed: the coverage a random draw
	// might miss.
	for _, tw := range all {
		for _, c := range []string{scenarios.ClassPause, scenarios.ClassNet, "all"} {
			sameEverywhere(t, tw, []string{c}, 1, runs)
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		tw := rapid.SampledFrom(all).Draw(rt, "lock")
		cs := rapid.SliceOfNDistinct(rapid.SampledFrom(classes), 1, 3, rapid.ID).Draw(rt, "classes")
		seed := rapid.Uint64Range(0, 1<<20).Draw(rt, "seed")
		sameEverywhere(rt, tw, cs, seed, runs)
	})
}

// brokenRelease is set-nx-px-token's file with one mistake, made by package
// mutants: release deletes the key whoever holds it.
func brokenRelease(t testing.TB) locks.Algorithm {
	t.Helper()
	ms, err := mutants.Mutate("../examples/set-nx-px-token.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Operator == "release-no-check" {
			a, err := m.Load()
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
	}
	t.Fatal("no release-no-check mutant of set-nx-px-token.yaml")
	return locks.Algorithm{}
}

func reference(t testing.TB) locks.Algorithm {
	a, err := algofile.LoadFile("../examples/set-nx-px-token.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestFindsWorseForNew compares the reference lock with a release that
// skips the ownership check: outside the TTL's assumptions (a holder
// paused past its TTL) the broken release deletes the next holder's key,
// and the shrunk scenario, replayed with every checker and read back from
// its file, is still worse for the new lock.
func TestFindsWorseForNew(t *testing.T) {
	d, err := New(Options{Old: reference(t), New: brokenRelease(t),
		Classes: []string{scenarios.ClassPause}, Seed: 1, Runs: 2000, Halves: []string{Outside}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h := r.Halves[0]
	if h.Found == nil {
		t.Fatalf("no run worse for the broken release in %d runs", h.Runs)
	}
	if h.Runs != h.Found.Index+1 || h.Same+h.Better+h.Cut != h.Found.Index {
		t.Errorf("counts %+v do not add up to run %d", h, h.Found.Index)
	}
	if !Worse(h.New.Verdict.Verdict, h.Old.Verdict.Verdict) {
		t.Errorf("shrunk replay: old %s, new %s: not worse for new", h.Old.Verdict.Verdict, h.New.Verdict.Verdict)
	}
	data, err := scenarios.Marshal(h.Counterexample)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.Parse("worse-outside.yaml", data)
	if err != nil {
		t.Fatalf("the written scenario does not load: %v\n%s", err, data)
	}
	if p, err := d.Compare(s); err != nil || !p.Worse() {
		t.Errorf("read back: %+v, %v: not worse for new", p, err)
	}
	if len(h.Counterexample.Faults) > len(h.Found.Scenario.Faults) || len(h.Counterexample.Clients) > len(h.Found.Scenario.Clients) {
		t.Errorf("shrinking grew the scenario")
	}
	if !strings.Contains(h.Counterexample.Narrative, "old safe") && !strings.Contains(h.Counterexample.Narrative, "old ") {
		t.Errorf("narrative says nothing of the old verdict: %q", h.Counterexample.Narrative)
	}
}

// TestSameWhateverTheWorkers: the first worse run, the counts and the
// shrunk scenario do not depend on the workers.
func TestSameWhateverTheWorkers(t *testing.T) {
	// The outside half finds run 73 worse; the inside half finds nothing
	// and compares every run. Under the race detector, which looks for
	// the workers' races and makes each run several times dearer, the inside half
	// compares 200 runs, not 2000: a sample of the same search.
	runs := 2000
	if racedetect.Enabled {
		runs = 200
		t.Log("under -race, 200 runs a half (the outside one still finds run 73); the plain go test compares 2000")
	}
	var first []byte
	var firstRuns int
	for _, w := range []int{1, 3} {
		d, err := New(Options{Old: reference(t), New: brokenRelease(t),
			Classes: []string{scenarios.ClassPause, scenarios.ClassCrash}, Seed: 7, Runs: runs, Workers: w, ShrinkTries: 300})
		if err != nil {
			t.Fatal(err)
		}
		r, err := d.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		found := 0
		for _, h := range r.Halves {
			data := []byte("none")
			if h.Counterexample != nil {
				found++
				if data, err = scenarios.Marshal(h.Counterexample); err != nil {
					t.Fatal(err)
				}
				b.WriteString(h.Old.Digest + h.New.Digest)
			}
			b.WriteString(h.Half)
			b.Write(data)
		}
		if found == 0 {
			t.Fatalf("workers %d: no half found a worse run: the test compares nothing", w)
		}
		if first == nil {
			first, firstRuns = []byte(b.String()), r.Halves[0].Runs
			continue
		}
		if b.String() != string(first) || r.Halves[0].Runs != firstRuns {
			t.Errorf("workers %d gave another result than 1 worker", w)
		}
	}
}

// TestInsideStaysInside: every scenario of the inside half, and every
// candidate the shrinker keeps there, lies inside the TTL's assumptions
// of both locks.
func TestInsideStaysInside(t *testing.T) {
	for _, tw := range twins(t) {
		d, err := New(Options{Old: tw.old, New: tw.new, Seed: 3, Halves: []string{Inside}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			if err := d.Inside(d.Scenario(Inside, i)); err != nil {
				t.Errorf("%s run %d: %v", tw.name, i, err)
			}
		}
	}
	// The check can fail: the outside half draws pauses past the TTL.
	d, err := New(Options{Old: reference(t), New: reference(t), Classes: []string{scenarios.ClassPause}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	outside := 0
	for i := range 50 {
		if d.Inside(d.Scenario(Outside, i)) != nil {
			outside++
		}
	}
	if outside == 0 {
		t.Error("no outside scenario of 50 under pause lies outside the TTL's assumptions")
	}
}

// TestWorse: the order is search.WorstFirst, safe last; a cut run is
// never compared.
func TestWorse(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{model.VerdictUnsafe, model.VerdictSafe, true},
		{model.VerdictUnsafe, model.VerdictStuck, true},
		{model.VerdictStuck, model.VerdictStale, true},
		{model.VerdictClientError, model.VerdictSafe, true},
		{model.VerdictSafe, model.VerdictClientError, false},
		{model.VerdictUnsafe, model.VerdictUnsafe, false},
		{model.VerdictSafe, model.VerdictSafe, false},
		{model.VerdictIncomplete, model.VerdictSafe, false},
		{model.VerdictUnsafe, model.VerdictIncomplete, false},
	} {
		if got := Worse(c.a, c.b); got != c.want {
			t.Errorf("Worse(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestOptionErrors(t *testing.T) {
	ref := reference(t)
	redlock, err := locks.Lookup("redlock")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{New: ref}, "Old: required"},
		{Options{Old: ref}, "New: required"},
		{Options{Old: ref, New: redlock}, "redlock runs on several nodes and set-nx-px-token-file on one"},
		{Options{Old: ref, New: ref, Halves: []string{"middle"}}, `Halves: "middle"`},
		{Options{Old: ref, New: ref, Classes: []string{"weather"}}, "Classes:"},
		{Options{Old: ref, New: ref, Runs: -1}, "Runs:"},
	} {
		if _, err := New(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, want an error with %q", c.o, err, c.want)
		}
	}
}
