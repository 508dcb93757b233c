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
	"regexp"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/gctune"
	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/locks"
)

// Exit codes.
const (
	exitOK         = 0 // no violation
	exitViolation  = 1 // a violation was found (or a check failed)
	exitUsage      = 2 // bad usage or input
	exitIncomplete = 3 // the run was cut at a cap before it found anything
)

func main() {
	if len(os.Args) > 1 && searchCommands[os.Args[1]] {
		gctune.Start() // after memlimit.go's init: its limit is the one put back
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type command struct {
	name, usage, summary string
	run                  func(args []string, stdout, stderr io.Writer) int
	// detail is the description 'simrun help NAME' prints; "" uses summary.
	detail string
}

func commands() []command {
	return []command{
		{"run", "run NAME|FILE [--algo NAME | --algo-file FILE] [--seed N] [--strict] [--json] [--trace] [--html FILE] [--porcupine FILE]", "run a scenario and report the verdict", cmdRun,
			"Runs one scenario, a built-in NAME (see 'simrun list') or a scenario FILE in YAML ('simrun show NAME' " +
				"prints one to start from), and reports the verdict, its witnesses, who held the lock when and a " +
				"timeline of true time. The lock is the scenario's own: its algorithm:, or the algorithm_file: a " +
				"counterexample records (refused if its sha256 changed); --algo or --algo-file replays the scenario's " +
				"fault plan against another lock, and is needed for a scenario that names none. " +
				"A verdict that contradicts the scenario's expect: is reported on stderr; --strict makes that exit 1. " +
				"Exit status: 0 safe, 1 a violation, 2 bad usage or input, 3 incomplete (cut at a cap, nothing found)."},
		{"list", "list [--json]", "list algorithms, scenarios and fault classes", cmdList, ""},
		{"show", "show NAME", "print a built-in scenario as YAML", cmdShow, ""},
		{"explore", "explore --algo NAME | --algo-file FILE [--faults LIST] [--runs N] [--seed S] [--workers K] [-o DIR [--force]] [--json] [--shard i/n] [--verdict KINDS] [--shrink worst|all] [--draw-ttl] [--search both|inside|outside] [--fail-on inside|any] [--min-held SHARE]", "search random fault schedules inside the lock's assumptions and outside them: the inside verdict, and the breaking point outside; exit by the inside answer", cmdExplore, ""},
		{"prove", "prove --algo NAME | --algo-file FILE [--clients N] [--rounds R] [--faults LIST] [--max-faults K] [--max-delays D] [--work D] [--latency D] [--ttl D] [--reduce R] [--delays W] [--jumps W] [--fail-on inside|any] [--workers W] [--shard i/n] [--json] [-o FILE [--force]] | prove --merge --algo NAME|--algo-file FILE [FILE...]", "run every schedule of a bounded space of faults and reorderings: inside the lock's assumptions proved within bounds or its first counterexample, and outside them the first that breaks it", cmdProve,
			"Enumerates every schedule of a bounded space on the lock's own code: N clients × R rounds on a fixed network, " +
				"and at every choice point of every client (about to send a command, a reply arrived, the lock acquired) " +
				"one fault from the menu (a pause of TTL/2K, so that K of them stay inside half the TTL, or less when the work leaves less room, or of 3·TTL/2, a crash, a client's clock jump of ±TTL/2, " +
				"a lost request or reply at a send, and for a lock on several nodes a node's restart or clock jump of +TTL), at most K per schedule, " +
				"and delays of 1 ns, one latency or two that reorder events, at most D, offered where one would reorder two conflicting events (--delays). Schedules run level by level, fewest choices first. " +
				"Prints the bounds and every parameter it held fixed (--work, --latency and --ttl set three), then two answers: inside the lock's assumptions " +
				"(InsideTTL) 'proved within bounds' or the worst verdict met at its first schedule, a bug; outside them the first schedule that breaks the lock and the assumption it breaks. " +
				"Each counterexample is shrunk and written (inside to -o FILE, outside to FILE-outside), which 'simrun run' replays. " +
				"Exit status follows the inside answer (--fail-on any: any violation): 0 proved, 1 a violation, 3 a schedule cut at a cap or none inside; 2 bad usage. See docs/prove.md."},
		{"diff", "diff --old LOCK --new LOCK [--faults LIST] [--runs N] [--seed S] [--workers K] [--search both|inside|outside] [-o DIR [--force]] [--json]", "run the same scenarios on two versions of a lock and shrink the first run where the new one does worse", cmdDiff, ""},
		{"version", "version", "print the module version and the commit simrun was built from (also --version)", cmdVersion, ""},
		{"merge", "merge [--json] [-o DIR] [FILE...]", "combine the JSON lines of explore --shard runs of one search (outside, or all --search inside)", cmdMerge, ""},
		{"matrix", "matrix [--algo NAME | --algo-file FILE] [--runs N] [--seed S] [--workers K] [--shrink-tries N] [--json] [-o FILE] [--check FILE]", "every algorithm under every fault class: the verdict matrix", cmdMatrix, ""},
		{"book", "book -o DIR [--runs N] [--seed S] [--shrink-tries N] [--workers K]", "write every scenario, the matrix and its counterexamples as one static site", cmdBook,
			"Writes a static, self-contained site into DIR for teaching and review: index.html ties the five documents " +
				"(what each claims, what locksim found), the built-in scenarios in the order a course teaches them, the " +
				"verdict matrix (every failing cell links to its shrunk counterexample) and the algorithms (each " +
				"algorithm's code beside its document's steps). The matrix settings are simrun matrix's; the same " +
				"command writes the same bytes, except porcupine's own view inside each report."},
	}
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) >= 2 && args[0] == "help" {
		// 'simrun help run' is 'simrun run --help'.
		args = []string{args[1], "--help"}
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = append([]string{"version"}, args[1:]...) // version.go
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			if wantsHelp(args[1:]) {
				// Asked for, help is the output: stdout, exit 0.
				return c.run([]string{"--help"}, stdout, stdout)
			}
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "simrun: unknown command %q (valid: %s)\n", args[0], strings.Join(commandNames(), ", "))
	return exitUsage
}

// wantsHelp says whether args ask for help before a "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

func usage(w io.Writer) {
	b := &strings.Builder{}
	b.WriteString("simrun: prove or disprove Redis lock algorithms in a deterministic simulation.\n")
	b.WriteString("\nUsage:\n")
	for _, c := range commands() {
		wrapGroups(b, "  simrun ", indent(9), c.usage, screenWidth)
		wrapWords(b, indent(6), indent(6), c.summary, screenWidth)
	}
	b.WriteString("\nExit status: 0 no violation, 1 violation found, 2 usage or input error,\n")
	b.WriteString("3 incomplete: a run cut at a cap (events, history size, duration) that found nothing.\n")
	b.WriteString("Run 'simrun help COMMAND' or 'simrun COMMAND --help' for a command's flags.\n")
	io.WriteString(w, b.String())
}

// wrapGroups wraps a usage line between words, never inside [ ]:
// "[--html FILE]" stays on one line.
func wrapGroups(b *strings.Builder, first, rest, usage string, width int) {
	var groups []string
	depth := 0
	for _, w := range strings.Fields(usage) {
		if depth > 0 {
			groups[len(groups)-1] += "\x00" + w
		} else {
			groups = append(groups, w)
		}
		depth += strings.Count(w, "[") - strings.Count(w, "]")
	}
	var out strings.Builder
	wrapWords(&out, first, rest, strings.Join(groups, " "), width)
	b.WriteString(strings.ReplaceAll(out.String(), "\x00", " "))
}

func indent(n int) string { return strings.Repeat(" ", n) }

// commandHelp is a command's usage, description and flags, written the
// way the README writes them (--flag VALUE), wrapped to screenWidth.
func commandHelp(w io.Writer, fs *flag.FlagSet) {
	var c command
	for _, k := range commands() {
		if k.name == fs.Name() {
			c = k
		}
	}
	b := &strings.Builder{}
	wrapGroups(b, "Usage: simrun ", indent(14), c.usage, screenWidth)
	b.WriteString("\n")
	detail := c.detail
	if detail == "" {
		detail = strings.ToUpper(c.summary[:1]) + c.summary[1:] + "."
	}
	wrapWords(b, "", "", detail, screenWidth)
	var flags [][2]string
	fs.VisitAll(func(f *flag.Flag) {
		arg, text := flag.UnquoteUsage(f)
		switch arg {
		case "uint", "int", "uint64", "int64":
			arg = "N"
		case "float":
			arg = "X"
		case "duration":
			arg = "DURATION"
		case "string", "value":
			arg = "VALUE"
		}
		if isOutAlias(fs, f.Name) {
			return // printed with --out
		}
		name := dashed(f.Name)
		if f.Name == "out" && isOutAlias(fs, "o") {
			name = "-o, --out"
		}
		if arg != "" {
			name += " " + arg
		}
		if d := f.DefValue; d != "" && d != "0" && d != "false" {
			text += fmt.Sprintf(" (default %s)", d)
		}
		flags = append(flags, [2]string{name, text})
	})
	if len(flags) > 0 {
		b.WriteString("\nFlags:\n")
		nw := 0
		for _, f := range flags {
			nw = max(nw, len(f[0]))
		}
		for _, f := range flags {
			wrapWords(b, "  "+f[0]+indent(nw-len(f[0])+2), indent(nw+4), f[1], screenWidth)
		}
	}
	if fs.Lookup("algo") != nil {
		b.WriteString("\n")
		wrapWords(b, "Algorithms (--algo): ", indent(4), strings.Join(locks.Names(), ", "), screenWidth)
	}
	io.WriteString(w, b.String())
}

// flagError says what is wrong with a flag in one line, in simrun's words
// rather than the flag package's ("-seed: parse error").
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if m := badValue.FindStringSubmatch(msg); m != nil {
		value, name, why := m[1], m[2], m[3]
		if f := fs.Lookup(name); f != nil {
			if g, ok := f.Value.(flag.Getter); ok {
				switch g.Get().(type) {
				case uint, uint64:
					why = "is not a whole number ≥ 0"
				case int, int64:
					why = "is not a whole number"
				case float64:
					why = "is not a number"
				case bool:
					why = "is not true or false"
				case time.Duration:
					why = "is not a duration such as 1.5s or 200ms"
				}
			}
		}
		return fmt.Sprintf("%s: %q %s", dashed(name), value, why)
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, dashed(f.Name)) })
		return fmt.Sprintf("unknown flag %s (valid: %s)", dashed(name), strings.Join(names, ", "))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Sprintf("%s needs a value", dashed(name))
	}
	return text.FirstLine(msg)
}

// dashed is a flag's name as the README writes it: -o, --seed.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// badValue matches the flag package's "invalid value" errors.
var badValue = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-([^:]+): (.*)$`)

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
				commandHelp(stderr, fs)
				return nil, exitOK, false
			}
			fmt.Fprintf(stderr, "simrun %s: %s\n", fs.Name(), flagError(fs, err))
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
	fmt.Fprintf(stderr, "simrun %s: %s\n", cmd, text.FirstLine(err.Error()))
	return exitUsage
}

// addOutFlag registers --out and its short form -o, one value under two
// names: every command that writes a file or a directory takes both, so a
// user need not remember which command spells it which way.
func addOutFlag(fs *flag.FlagSet, value, usage string) *string {
	out := fs.String("out", value, usage)
	fs.StringVar(out, "o", value, "short for --out")
	return out
}

// isOutAlias says whether name is the -o that addOutFlag made short for
// --out, which help prints on --out's line.
func isOutAlias(fs *flag.FlagSet, name string) bool {
	o, out := fs.Lookup("o"), fs.Lookup("out")
	return name == "o" && o != nil && out != nil && o.Value == out.Value
}
