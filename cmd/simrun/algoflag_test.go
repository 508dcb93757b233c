package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// explore --algo-file finds the example file's bug and writes a
// counterexample that records the file (relative to the counterexample's
// folder) and its sha256; 'simrun run FILE' alone replays that lock, with
// the same verdict, expect: holding; a changed or moved file is refused in
// one line, and --algo-file still runs the file as it is.
func TestExploreAlgoFile(t *testing.T) {
	tmp := t.TempDir()
	src, err := os.ReadFile("../../examples/setnx-getset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, "locks", "my-lock.yaml")
	dir := filepath.Join(tmp, "out")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := simrun("explore", "--search", "outside", "--algo-file", file, "--faults", "pause", "--verdict", "unsafe", "--out", dir)
	if code != exitViolation {
		t.Fatalf("exit %d, want %d (stderr %q)", code, exitViolation, errOut)
	}
	path := filepath.Join(dir, "counterexample.yaml")
	replay := "simrun run " + path
	if !strings.Contains(out, "explore    setnx-getset-file under pause") || !strings.Contains(out, "replay     "+replay+"\n") {
		t.Errorf("summary:\n%s\nwant the file's algorithm and the line %q", out, replay)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(src)
	for _, want := range []string{"algorithm_file:\n  path: ../locks/my-lock.yaml\n  sha256: " + hex.EncodeToString(sum[:]) + "\n",
		"Found by: simrun explore --algo-file " + file + " --faults pause --seed 1", "expect: unsafe\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("counterexample lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "algorithm:") || strings.Contains(string(data), "set-nx-px-token") {
		t.Errorf("counterexample names another lock:\n%s", data)
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.txt"))
	if !strings.Contains(string(report), replay+"\n") {
		t.Errorf("report.txt lacks %q", replay)
	}
	args := append(strings.Fields(replay)[1:], "--json", "--strict")
	code, out, errOut = simrun(args...)
	var j struct{ Verdict, Algorithm, Expect, Digest string }
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v: %v (stderr %q)", args, err, errOut)
	}
	if code != exitViolation || j.Verdict != "unsafe" || j.Algorithm != "setnx-getset-file" || j.Expect != "unsafe" || errOut != "" {
		t.Errorf("replay: exit %d, %+v, stderr %q", code, j, errOut)
	}
	// The same run as the file given explicitly.
	_, explicit, _ := simrun("run", path, "--algo-file", file, "--json")
	var e struct{ Digest string }
	if err := json.Unmarshal([]byte(explicit), &e); err != nil || e.Digest != j.Digest {
		t.Errorf("--algo-file gives digest %s (%v), the recorded file %s", e.Digest, err, j.Digest)
	}

	// Changed: one line saying so, exit 2; --algo-file runs it as it is.
	if err := os.WriteFile(file, append(src, "# edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	wantErr := "simrun run: " + path + ": algorithm_file: " + file + " changed since this counterexample was found"
	if code, out, errOut := simrun("run", path); code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 ||
		!strings.HasPrefix(errOut, wantErr) || !strings.Contains(errOut, "give --algo-file "+file) {
		t.Errorf("changed file: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", code, out, errOut, wantErr)
	}
	if code, _, errOut := simrun("run", path, "--algo-file", file, "--json"); code != exitViolation {
		t.Errorf("--algo-file over a changed file: exit %d (stderr %q)", code, errOut)
	}
	// Moved: one line, exit 2.
	if err := os.Rename(file, file+".moved"); err != nil {
		t.Fatal(err)
	}
	wantErr = "simrun run: " + path + ": algorithm_file: " + file + ": no such file (moved?): give the lock with --algo-file FILE"
	if code, out, errOut := simrun("run", path); code != exitUsage || out != "" || errOut != wantErr+"\n" {
		t.Errorf("moved file: exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errOut, wantErr)
	}
}

// Shards of an algorithm file's search merge into the counterexample one
// machine writes: the shard lines record the file as given, merge makes it
// relative to --out, replays it for the reports, and 'simrun run' alone
// replays the merged file.
func TestExploreAlgoFileShards(t *testing.T) {
	dir := t.TempDir()
	file := "../../examples/setnx-getset.yaml" // relative: merge relocates it
	args := []string{"explore", "--search", "outside", "--algo-file", file, "--faults", "pause", "--verdict", "unsafe", "--seed", "2"}
	if code, _, errOut := simrun(append(args, "--out", filepath.Join(dir, "whole"))...); code != exitViolation {
		t.Fatalf("explore: exit %d (stderr %q)", code, errOut)
	}
	var lines string
	for _, s := range []string{"0/2", "1/2"} {
		_, out, errOut := simrun(append(args, "--shard", s, "--out", filepath.Join(dir, s[:1]))...)
		if strings.Count(out, "\n") != 1 || !strings.Contains(out, `algorithm_file:\n  path: `+file) {
			t.Fatalf("shard %s: want one JSON line recording %s, got %q (stderr %q)", s, file, out, errOut)
		}
		lines += out
	}
	shards := filepath.Join(dir, "shards.jsonl")
	if err := os.WriteFile(shards, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(dir, "merged")
	if code, _, errOut := simrun("merge", "--out", merged, shards); code != exitViolation {
		t.Fatalf("merge: exit %d (stderr %q)", code, errOut)
	}
	x, _ := os.ReadFile(filepath.Join(dir, "whole", "counterexample.yaml"))
	y, _ := os.ReadFile(filepath.Join(merged, "counterexample.yaml"))
	if len(x) == 0 || string(x) != string(y) || !strings.Contains(string(y), "algorithm_file:") {
		t.Errorf("merged counterexample differs:\n%s\n---\n%s", x, y)
	}
	if report, _ := os.ReadFile(filepath.Join(merged, "report.txt")); !strings.Contains(string(report), "setnx-getset-file") {
		t.Errorf("merged report.txt:\n%s", report)
	}
	if code, out, errOut := simrun("run", filepath.Join(merged, "counterexample.yaml"), "--strict"); code != exitViolation || !strings.Contains(out, "UNSAFE (as expected)") {
		t.Errorf("replaying the merged file: exit %d, stderr %q\n%s", code, errOut, out)
	}
	// Without --out, the YAML on stdout names the file as the shards did:
	// relative to this folder.
	if _, out, _ := simrun("merge", shards); !strings.Contains(out, "algorithm_file:\n  path: "+file+"\n") {
		t.Errorf("merge to stdout:\n%s", out)
	}
}

// A scenario whose lock simrun cannot build, or that names none, says
// what to give in one line, exit 2; --algo runs its fault plan.
func TestRunWithoutOwnLock(t *testing.T) {
	dir := t.TempDir()
	body := "name: x\nseed: 1\nduration: 1s\nclients: [{name: c1, iterations: 1}]\n"
	for _, c := range []struct {
		lock, want string
	}{
		{"go_lock: TestMyLock\n", `: go_lock: TestMyLock: simtest found this for a Go lock, which only Go can build: replay it in that test with simtest.Replay(t, newLocker, "`},
		{"", " names no lock (no algorithm, algorithm_file or go_lock): give --algo NAME (see 'simrun list') or --algo-file FILE"},
	} {
		path := filepath.Join(dir, "x.yaml")
		if err := os.WriteFile(path, []byte(c.lock+body), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, extra := range [][]string{nil, {"--redis", "127.0.0.1:1"}} { // refused before any connection
			code, out, errOut := simrun(append([]string{"run", path}, extra...)...)
			if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "simrun run: "+path+c.want) {
				t.Errorf("%q %v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.lock, extra, code, out, errOut, c.want)
			}
		}
		if code, _, errOut := simrun("run", path, "--algo", "set-nx-px-token"); code != exitOK {
			t.Errorf("%q --algo: exit %d (stderr %q)", c.lock, code, errOut)
		}
	}
}

// A scenario naming someone's file as its algorithm_file learns nothing of
// its content: without the right sha256 the error is "changed", whatever
// the file holds.
func TestRecordedFileEchoesNothing(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("password: hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "x.yaml")
	src := "name: x\nalgorithm_file: {path: secret.txt, sha256: " + strings.Repeat("0", 64) + "}\nclients: [{name: c1}]\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := simrun("run", path)
	if code != exitUsage || out != "" || !strings.Contains(errOut, "changed since this counterexample was found") ||
		strings.Contains(errOut, "hunter2") || strings.Contains(errOut, "password") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// Bad input: one line on stderr, exit 2.
func TestExploreAlgoFileErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--algo", "redlock", "--algo-file", "x.yaml"},
			"simrun explore: --algo and --algo-file are mutually exclusive: give one"},
		{[]string{"explore"}, "simrun explore: --algo: required"},
		{[]string{"explore", "--algo-file", "nope.yaml"}, "simrun explore: algorithm file nope.yaml: no such file or directory"},
		{[]string{"explore", "--algo-file", "../../examples/php-eval.yaml", "--faults", "gc"}, "simrun explore: --faults:"},
	} {
		code, out, errOut := simrun(c.args...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", c.args, code, out, errOut, c.want)
		}
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"examples/php-eval.yaml": "examples/php-eval.yaml",
		"my lock.yaml":           "'my lock.yaml'",
		"it's.yaml":              `'it'\''s.yaml'`,
		"":                       "''",
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
