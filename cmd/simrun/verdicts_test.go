package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios"
)

// withoutTiming drops the JSON fields that depend on the machine.
func withoutTiming(t *testing.T, out string) string {
	t.Helper()
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"runs_per_sec", "seconds_to_first", "shrink_seconds", "executed", "workers"} {
		delete(j, k)
	}
	b, _ := json.MarshalIndent(j, "", "  ")
	return string(b)
}

// explore goes on past a client-error to the unsafe run, names every
// verdict met in the JSON, and the JSON is the same with 1 and 2 workers.
// These python-setnx searches draw their TTLs (--draw-ttl): run 0 is then a
// client-error and run 5 the first unsafe one (with its own 3 s TTL, run 1
// is unsafe and nothing comes before it).
func TestExploreEveryVerdictJSON(t *testing.T) {
	var want string
	for _, w := range []string{"1", "2"} {
		dir := t.TempDir()
		code, out, errOut := simrun("explore", "--search", "outside", "--algo", "python-setnx", "--faults", "skew", "--draw-ttl", "--json", "--workers", w,
			"--shrink-tries", "300", "--out", dir)
		if code != exitViolation {
			t.Fatalf("exit %d (stderr %q)", code, errOut)
		}
		got := strings.ReplaceAll(withoutTiming(t, out), dir, "DIR")
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("--workers 2:\n%s\n--workers 1:\n%s", got, want)
		}
	}
	var j struct {
		Verdict   string
		StoppedAt *int `json:"stopped_at"`
		Runs      int
		Verdicts  map[string]struct {
			FirstRun       int     `json:"first_run"`
			Counterexample *string `json:"counterexample"`
		}
	}
	if err := json.Unmarshal([]byte(want), &j); err != nil {
		t.Fatal(err)
	}
	ue, ce := j.Verdicts["unsafe"], j.Verdicts["client-error"]
	if j.Verdict != "unsafe" || j.StoppedAt == nil || *j.StoppedAt != 5 || j.Runs != 6 || ue.FirstRun != 5 ||
		ue.Counterexample == nil || *ue.Counterexample != "DIR/counterexample.yaml" || ce.FirstRun != 0 || ce.Counterexample != nil {
		t.Errorf("want unsafe at run 5 (6 runs, its file) and client-error at run 0 (not shrunk):\n%s", want)
	}
}

// The summary numbers runs from 0 and counts as counts; --shrink all writes
// a counterexample per verdict; --verdict still stops at its kind.
func TestExploreSummaryAndShrinkAll(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := simrun("explore", "--search", "outside", "--algo", "python-setnx", "--faults", "skew", "--draw-ttl", "--shrink", "all",
		"--shrink-tries", "300", "--out", dir)
	if code != exitViolation {
		t.Fatalf("exit %d (stderr %q)", code, errOut)
	}
	for _, s := range []string{"runs       6 of 10000 (run 0 to run 5)", "found      UNSAFE at run 5",
		"also met   client-error at run 0: simrun run " + filepath.Join(dir, "counterexample-client-error.yaml")} {
		if !strings.Contains(out, s) {
			t.Errorf("no %q in\n%s", s, out)
		}
	}
	code, out, _ = simrun("run", filepath.Join(dir, "counterexample-client-error.yaml"), "--json")
	if code != exitViolation || !strings.Contains(out, `"verdict": "client-error"`) {
		t.Errorf("the client-error counterexample replays: exit %d\n%.300s", code, out)
	}
	code, out, _ = simrun("explore", "--search", "outside", "--algo", "python-setnx", "--faults", "skew", "--draw-ttl", "--verdict", "client-error",
		"--shrink-tries", "100", "--out", t.TempDir())
	if code != exitViolation || !strings.Contains(out, "runs       1 of 10000 (run 0 to run 0)") ||
		!strings.Contains(out, "found      CLIENT-ERROR at run 0") || strings.Contains(out, "UNSAFE") {
		t.Errorf("--verdict client-error: exit %d\n%s", code, out)
	}
	if code, _, errOut := simrun("explore", "--algo", "redlock", "--shrink", "some"); code != exitUsage ||
		strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "--shrink:") {
		t.Errorf("--shrink some: exit %d, %q", code, errOut)
	}
}

// Merged shards exit as one machine does: a search that found nothing but
// met runs cut at a cap is incomplete, exit 3, not a pass.
func TestMergeIncomplete(t *testing.T) {
	// Run 18 is the first cut (at its duration: a 30 s lock whose every
	// WAIT times out is taken and given up for ever).
	args := []string{"explore", "--search", "outside", "--algo", "set-nx-px-wait", "--faults", "net", "--runs", "20"}
	code, _, errOut := simrun(args...)
	if code != exitIncomplete {
		t.Fatalf("one machine: exit %d, want %d (stderr %q)", code, exitIncomplete, errOut)
	}
	var lines string
	for _, s := range []string{"0/2", "1/2"} {
		_, out, _ := simrun(append(args, "--shard", s)...)
		lines += out
	}
	mergeStdin = strings.NewReader(lines)
	code, _, errOut = simrun("merge")
	mergeStdin = os.Stdin
	if code != exitIncomplete || !strings.Contains(errOut, "verdict    INCOMPLETE, not safe") {
		t.Errorf("merge: exit %d, want %d; stderr %q", code, exitIncomplete, errOut)
	}
}

// merge without --out: the YAML alone on stdout (a valid scenario file),
// the summary on stderr claiming no file; --json names no path.
func TestMergeStreams(t *testing.T) {
	args := []string{"explore", "--search", "outside", "--algo", "setnx-getset", "--faults", "pause", "--seed", "2", "--shrink-tries", "300"}
	var lines string
	for _, s := range []string{"0/2", "1/2"} {
		_, out, errOut := simrun(append(args, "--shard", s, "--out", t.TempDir())...)
		if !strings.Contains(out, `"counterexample":"`) {
			t.Fatalf("shard %s names no counterexample: %q (stderr %q)", s, out, errOut)
		}
		lines += out
	}
	mergeStdin = strings.NewReader(lines)
	code, out, errOut := simrun("merge")
	mergeStdin = os.Stdin
	if code != exitViolation {
		t.Fatalf("exit %d (stderr %q)", code, errOut)
	}
	if _, err := scenarios.Parse("stdout", []byte(out)); err != nil {
		t.Errorf("stdout is not a scenario file: %v\n%s", err, out)
	}
	if strings.Contains(errOut, "wrote") || strings.Contains(errOut, "replay") || !strings.Contains(errOut, "found      UNSAFE") ||
		!strings.Contains(errOut, "YAML on stdout") {
		t.Errorf("stderr:\n%s", errOut)
	}
	mergeStdin = strings.NewReader(lines)
	code, out, _ = simrun("merge", "--json")
	mergeStdin = os.Stdin
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != exitViolation {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	if j["counterexample"] != nil || strings.Contains(out, "counterexample.yaml") {
		t.Errorf("--json names a path merge did not write:\n%s", out)
	}
}

// interrupt runs bin with args, sends it SIGINT after 2 s, and returns its
// stdout, stderr and exit code; it fails the test if the command does not
// stop within 30 s of the signal.
func interrupt(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("%s did not stop within 30 s of SIGINT", args[0])
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// Ctrl-C during explore prints the summary of the runs so far and exits 130.
func TestExploreInterrupt(t *testing.T) {
	bin := builtSimrun(t)
	// php-eval under net is never unsafe (stale at run 7, client-error at
	// run 0): the search runs until it is stopped.
	s, errOut, code := interrupt(t, bin, "explore", "--search", "outside", "--algo", "php-eval", "--faults", "net", "--runs", "100000000",
		"--out", t.TempDir())
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d (stderr %q)", code, exitInterrupted, errOut)
	}
	if !strings.Contains(s, "stopped    interrupted (Ctrl-C)") || !strings.Contains(s, "found      STALE at run 7") ||
		!strings.Contains(s, "also met   client-error at run 0\n") || strings.Contains(s, "wrote") ||
		!strings.Contains(s, "of 100000000 (run 0 to run ") || errOut != "" {
		t.Errorf("stdout:\n%s\nstderr:\n%s", s, errOut)
	}

	// matrix: a part of a matrix is no matrix; nothing is written.
	file := filepath.Join(t.TempDir(), "m.md")
	_, errOut, code = interrupt(t, bin, "matrix", "--algo", "php-eval", "--runs", "100000000", "-o", file)
	if code != exitInterrupted || errOut != "simrun matrix: interrupted: nothing written\n" {
		t.Errorf("matrix: exit %d, want %d; stderr %q", code, exitInterrupted, errOut)
	}
	if _, err := os.Stat(file); err == nil {
		t.Errorf("an interrupted matrix wrote %s", file)
	}
}

// Shards run with --shrink all: merge --out writes every verdict's
// counterexample and its JSON names exactly those files.
func TestMergeShrinkAll(t *testing.T) {
	dir := t.TempDir()
	args := []string{"explore", "--search", "outside", "--algo", "python-setnx", "--faults", "skew", "--draw-ttl", "--runs", "40", "--shrink", "all", "--shrink-tries", "200"}
	var lines string
	for _, s := range []string{"0/2", "1/2"} {
		_, out, _ := simrun(append(args, "--shard", s, "--out", filepath.Join(dir, s[:1]))...)
		lines += out
	}
	file := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(dir, "merged")
	code, out, errOut := simrun("merge", "--json", "--out", merged, file)
	if code != exitViolation {
		t.Fatalf("exit %d (stderr %q)", code, errOut)
	}
	var j struct {
		Verdict  string
		Verdicts map[string]struct {
			FirstRun       int     `json:"first_run"`
			Counterexample *string `json:"counterexample"`
		}
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	u, c := j.Verdicts["unsafe"], j.Verdicts["client-error"]
	if j.Verdict != "unsafe" || u.FirstRun != 5 || c.FirstRun != 0 || u.Counterexample == nil || c.Counterexample == nil ||
		*u.Counterexample != filepath.Join(merged, "counterexample.yaml") || *c.Counterexample != filepath.Join(merged, "counterexample-client-error.yaml") {
		t.Fatalf("merged:\n%s", out)
	}
	code, run, _ := simrun("run", *c.Counterexample, "--json")
	if code != exitViolation || !strings.Contains(run, `"verdict": "client-error"`) {
		t.Errorf("the merged client-error counterexample replays: exit %d\n%.300s", code, run)
	}
}
