package main

import (
	"flag"
	"strings"
	"testing"
)

// Every command that writes a file or a directory takes -o and --out alike,
// and its help prints them on one line.
func TestEveryWritingCommandTakesOAndOut(t *testing.T) {
	for _, cmd := range []string{"explore", "prove", "matrix", "merge", "book"} {
		_, help, _ := simrun(cmd, "--help")
		if !strings.Contains(help, "\n  -o, --out ") {
			t.Errorf("simrun %s --help has no '-o, --out' line:\n%s", cmd, help)
		}
		if strings.Contains(help, "short for --out") {
			t.Errorf("simrun %s --help prints -o on a line of its own:\n%s", cmd, help)
		}
	}
	for _, args := range [][]string{{"-o", "a"}, {"--out", "a"}, {"-out", "a"}, {"--o", "a"}} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		out := addOutFlag(fs, "default", "write to `FILE`")
		if err := fs.Parse(args); err != nil || *out != "a" {
			t.Errorf("%v: out %q, err %v; want a", args, *out, err)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("o", "", "")
	fs.String("out", "", "")
	if isOutAlias(fs, "o") {
		t.Error("two separate -o and --out flags taken for one flag under two names")
	}
}
