package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/locksim/locksim/internal/racedetect"
	"github.com/locksim/locksim/internal/searchtest"
)

// TestMain removes the binary builtSimrun made, once every test is done;
// started as a go-between (peakrss_test.go), it is only that. The tests
// run their searches in process with the collector as simrun runs them
// (internal/searchtest).
func TestMain(m *testing.M) {
	if peakFile := os.Getenv(peakRSSEnv); peakFile != "" {
		os.Exit(goBetween(peakFile, os.Args[1:]))
	}
	searchtest.Start()
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// builtSimrun builds the simrun binary once for the whole package and
// returns its path: the tests that need a real process (signals, rusage,
// GOMAXPROCS, memory limits) share one build instead of each paying for
// its own. It skips under -short, where no test builds.
func builtSimrun(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "simrun-test")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "simrun")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// skipUnderRace skips a test of the command line whose searches the race
// detector would make too big for one test binary (their concurrency is
// raced in the package that runs it, named by why), saying so; the plain
// `go test ./cmd/simrun` runs it.
func skipUnderRace(t *testing.T, why string) {
	t.Helper()
	if racedetect.Enabled {
		t.Skip("under -race: " + why + "; go test ./cmd/simrun runs it")
	}
}

func simrun(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRunExitCodes(t *testing.T) {
	cases := []struct {
		args    []string
		code    int
		verdict string
	}{
		{[]string{"run", "del-race", "--json"}, exitViolation, "unsafe"},
		{[]string{"run", "--json", "del-race", "--algo", "set-nx-px-token"}, exitOK, "safe"},
		{[]string{"run", "del-race", "--algo", "setnx-getset", "--json"}, exitOK, "safe"},
	}
	for _, c := range cases {
		code, out, errOut := simrun(c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, errOut)
		}
		var j map[string]any
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("%v: not JSON: %v\n%s", c.args, err, out)
		}
		if j["verdict"] != c.verdict {
			t.Errorf("%v: verdict %v, want %s", c.args, j["verdict"], c.verdict)
		}
	}
}

// The JSON fields scripts read are a contract.
func TestRunJSONFields(t *testing.T) {
	_, out, _ := simrun("run", "del-race", "--json")
	var j struct {
		Scenario, Algorithm, Verdict, Digest string
		Seed                                 *uint64
		Violations                           []struct {
			Kind      string
			Processes []string
			From, To  string
			Detail    string
		}
		Stats map[string]float64
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.Scenario != "del-race" || j.Algorithm != "setnx-del-recover" || j.Seed == nil || len(j.Digest) != 64 {
		t.Fatalf("identity fields: %+v", j)
	}
	overlap := false
	for _, v := range j.Violations {
		if v.Kind == "overlap" && strings.Join(v.Processes, ",") == "c1,c2" &&
			strings.HasPrefix(v.From, "2026-01-01T00:00:05.") && strings.HasSuffix(v.To, "Z") {
			overlap = true
		}
	}
	if !overlap {
		t.Fatalf("want an overlap of c1 and c2 with RFC 3339 times: %+v", j.Violations)
	}
	for _, k := range []string{"acquired", "failed", "commands", "sim_seconds"} {
		if _, ok := j.Stats[k]; !ok {
			t.Errorf("stats.%s missing: %v", k, j.Stats)
		}
	}
}

func TestTextNamesBothHolders(t *testing.T) {
	code, out, _ := simrun("run", "del-race")
	if code != exitViolation || !strings.Contains(out, "UNSAFE") || !strings.Contains(out, "c1, c2") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// Bad input: one line on stderr naming the problem and the valid names, exit 2.
func TestBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "no-such-scenario"}, "del-race, "},
		{[]string{"run", "del-race", "--algo", "no-such-lock"}, "valid: setnx-del,"},
		{[]string{"run"}, "want one scenario"},
		{[]string{"run", "del-race", "--bogus"}, "unknown flag --bogus (valid: --algo,"},
		{[]string{"run", "missing.yaml"}, "missing.yaml"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"show", "nope"}, "unknown scenario"},
		{[]string{"list", "extra"}, "takes no arguments"},
	}
	for _, c := range cases {
		code, out, errOut := simrun(c.args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if out != "" || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: stderr %q (stdout %q), want one line containing %q", c.args, errOut, out, c.want)
		}
	}
}

func TestShowThenRunGivesTheSameDigest(t *testing.T) {
	code, yaml, _ := simrun("show", "del-race")
	if code != exitOK {
		t.Fatal("show failed")
	}
	file := filepath.Join(t.TempDir(), "del-race.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	_, byName, _ := simrun("run", "del-race", "--json")
	_, byFile, _ := simrun("run", file, "--json")
	if digest(t, byName) != digest(t, byFile) {
		t.Fatalf("show → file → run changed the digest")
	}
}

func TestListJSON(t *testing.T) {
	_, out, _ := simrun("list", "--json")
	var l listJSON
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Algorithms) != 15 || len(l.Scenarios) == 0 || len(l.Faults) != 8 {
		t.Fatalf("list: %d algorithms, %d scenarios, %d fault classes", len(l.Algorithms), len(l.Scenarios), len(l.Faults))
	}
	// list and prove --help name the same classes, the one vocabulary: the
	// help names each class list says prove takes among those it takes, and
	// each it refuses among those it refuses; a word means one thing (skew
	// is explore's drift only, so prove refuses it).
	_, help, _ := simrun("prove", "--help")
	help = strings.Join(strings.Fields(help), " ")
	_, faultsHelp, _ := strings.Cut(help, "--faults VALUE ")
	takes, refuses, ok := strings.Cut(faultsHelp, "; not ")
	refuses, _, _ = strings.Cut(refuses, "(see simrun list)")
	if !ok || len(l.Classes) == 0 {
		t.Fatalf("prove --help's --faults has no '; not ' list, or list no vocabulary:\n%s", help)
	}
	words := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" ,():", r) })
	}
	var listTakes, listRefuses []string
	for _, c := range l.Classes {
		if c.Prove {
			listTakes = append(listTakes, c.Name)
		} else {
			listRefuses = append(listRefuses, c.Name)
		}
		if c.Explore != slices.Contains(l.Faults, c.Name) {
			t.Errorf("list: %s explore %v, but fault_classes %v", c.Name, c.Explore, l.Faults)
		}
	}
	helpTakes := words(strings.TrimPrefix(takes, "fault classes, comma-separated, or all"))
	slices.Sort(listTakes)
	slices.Sort(helpTakes)
	if !slices.Equal(helpTakes, listTakes) || !slices.Equal(words(refuses), listRefuses) {
		t.Errorf("prove --help takes %v, refuses %v; list says %v, %v", helpTakes, words(refuses), listTakes, listRefuses)
	}
	if !slices.Contains(listRefuses, "skew") || slices.Contains(l.ProveFaults, "skew") {
		t.Errorf("prove takes skew, explore's clock drift: %v", l.ProveFaults)
	}
	_, text, _ := simrun("list")
	for _, c := range l.Classes {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c.Name) + ` `).MatchString(text) {
			t.Errorf("list's text has no row for the class %s:\n%s", c.Name, text)
		}
	}
	for _, a := range l.Algorithms {
		if a.Name == "" || a.Source == "" || a.Summary == "" {
			t.Errorf("incomplete algorithm entry %+v", a)
		}
		cited := a.Source == "reference"
		for _, d := range l.Documents {
			cited = cited || d.ID == a.Source
		}
		if !cited {
			t.Errorf("%s cites %q, which is not in documents", a.Name, a.Source)
		}
	}
}

// Two separate processes with different GOMAXPROCS give the same digest:
// nothing in a run depends on the host.
func TestDigestAcrossProcesses(t *testing.T) {
	bin := builtSimrun(t)
	var digests []string
	for _, procs := range []string{"1", "2"} {
		cmd := exec.Command(bin, "run", "del-race", "--json")
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs)
		out, _ := cmd.Output() // exit 1: unsafe
		digests = append(digests, digest(t, string(out)))
	}
	if digests[0] != digests[1] {
		t.Fatalf("digests differ across processes: %v", digests)
	}
}

func digest(t *testing.T, out string) string {
	t.Helper()
	var j struct{ Digest string }
	if err := json.Unmarshal([]byte(out), &j); err != nil || j.Digest == "" {
		t.Fatalf("no digest in %q: %v", out, err)
	}
	return j.Digest
}
