package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/model"
)

// The JSON fields scripts read (docs/explore.md) are a contract; the counterexample
// replays with 'simrun run' and the same verdict.
func TestExploreJSONAndReplay(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := simrun("explore", "--search", "outside", "--algo", "set-nx-px-token", "--faults", "pause", "--verdict", "unsafe", "--json", "--out", dir)
	if code != exitViolation {
		t.Fatalf("exit %d, want %d (stderr %q)", code, exitViolation, errOut)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"algorithm", "faults", "runs", "runs_per_sec", "found", "first_found_after_runs",
		"seconds_to_first", "counterexample", "shrunk"} {
		if _, ok := j[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
	shrunk, _ := j["shrunk"].(map[string]any)
	for _, k := range []string{"processes", "faults", "events"} {
		if _, ok := shrunk[k]; !ok {
			t.Errorf("no shrunk.%s in %s", k, out)
		}
	}
	path := filepath.Join(dir, "counterexample.yaml")
	if j["counterexample"] != path || j["found"] != true || j["verdict"] != "unsafe" {
		t.Errorf("counterexample %v, found %v, verdict %v", j["counterexample"], j["found"], j["verdict"])
	}
	for _, f := range []string{"report.txt", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	code, out, _ = simrun("run", path, "--json")
	var run map[string]any
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	if code != exitViolation || run["verdict"] != "unsafe" || run["expect"] != "unsafe" {
		t.Errorf("replay: exit %d, verdict %v, expect %v", code, run["verdict"], run["expect"])
	}
}

func TestExploreNothingFound(t *testing.T) {
	code, out, errOut := simrun("explore", "--algo", "set-nx-px-token", "--faults", "none", "--runs", "30", "--json",
		"--out", t.TempDir())
	if code != exitOK {
		t.Fatalf("exit %d (stderr %q)", code, errOut)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j["found"] != false || j["runs"] != 30.0 || j["counterexample"] != nil || j["shrunk"] != nil {
		t.Errorf("%s", out)
	}
}

// Shards print JSON lines; merged, they tell what one machine tells.
func TestExploreShardsAndMerge(t *testing.T) {
	dir := t.TempDir()
	args := []string{"explore", "--search", "outside", "--algo", "setnx-getset", "--faults", "pause", "--verdict", "unsafe", "--seed", "2"}
	_, whole, _ := simrun(append(args, "--json", "--out", filepath.Join(dir, "whole"))...)
	var lines []string
	for _, s := range []string{"0/2", "1/2"} {
		_, out, errOut := simrun(append(args, "--shard", s, "--out", filepath.Join(dir, s[:1]))...)
		if strings.Count(out, "\n") != 1 || !strings.Contains(out, `"shard":"`+s+`"`) {
			t.Fatalf("shard %s: want one JSON line, got %q (stderr %q)", s, out, errOut)
		}
		lines = append(lines, out)
	}
	file := filepath.Join(dir, "shards.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, merged, errOut := simrun("merge", "--json", "--out", filepath.Join(dir, "merged"), file)
	if code != exitViolation {
		t.Fatalf("merge: exit %d (stderr %q)", code, errOut)
	}
	var a, b map[string]any
	_ = json.Unmarshal([]byte(whole), &a)
	_ = json.Unmarshal([]byte(merged), &b)
	for _, k := range []string{"runs", "first_found_after_runs", "verdict"} {
		if a[k] != b[k] {
			t.Errorf("%s: one machine %v, merged %v", k, a[k], b[k])
		}
	}
	x, _ := os.ReadFile(filepath.Join(dir, "whole", "counterexample.yaml"))
	y, _ := os.ReadFile(filepath.Join(dir, "merged", "counterexample.yaml"))
	if len(x) == 0 || string(x) != string(y) {
		t.Errorf("merged counterexample differs:\n%s\n---\n%s", x, y)
	}
	if code, _, errOut := simrun("merge", file, file); code != exitUsage || !strings.Contains(errOut, "twice") {
		t.Errorf("merging a shard twice: exit %d, %q", code, errOut)
	}
}

func TestExploreBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"explore"}, "--algo"},
		{[]string{"explore", "--algo", "nope"}, "--algo"},
		{[]string{"explore", "--algo", "redlock", "--faults", "gc"}, "--faults"},
		{[]string{"explore", "--algo", "redlock", "--runs", "0"}, "--runs"},
		{[]string{"explore", "--algo", "redlock", "--workers", "-1"}, "--workers"},
		{[]string{"explore", "--algo", "redlock", "--shard", "2/2"}, "--shard"},
		{[]string{"explore", "--algo", "redlock", "--verdict", "safe"}, "--verdict"},
		{[]string{"explore", "--algo", "redlock", "--verdict", "incomplete"}, "--verdict"},
	} {
		code, _, errOut := simrun(c.args...)
		if code != exitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.flag+":") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %s", c.args, code, errOut, c.flag)
		}
	}
}

// A search that found nothing but met runs cut at a cap says so and exits
// 3: nothing found in a prefix is not a pass. One that found a violation
// exits 1 and still names the cut runs.
func TestExploreIncompleteRuns(t *testing.T) {
	cut := explore.Report{Algorithm: "mine", Faults: []string{"net"}, Seed: 1, RunsLimit: 10, Runs: 10,
		Verdict: "incomplete", IncompleteRuns: 2,
		Verdicts: map[string]explore.VerdictReport{"incomplete": {FirstRun: 4, Cut: "duration limit 14s reached"}}}
	var b strings.Builder
	if err := writeExploreSummary(&b, cut, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"found      nothing\n", "verdict    INCOMPLETE, not safe\n",
		"cut        2 runs ended at a cap with nothing found: run 4 first, duration limit 14s reached\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if code := exploreExit(cut, false); code != exitIncomplete {
		t.Errorf("exit %d, want %d", code, exitIncomplete)
	}
	found := cut
	found.Found, found.Verdict = true, "unsafe"
	if code := exploreExit(found, false); code != exitViolation {
		t.Errorf("found: exit %d, want %d", code, exitViolation)
	}
	if code := exploreExit(explore.Report{}, false); code != exitOK {
		t.Errorf("nothing: exit %d, want %d", code, exitOK)
	}
}

// The summary says which safety the first unsafe run broke, the shrunk
// run's when it broke another, and how many runs no fault touched; the JSON
// has the same fields.
func TestExploreSummarySaysWhatBrokeAndVacuousRuns(t *testing.T) {
	run, path := 12, "out/counterexample.yaml"
	found := explore.Report{Algorithm: "fenced-token", Faults: []string{"pause"}, Seed: 1, RunsLimit: 100, Runs: 12,
		Found: true, Verdict: "unsafe", SafetyBroken: model.BrokeLostUpdate, FirstFoundAfterRuns: &run, VacuousRuns: 3,
		Shrunk: &explore.Shrunk{Processes: 2, Faults: 1, Events: 40, SafetyBroken: model.BrokeOverlap}, Counterexample: &path}
	nothing := explore.Report{Algorithm: "fenced-token", Faults: []string{"restart"}, Seed: 1, RunsLimit: 10, Runs: 10, VacuousRuns: 10}
	same := found
	same.Shrunk = &explore.Shrunk{Processes: 2, Faults: 1, Events: 40, SafetyBroken: model.BrokeLostUpdate}
	same.VacuousRuns = 0
	for _, c := range []struct {
		name     string
		r        explore.Report
		want     []string
		not      []string
		jsonWant []string
	}{
		{"found", found, []string{
			"found      UNSAFE at run 11: lost update\n",
			"vacuous    3 runs of 12: no fault touched the lock\n",
			"shrunk     to 2 processes, 1 fault, 40 events: overlap, resource safe\n",
		}, nil, []string{`"safety_broken": "lost update"`, `"vacuous_runs": 3`, `"safety_broken": "overlap, resource safe"`}},
		{"nothing", nothing, []string{"found      nothing\nvacuous    10 runs of 10: no fault touched the lock\n"},
			[]string{"safety"}, []string{`"vacuous_runs": 10`}},
		{"shrunk alike", same, []string{"found      UNSAFE at run 11: lost update\n", "shrunk     to 2 processes, 1 fault, 40 events\n"},
			[]string{"vacuous"}, []string{`"vacuous_runs": 0`}},
	} {
		var b, js strings.Builder
		if err := writeExploreSummary(&b, c.r, ""); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: summary lacks %q:\n%s", c.name, w, b.String())
			}
		}
		for _, w := range c.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("%s: summary has %q:\n%s", c.name, w, b.String())
			}
		}
		if err := writeExploreJSON(&js, c.r); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.jsonWant {
			if !strings.Contains(js.String(), w) {
				t.Errorf("%s: JSON lacks %s:\n%s", c.name, w, js.String())
			}
		}
	}
}
