// Command simrun runs lock algorithms in locksim's deterministic simulation
// and reports whether they are safe.
//
//	simrun run del-race                      a built-in scenario
//	simrun run del-race --algo setnx-getset  the same fault plan, another lock
//	simrun run my.yaml --json                a scenario file, as JSON
//	simrun list | show NAME
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit codes.
const (
	exitOK        = 0 // no violation
	exitViolation = 1 // a violation was found (or a check failed)
	exitUsage     = 2 // bad usage or input
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type command struct {
	name, usage, summary string
	run                  func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"run", "run NAME|FILE [--algo NAME | --algo-file FILE] [--seed N] [--json] [--trace] [--html FILE] [--porcupine FILE]", "run a scenario and report the verdict", cmdRun},
		{"list", "list [--json]", "list algorithms, scenarios and fault classes", cmdList},
		{"show", "show NAME", "print a built-in scenario as YAML", cmdShow},
		{"explore", "explore --algo NAME | --algo-file FILE [--faults LIST] [--runs N] [--seed S] [--workers K] [--out DIR] [--json] [--shard i/n]", "search random fault schedules for a violation; shrink it", cmdExplore},
		{"merge", "merge [--json] [--out DIR] [FILE...]", "combine the JSON lines of explore --shard runs", cmdMerge},
		{"matrix", "matrix [--algo NAME | --algo-file FILE] [--runs N] [--seed S] [--workers K] [--shrink-tries N] [--json] [-o FILE] [--check FILE]", "every algorithm under every fault class: the verdict matrix", cmdMatrix},
	}
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "simrun: unknown command %q (valid: %s)\n", args[0], strings.Join(commandNames(), ", "))
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "simrun: prove or disprove Redis lock algorithms in a deterministic simulation.")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  simrun %s\n      %s\n", c.usage, c.summary)
	}
	fmt.Fprintln(w, "\nExit status: 0 no violation, 1 violation found, 2 usage or input error.")
	fmt.Fprintln(w, "Run 'simrun COMMAND -h' for a command's flags.")
}

func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// parseFlags parses flags that may come before or after the positional
// arguments ("run del-race --json" and "run --json del-race" both work).
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, int, bool) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(stderr)
				fmt.Fprintf(stderr, "Usage: simrun %s\n", fs.Name())
				fs.PrintDefaults()
				return nil, exitOK, false
			}
			fmt.Fprintf(stderr, "simrun %s: %v\n", fs.Name(), err)
			return nil, exitUsage, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, 0, true
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// fail prints a one-line error and returns the usage exit code.
func fail(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "simrun %s: %s\n", cmd, firstLine(err.Error()))
	return exitUsage
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
