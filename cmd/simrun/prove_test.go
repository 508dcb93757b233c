package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/locksim/locksim/prove"
)

// prove's result: proved (exit 0), or the first counterexample of each
// side of the lock's assumptions, written beside -o, which 'simrun run'
// replays with the same verdict. The exit follows the inside answer, or
// any with --fail-on any.
func TestProveProvedAndCounterexample(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	outside := filepath.Join(dir, "c-outside.yaml")
	code, out, errOut := simrun("prove", "--algo", "set-nx-px-token", "--clients", "1", "--rounds", "1", "--faults", "short-pause,crash", "--max-delays", "0", "-o", file)
	if code != exitOK || !strings.Contains(out, "inside     proved within bounds: 11 schedules inside") || !strings.Contains(out, "11 explored") ||
		!strings.Contains(out, "outside    no schedule of this space leaves") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("a proof wrote a counterexample")
	}
	// A pause past the TTL is outside: the inside answer (the schedules
	// without it) is proved, exit 0; the outside one is the overlap.
	code, out, errOut = simrun("prove", "--algo", "set-nx-px-token", "--faults", "long-pause", "--json", "-o", file)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"algorithm", "clients", "rounds", "faults", "max_faults", "max_delays", "proved",
		"explored", "pruned", "incomplete", "depth", "seconds", "verdict", "schedule", "counterexample", "bounds", "parameters", "inside", "outside"} {
		if _, ok := j[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
	in, outs := j["inside"].(map[string]any), j["outside"].(map[string]any)
	if j["verdict"] != "unsafe" || j["proved"] != false || j["counterexample"] != outside ||
		in["verdict"] != "safe" || in["proved"] != true || in["counterexample"] != "" ||
		outs["verdict"] != "unsafe" || outs["counterexample"] != outside || !strings.Contains(outs["breaks"].(string), "exceeds what a 30s TTL allows") {
		t.Errorf("verdict %v, proved %v, counterexample %v; inside %v; outside %v", j["verdict"], j["proved"], j["counterexample"], in, outs)
	}
	if never, _ := json.Marshal(in["never_inside"]); !strings.Contains(string(never), `"class":"long-pause"`) {
		t.Errorf("never_inside %s, want long-pause", never)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("no inside violation, but an inside counterexample was written")
	}
	code, out, _ = simrun("run", outside, "--json")
	var run map[string]any
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	if code != exitViolation || run["verdict"] != "unsafe" || run["expect"] != "unsafe" {
		t.Errorf("replay: exit %d, verdict %v, expect %v", code, run["verdict"], run["expect"])
	}
	// An existing file is not overwritten by accident; --fail-on any
	// exits 1 on the outside violation.
	code, _, errOut = simrun("prove", "--algo", "set-nx-px-token", "--faults", "long-pause", "-o", file)
	if code != exitUsage || !strings.Contains(errOut, "-o:") {
		t.Errorf("existing -o: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut = simrun("prove", "--algo", "set-nx-px-token", "--faults", "long-pause", "--fail-on", "any", "--force", "-o", file)
	if code != exitViolation || !strings.Contains(out, "inside     proved within bounds without faults only: ") {
		t.Errorf("--fail-on any: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// A bug inside the lock's assumptions: setnx-del-recover's DEL race, after
// a crash and a reordering, is the inside answer, written to -o, exit 1.
func TestProveInsideCounterexample(t *testing.T) {
	file := filepath.Join(t.TempDir(), "race.yaml")
	code, out, errOut := simrun("prove", "--algo", "setnx-del-recover", "--clients", "3", "--rounds", "1", "--faults", "crash", "-o", file)
	if code != exitViolation || !strings.Contains(out, "inside     UNSAFE: crash at ") || !strings.Contains(out, "a bug, inside the lock's assumptions") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, errOut := simrun("run", file); code != exitViolation {
		t.Errorf("replay: exit %d, stderr %q", code, errOut)
	}
}

// The bounds and every fixed parameter are printed with the result, and
// follow --ttl, --work and --latency: the short pause shrinks to what the
// work leaves inside the TTL, the delays follow the latency.
func TestProveBoundsAndParameters(t *testing.T) {
	args := []string{"prove", "--algo", "set-nx-px-token", "--ttl", "10s", "--work", "8s", "--latency", "5ms", "--rounds", "1", "--faults", "short-pause,long-pause", "-o", filepath.Join(t.TempDir(), "c.yaml")}
	code, out, errOut := simrun(args...)
	if code != exitOK {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, want := range []string{
		"menu       pause 1.969s, pause 3·TTL/2 = 15s; delays 1ns, 5ms, 10ms; reduce history\n",
		"fixed      work 8s, no think time, latency 5ms each way",
		"TTL 10s (lifetime 10s), key resource_name, retries for ever 200ms apart, 1 node(s), clocks exact, seed 1",
		"inside     proved within bounds: ",
		"long-pause is never inside: c1's pause of 15s exceeds what a 10s TTL allows",
		"outside    UNSAFE: pause 3·TTL/2 at ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	code, out, _ = simrun(append(args, "--json", "--force")...)
	var j struct {
		Bounds     proveBounds
		Parameters proveParams
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != exitOK {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	if p := j.Parameters; p.TTL != "10s" || p.Work != "8s" || p.Latency != "5ms" || p.Think != "0s" || p.Key != "resource_name" || p.Seed != 1 {
		t.Errorf("parameters %+v", p)
	}
	if b := j.Bounds; b.Clients != 2 || b.Rounds != 1 || b.MaxFaults != 1 || b.MaxDelays != 1 || len(b.Menu) != 5 || b.Menu[0].Size != "1.969s" {
		t.Errorf("bounds %+v", b)
	}
	// Work past the TTL leaves no schedule inside: nothing is proved, exit 3.
	code, out, errOut = simrun("prove", "--algo", "set-nx-px-token", "--ttl", "1s", "--work", "2s", "--clients", "1", "--rounds", "1", "--faults", "short-pause")
	if code != exitIncomplete || !strings.Contains(out, "inside     not proved: no schedule of this space is inside the lock's assumptions (fault-free: c1's work of 2s") {
		t.Errorf("work past the TTL: exit %d, stdout %q, stderr %q", code, out, errOut)
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
		{[]string{"--algo", "set-nx-px-token", "--jumps", "some"}, "--jumps"},
		{[]string{"--algo", "set-nx-px-token", "--faults", "pause,lava"}, "--faults"},
		{[]string{"--algo", "set-nx-px-token", "--faults", "restart"}, "faults: restart is for a lock on several nodes"},
		{[]string{"--algo", "set-nx-px-token", "--shard", "2/2"}, "--shard"},
		{[]string{"--algo", "set-nx-px-token", "--work", "-1s"}, "--work"},
		{[]string{"--algo", "set-nx-px-token", "--work", "2h"}, "--work"},
		{[]string{"--algo", "set-nx-px-token", "--work", "soon"}, "--work"},
		{[]string{"--algo", "set-nx-px-token", "--latency", "11s"}, "--latency"},
		{[]string{"--algo", "set-nx-px-token", "--ttl", "-3s"}, "--ttl"},
		{[]string{"--algo", "setnx-del", "--ttl", "5s"}, "--ttl: setnx-del's lock never expires"},
		{[]string{"--algo", "set-nx-px-token", "--fail-on", "outside"}, "--fail-on"},
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
	code, out, errOut := simrun("prove", "--algo", "set-nx-px-token", "--faults", "long-pause", "--fail-on", "any", "--shard", "0/2", "-o", filepath.Join(dir, "c.yaml"))
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
	if code != exitOK { // proved inside; the overlap is outside
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
	if code != exitOK {
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
	for _, side := range []string{"inside", "outside"} {
		wa, ma := w[side].(map[string]any), m[side].(map[string]any)
		if wa["verdict"] != ma["verdict"] || wa["proved"] != ma["proved"] || fmt.Sprint(wa["schedule"]) != fmt.Sprint(ma["schedule"]) {
			t.Errorf("%s: merged %v, one machine %v", side, ma, wa)
		}
	}
	if code, _, _ := simrun("run", outsideFile(merged)); code != exitViolation {
		t.Errorf("merged counterexample replays with exit %d", code)
	}
	// With --fail-on any the merge exits on the outside overlap.
	if code, _, errOut := simrun("prove", "--merge", "--algo", "set-nx-px-token", "--fail-on", "any", "-o", filepath.Join(dir, "any.yaml"), shards); code != exitViolation {
		t.Errorf("merge --fail-on any: exit %d, stderr %q", code, errOut)
	}
	// A shard of another --reduce or --delays is refused: its canonical
	// positions are not the others'; so is one of other parameters, and
	// one of another --jumps (its counts are not the others').
	for _, flag := range [][]string{{"--reduce", "summary"}, {"--delays", "all"}, {"--jumps", "run"}, {"--work", "1s"}, {"--latency", "2ms"}, {"--ttl", "20s"}} {
		code, other, errOut := simrun(append(append(args, "--shard", "2/3"), flag...)...)
		if code != exitOK && code != exitViolation {
			t.Fatalf("%v shard: exit %d, stderr %q", flag, code, errOut)
		}
		if err := os.WriteFile(shards, []byte(lines[0]+lines[1]+other), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut = simrun("prove", "--merge", "--algo", "set-nx-px-token", "-o", filepath.Join(dir, "y.yaml"), shards)
		if code != exitUsage || !strings.Contains(errOut, "another space") && !strings.Contains(errOut, "other parameters") {
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
	if code != exitOK || !strings.Contains(out, "proved within bounds") || !strings.Contains(out, "assumed    the lock's own") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = simrun("prove", "--algo-file", lock, "--faults", "long-pause", "--fail-on", "any", "-o", file)
	if code != exitViolation {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	file = outsideFile(file)
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
	all := []proveMet{
		{Verdict: "client-error", Path: []int{3}},
		{Verdict: "unsafe", Path: []int{5}},
		{Verdict: "stuck", Path: []int{7}}, // past the unsafe schedule: not met
		{Verdict: "client-error", Path: []int{1}},
		{Verdict: "unsafe", Path: []int{0, 2}}, // more choices: later
	}
	got := mergeMet(all, unsafeStop(all))
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
	if want := "met        STUCK: lost reply at c1's send #1 (inside)\n"; !strings.Contains(b.String(), want) || strings.Contains(b.String(), "\nshrunk ") {
		t.Errorf("summary lacks %q or shrank:\n%s", want, b.String())
	}
}

// --jumps unread is the default: --jumps run's output names no jumps (as
// before the flag); the default's, the same schedules and answers, and how
// many were taken unrun, in a line of their own and in JSON. Without a
// clock jump on the menu the text says nothing of them.
func TestProveJumpsUnread(t *testing.T) {
	dir := t.TempDir()
	args := []string{"prove", "--algo", "set-nx-px-token", "--rounds", "1", "--faults", "crash,client-jump", "--max-delays", "0", "-o", filepath.Join(dir, "c.yaml")}
	code, plain, errOut := simrun(append(args, "--json", "--jumps", "run")...)
	if code != exitOK || strings.Contains(plain, "jumps") || strings.Contains(plain, "unrun") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, plain, errOut)
	}
	code, out, errOut := simrun(append(args, "--json")...)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var p, j map[string]any
	if err := json.Unmarshal([]byte(plain), &p); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	bounds := j["bounds"].(map[string]any)
	if j["jumps"] != "unread" || bounds["jumps"] != "unread" || j["unrun"] == nil || j["unrun"].(float64) <= 0 || j["explored"] != p["explored"] ||
		j["verdict"] != p["verdict"] || fmt.Sprint(j["inside"]) != fmt.Sprint(p["inside"]) {
		t.Errorf("--jumps unread: %s\nrun: %s", out, plain)
	}
	code, crashOnly, errOut := simrun("prove", "--algo", "set-nx-px-token", "--rounds", "1", "--faults", "crash", "--max-delays", "0", "-o", filepath.Join(dir, "d.yaml"))
	if code != exitOK || strings.Contains(crashOnly, "jumps ") {
		t.Errorf("crash only: exit %d, stdout %q, stderr %q", code, crashOnly, errOut)
	}
	code, text, errOut := simrun(args...)
	if code != exitOK || !strings.Contains(text, "jumps      unread: ") || !strings.Contains(text, "taken unrun") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, text, errOut)
	}
}
