package main

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileCeiling is the most resident memory simrun may reach on any input
// below: the scripts' memory budget (64 MiB) and the Go runtime's slack fit
// under it many times over the terabytes the bombs ask for.
const hostileCeiling = 300 << 20

// TestHostileInputs feeds simrun what a careless or hostile user can: YAML
// alias bombs, huge counts, scripts that build gigabytes, scripts that reach
// for files or os, a script erroring inside redis.pcall, a 100 MB file,
// binary junk, a FIFO, a device. Each ends in well under a second of CPU, under a
// fixed ceiling of resident memory (read from the child's rusage), with the
// outcome it should have: exit 2 and one line naming the file (and the field
// where there is one), or a client-error finding and exit 1.
func TestHostileInputs(t *testing.T) {
	bin := builtSimrun(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	algo := func(name, script string) string {
		return write(name, "name: hostile\nkey: k\nttl: 30s\nacquire:\n  script: |\n    "+
			strings.ReplaceAll(script, "\n", "\n    ")+"\n  success: ok\nrelease:\n  command: [DEL, \"{key}\"]\n")
	}
	// Billion laughs: nine levels of nine aliases each.
	var bomb strings.Builder
	bomb.WriteString("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		p := "*a" + string(rune('0'+i-1))
		bomb.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [" + strings.Repeat(p+", ", 8) + p + "]\n")
	}
	aliasScenario := write("alias.yaml", bomb.String()+"name: x\nalgorithm: set-nx-px-token\nclients: *a9\n")
	aliasAlgo := write("alias-algo.yaml", bomb.String()+"name: x\nkey: k\nttl: 30s\nacquire: *a9\n")
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 100<<20); err != nil { // 100 MB, sparse: nothing to write
		t.Fatal(err)
	}
	junk := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range junk {
		junk[i] = byte(r.Uint32())
	}
	junkFile := write("junk.yaml", string(junk))
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	scriptFifo := filepath.Join(dir, "fifo.lua")
	if err := syscall.Mkfifo(scriptFifo, 0o644); err != nil {
		t.Fatal(err)
	}
	fifoScript := write("fifo-script.yaml", "name: x\nkey: k\nttl: 30s\nacquire:\n  script_file: fifo.lua\n  success: ok\nrelease:\n  command: [DEL, \"{key}\"]\n")
	clients := "clients:\n  - {name: c1, iterations: 1}\n"

	cases := []struct {
		name string
		args []string
		code int
		want []string // substrings of stderr (exit 2: its only line) or stdout
	}{
		{"scenario alias bomb", []string{"run", aliasScenario}, exitUsage, []string{"simrun run: " + aliasScenario + ": "}},
		{"algorithm alias bomb", []string{"run", "token-pause", "--algo-file", aliasAlgo}, exitUsage, []string{aliasAlgo + ": "}},
		{"huge iterations", []string{"run", write("iter.yaml", "name: x\nalgorithm: set-nx-px-token\nclients:\n  - {name: c1, iterations: 1000000000000000000}\n")},
			exitUsage, []string{"iter.yaml: clients[0].iterations: must be within 0..1000000"}},
		{"huge max_events", []string{"run", write("events.yaml", "name: x\nalgorithm: set-nx-px-token\nmax_events: 99999999999\n"+clients)},
			exitUsage, []string{"events.yaml: max_events: must be within 0..1000000"}},
		{"huge duration", []string{"run", write("dur.yaml", "name: x\nalgorithm: set-nx-px-token\nduration: 100000h\n"+clients)},
			exitUsage, []string{"dur.yaml: duration: must be more than 0s and at most 24h0m0s"}},
		{"huge count overflowing", []string{"run", write("over.yaml", "name: x\nalgorithm: set-nx-px-token\nseed: 99999999999999999999999\n"+clients)},
			exitUsage, []string{"over.yaml: "}},
		{"doubling bomb", []string{"run", "token-pause", "--algo-file", algo("doubling.yaml", "local s = 'x' for i=1,40 do s = s .. s end return 1")},
			exitViolation, []string{"CLIENT-ERROR", "memory", "budget of 67108864 bytes"}},
		{"string.rep bomb", []string{"run", "token-pause", "--algo-file", algo("rep.yaml", "return string.rep('x', 2^31)")},
			exitViolation, []string{"CLIENT-ERROR", "string.rep would make 2147483648 bytes"}},
		{"table bomb", []string{"run", "token-pause", "--algo-file", algo("table.yaml", "local t = {} for i=1,1e12 do t[i] = {i} end return 1")},
			exitViolation, []string{"CLIENT-ERROR", "budget of 1000000 Lua"}},
		{"reads a file", []string{"run", "token-pause", "--algo-file", algo("io.yaml", "local f = io.open('/etc/passwd') return f:read('*a')")},
			exitViolation, []string{"CLIENT-ERROR", "nonexistent global variable 'io'"}},
		{"dofile", []string{"run", "token-pause", "--algo-file", algo("dofile.yaml", "return dofile('/etc/passwd')")},
			exitViolation, []string{"CLIENT-ERROR", "nonexistent global variable 'dofile'"}},
		{"calls os", []string{"run", "token-pause", "--algo-file", algo("os.yaml", "os.execute('touch /tmp/locksim-pwned') return 1")},
			exitViolation, []string{"CLIENT-ERROR", "nonexistent global variable 'os'"}},
		{"error inside redis.pcall", []string{"run", "token-pause", "--algo-file", algo("pcall.yaml", "return redis.pcall('EVAL', 'return 1', 0)")},
			exitViolation, []string{"CLIENT-ERROR", "not allowed from script"}},
		{"error raised after redis.pcall", []string{"run", "token-pause", "--algo-file", algo("pcall2.yaml", "local r = redis.pcall('INCR', 'k', 'x') error(r.err)")},
			exitViolation, []string{"CLIENT-ERROR", "ERR Wrong number of"}},
		{"100 MB scenario", []string{"run", big}, exitUsage, []string{"simrun run: scenario " + big + ": 104857600 bytes, more than the 1048576 allowed"}},
		{"100 MB algorithm file", []string{"run", "token-pause", "--algo-file", big}, exitUsage, []string{"algorithm file " + big + ": 104857600 bytes, more than"}},
		{"binary junk scenario", []string{"run", junkFile}, exitUsage, []string{"simrun run: " + junkFile + ": "}},
		{"binary junk algorithm file", []string{"run", "token-pause", "--algo-file", junkFile}, exitUsage, []string{junkFile + ": "}},
		{"FIFO scenario", []string{"run", fifo}, exitUsage, []string{"scenario " + fifo + ": not a regular file (a named pipe)"}},
		{"FIFO algorithm file", []string{"run", "token-pause", "--algo-file", fifo}, exitUsage, []string{"algorithm file " + fifo + ": not a regular file (a named pipe)"}},
		{"FIFO script_file", []string{"run", "token-pause", "--algo-file", fifoScript}, exitUsage, []string{fifoScript + ": acquire.script_file: fifo.lua: not a regular file (a named pipe)"}},
		{"device scenario", []string{"run", "/dev/zero"}, exitUsage, []string{"scenario /dev/zero: not a regular file (a device)"}},
		{"script_file escaping", []string{"run", "token-pause", "--algo-file", write("escape.yaml", "name: x\nkey: k\nttl: 30s\nacquire:\n  script_file: ../../etc/passwd\n  success: ok\nrelease:\n  command: [DEL, \"{key}\"]\n")},
			exitUsage, []string{"escape.yaml: acquire.script_file: \"../../etc/passwd\": leaves the algorithm file's folder"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			cmd, peak := measured(t, bin, c.args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			took := time.Since(start)
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.code {
				t.Errorf("exit %d, want %d\nstderr %q\nstdout %.300q", code, c.code, stderr.String(), stdout.String())
			}
			text := stdout.String()
			if c.code == exitUsage {
				text = stderr.String()
				if strings.Count(text, "\n") != 1 || stdout.Len() != 0 {
					t.Errorf("want one line on stderr and nothing on stdout, got %q and %.200q", text, stdout.String())
				}
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%.600s", w, text)
				}
			}
			// CPU time, not wall time: go test ./... runs packages side by
			// side on a shared machine, and a wall clock would measure them.
			// The wall clock only guards against a hang (a FIFO opened).
			cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			t.Logf("%s CPU, %s wall, exit %d: %.160q", cpu.Round(time.Millisecond), took.Round(time.Millisecond), code, strings.TrimSpace(stderr.String()))
			if cpu > time.Second || took > 20*time.Second {
				t.Errorf("took %s CPU, %s wall; want well under a second", cpu, took)
			}
			if p := peak(); p > hostileCeiling {
				t.Errorf("peak resident memory %d MiB, over the %d MiB ceiling", p>>20, hostileCeiling>>20)
			}
		})
	}
	if _, err := os.Stat("/tmp/locksim-pwned"); err == nil {
		t.Errorf("a script reached the host")
	}
}

// explore with a memory-bomb algorithm file finds the client-error, stays
// under a ceiling while it runs and shrinks the bomb again and again, and
// exits 1. The ceiling is simrun's own soft memory limit (why: below).
func TestExploreMemoryBomb(t *testing.T) {
	bin := builtSimrun(t)
	dir := t.TempDir()
	algo := filepath.Join(dir, "bomb.yaml")
	body := "name: bomb\nkey: k\nttl: 30s\nacquire:\n  script: \"local s = 'x' for i=1,40 do s = s .. s end return 1\"\n" +
		"  success: ok\nrelease:\n  command: [DEL, \"{key}\"]\n"
	if err := os.WriteFile(algo, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, peak := measured(t, bin, "explore", "--algo-file", algo, "--runs", "20", "--shrink-tries", "20", "--workers", "2",
		"--out", filepath.Join(dir, "out"), "--json")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitViolation {
		t.Fatalf("exit %v, want %d\n%s", err, exitViolation, out)
	}
	var j struct {
		Found          bool
		Counterexample string
	}
	if err := json.Unmarshal(out, &j); err != nil || !j.Found {
		t.Fatalf("%v: %s", err, out)
	}
	ce, err := os.ReadFile(j.Counterexample)
	if err != nil || !strings.Contains(string(ce), "client-error") {
		t.Errorf("counterexample %s: %v\n%s", j.Counterexample, err, ce)
	}
	// Two workers each hold at most one script's budget (64 MiB, plus the
	// string it doubled from) live; the collector lets the heap grow to
	// about twice what is live before it runs, so peaks of 270-410 MiB were
	// seen here. The ceiling is the soft memory limit simrun sets itself
	// (memlimit.go): past it, the memory would not be bounded by design.
	const ceiling = softMemoryLimit
	p := peak()
	t.Logf("peak resident memory %d MiB", p>>20)
	if p > ceiling {
		t.Errorf("peak resident memory %d MiB, over the %d MiB ceiling", p>>20, ceiling>>20)
	}
}
