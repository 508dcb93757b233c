package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/scenarios"
)

// mergeStdin is what merge reads for "-" (a test sets it).
var mergeStdin io.Reader = os.Stdin

// cmdMerge combines the JSON lines of 'explore --shard i/n' runs into the
// result one machine would have reported: every verdict's first run, and
// the worst verdict's counterexample.
//
// Streams: data on stdout (the counterexample's YAML when there is no
// --out, or the --json object), the summary for people on stderr, so that
// 'merge > x.yaml' is a valid scenario file.
func cmdMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object on stdout instead of the YAML")
	out := addOutFlag(fs, "", "write the winning counterexample.yaml and its reports to `DIR` (without it: the YAML on stdout)")
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	var lines []explore.Report
	err := readInputs(pos, func(name string, rd io.Reader) error {
		got, err := explore.ReadReports(name, rd)
		lines = append(lines, got...)
		return err
	})
	if err != nil {
		return fail(stderr, "merge", err)
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
		if vr, ok := r.Verdicts[r.Verdict]; ok {
			vr.Counterexample = &path
			r.Verdicts[r.Verdict] = vr
		}
	}
	if *out != "" {
		// The other verdicts a shard shrank (explore --shrink all).
		for v, vr := range r.Verdicts {
			if vr.ScenarioYAML == "" || r.Found && v == r.Verdict {
				continue
			}
			if err := os.MkdirAll(*out, 0o755); err != nil {
				return fail(stderr, "merge", err)
			}
			path := filepath.Join(*out, "counterexample-"+v+".yaml")
			yaml, err := relocateLock(vr.ScenarioYAML, *out)
			if err != nil {
				return fail(stderr, "merge", err)
			}
			if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
				return fail(stderr, "merge", err)
			}
			vr.Counterexample = &path
			r.Verdicts[v] = vr
		}
	}
	yaml := r.ScenarioYAML
	r.ScenarioYAML = "" // in the files, not in the result
	for v, vr := range r.Verdicts {
		vr.ScenarioYAML = ""
		r.Verdicts[v] = vr
	}
	switch {
	case *asJSON:
		err = writeExploreJSON(stdout, r)
	case r.Found && r.Counterexample == nil && yaml != "":
		_, err = io.WriteString(stdout, yaml)
	}
	if err == nil && !*asJSON {
		err = writeExploreSummary(stderr, r, *out)
	}
	if err == nil && r.Found && r.Counterexample == nil && yaml != "" && !*asJSON {
		_, err = fmt.Fprintln(stderr, "printed    the counterexample's YAML on stdout (-o/--out DIR writes it and its reports)")
	}
	if err != nil {
		return fail(stderr, "merge", err)
	}
	return exploreExit(r, false) // what one machine's explore exits with
}

// readInputs calls read on each of files in turn, "-" (or no file at all)
// being stdin, which read is told is "stdin": the shard lines merge and
// prove --merge take.
func readInputs(files []string, read func(name string, rd io.Reader) error) error {
	if len(files) == 0 {
		files = []string{"-"}
	}
	for _, name := range files {
		if name == "-" {
			if err := read("stdin", mergeStdin); err != nil {
				return err
			}
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = read(name, f)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// writeMergedArtifacts writes the winning shard's counterexample and replays it for
// the reports: the run is deterministic, so they are the shard's. The lock
// is the one the file records (an algorithm file's sha256 checked).
func writeMergedArtifacts(dir string, r explore.Report) (string, error) {
	yaml, err := relocateLock(r.ScenarioYAML, dir)
	if err != nil {
		return "", err
	}
	s, err := scenarios.Parse("the winning shard's counterexample", []byte(yaml))
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "counterexample.yaml")
	o, err := executeOwn(s, path)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		return "", err
	}
	r.Counterexample = &path
	if err := writeExploreReports(dir, o, r); err != nil {
		return "", err
	}
	return path, nil
}
