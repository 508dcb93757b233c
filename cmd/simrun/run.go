package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/reports"
	"golang.org/x/term"
)

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	algo := addAlgoFlags(fs, "replay the scenario's fault plan against the built-in algorithm `NAME` (listed below)")
	seed := fs.Uint64("seed", 0, "run with seed `N` instead of the scenario's (0: keep it)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	porc := fs.String("porcupine", "", "write porcupine's HTML visualisation of the lock history to `FILE`")
	htmlOut := fs.String("html", "", "write a self-contained HTML report (timeline, trace, porcupine) to `FILE`")
	trace := fs.Bool("trace", false, "add the full command trace to the text report")
	strict := fs.Bool("strict", false, "exit 1 when the verdict contradicts the scenario's expect:")
	redis := fs.String("redis", "", "run in wall-clock time against real Redis at `ADDR` (host:port[/db], comma-separated per node; flushes it), or start: throwaway servers")
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return fail(stderr, "run", fmt.Errorf("want one scenario name or file, got %d (see 'simrun list')", len(pos)))
	}
	if algo.Name != "" && algo.File != "" {
		return fail(stderr, "run", errAlgoBoth)
	}
	s, err := resolveScenario(pos[0])
	if err != nil {
		return fail(stderr, "run", err)
	}
	if *seed != 0 {
		s.Seed = *seed
	}
	p, err := algo.prepare(s, pos[0])
	if err != nil {
		return fail(stderr, "run", err)
	}
	var o *judge.Outcome
	if *redis != "" {
		o, err = executeReal(s, p, *redis)
	} else {
		o, err = judge.Prepared(s, p, model.Options{})
	}
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
	if *htmlOut != "" {
		if err := writeFile(*htmlOut, func(w io.Writer) error { return reports.WriteHTML(w, o) }); err != nil {
			return fail(stderr, "run", err)
		}
	}
	if *asJSON {
		err = reports.WriteJSON(stdout, o)
	} else {
		err = reports.WriteTextWith(stdout, o, reports.TextOptions{Color: colorOK(stdout), Trace: *trace,
			TraceWidth: terminalWidth(stdout)})
	}
	if err != nil {
		return fail(stderr, "run", err)
	}
	return runExit(o, *strict, stderr)
}

// colorOK says whether to colour output to w: only a terminal, and never
// when NO_COLOR is set to a non-empty value (https://no-color.org).
func colorOK(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && os.Getenv("NO_COLOR") == "" && term.IsTerminal(int(f.Fd()))
}

// terminalWidth is w's width in columns when it is a terminal, else 0.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return cols
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
