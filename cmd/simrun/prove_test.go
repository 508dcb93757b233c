package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/locksim/locksim/prove"
)

// prove's result: proved (exit 0), or the first counterexample written to
// -o, which 'simrun run' replays with the same verdict (exit 1).
func TestProveProvedAndCounterexample(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	code, out, errOut := simrun("prove", "--algo", "set-nx-px-token", "--clients", "1", "--rounds", "1", "--faults", "short-pause,crash", "--max-delays", "0", "-o", file)
	if code != exitOK || !strings.Contains(out, "proved within bounds") || !strings.Contains(out, "11 explored") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("a proof wrote a counterexample")
	}
	code, out, errOut = simrun("prove", "--algo", "set-nx-px-token", "--faults", "long-pause", "--json", "-o", file)
	if code != exitViolation {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"algorithm", "clients", "rounds", "faults", "max_faults", "max_delays", "proved",
		"explored", "pruned", "incomplete", "depth", "seconds", "verdict", "schedule", "counterexample"} {
		if _, ok := j[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
	if j["verdict"] != "unsafe" || j["proved"] != false || j["counterexample"] != file {
		t.Errorf("verdict %v, proved %v, counterexample %v", j["verdict"], j["proved"], j["counterexample"])
	}
	code, out, _ = simrun("run", file, "--json")
	var run map[string]any
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	if code != exitViolation || run["verdict"] != "unsafe" || run["expect"] != "unsafe" {
		t.Errorf("replay: exit %d, verdict %v, expect %v", code, run["verdict"], run["expect"])
	}
	// An existing -o file is not overwritten by accident.
	code, _, errOut = simrun("prove", "--algo", "set-nx-px-token", "--faults", "long-pause", "-o", file)
	if code != exitUsage || !strings.Contains(errOut, "-o:") {
		t.Errorf("existing -o: exit %d, stderr %q", code, errOut)
	}
}

func TestProveBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--algo", "set-nx-px-token", "--clients", "0"}, "--clients"},
		{[]string{"--algo", "set-nx-px-token", "--rounds", "101"}, "--rounds"},
		{[]string{"--algo", "set-nx-px-token", "--max-faults", "-1"}, "--max-faults"},
		{[]string{"--algo", "set-nx-px-token", "--max-delays", "9"}, "--max-delays"},
		{[]string{"--algo", "set-nx-px-token", "--reduce", "most"}, "--reduce"},
		{[]string{"--algo", "set-nx-px-token", "--delays", "some"}, "--delays"},
		{[]string{"--algo", "set-nx-px-token", "--faults", "pause,lava"}, "--faults"},
		{[]string{"--algo", "set-nx-px-token", "--faults", "restart"}, "faults: restart is for a lock on several nodes"},
		{[]string{"--algo", "set-nx-px-token", "--shard", "2/2"}, "--shard"},
		{[]string{"--algo", "nope"}, "--algo"},
		{[]string{}, "--algo"},
	} {
		code, _, errOut := simrun(append([]string{"prove"}, c.args...)...)
		if code != exitUsage || !strings.HasPrefix(errOut, "simrun prove: "+c.flag) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errOut)
		}
	}
}

// A shard prints one JSON line and writes no file.
func TestProveShardLine(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := simrun("prove", "--algo", "set-nx-px-token", "--faults", "long-pause", "--shard", "0/2", "-o", filepath.Join(dir, "c.yaml"))
	if code != exitViolation || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"shard":"0/2"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a shard wrote %v", entries)
	}
}

// Shards merged give what one machine gives: the same first schedule.
func TestProveMerge(t *testing.T) {
	dir := t.TempDir()
	args := []string{"prove", "--algo", "set-nx-px-token", "--faults", "pause", "--max-delays", "0"}
	code, whole, errOut := simrun(append(args, "--json", "-o", filepath.Join(dir, "whole.yaml"))...)
	if code != exitViolation {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var lines []string
	for i := range 3 {
		code, out, errOut := simrun(append(args, "--shard", []string{"0/3", "1/3", "2/3"}[i])...)
		if code != exitOK && code != exitViolation {
			t.Fatalf("shard %d: exit %d, stderr %q", i, code, errOut)
		}
		lines = append(lines, out)
	}
	shards := filepath.Join(dir, "shards.jsonl")
	if err := os.WriteFile(shards, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(dir, "merged.yaml")
	code, out, errOut := simrun("prove", "--merge", "--algo", "set-nx-px-token", "--json", "-o", merged, shards)
	if code != exitViolation {
		t.Fatalf("merge: exit %d, stderr %q", code, errOut)
	}
	var w, m map[string]any
	if err := json.Unmarshal([]byte(whole), &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	ws, _ := json.Marshal(w["schedule"])
	ms, _ := json.Marshal(m["schedule"])
	if string(ws) != string(ms) || m["verdict"] != "unsafe" {
		t.Fatalf("merged %s %v, one machine %s", ms, m["verdict"], ws)
	}
	if code, _, _ := simrun("run", merged); code != exitViolation {
		t.Errorf("merged counterexample replays with exit %d", code)
	}
	// A shard of another --reduce or --delays is refused: its canonical
	// positions are not the others'.
	for _, flag := range [][]string{{"--reduce", "summary"}, {"--delays", "all"}} {
		code, other, errOut := simrun(append(append(args, "--shard", "2/3"), flag...)...)
		if code != exitOK && code != exitViolation {
			t.Fatalf("%v shard: exit %d, stderr %q", flag, code, errOut)
		}
		if err := os.WriteFile(shards, []byte(lines[0]+lines[1]+other), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut = simrun("prove", "--merge", "--algo", "set-nx-px-token", "-o", filepath.Join(dir, "y.yaml"), shards)
		if code != exitUsage || !strings.Contains(errOut, "another space") {
			t.Errorf("a shard of another %s: exit %d, stderr %q", flag[0], code, errOut)
		}
	}
	// A missing shard is refused.
	if err := os.WriteFile(shards, []byte(lines[0]+lines[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = simrun("prove", "--merge", "--algo", "set-nx-px-token", "-o", filepath.Join(dir, "x.yaml"), shards)
	if code != exitUsage || !strings.Contains(errOut, "2 of 3 shards") {
		t.Errorf("missing shard: exit %d, stderr %q", code, errOut)
	}
}

// An algorithm file is proved the same way, and its counterexample names
// the file, so 'simrun run' alone replays it.
func TestProveAlgoFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	lock, err := filepath.Abs("../../examples/set-nx-px-token.yaml")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := simrun("prove", "--algo-file", lock, "--faults", "short-pause,crash", "--max-delays", "0", "-o", file)
	if code != exitOK || !strings.Contains(out, "proved within bounds") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = simrun("prove", "--algo-file", lock, "--faults", "long-pause", "-o", file)
	if code != exitViolation {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), "algorithm_file:") {
		t.Fatalf("counterexample %q, %v", data, err)
	}
	if code, _, errOut := simrun("run", file); code != exitViolation {
		t.Errorf("replay: exit %d, stderr %q", code, errOut)
	}
}

// Merged shards meet what one machine meets: every verdict at its first
// schedule in canonical order, none past the first unsafe one, worst first.
func TestMergeMet(t *testing.T) {
	got := mergeMet([]proveMet{
		{Verdict: "client-error", Path: []int{3}},
		{Verdict: "unsafe", Path: []int{5}},
		{Verdict: "stuck", Path: []int{7}}, // past the unsafe schedule: not met
		{Verdict: "client-error", Path: []int{1}},
		{Verdict: "unsafe", Path: []int{0, 2}}, // more choices: later
	})
	want := []proveMet{{Verdict: "unsafe", Path: []int{5}}, {Verdict: "client-error", Path: []int{1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// Interrupted, prove says what it met so far, worst first, and shrinks
// nothing.
func TestProveSummaryInterruptedWithMet(t *testing.T) {
	var b strings.Builder
	r := proveJSON{Algorithm: "setnx-del", Faults: []string{"net"}, Interrupted: true, Depth: 1,
		Met: []proveMet{{Verdict: "stuck", Schedule: []prove.Step{{Client: "c1", Point: "send", N: 1, Choice: "lost reply"}}}}}
	if err := writeProveSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	if want := "met        STUCK: lost reply at c1's send #1\n"; !strings.Contains(b.String(), want) || strings.Contains(b.String(), "\nshrunk ") {
		t.Errorf("summary lacks %q or shrank:\n%s", want, b.String())
	}
}
