package explore

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/racedetect"
	"github.com/locksim/locksim/internal/searchtest"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
)

// TestMain: these tests are searches, run as simrun runs them (internal/searchtest).
func TestMain(m *testing.M) { searchtest.Main(m) }

func explorer(t testing.TB, o Options) *Explorer {
	t.Helper()
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// raceCut is all, or under the race detector the cut of it that still
// runs the test's concurrent case: the detector's own bookkeeping grows with
// every run a test binary makes, and this package's tests would pass 2 GB
// together. The plain `go test` runs all of it.
func raceCut[T any](all, cut T) T {
	if racedetect.Enabled {
		return cut
	}
	return all
}

func classes(t testing.TB, list string) []string {
	t.Helper()
	c, err := scenarios.ParseClasses(list)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// documented is every documented failure mode: the algorithm, the fault
// class that shows it, the verdict, and how small its shrunk
// counterexample must be.
var documented = []struct {
	algo, faults, verdict string
	procs, faultsMax      int
}{
	{"setnx-del", "crash", "stuck", 2, 1},             // 003: a crashed holder deadlocks everyone
	{"setnx-del-recover", "crash", "unsafe", 3, 2},    // 003: the DEL race
	{"setnx-getset", "pause", "unsafe", 3, 2},         // 000 §8: a paused holder's DEL frees the next holder's lock
	{"setnx-getset-checked", "pause", "unsafe", 3, 2}, // 002: a pause between the expiry check and the DEL
	{"setnx-expire", "crash", "stuck", 2, 1},          // 000 §5: a crash between SETNX and EXPIRE
	{"java-getset", "skew", "unsafe", 2, 0},           // 000 §7: a clock ahead takes a live lock
	{"php-eval", "skew", "unsafe", 2, 0},              // 000 §7, 001: whole seconds and a clock lead
	{"php-eval", "none", "stale", 2, 0},               // 001: unlock leaves a live lock
	{"python-setnx", "none", "client-error", 2, 0},    // 002: int(None)
	{"php-set-get", "pause", "unsafe", 3, 2},          // 004: a 40 s pause and an unconditional DEL
	{"php-set-get", "crash", "stuck", 2, 1},           // 004: waiters write and fail; a dead holder deadlocks them
	{"set-nx-px-token", "pause", "unsafe", 2, 1},      // a pause longer than the TTL
	{"fenced-token", "pause", "unsafe", 2, 1},         // unsafe for the lock (the resource refuses)
	{"redlock", "restart", "unsafe", 3, 2},            // a node that granted the lock restarts empty
	{"redlock", "jump", "unsafe", 3, 2},               // a node's clock jumps forward
	{"set-nx-px-token", "failover", "unsafe", 2, 1},   // distlock: the primary dies before its replica has the lock
	{"set-nx-px-wait", "failover", "unsafe", 2, 1},    // WAIT gives up before the replica has it, and the lock goes on
}

// Every documented bug is found from seed 1 under its fault class, shrinks
// to a small scenario, and that scenario replays from its file with the
// same verdict (every checker on, as 'simrun run' does).
func TestDocumentedBugsFoundAndShrunk(t *testing.T) {
	for _, c := range documented {
		t.Run(c.algo+"/"+c.faults, func(t *testing.T) {
			// The sizes were measured with drawn TTLs, which the shrinker
			// may lower too (with its own 3 s TTL, setnx-del-recover's DEL
			// race shrinks to 6 processes, not 3).
			e := explorer(t, Options{Algorithm: c.algo, Classes: classes(t, c.faults), Seed: 1, Runs: 20_000,
				Verdicts: []string{c.verdict}, DrawTTL: true})
			r, err := e.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if r.Search.Found == nil {
				t.Fatalf("no %s run in %d", c.verdict, r.Search.Runs)
			}
			ce := r.Counterexample
			if r.Outcome.Verdict.Verdict != c.verdict || ce.Expect != c.verdict {
				t.Errorf("the shrunk scenario replays %s (expect %q), want %s", r.Outcome.Verdict.Verdict, ce.Expect, c.verdict)
			}
			if len(ce.Clients) > c.procs || len(ce.Faults) > c.faultsMax {
				data, _ := scenarios.Marshal(ce)
				t.Errorf("shrunk to %d processes and %d faults, want at most %d and %d:\n%s",
					len(ce.Clients), len(ce.Faults), c.procs, c.faultsMax, data)
			}
			replayFromFile(t, r)
			t.Logf("found at run %d in %v, shrunk in %v (%d tries) to %d processes, %d faults",
				r.Search.Found.Index, r.Search.ToFirst.Round(time.Millisecond), r.Shrink.Elapsed.Round(time.Millisecond),
				r.Shrink.Tries, len(ce.Clients), len(ce.Faults))
		})
	}
}

// replayFromFile writes the counterexample, reads it back as 'simrun run'
// does, and checks the run is the same, digest and verdict.
func replayFromFile(t *testing.T, r *Result) {
	t.Helper()
	data, err := scenarios.Marshal(r.Counterexample)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.Parse("counterexample.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	o, err := judge.Run(s, "", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Digest != r.Outcome.Digest || o.Verdict.Verdict != s.Expect {
		t.Errorf("the file replays %s with digest %.12s, want %s with %.12s", o.Verdict.Verdict, o.Digest, s.Expect, r.Outcome.Digest)
	}
}

// Run i's scenario is a pure function of (seed, i, algorithm, classes).
func TestScenarioIsPure(t *testing.T) {
	o := Options{Algorithm: "redlock", Classes: classes(t, "all"), Seed: 42}
	a, b := explorer(t, o), explorer(t, o)
	for i := range 50 {
		if !reflect.DeepEqual(a.Scenario(i), b.Scenario(i)) {
			t.Fatalf("run %d: two explorers drew different scenarios", i)
		}
	}
	o.Seed = 43
	c := explorer(t, o)
	if reflect.DeepEqual(a.Scenario(0), c.Scenario(0)) {
		t.Error("seeds 42 and 43 drew the same first scenario")
	}
}

// The same seed gives the same result whatever the number of workers: the
// lowest failing run index, and the same shrunk counterexample.
func TestSameResultWhateverWorkers(t *testing.T) {
	for _, c := range []struct{ algo, faults, verdict string }{
		{"setnx-del-recover", "crash", "unsafe"},
		{"redlock", "restart", ""},
	} {
		var want string
		for _, workers := range raceCut([]int{1, 2, 5}, []int{1, 5}) {
			o := Options{Algorithm: c.algo, Classes: classes(t, c.faults), Seed: 3, Runs: 20_000, Workers: workers}
			if c.verdict != "" {
				o.Verdicts = []string{c.verdict}
			}
			r, err := explorer(t, o).Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if r.Search.Found == nil {
				t.Fatalf("%s: nothing found", c.algo)
			}
			data, _ := scenarios.Marshal(r.Counterexample)
			got := fmt.Sprintf("run %d (%d in order)\n%s", r.Search.Found.Index, r.Search.Runs, data)
			if want == "" {
				want = got
			} else if got != want {
				t.Errorf("%s with %d workers:\n%s\nwant (1 worker):\n%s", c.algo, workers, got, want)
			}
		}
	}
}

// Shards split the run indices; merged, they report what one machine does.
func TestShardsMergeToTheSameResult(t *testing.T) {
	o := Options{Algorithm: "setnx-getset", Classes: classes(t, "pause"), Seed: 5, Runs: 5000, Verdicts: []string{"unsafe"}}
	whole, err := explorer(t, o).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := whole.Report("", true)
	lines := shardLines(t, o, 3)
	// Any order of lines merges the same.
	lines[0], lines[2] = lines[2], lines[0]
	got, err := Merge(lines)
	if err != nil {
		t.Fatal(err)
	}
	if *got.FirstFoundAfterRuns != *want.FirstFoundAfterRuns || got.Runs != want.Runs || got.Verdict != want.Verdict ||
		!reflect.DeepEqual(got.Shrunk, want.Shrunk) || got.ScenarioYAML != want.ScenarioYAML {
		t.Errorf("merged: run %d (runs %d) %s %+v; one machine: run %d (runs %d) %s %+v",
			*got.FirstFoundAfterRuns, got.Runs, got.Verdict, got.Shrunk, *want.FirstFoundAfterRuns, want.Runs, want.Verdict, want.Shrunk)
	}
	if _, err := Merge(lines[:2]); err == nil || !strings.Contains(err.Error(), "missing shard") {
		t.Errorf("merging two of three shards: %v", err)
	}
	if _, err := Merge(append(lines, lines[0])); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("merging a shard twice: %v", err)
	}
	other := lines[1]
	other.Seed++
	if _, err := Merge([]Report{lines[0], other, lines[2]}); err == nil {
		t.Error("merged shards of two different searches")
	}
	edited := lines[2]
	edited.LockSHA256 = strings.Repeat("ab", 32) // the algorithm file changed between shards
	if _, err := Merge([]Report{lines[0], lines[1], edited}); err == nil || !strings.Contains(err.Error(), "another version of the algorithm file") {
		t.Errorf("merging shards of two versions of a lock: %v", err)
	}
}

// shardLines runs o as n shards and returns their report lines, in shard
// order, each checked to name its shard.
func shardLines(t *testing.T, o Options, n int) []Report {
	t.Helper()
	var lines []Report
	for k := range n {
		o.Shard = search.Shard{Index: k, Count: n}
		r, err := explorer(t, o).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		rep, _ := r.Report("", true)
		if rep.Shard != fmt.Sprintf("%d/%d", k, n) {
			t.Errorf("shard field %q", rep.Shard)
		}
		lines = append(lines, rep)
	}
	return lines
}

func TestReadReports(t *testing.T) {
	in := `{"algorithm":"redlock","faults":["restart"],"seed":1,"runs_limit":10,"runs":10,"runs_per_sec":1,"found":false,"first_found_after_runs":null,"seconds_to_first":null,"counterexample":null,"shrunk":null,"shard":"0/1"}

{"algorithm":"redlock"`
	if _, err := ReadReports("in", strings.NewReader(in)); err == nil || !strings.HasPrefix(err.Error(), "in:3:") {
		t.Errorf("a broken third line: %v", err)
	}
	got, err := ReadReports("in", strings.NewReader(strings.SplitN(in, "\n", 2)[0]))
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %v", got, err)
	}
	m, err := Merge(got)
	if err != nil || m.Found || m.Runs != 10 {
		t.Errorf("merged one shard of one: %+v %v", m, err)
	}
}

func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		o      Options
		option string
	}{
		{Options{Algorithm: "nope"}, "Algorithm"},
		{Options{Algorithm: "redlock", Classes: []string{"gc"}}, "Classes"},
		{Options{Algorithm: "redlock", Runs: -1}, "Runs"},
		{Options{Algorithm: "redlock", Workers: -2}, "Workers"},
		{Options{Algorithm: "redlock", Shard: search.Shard{Index: 2, Count: 2}}, "Shard"},
		{Options{Algorithm: "redlock", Verdicts: []string{"safe"}}, "Verdicts"},
		{Options{Algorithm: "redlock", Lock: unregistered(t, "setnx-del", "mine")}, "Lock"},
		{Options{Lock: unregistered(t, "setnx-del", "")}, "Lock"},
	} {
		_, err := New(c.o)
		oe, ok := err.(*search.OptionError)
		if !ok || oe.Option != c.option {
			t.Errorf("%+v: %v, want an error about %s", c.o, err, c.option)
		}
	}
}

// set-nx-px-token is never unsafe without pauses, node restarts or clock
// jumps: no false positive in a thousand runs (a quarter of them under the
// race detector).
func TestTokenLockNotUnsafeWithoutItsFaults(t *testing.T) {
	o := Options{Algorithm: "set-nx-px-token", Classes: classes(t, "crash,skew,net"), Seed: 1, Runs: raceCut(1000, 250),
		Verdicts: []string{"unsafe"}}
	sr, err := explorer(t, o).Search(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sr.Found != nil {
		data, _ := scenarios.Marshal(sr.Found.Scenario)
		t.Fatalf("run %d is unsafe:\n%s", sr.Found.Index, data)
	}
}

func TestSearchStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := explorer(t, Options{Algorithm: "set-nx-px-token", Seed: 1}).Search(ctx)
	if err == nil {
		t.Fatal("a cancelled search returned a result")
	}
}

// unregistered is a registered algorithm under another name, as an
// algorithm file or a team's own Go lock reaches explore.
func unregistered(t testing.TB, name, as string) locks.Algorithm {
	t.Helper()
	a, err := locks.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	a.Name = as
	return a
}

// An unregistered algorithm (Options.Lock) is searched exactly as the
// registered one: the same failing run and counterexample, but for its name.
func TestUnregisteredLockSearchesTheSame(t *testing.T) {
	base := Options{Classes: classes(t, "crash"), Seed: 1, Runs: 20_000, Verdicts: []string{"unsafe"}}
	var got [2]string
	for i, o := range []Options{{Algorithm: "setnx-del-recover"}, {Lock: unregistered(t, "setnx-del-recover", "my-lock")}} {
		o.Classes, o.Seed, o.Runs, o.Verdicts = base.Classes, base.Seed, base.Runs, base.Verdicts
		r, err := explorer(t, o).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if r.Search.Found == nil {
			t.Fatalf("%+v: nothing found", o)
		}
		ce := *r.Counterexample
		ce.Name, ce.Algorithm, ce.Narrative = "", "", "" // the parts that name the lock
		ce.Summary = strings.Replace(ce.Summary, r.Algorithm, "ALGO", 1)
		data, _ := scenarios.Marshal(&ce)
		got[i] = fmt.Sprintf("run %d %s digest %s\n%s", r.Search.Found.Index, r.Outcome.Verdict.Verdict, r.Outcome.Digest, data)
	}
	if got[0] != got[1] {
		t.Errorf("registered:\n%s\nunregistered:\n%s", got[0], got[1])
	}
}
