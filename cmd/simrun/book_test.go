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
	"time"

	"github.com/locksim/locksim/book"
	"github.com/locksim/locksim/internal/racedetect"
	"github.com/locksim/locksim/locks"
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

// `simrun book -o site` as the README writes it: the whole built-in matrix
// with the command's defaults, however long it takes (minutes on the
// shared 2-core machine). It exits 0, every link of the site resolves, and
// every cell that is not safe links a scenario file that replays it.
// Under -short or -race it builds a sample (two rows, 20 runs a cell, one
// of them the cut run of set-nx-px-wait under net, two workers: the race
// detector's build of the book) and says so.
func TestBookAsWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	args := []string{"book", "-o", dir}
	if testing.Short() || racedetect.Enabled {
		t.Log("-short or -race: a sample of the book (two rows, --runs 20, --workers 2); go test ./cmd/simrun -run BookAsWritten builds the whole of it")
		matrixAlgorithms = []string{"setnx-del-recover", "set-nx-px-wait"}
		t.Cleanup(func() { matrixAlgorithms = nil })
		args = append(args, "--runs", "20", "--shrink-tries", "300", "--workers", "2")
	}
	start := time.Now()
	code, out, errOut := simrun(args...)
	if code != exitOK || errOut != "" || !strings.HasPrefix(out, "wrote "+dir+": ") {
		t.Fatalf("simrun %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errOut)
	}
	t.Logf("simrun %s in %v: %s", strings.Join(args, " "), time.Since(start).Round(time.Second), strings.TrimSpace(out))
	verdicts := checkSite(t, dir, readSite(t, dir))
	if (testing.Short() || racedetect.Enabled) && !verdicts["incomplete"] {
		t.Errorf("the sample links no cut run (set-nx-px-wait under net was incomplete at run 18): choose a row that has one")
	}
}

// Two builds write the same files with the same bytes (but porcupine's
// page), and the site checks as checkSite says.
func TestBookSite(t *testing.T) {
	// The race detector's build of the book, with two workers, is
	// TestBookAsWritten's sample: a second one here would add a minute
	// and nothing the detector looks for.
	skipUnderRace(t, "TestBookAsWritten's sample builds the book with two workers")
	narrowMatrix(t)
	var dirs []string
	for _, w := range []string{"1", "2"} {
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
	for i := range a {
		if a[i].Path != b[i].Path {
			t.Fatalf("file %d: %s, then %s", i, a[i].Path, b[i].Path)
		}
		if !bytes.Equal(porcupineSrcdoc.ReplaceAll(a[i].Data, nil), porcupineSrcdoc.ReplaceAll(b[i].Data, nil)) {
			t.Errorf("%s differs between two builds", a[i].Path)
		}
	}
	index := ""
	for _, f := range a {
		if f.Path == "index.html" {
			index = string(f.Data)
		}
	}
	if !strings.Contains(index, "<code>simrun book --seed 1 --runs 100 --shrink-tries 300</code>") {
		t.Error("the index does not say how it was made")
	}
	checkSite(t, dirs[0], a)
}

// indexAnswer is one answer of a cell of the index's matrix: its side, its
// link, if any, and the verdict its class names.
var indexAnswer = regexp.MustCompile(`<span class="side">(in|out):</span> (?:<a href="(counterexamples/([a-z0-9-]+)/([a-z]+)-(inside|outside)\.html)" class="v v-([a-z-]+)"|<span class="v v-([a-z-]+)")`)

// checkSite checks a written site: every link resolves; every scenario and
// algorithm has its page; the index's matrix has both answers of every
// cell (an inside one, or — for none), and each answer that is not safe
// links a page and a scenario file that `simrun run` replays with the
// answer's verdict (and, for a cut run, the same cut); each report has its
// porcupine view and the book's links. It returns the verdicts linked.
func checkSite(t *testing.T, dir string, files []book.File) map[string]bool {
	t.Helper()
	if bad := book.CheckLinks(files); bad != nil {
		t.Errorf("%d broken links: %q", len(bad), bad)
	}
	has := map[string][]byte{}
	srcdocs, pages := 0, 0
	for _, f := range files {
		has[f.Path] = f.Data
		srcdocs += len(porcupineSrcdoc.FindAll(f.Data, -1))
		if strings.HasPrefix(f.Path, "counterexamples/") && strings.HasSuffix(f.Path, ".html") {
			pages++
		}
	}
	for _, name := range scenarios.Names() {
		if has["scenarios/"+name+".html"] == nil {
			t.Errorf("no page for scenario %s", name)
		}
	}
	rows := matrixAlgorithms
	if rows == nil {
		rows = locks.Names()
	}
	for _, name := range rows {
		if has["algorithms/"+name+".html"] == nil {
			t.Errorf("no page for algorithm %s", name)
		}
	}
	if srcdocs != len(scenarios.Names())+pages {
		t.Errorf("%d porcupine views, want one per report (%d)", srcdocs, len(scenarios.Names())+pages)
	}
	answers := indexAnswer.FindAllStringSubmatch(string(has["index.html"]), -1)
	if want := 2 * len(rows) * len(scenarios.FaultClasses); len(answers) != want {
		t.Fatalf("%d answers in the index's matrix, want %d (two a cell)", len(answers), want)
	}
	linked, verdicts := map[string]bool{}, map[string]bool{}
	for _, c := range answers {
		side, link, verdict := c[1], c[2], c[6]
		if link == "" {
			if v := c[7]; v != "safe" && !(v == "none" && side == "in") {
				t.Errorf("an answer %s: %s links nothing", side, v)
			}
			continue
		}
		if (side == "in") != (c[5] == "inside") {
			t.Errorf("the %s answer links %s", side, link)
		}
		linked[link], verdicts[verdict] = true, true
		if !strings.Contains(string(has[link]), `<nav class="book"`) {
			t.Errorf("%s has no book links", link)
		}
		yaml := filepath.Join(dir, "counterexamples", c[3], c[4]+"-"+c[5]+".yaml")
		code, out, errOut := simrun("run", yaml, "--json")
		var j struct{ Verdict, Cut string }
		err := json.Unmarshal([]byte(out), &j)
		wantCode := exitViolation
		if verdict == "incomplete" {
			wantCode = exitIncomplete
		}
		if err != nil || code != wantCode || j.Verdict != verdict {
			t.Errorf("%s: exit %d, verdict %q, want %s (stderr %q)", yaml, code, j.Verdict, verdict, errOut)
		}
		if verdict == "incomplete" && (j.Cut == "" || !strings.Contains(string(has[link]), "Cut: "+j.Cut+".")) {
			t.Errorf("%s replays cut by %q, which its page does not say", yaml, j.Cut)
		}
	}
	if len(linked) != pages {
		t.Errorf("%d counterexample pages, %d linked from the matrix", pages, len(linked))
	}
	return verdicts
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
		{[]string{"book", "--pages"}, "simrun book: unknown flag --pages (valid: --fresh, -o, --out, --runs, --seed, --shrink-tries, --workers)\n"},
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
