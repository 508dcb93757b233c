package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/book"
	"github.com/locksim/locksim/internal/racedetect"
	"github.com/locksim/locksim/scenarios"
)

// readSite reads every file under dir, by slash path.
func readSite(t *testing.T, dir string) []book.File {
	t.Helper()
	var files []book.File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files = append(files, book.File{Path: filepath.ToSlash(rel), Data: data})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// porcupine's page iterates a map: the one part of the site that is not
// byte-stable, as in the reports' golden test.
var porcupineSrcdoc = regexp.MustCompile(`srcdoc="[^"]*"`)

// Two builds write the same files with the same bytes (but porcupine's
// page), every link resolves, the course and every counterexample is
// there, and each counterexample's scenario file replays its cell.
func TestBookSite(t *testing.T) {
	narrowMatrix(t)
	// Under the race detector one build, with two workers: the race is
	// what it looks for, and the plain run compares the two builds.
	var dirs []string
	for _, w := range raceCut([]string{"1", "2"}, []string{"2"}) {
		dir := t.TempDir()
		code, out, errOut := simrun("book", "-o", dir, "--runs", "100", "--shrink-tries", "300", "--workers", w)
		if code != exitOK || errOut != "" || !strings.HasPrefix(out, "wrote "+dir+": ") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
		dirs = append(dirs, dir)
	}
	a, b := readSite(t, dirs[0]), readSite(t, dirs[len(dirs)-1])
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	srcdocs := 0
	for i := range a {
		if a[i].Path != b[i].Path {
			t.Fatalf("file %d: %s, then %s", i, a[i].Path, b[i].Path)
		}
		srcdocs += len(porcupineSrcdoc.FindAll(a[i].Data, -1))
		if !bytes.Equal(porcupineSrcdoc.ReplaceAll(a[i].Data, nil), porcupineSrcdoc.ReplaceAll(b[i].Data, nil)) {
			t.Errorf("%s differs between two builds", a[i].Path)
		}
	}
	if bad := book.CheckLinks(a); bad != nil {
		t.Errorf("broken links: %q", bad)
	}

	has := map[string][]byte{}
	for _, f := range a {
		has[f.Path] = f.Data
	}
	for _, name := range scenarios.Names() {
		if has["scenarios/"+name+".html"] == nil {
			t.Errorf("no page for scenario %s", name)
		}
	}
	for _, name := range matrixAlgorithms {
		if has["algorithms/"+name+".html"] == nil {
			t.Errorf("no page for algorithm %s", name)
		}
	}
	index := string(has["index.html"])
	if !strings.Contains(index, "<code>simrun book --seed 1 --runs 100 --shrink-tries 300</code>") {
		t.Error("the index does not say how it was made")
	}
	// Each failing cell of the index links to a page and a scenario file
	// that replays with the cell's verdict.
	cells := regexp.MustCompile(`href="(counterexamples/([a-z-]+)/([a-z]+)\.html)" class="v v-([a-z-]+)"`).FindAllStringSubmatch(index, -1)
	if len(cells) < 3 {
		t.Fatalf("%d counterexample links in the index", len(cells))
	}
	pages := 0
	for _, f := range a {
		if strings.HasPrefix(f.Path, "counterexamples/") && strings.HasSuffix(f.Path, ".html") {
			pages++
		}
	}
	if srcdocs != len(scenarios.Names())+pages {
		t.Errorf("%d porcupine views, want one per report (%d)", srcdocs, len(scenarios.Names())+pages)
	}
	seen := map[string]bool{}
	for _, c := range cells {
		if seen[c[1]] {
			continue
		}
		seen[c[1]] = true
		yaml := filepath.Join(dirs[0], "counterexamples", c[2], c[3]+".yaml")
		code, out, errOut := simrun("run", yaml, "--json")
		var j struct{ Verdict string }
		if err := json.Unmarshal([]byte(out), &j); err != nil || code != exitViolation || j.Verdict != c[4] {
			t.Errorf("%s: exit %d, verdict %q, want %s (stderr %q)", yaml, code, j.Verdict, c[4], errOut)
		}
		if !strings.Contains(string(has[c[1]]), `<nav class="book"`) {
			t.Errorf("%s has no book links", c[1])
		}
	}
	if len(seen) != pages {
		t.Errorf("%d counterexample pages, %d linked from the matrix", pages, len(seen))
	}
}

func TestBookBadUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"book"}, "simrun book: -o: give the directory to write the site into\n"},
		{[]string{"book", "-o", "x", "--runs", "0"}, "simrun book: --runs: 0: must be at least 1\n"},
		{[]string{"book", "-o", "x", "--shrink-tries", "0"}, "simrun book: --shrink-tries: 0: must be at least 1 (a counterexample page shows the shrunk run)\n"},
		{[]string{"book", "-o", "x", "extra"}, "simrun book: takes no arguments, got [\"extra\"] (the directory goes after -o)\n"},
		{[]string{"book", "--pages"}, "simrun book: unknown flag --pages (valid: -o, --out, --runs, --seed, --shrink-tries, --workers)\n"},
	} {
		code, out, errOut := simrun(c.args...)
		if code != exitUsage || out != "" || errOut != c.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q, want %q", c.args, code, out, errOut, c.want)
		}
	}
	// A file where the directory should be: one line naming -o. Not under
	// the race detector: the book is made first (skipUnderRace says why).
	if !racedetect.Enabled {
		narrowMatrix(t)
		matrixAlgorithms = matrixAlgorithms[:1]
		code, _, errOut := simrun("book", "-o", file, "--runs", "5", "--shrink-tries", "10")
		if code != exitUsage || !strings.HasPrefix(errOut, "simrun book: -o: ") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("-o FILE: exit %d, stderr %q", code, errOut)
		}
	}
	if !slices.Contains(commandNames(), "book") {
		t.Error("book is not a command")
	}
}
