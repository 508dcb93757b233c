package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// cmdMerge combines the JSON lines of 'explore --shard i/n' runs into the
// result one machine would have reported: the lowest failing run wins.
func cmdMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object")
	out := fs.String("out", "", "write the winning counterexample.yaml and its reports to `DIR`")
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	var lines []explore.Report
	if len(pos) == 0 {
		pos = []string{"-"}
	}
	for _, name := range pos {
		var rd io.Reader = os.Stdin
		if name != "-" {
			f, err := os.Open(name)
			if err != nil {
				return fail(stderr, "merge", err)
			}
			defer f.Close()
			rd = f
		} else {
			name = "stdin"
		}
		got, err := explore.ReadReports(name, rd)
		if err != nil {
			return fail(stderr, "merge", err)
		}
		lines = append(lines, got...)
	}
	r, err := explore.Merge(lines)
	if err != nil {
		return fail(stderr, "merge", err)
	}
	if *out != "" && r.ScenarioYAML != "" {
		path, err := writeMergedArtifacts(*out, r)
		if err != nil {
			return fail(stderr, "merge", err)
		}
		r.Counterexample = &path
	}
	yaml := r.ScenarioYAML
	r.ScenarioYAML = "" // in the files, not in the result
	if *asJSON {
		err = writeExploreJSON(stdout, r)
	} else {
		err = writeExploreSummary(stdout, r, *out)
		if err == nil && r.Found && *out == "" && yaml != "" {
			_, err = fmt.Fprintf(stdout, "\n%s", yaml)
		}
	}
	if err != nil {
		return fail(stderr, "merge", err)
	}
	if r.Found {
		return exitViolation
	}
	return exitOK
}

// writeMergedArtifacts writes the winning shard's counterexample and replays it for
// the reports: the run is deterministic, so they are the shard's.
func writeMergedArtifacts(dir string, r explore.Report) (string, error) {
	s, err := scenarios.Parse("the winning shard's counterexample", []byte(r.ScenarioYAML))
	if err != nil {
		return "", err
	}
	o, err := s.Execute("", model.Options{})
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "counterexample.yaml")
	if err := os.WriteFile(path, []byte(r.ScenarioYAML), 0o644); err != nil {
		return "", err
	}
	r.Counterexample = &path
	if err := writeExploreReports(dir, o, r); err != nil {
		return "", err
	}
	return path, nil
}
