package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/scenarios"
)

type listJSON struct {
	Algorithms []algoJSON     `json:"algorithms"`
	Scenarios  []scenarioJSON `json:"scenarios"`
	Faults     []string       `json:"fault_classes"`
}

type algoJSON struct {
	Name    string `json:"name"`
	Source  string `json:"source"`
	Summary string `json:"summary"`
}

type scenarioJSON struct {
	Name      string `json:"name"`
	Algorithm string `json:"algorithm"`
	Expect    string `json:"expect"`
	Source    string `json:"source"`
	Summary   string `json:"summary"`
}

func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return fail(stderr, "list", fmt.Errorf("takes no arguments, got %q", pos))
	}
	var l listJSON
	for _, a := range locks.All() {
		l.Algorithms = append(l.Algorithms, algoJSON{a.Name, a.Source, a.Summary})
	}
	for _, s := range scenarios.Builtins() {
		l.Scenarios = append(l.Scenarios, scenarioJSON{s.Name, s.Algorithm, s.Expect, s.Source, s.Summary})
	}
	l.Faults = scenarios.FaultClasses
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(l); err != nil {
			return fail(stderr, "list", err)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ALGORITHM\tSOURCE\tSUMMARY")
	for _, a := range l.Algorithms {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", a.Name, a.Source, a.Summary)
	}
	fmt.Fprintln(tw, "\nSCENARIO\tALGORITHM\tEXPECT\tSUMMARY")
	for _, s := range l.Scenarios {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Algorithm, s.Expect, s.Summary)
	}
	fmt.Fprintf(tw, "\nFAULT CLASSES\t%s\n", strings.Join(l.Faults, ", "))
	if err := tw.Flush(); err != nil {
		return fail(stderr, "list", err)
	}
	return exitOK
}

func cmdShow(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return fail(stderr, "show", fmt.Errorf("want one built-in scenario name (see 'simrun list')"))
	}
	s, err := scenarios.Lookup(pos[0])
	if err != nil {
		return fail(stderr, "show", err)
	}
	data, err := scenarios.Marshal(s)
	if err != nil {
		return fail(stderr, "show", err)
	}
	if _, err := stdout.Write(data); err != nil {
		return fail(stderr, "show", err)
	}
	return exitOK
}
