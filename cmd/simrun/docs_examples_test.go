package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every `go run ./cmd/simrun ...` command the README and the docs pages show
// names a command simrun has and only flags that command takes, with values
// of their type: each is parsed as written with an unknown flag added last,
// whose refusal (naming it, not an earlier one) stops it before anything runs.
func TestDocsCommandsParse(t *testing.T) {
	pages, _ := filepath.Glob("../../docs/*.md")
	pages = append(pages, "../../README.md")
	example := regexp.MustCompile("go run \\./cmd/simrun ([^`#\\n]*)")
	seen := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range example.FindAllStringSubmatch(string(data), -1) {
			var args []string
			for _, w := range strings.Fields(m[1]) {
				if strings.ContainsAny(w[:1], "|>&;") || strings.HasPrefix(w, "||") {
					break // the shell's part of the line
				}
				args = append(args, w)
			}
			if len(args) == 0 || args[0] == "help" {
				continue
			}
			seen++
			code, _, errOut := simrun(append(args, "--end-of-example")...)
			if code != exitUsage || !strings.Contains(errOut, "unknown flag --end-of-example") {
				t.Errorf("%s: go run ./cmd/simrun %s: exit %d: %s",
					filepath.Base(page), strings.Join(args, " "), code, strings.TrimSpace(errOut))
			}
		}
	}
	if seen < 30 {
		t.Fatalf("found %d simrun commands in the docs, want the 30 or more they show", seen)
	}
}
