package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/reports"
	"github.com/locksim/locksim/scenarios"
)

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	algo := fs.String("algo", "", "replay the scenario's fault plan against this algorithm")
	seed := fs.Uint64("seed", 0, "override the scenario's seed (0: keep it)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	porc := fs.String("porcupine", "", "write porcupine's HTML visualisation of the lock history to `FILE`")
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return fail(stderr, "run", fmt.Errorf("want one scenario name or file, got %d (see 'simrun list')", len(pos)))
	}
	s, err := scenarios.Resolve(pos[0])
	if err != nil {
		return fail(stderr, "run", err)
	}
	if *seed != 0 {
		s.Seed = *seed
	}
	o, err := s.Execute(*algo, model.Options{})
	if err != nil {
		return fail(stderr, "run", err)
	}
	if *porc != "" {
		if err := writeFile(*porc, func(w io.Writer) error {
			return model.WritePorcupineHTML(o.Result.History, model.Options{TTL: o.Prepared.Lifetime()}, w)
		}); err != nil {
			return fail(stderr, "run", err)
		}
	}
	if *asJSON {
		err = reports.WriteJSON(stdout, o)
	} else {
		err = reports.WriteText(stdout, o)
	}
	if err != nil {
		return fail(stderr, "run", err)
	}
	if o.Verdict.Verdict != model.VerdictSafe {
		return exitViolation
	}
	return exitOK
}

// writeFile writes through fn to path, reporting the path in errors.
func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
