package explore

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func metText(sr *SearchResult) string {
	s := fmt.Sprintf("stop %d, runs %d:", sr.Stop, sr.Runs)
	for _, f := range sr.Met {
		s += fmt.Sprintf(" %s #%d", f.Verdict, f.Index)
	}
	if sr.Found != nil {
		s += fmt.Sprintf("; worst %s #%d", sr.Found.Verdict, sr.Found.Index)
	}
	return s
}

// The search records the first run of every verdict it meets, goes on past
// lesser verdicts until the first unsafe run, and the result is the same
// whatever the workers (seed 1, 2000 runs, measured).
func TestEveryVerdictWorstFirst(t *testing.T) {
	for _, c := range []struct {
		algo, faults string
		verdicts     []string
		want         string
	}{
		// int(None) at run 0, two holders at run 5: the client-error no
		// longer hides the unsafe run.
		{"python-setnx", "skew", nil, "stop 5, runs 6: unsafe #5 client-error #0; worst unsafe #5"},
		// No unsafe run: every run is searched, the worst is stale.
		{"php-eval", "net", nil, "stop -1, runs 2000: stale #11 client-error #0; worst stale #11"},
		// --verdict stops at that kind and counts only it.
		{"python-setnx", "skew", []string{"client-error"}, "stop 0, runs 1: client-error #0; worst client-error #0"},
		{"php-eval", "net", []string{"client-error"}, "stop 0, runs 1: client-error #0; worst client-error #0"},
		// Met before the stop, but not counted: nothing found.
		{"php-eval", "net", []string{"unsafe"}, "stop -1, runs 2000: stale #11 client-error #0"},
	} {
		var want string
		for _, workers := range raceCut([]int{1, 2, 3}, []int{3}) {
			// Runs measured with drawn TTLs: what is asserted is how the
			// search walks the runs, not the TTL.
			e := explorer(t, Options{Algorithm: c.algo, Classes: classes(t, c.faults), Seed: 1, Runs: 2000,
				Workers: workers, Verdicts: c.verdicts, DrawTTL: true})
			sr, err := e.Search(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got := metText(sr)
			if got != c.want {
				t.Errorf("%s under %s %v, %d workers: %s, want %s", c.algo, c.faults, c.verdicts, workers, got, c.want)
			}
			if want == "" {
				want = got
			} else if got != want {
				t.Errorf("%d workers: %s; 1 worker: %s", workers, got, want)
			}
		}
	}
}

// Run shrinks the worst verdict, and the others only with ShrinkAll; the
// report names every verdict.
func TestShrinkWorstOrAll(t *testing.T) {
	for _, all := range []bool{false, true} {
		// Drawn TTLs: a client-error (run 0) before the unsafe run (5).
		e := explorer(t, Options{Algorithm: "python-setnx", Classes: classes(t, "skew"), Seed: 1, Runs: 2000,
			ShrinkAll: all, ShrinkTries: 500, DrawTTL: true})
		r, err := e.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if r.Counterexample == nil || r.Outcome.Verdict.Verdict != "unsafe" {
			t.Fatalf("ShrinkAll %v: the worst (unsafe) was not shrunk to an unsafe scenario", all)
		}
		if len(r.Others) != 1 || r.Others[0].Found.Verdict != "client-error" {
			t.Fatalf("ShrinkAll %v: others %+v, want client-error", all, r.Others)
		}
		o := r.Others[0]
		if (o.Counterexample != nil) != all {
			t.Errorf("ShrinkAll %v: the client-error shrunk: %v", all, o.Counterexample != nil)
		}
		if all && o.Outcome.Verdict.Verdict != "client-error" {
			t.Errorf("the shrunk client-error replays %s", o.Outcome.Verdict.Verdict)
		}
		rep, err := r.Report("x.yaml", false)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != "unsafe" || rep.Verdicts["unsafe"].FirstRun != 5 || rep.Verdicts["client-error"].FirstRun != 0 ||
			rep.StoppedAt == nil || *rep.StoppedAt != 5 || *rep.FirstFoundAfterRuns != 6 {
			t.Errorf("report: %+v", rep)
		}
		if c := rep.Verdicts["unsafe"].Counterexample; c == nil || *c != "x.yaml" {
			t.Errorf("unsafe's counterexample %v, want x.yaml", c)
		}
		if (rep.Verdicts["client-error"].Shrunk != nil) != all {
			t.Errorf("ShrinkAll %v: client-error shrunk %+v", all, rep.Verdicts["client-error"].Shrunk)
		}
	}
}

// Shards merge to one machine's verdicts: every verdict's first run, and
// the worst.
func TestShardsMergeEveryVerdict(t *testing.T) {
	for _, c := range [][2]string{{"python-setnx", "skew"}, {"php-eval", "net"}, {"setnx-del", "net"}} {
		o := Options{Algorithm: c[0], Classes: classes(t, c[1]), Seed: 1, Runs: 600, ShrinkTries: 200}
		whole, err := explorer(t, o).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want, _ := whole.Report("", false)
		lines := shardLines(t, o, 3)
		got, err := Merge(lines)
		if err != nil {
			t.Fatal(err)
		}
		cut := append([]Report(nil), lines...)
		cut[1].Interrupted = true
		if _, err := Merge(cut); err == nil || !strings.Contains(err.Error(), "line 2: shard 1/3 was interrupted") {
			t.Errorf("merging an interrupted shard: %v", err)
		}
		firsts := func(r Report) map[string]int {
			m := map[string]int{}
			for v, x := range r.Verdicts {
				m[v] = x.FirstRun
			}
			return m
		}
		if !reflect.DeepEqual(firsts(got), firsts(want)) || got.Verdict != want.Verdict || got.Runs != want.Runs ||
			stopText(got.StoppedAt) != stopText(want.StoppedAt) {
			t.Errorf("%v merged: %v worst %s runs %d; one machine: %v worst %s runs %d", c,
				firsts(got), got.Verdict, got.Runs, firsts(want), want.Verdict, want.Runs)
		}
	}
}

func stopText(p *int) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}
