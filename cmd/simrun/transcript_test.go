package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/internal/golden"
	"github.com/locksim/locksim/scenarios"
)

// Golden transcripts, datadriven in the manner of etcd raft's interaction
// tests: each file in testdata/transcripts holds one simrun command line, a
// "----" line, and what the command printed (stdout, then each stderr line
// prefixed "stderr: ", then its exit status). The test replays the command
// and compares; -update rewrites the output part from the command. So an
// engine or renderer change is reviewed as a diff of these files.
//
// The output is written to a buffer, never a terminal, so trace lines are not
// wrapped and colour is off: the transcripts do not depend on the terminal
// running the tests.
const transcriptDir = "testdata/transcripts"

// Every built-in scenario has its --trace transcript, and no transcript is
// left over from a scenario that is gone.
func TestTranscriptsCoverBuiltins(t *testing.T) {
	var want []string
	for _, n := range scenarios.Names() {
		want = append(want, n+".txt")
	}
	if golden.Update() {
		for _, f := range want {
			path := filepath.Join(transcriptDir, f)
			if _, err := os.Stat(path); os.IsNotExist(err) {
				name := strings.TrimSuffix(f, ".txt")
				if err := os.WriteFile(path, []byte("run "+name+" --trace\n----\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	got, err := transcriptFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range want {
		if !slices.Contains(got, f) {
			t.Errorf("%s/%s is missing (go test ./cmd/simrun -run Transcript -update creates it)", transcriptDir, f)
		}
	}
	for _, f := range got {
		if !slices.Contains(want, f) {
			t.Errorf("%s/%s names no built-in scenario: remove it", transcriptDir, f)
		}
	}
}

func TestTranscripts(t *testing.T) {
	if golden.Update() {
		// Create the files for new built-ins first, so they are filled below.
		TestTranscriptsCoverBuiltins(t)
	}
	files, err := transcriptFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(f, ".txt"), func(t *testing.T) {
			path := filepath.Join(transcriptDir, f)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cmd, _, ok := strings.Cut(string(data), "\n----\n")
			if !ok {
				t.Fatalf("%s: want a command line, a ---- line, then the output", path)
			}
			// The file is its command and what the command printed:
			// compared, or rewritten under -update, whole.
			golden.Check(t, path, []byte(cmd+"\n----\n"+transcript(strings.Fields(cmd))))
		})
	}
}

// transcript runs simrun with args and writes down everything it said.
func transcript(args []string) string {
	code, out, errOut := simrun(args...)
	var b strings.Builder
	b.WriteString(out)
	for _, l := range strings.SplitAfter(errOut, "\n") {
		if l != "" {
			b.WriteString("stderr: " + l)
		}
	}
	fmt.Fprintf(&b, "exit %d\n", code)
	return b.String()
}

// transcriptFiles lists testdata/transcripts/*.txt by name, sorted.
func transcriptFiles() ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(transcriptDir, "*.txt"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	slices.Sort(names)
	return names, nil
}
