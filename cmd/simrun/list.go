package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/prove"
	"github.com/locksim/locksim/scenarios"
)

type listJSON struct {
	Algorithms []algoJSON     `json:"algorithms"`
	Scenarios  []scenarioJSON `json:"scenarios"`
	Faults     []string       `json:"fault_classes"` // explore's and matrix's --faults
	// ProveFaults is prove's --faults menu: a word in both lists names the
	// same kind of fault (prove's are sized to the TTL).
	ProveFaults []string `json:"prove_fault_classes"`
	// Classes is the whole vocabulary of --faults: every class, and
	// whether explore (with matrix) and prove take it.
	Classes   []classJSON `json:"fault_vocabulary"`
	Documents []docJSON   `json:"documents"` // what a source id cites
}

type classJSON struct {
	Name    string   `json:"name"`
	Faults  string   `json:"faults"`
	Parts   []string `json:"parts,omitempty"` // the classes it is made of
	Explore bool     `json:"explore"`
	Prove   bool     `json:"prove"`
}

type docJSON struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	English string `json:"english_title,omitempty"`
	Author  string `json:"author,omitempty"`
	Site    string `json:"site"`
	Year    string `json:"year,omitempty"`
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
	l.Faults, l.ProveFaults = scenarios.FaultClasses, prove.Classes
	for _, c := range scenarios.Vocabulary {
		l.Classes = append(l.Classes, classJSON{c.Name, c.Faults, c.Parts, c.NotExplored == "", c.NotProved == ""})
	}
	for _, d := range locks.Documents {
		l.Documents = append(l.Documents, docJSON{d.ID, d.Title, d.English, d.Author, d.Site, d.Year})
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(l); err != nil {
			return fail(stderr, "list", err)
		}
		return exitOK
	}
	var algos, scens [][]string
	for _, a := range l.Algorithms {
		algos = append(algos, []string{a.Name, a.Source, a.Summary})
	}
	for _, s := range l.Scenarios {
		scens = append(scens, []string{s.Name, s.Algorithm, s.Expect, s.Summary})
	}
	var docs [][]string
	for _, d := range locks.Documents {
		docs = append(docs, []string{d.ID, strings.TrimPrefix(locks.Cite(d.ID), d.ID+": ")})
	}
	b := &strings.Builder{}
	table(b, []string{"ALGORITHM", "SOURCE", "SUMMARY"}, algos)
	b.WriteString("\n")
	table(b, []string{"SCENARIO", "ALGORITHM", "EXPECT", "SUMMARY"}, scens)
	b.WriteString("\n")
	table(b, []string{"SOURCE", "DOCUMENT"}, docs)
	b.WriteString("\n")
	yes := map[bool]string{true: "yes", false: "-"}
	var classes [][]string
	for _, c := range l.Classes {
		faults := c.Faults
		if len(c.Parts) > 0 {
			faults += ": " + strings.Join(c.Parts, " and ")
		}
		classes = append(classes, []string{c.Name, yes[c.Explore], yes[c.Prove], faults})
	}
	table(b, []string{"FAULT CLASS", "EXPLORE", "PROVE", "FAULTS (--faults; a size is each command's own)"}, classes)
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return fail(stderr, "list", err)
	}
	return exitOK
}

// screenWidth is the most columns a line of list or help takes.
const screenWidth = 100

// table writes rows in columns two spaces apart; the last column wraps at
// word boundaries to screenWidth, under itself.
func table(b *strings.Builder, head []string, rows [][]string) {
	widths := make([]int, len(head))
	for _, r := range append([][]string{head}, rows...) {
		for i, c := range r[:len(r)-1] {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range append([][]string{head}, rows...) {
		lead := ""
		for i, c := range r[:len(r)-1] {
			lead += c + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2)
		}
		wrapWords(b, lead, strings.Repeat(" ", utf8.RuneCountInString(lead)), r[len(r)-1], screenWidth)
	}
}

// wrapWords writes text after first, wrapped at word boundaries to width
// columns, continuation lines starting with rest.
func wrapWords(b *strings.Builder, first, rest, text string, width int) {
	line, n := first, 0
	for _, word := range strings.Fields(text) {
		if n > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line, n = rest, 0
		}
		if n > 0 {
			line += " "
		}
		line += word
		n++
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
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
