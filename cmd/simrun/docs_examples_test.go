package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
)

// docCommand is one `go run ./cmd/simrun ...` line of a page: its
// arguments up to the shell's part of the line, the file its output is
// redirected to (show NAME > FILE), and its comment.
type docCommand struct {
	page, line string
	args       []string
	redirect   string
	comment    string
}

var docExample = regexp.MustCompile("go run \\./cmd/simrun ([^`\\n]*)")

func docCommands(t *testing.T) []docCommand {
	t.Helper()
	var cmds []docCommand
	for _, page := range docPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docExample.FindAllStringSubmatch(string(data), -1) {
			body, comment, _ := strings.Cut(m[1], "#")
			c := docCommand{page: filepath.Base(page), line: strings.TrimSpace(m[1]), comment: comment}
			words := strings.Fields(body)
			for i, w := range words {
				if strings.ContainsAny(w[:1], "|>&;") || strings.HasPrefix(w, "||") {
					if w == ">" && i+1 < len(words) {
						c.redirect = words[i+1]
					}
					break // the shell's part of the line
				}
				c.args = append(c.args, w)
			}
			if len(c.args) > 0 {
				cmds = append(cmds, c)
			}
		}
	}
	return cmds
}

// Every `go run ./cmd/simrun ...` command the README and the docs pages
// show names a command simrun has and only flags that command takes, with
// values of their type: each is parsed as written with an unknown flag
// added last, whose refusal (naming it, not an earlier one) stops it
// before anything runs.
func TestDocsCommandsParse(t *testing.T) {
	seen := 0
	for _, c := range docCommands(t) {
		if c.args[0] == "help" {
			continue
		}
		seen++
		code, _, errOut := simrun(append(c.args, "--end-of-example")...)
		if code != exitUsage || !strings.Contains(errOut, "unknown flag --end-of-example") {
			t.Errorf("%s: go run ./cmd/simrun %s: exit %d: %s",
				c.page, strings.Join(c.args, " "), code, strings.TrimSpace(errOut))
		}
	}
	if seen < 30 {
		t.Fatalf("found %d simrun commands in the docs, want the 30 or more they show", seen)
	}
}

var (
	exitSaid    = regexp.MustCompile(`\bexit (\d)\b`)
	verdictSaid = regexp.MustCompile(`\b(UNSAFE|SAFE|STUCK|STALE|CLIENT-ERROR|INCOMPLETE)\b`)
)

// impliedExit is the exit status a command's comment implies: the one it
// names (exit 1), else its verdict's; -1 when it implies none.
func impliedExit(comment string) int {
	if m := exitSaid.FindStringSubmatch(comment); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	switch m := verdictSaid.FindStringSubmatch(comment); {
	case m == nil:
		return -1
	case m[1] == "SAFE":
		return exitOK
	case m[1] == "INCOMPLETE":
		return exitIncomplete
	default:
		return exitViolation
	}
}

// cheapDocCommand says whether a page's command finishes in well under a
// second, and so runs in every go test: list, show, help, and run of one
// scenario in simulation. A search, a real server and a file the reader
// makes first (my-lock.yaml, a search's output) are left out.
func cheapDocCommand(args []string) bool {
	switch args[0] {
	case "list", "show", "help":
		return true
	case "run":
		return !slices.Contains(args, "--redis")
	}
	return false
}

// The cheap commands each page shows run as written, and exit as the page
// says: "UNSAFE, exit 1" exits 1 and prints UNSAFE; a run the page says
// nothing of exits 0 or 1, never 2 (it does not load) or 3 (cut). Paths
// are the repository's; `show NAME > FILE` writes FILE for the page's
// later `run FILE`; --html and --porcupine write into a temporary folder.
func TestDocsCommandsRun(t *testing.T) {
	dir := t.TempDir()
	written := map[string]string{} // page's file name → where show wrote it
	ran := 0
	for _, c := range docCommands(t) {
		if !cheapDocCommand(c.args) {
			continue
		}
		args := slices.Clone(c.args)
		missing := false
		for i, a := range args {
			switch {
			case i > 0 && (args[i-1] == "--html" || args[i-1] == "--porcupine"):
				args[i] = filepath.Join(dir, filepath.Base(a))
			case written[c.page+"\x00"+a] != "":
				args[i] = written[c.page+"\x00"+a]
			case strings.HasSuffix(a, ".yaml"):
				if _, err := os.Stat(filepath.Join("../..", a)); err != nil {
					missing = true // a file the reader makes first
				}
				args[i] = filepath.Join("../..", a)
			}
		}
		if args[0] == "run" && len(args) > 1 && !strings.HasSuffix(args[1], ".yaml") {
			if _, err := scenarios.Lookup(args[1]); err != nil {
				t.Errorf("%s: go run ./cmd/simrun %s: %q is no built-in scenario", c.page, c.line, args[1])
				continue
			}
		}
		if missing {
			continue
		}
		ran++
		code, out, errOut := simrun(args...)
		if c.redirect != "" {
			path := filepath.Join(dir, filepath.Base(c.redirect))
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			written[c.page+"\x00"+c.redirect] = path
		}
		want := impliedExit(c.comment)
		switch {
		case want >= 0 && code != want:
			t.Errorf("%s: go run ./cmd/simrun %s: exit %d, the page says %d: %s", c.page, c.line, code, want, strings.TrimSpace(errOut))
		case want < 0 && args[0] == "run" && code != exitOK && code != exitViolation:
			t.Errorf("%s: go run ./cmd/simrun %s: exit %d: %s", c.page, c.line, code, strings.TrimSpace(errOut))
		case want < 0 && args[0] != "run" && code != exitOK:
			t.Errorf("%s: go run ./cmd/simrun %s: exit %d: %s", c.page, c.line, code, strings.TrimSpace(errOut))
		}
		if m := verdictSaid.FindStringSubmatch(c.comment); m != nil && !saysVerdict(out, m[1]) {
			t.Errorf("%s: go run ./cmd/simrun %s: the page says %s; the output does not", c.page, c.line, m[1])
		}
	}
	t.Logf("ran %d commands of the docs", ran)
	if ran < 20 {
		t.Errorf("ran %d of the docs' commands, want the 20 or more cheap ones they show", ran)
	}
}

// saysVerdict says whether a run's output, text or JSON, gives verdict
// (as the pages write it: UNSAFE).
func saysVerdict(out, verdict string) bool {
	var j struct{ Verdict string }
	if json.Unmarshal([]byte(out), &j) == nil && j.Verdict != "" {
		return strings.EqualFold(j.Verdict, verdict)
	}
	return regexp.MustCompile(`\b` + verdict + `\b`).MatchString(out)
}
