package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/matrix"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/foreign"
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
		return !slices.Contains(args, "--redis") && foreignRuns(args)
	}
	return false
}

// isProgram says whether a is a lock program's path (.py, .js, .php).
func isProgram(a string) bool {
	_, ok := foreign.LangOf(a)
	return ok
}

// foreignRuns says whether a command's lock program, if it names one, can
// run here: without its interpreter or its packages (scripts/foreign-deps.sh
// installs them) the command is left out, as the tests of the programs
// skip. Paths are the repository's.
func foreignRuns(args []string) bool {
	for _, a := range args {
		if isProgram(a) && foreign.Runnable(filepath.Join("../..", a)) != nil {
			return false
		}
	}
	return true
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
			case strings.HasSuffix(a, ".yaml") || isProgram(a):
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

// docPages are the pages a newcomer reads: the README, docs/ and the
// algorithm-file reference.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs pages: %v", err)
	}
	return append([]string{"../../README.md", "../../examples/README.md"}, pages...)
}

// docFigure is a count a page may state, marked in its Markdown as
// `<!-- figure: NAME -->N`: the command a reader runs to see it, which the
// page must name, and the program's own value of it.
type docFigure struct {
	name, command string
	value         func(t *testing.T) int
}

// committedMatrix is reports/matrix.md as the matrix package reads it: the
// golden file `go test ./matrix` recomputes and compares, so its counts
// are the program's.
func committedMatrix(t *testing.T) matrix.JSON {
	t.Helper()
	data, err := os.ReadFile("../../reports/matrix.md")
	if err != nil {
		t.Fatal(err)
	}
	m, err := matrix.Read("reports/matrix.md", data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func committedCells(keep func(matrix.JSONCell) bool) func(t *testing.T) int {
	return func(t *testing.T) int {
		n := 0
		for _, c := range committedMatrix(t).Cells {
			if keep(c) {
				n++
			}
		}
		return n
	}
}

var docFigures = []docFigure{
	{"algorithms", "simrun list", func(*testing.T) int { return len(locks.Names()) }},
	{"scenarios", "simrun list", func(*testing.T) int { return len(scenarios.Names()) }},
	{"documents", "simrun list", func(*testing.T) int { return len(locks.Documents) }},
	{"fault-classes", "simrun list", func(*testing.T) int { return len(scenarios.FaultClasses) }},
	{"matrix-cells", "simrun matrix", committedCells(func(matrix.JSONCell) bool { return true })},
	{"matrix-unsafe", "simrun matrix", committedCells(func(c matrix.JSONCell) bool { return c.Outside.Verdict == "unsafe" })},
	{"matrix-safe", "simrun matrix", committedCells(func(c matrix.JSONCell) bool { return c.Outside.Verdict == "safe" })},
	{"matrix-unsafe-inside", "simrun matrix", committedCells(func(c matrix.JSONCell) bool { return c.Inside != nil && c.Inside.Verdict == "unsafe" })},
}

var figureMark = regexp.MustCompile(`<!-- figure: ([a-z-]+) -->([0-9][0-9,]*)`)

// Every count the docs mark as a figure is the program's: a page that says
// 12 algorithms after a thirteenth is added fails here, naming the page,
// the figure and the command that shows the right one.
func TestDocsFiguresAreThePrograms(t *testing.T) {
	seen := 0
	for _, page := range docPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, m := range figureMark.FindAllStringSubmatch(text, -1) {
			seen++
			i := slices.IndexFunc(docFigures, func(f docFigure) bool { return f.name == m[1] })
			if i < 0 {
				t.Errorf("%s: figure %q is none the test knows (docFigures)", filepath.Base(page), m[1])
				continue
			}
			f := docFigures[i]
			said, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
			if want := f.value(t); said != want {
				t.Errorf("%s: says %d %s; `%s` shows %d", filepath.Base(page), said, f.name, f.command, want)
			}
			if !strings.Contains(text, f.command) {
				t.Errorf("%s: states the figure %s but never names `%s`, the command that shows it",
					filepath.Base(page), f.name, f.command)
			}
		}
	}
	if seen < 8 {
		t.Errorf("found %d marked figures in the docs, want the 8 or more they mark", seen)
	}
}

// unmarkedCount is a count of the things docFigures counts, written
// without its mark: digits or a number word before the noun.
var unmarkedCount = regexp.MustCompile(`(?i)(?:^|[^\w>-])((?:\d[\d,]*|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|twenty|thirty)` +
	`(?:\s+built-in)?\s+(?:algorithms|scenarios|documents|fault classes|cells|` + "`unsafe` cells|unsafe cells))")

// A count of algorithms, scenarios, documents, fault classes or matrix
// cells that is not marked would go stale unseen: each is marked, or
// reworded.
func TestDocsCountsAreMarked(t *testing.T) {
	for _, page := range docPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range unmarkedCount.FindAllStringSubmatchIndex(string(data), -1) {
			line := 1 + strings.Count(string(data[:m[2]]), "\n")
			t.Errorf("%s:%d: %q is a count with no <!-- figure: NAME --> mark",
				filepath.Base(page), line, strings.Join(strings.Fields(string(data[m[2]:m[3]])), " "))
		}
	}
}

// timingSkipped are pages whose timings other engineers own; each is
// linted once its owner dates its figures, by taking it off this list.
var timingSkipped = []string{"prove.md"} // its durations are simulated parameters (work, pauses), which the lint reads as timings

var (
	// A rate, a ratio written against its number, or a duration in a
	// sentence that says it was measured: figures of the machine, not of
	// simulated time.
	rateOrRatio = regexp.MustCompile(`\d[\d,.]*\s?runs/s|\d(?:\.\d+)?[×x](?:[\s,.;:)]|$)|\d[\d,.]*\s?µs\b`)
	duration    = regexp.MustCompile(`\d[\d,.]*(?:[–-]\d[\d,.]*)?\s?(?:ns|ms|s|min|m|h)\b`)
	measureCue  = regexp.MustCompile(`(?i)\b(?:took|finish(?:es|ed)?|wall|CPU|measured|faster|slower|elapsed|cores?|alternated|benchmark|here)\b`)
	dated       = regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b`)
	loadStated  = regexp.MustCompile(`(?i)\bload\b|uptime`)
	inlineCode  = regexp.MustCompile("`[^`]*`")
	// lockTook is "took" said of a lock or key (C2 took the lock), which
	// measures nothing.
	lockTook = regexp.MustCompile(`(?i)\btook (?:the|its|a|over|it)\b`)
)

// docBlocks cuts Markdown into blocks: paragraphs, tables and fenced
// blocks, each with the line it starts on. A table or fenced block takes
// the paragraph just before it (its introduction) as part of it.
func docBlocks(text string) (blocks []string, starts []int) {
	lines := strings.Split(text, "\n")
	var cur []string
	start, fence, intro := 0, false, -1
	flush := func(kind string) {
		if len(cur) > 0 {
			b := strings.Join(cur, "\n")
			if (kind == "table" || kind == "fence") && intro == len(blocks)-1 && intro >= 0 {
				blocks[intro] += "\n" + b // introduction and table judged together
			} else {
				blocks, starts = append(blocks, b), append(starts, start)
			}
			if kind == "para" {
				intro = len(blocks) - 1
			} else {
				intro = -1
			}
		}
		cur = nil
	}
	kind := "para"
	for i, l := range lines {
		switch {
		case fence:
			cur = append(cur, l)
			if strings.HasPrefix(l, "```") {
				fence = false
				flush("fence")
				kind = "para"
			}
		case strings.HasPrefix(l, "```"):
			flush(kind)
			fence, kind, start, cur = true, "fence", i+1, []string{l}
		case strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#"):
			flush(kind)
			kind = "para"
			if strings.HasPrefix(l, "#") {
				intro = -1
			}
		default:
			k := "para"
			if strings.HasPrefix(l, "|") {
				k = "table"
			}
			if k != kind {
				flush(kind)
				kind = k
			}
			if len(cur) == 0 {
				start = i + 1
			}
			cur = append(cur, l)
		}
	}
	flush(kind)
	return blocks, starts
}

// timingsUndated lists the timing figures of a page that no date and load
// go with: each block (a paragraph, or a table or code block with the
// paragraph that introduces it) that states one must say when it was
// measured and under what load.
func timingsUndated(text string) []string {
	var bad []string
	blocks, starts := docBlocks(text)
	for i, b := range blocks {
		if dated.MatchString(b) && loadStated.MatchString(b) {
			continue
		}
		plain := inlineCode.ReplaceAllString(b, "")
		var figs []string
		figs = append(figs, rateOrRatio.FindAllString(plain, -1)...)
		for _, s := range regexp.MustCompile(`[.;]\s|\n\n`).Split(plain, -1) {
			if measureCue.MatchString(lockTook.ReplaceAllString(s, "")) {
				figs = append(figs, duration.FindAllString(s, -1)...)
			}
		}
		if len(figs) > 0 {
			bad = append(bad, fmt.Sprintf("line %d: %s", starts[i], strings.Join(figs, ", ")))
		}
	}
	return bad
}

// Every timing the docs give (a rate, a ratio, a wall or CPU time) says
// the date it was measured and the machine's load, in its paragraph or in
// the one that introduces its table or output: a figure with no date reads
// as true of today's code, whatever it was measured on.
func TestDocsTimingsAreDated(t *testing.T) {
	for _, page := range docPages(t) {
		if slices.Contains(timingSkipped, filepath.Base(page)) {
			continue
		}
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range timingsUndated(string(data)) {
			t.Errorf("%s: %s: a timing with no date and load", filepath.Base(page), b)
		}
	}
}

// The lint flags what it must and passes what it must: a figure
// undated, dated without a load, dated in its table's introduction, and
// simulated time, which is no measurement.
func TestTimingLint(t *testing.T) {
	cases := []struct {
		text string
		bad  bool
	}{
		{"The matrix took 134 s on 2 cores.", true},
		{"explore runs 9,600 runs/s.", true},
		{"a real run costs 2.7× a file's.", true},
		{"The matrix took 134 s on 2 cores (2026-12-01).", true},
		{"The matrix took 134 s on 2 cores (measured 2026-12-01, load 3.1).", false},
		{"Measured 2026-12-01 at load 2:\n\n| what | time |\n|---|---|\n| matrix | 134 s wall |", false},
		{"Measured at load 2:\n\n| what | time |\n|---|---|\n| matrix | 134 s wall |", true},
		{"C1 pauses 35 s holding a 30 s lock.", false},
		{"`--timeout 3s` takes a duration.", false},
		{"C2 waits 50 ms after c1 took the key.", false},
	}
	for _, c := range cases {
		if got := len(timingsUndated(c.text)) > 0; got != c.bad {
			t.Errorf("%q: flagged %v, want %v", c.text, got, c.bad)
		}
	}
}

// docs/explore.md's table of documented bugs gives, per row, the run a
// search from seed 1 with drawn TTLs first meets the verdict at and the
// size it shrinks to: counts of the program's, which this search checks.
func TestDocsDocumentedBugsTable(t *testing.T) {
	skipUnderRace(t, "seventeen searches with shrinking; explore's own tests race them")
	data, err := os.ReadFile("../../docs/explore.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "| algorithm | faults | verdict | first run | shrunk to |")
	if !ok {
		t.Fatal("docs/explore.md has no table of documented bugs")
	}
	row := regexp.MustCompile(`(?m)^\| ([a-z-]+) \| ([a-z]+) \| ([a-z-]+) \| (\d+) \| (\d+), (\d+)[ |]`)
	rows := row.FindAllStringSubmatch(table, -1)
	if len(rows) < 17 {
		t.Fatalf("read %d rows of the documented bugs, want the 17 it has", len(rows))
	}
	for _, r := range rows {
		e, err := explore.New(explore.Options{Algorithm: r[1], Classes: []string{r[2]}, Seed: 1, Runs: 20_000,
			Verdicts: []string{r[3]}, DrawTTL: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.Search.Found == nil {
			t.Errorf("%s under %s: no %s run found; the page says run %s", r[1], r[2], r[3], r[4])
			continue
		}
		got := fmt.Sprintf("%d, shrunk to %d, %d", res.Search.Found.Index, len(res.Counterexample.Clients), len(res.Counterexample.Faults))
		if want := fmt.Sprintf("%s, shrunk to %s, %s", r[4], r[5], r[6]); got != want {
			t.Errorf("%s under %s: %s at run %s; the page says %s", r[1], r[2], r[3], got, want)
		}
	}
}

// glossaryUnlinked are pages whose owners have not linked the glossary
// yet; each is checked once it does, by taking it off this list.
var glossaryUnlinked = []string{"glossary.md"}

// Every page a reader arrives at from the README links docs/glossary.md,
// where the words it uses are defined.
func TestDocsLinkTheGlossary(t *testing.T) {
	link := regexp.MustCompile(`\]\((?:\.\./)?(?:docs/)?glossary\.md(?:#[^)]*)?\)`)
	for _, page := range docPages(t) {
		if slices.Contains(glossaryUnlinked, filepath.Base(page)) && filepath.Base(filepath.Dir(page)) == "docs" {
			continue
		}
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if !link.Match(data) {
			t.Errorf("%s links no term to the glossary", page)
		}
	}
}

// maxBlockWords is the most words a paragraph (the lines between two blank
// lines, outside code fences: a list with no blank line between its items
// is one) or a table cell may hold: past it, a reader loses the one idea a
// paragraph should carry.
const maxBlockWords = 150

// textBlocks cuts a Markdown page into its paragraphs and table cells, each
// with the line it starts on.
func textBlocks(page string) (blocks []string, lines []int) {
	var cur []string
	start, fenced := 0, false
	flush := func() {
		if len(cur) > 0 {
			blocks, lines = append(blocks, strings.Join(cur, " ")), append(lines, start)
			cur = nil
		}
	}
	for i, l := range strings.Split(page, "\n") {
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "```"):
			fenced = !fenced
			flush()
		case fenced:
		case strings.HasPrefix(l, "|"):
			flush()
			for _, cell := range strings.Split(strings.Trim(l, "|"), "|") {
				blocks, lines = append(blocks, cell), append(lines, i+1)
			}
		case strings.TrimSpace(l) == "":
			flush()
		default:
			if len(cur) == 0 {
				start = i + 1
			}
			cur = append(cur, l)
		}
	}
	flush()
	return blocks, lines
}

// Every paragraph and table cell of the docs is short enough to read.
func TestDocsParagraphsAreShort(t *testing.T) {
	if blocks, _ := textBlocks("a b\nc\n\n| d | e f |\n```\ng h i\n```\n"); !slices.Equal(blocks, []string{"a b c", " d ", " e f "}) {
		t.Fatalf("textBlocks cuts %q", blocks)
	}
	for _, page := range docPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		blocks, lines := textBlocks(string(data))
		for k, b := range blocks {
			if n := len(strings.Fields(b)); n > maxBlockWords {
				t.Errorf("%s:%d: a paragraph or table cell of %d words (at most %d: split it, or move the detail into a list)",
					filepath.Base(page), lines[k], n, maxBlockWords)
			}
		}
	}
}
