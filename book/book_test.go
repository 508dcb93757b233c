package book

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/internal/codesteps"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

func outcome(t *testing.T, name string) *judge.Outcome {
	t.Helper()
	s, err := scenarios.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	o, err := judge.Run(s, "", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// testBook is a small book: three scenarios out of course order, two
// algorithms, a matrix of two fault classes with one failing cell, failing
// outside its lock's assumptions only (a built-in's run stands in for its
// counterexample), and one cell with no inside runs.
func testBook(t *testing.T) *Book {
	t.Helper()
	b := &Book{Command: "simrun book --test", Documents: locks.Documents}
	for _, name := range []string{"getset-race", "crash-deadlock", "del-race"} {
		b.Scenarios = append(b.Scenarios, outcome(t, name))
	}
	for _, name := range []string{"setnx-del", "setnx-getset"} {
		a, err := locks.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		src, err := codesteps.Find(locks.SourceFiles(), name)
		if err != nil {
			t.Fatal(err)
		}
		b.Algorithms = append(b.Algorithms, Algorithm{a, src})
	}
	b.Matrix = Matrix{Seed: 1, Runs: 10, ShrinkTries: 100, Algorithms: []string{"setnx-del", "setnx-getset"},
		Classes: []string{"none", "crash"}, Summary: "0 cells unsafe inside, 0 outside (of 4; 1 with no inside runs); failing: 0 inside, 1 outside", Cells: []Cell{
			{Algorithm: "setnx-del", Class: "none", Inside: &Answer{Verdict: "safe"}, Outside: Answer{Verdict: "safe"}},
			{Algorithm: "setnx-del", Class: "crash", Inside: &Answer{Verdict: "safe"}, Outside: Answer{Verdict: "stuck", Text: "stuck #0 (2p/1f)",
				Counterexample: outcome(t, "crash-deadlock"), YAML: []byte("name: x\n")}},
			{Algorithm: "setnx-getset", Class: "none", Inside: &Answer{Verdict: "safe"}, Outside: Answer{Verdict: "safe"}},
			{Algorithm: "setnx-getset", Class: "crash", NoInside: "no inside runs: test", Outside: Answer{Verdict: "safe"}},
		}}
	return b
}

func render(t *testing.T, b *Book) map[string][]byte {
	t.Helper()
	files, err := Render(b)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		if out[f.Path] != nil {
			t.Fatalf("%s written twice", f.Path)
		}
		out[f.Path] = f.Data
	}
	return out
}

func TestRenderPages(t *testing.T) {
	files, err := Render(testBook(t))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	want := []string{"index.html", "scenarios/crash-deadlock.html", "scenarios/del-race.html", "scenarios/getset-race.html",
		"counterexamples/setnx-del/crash-outside.html", "counterexamples/setnx-del/crash-outside.yaml",
		"algorithms/setnx-del.html", "algorithms/setnx-getset.html"}
	if !slices.Equal(paths, want) {
		t.Errorf("files\n%q\nwant\n%q", paths, want)
	}
}

func TestLinksResolve(t *testing.T) {
	files, err := Render(testBook(t))
	if err != nil {
		t.Fatal(err)
	}
	if bad := CheckLinks(files); bad != nil {
		t.Errorf("broken links: %q", bad)
	}
	// And the checker itself fails on links that do not resolve.
	files[0].Data = append(files[0].Data, `<a href="nowhere.html"></a><a href="https://example.com/x"></a><a href="#nope"></a>`+
		`<a href="../../etc/passwd"></a><a href="scenarios/del-race.html#matrix"></a><a href="/index.html"></a>`...)
	got := CheckLinks(files)
	want := []string{
		`index.html: "#nope": index.html has no id "nope"`,
		`index.html: "../../etc/passwd" is no file of the site`,
		`index.html: "/index.html" leaves the site`,
		`index.html: "https://example.com/x" leaves the site`,
		`index.html: "nowhere.html" is no file of the site`,
		`index.html: "scenarios/del-race.html#matrix": scenarios/del-race.html has no id "matrix"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("broken links found:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestScenarioNavFollowsTheCourse(t *testing.T) {
	site := render(t, testBook(t))
	// crash-deadlock (chapter 1) → del-race (2) → getset-race (3), whatever
	// order the book was given them in.
	nav := func(page string) (prev, next string) {
		s := string(site[page])
		if m := regexp.MustCompile(`href="([^"]*)" rel="prev"`).FindStringSubmatch(s); m != nil {
			prev = m[1]
		}
		if m := regexp.MustCompile(`href="([^"]*)" rel="next"`).FindStringSubmatch(s); m != nil {
			next = m[1]
		}
		return
	}
	for _, c := range []struct{ page, prev, next string }{
		{"scenarios/crash-deadlock.html", "", "../scenarios/del-race.html"},
		{"scenarios/del-race.html", "../scenarios/crash-deadlock.html", "../scenarios/getset-race.html"},
		{"scenarios/getset-race.html", "../scenarios/del-race.html", ""},
	} {
		prev, next := nav(c.page)
		if prev != c.prev || next != c.next {
			t.Errorf("%s: prev %q next %q, want %q %q", c.page, prev, next, c.prev, c.next)
		}
		s := string(site[c.page])
		if n := strings.Count(s, `<nav class="book"`); n != 2 {
			t.Errorf("%s: %d book navs, want 2 (top and bottom)", c.page, n)
		}
		if !strings.Contains(s, `href="../index.html"`) || !strings.Contains(s, `<svg class="timeline"`) {
			t.Errorf("%s: no link back to the index, or not the report", c.page)
		}
	}
	if s := string(site["scenarios/del-race.html"]); !strings.Contains(s, "chapter 2 of 3, The DEL race · scenario 2 of 3") {
		t.Error("del-race's page does not say where it is in the course")
	}
}

func TestIndex(t *testing.T) {
	site := render(t, testBook(t))
	index := string(site["index.html"])
	for _, want := range []string{
		`href="counterexamples/setnx-del/crash-outside.html"`, // the failing answer links to its counterexample
		`>stuck #0 (2p/1f)</a>`,
		`<span class="side">in:</span> <span class="v v-safe">safe</span></div><div><span class="side">out:</span> <a href="counterexamples/setnx-del/crash-outside.html"`,
		`<span class="v v-none" title="no inside runs: test">—</span>`, // a cell with no inside runs says so
		`0 cells unsafe inside, 0 outside (of 4; 1 with no inside runs)`,
		`inside</span> <span class="v v-safe">safe in every class it has inside runs of</span>`,
		`href="algorithms/setnx-getset.html"`,
		`<code>simrun book --test</code>`,
		claims["php-setnx-mutex"][:40],
		`<span lang="zh">使用Redis SETNX命令实现分布式锁</span>`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("index lacks %q", want)
		}
	}
	// Every document is there, in the order the course first cites them:
	// the Redis page (crash-deadlock, chapter 1) before lihao21 (del-race).
	at := func(id string) int { return strings.Index(index, `id="doc-`+id+`"`) }
	for _, d := range locks.Documents {
		if at(d.ID) < 0 {
			t.Errorf("index lacks document %s", d.ID)
		}
	}
	if !(at("redis-setnx-page") < at("lihao21-python")) {
		t.Error("documents not in course order")
	}
	// A safe cell is text, not a link.
	if strings.Contains(index, `counterexamples/setnx-del/none`) || strings.Contains(index, `crash-inside`) {
		t.Error("a safe answer links to a counterexample")
	}
}

func TestAlgorithmPage(t *testing.T) {
	site := render(t, testBook(t))
	page := string(site["algorithms/setnx-getset.html"])
	for _, want := range []string{
		"C4 sends SETNX lock.foo in order to acquire the lock", // a document step, from the comment
		"GETSET",                               // the code beside it
		"locks/setnx_getset.go",                // where it is
		`href="../scenarios/getset-race.html"`, // its scenarios
		"<th>crash</th>",                       // its matrix row
		"Departures:",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("setnx-getset's page lacks %q", want)
		}
	}
	if page := string(site["algorithms/setnx-del.html"]); !strings.Contains(page, `href="../counterexamples/setnx-del/crash-outside.html"`) {
		t.Error("setnx-del's matrix row does not link its counterexample")
	}
}

func TestRenderRefuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*Book)
		want   string
	}{
		{"no chapter", func(b *Book) { b.Scenarios[0].Scenario.Name = "brand-new" }, "brand-new is in no chapter"},
		{"twice", func(b *Book) { b.Scenarios = append(b.Scenarios, b.Scenarios[0]) }, "given twice"},
		{"bad name", func(b *Book) { b.Matrix.Classes[0] = "../x" }, `"../x" cannot be a file name`},
		{"no counterexample", func(b *Book) { b.Matrix.Cells[1].Outside.Counterexample = nil }, "setnx-del under crash, outside, is stuck but has no counterexample"},
		{"no inside counterexample", func(b *Book) { b.Matrix.Cells[1].Inside.Verdict = "incomplete" }, "setnx-del under crash, inside, is incomplete but has no counterexample"},
		{"inside and why not", func(b *Book) { b.Matrix.Cells[0].NoInside = "x" }, "setnx-del under none: want an inside answer or why it has none"},
		{"neither", func(b *Book) { b.Matrix.Cells[0].Inside = nil }, "setnx-del under none: want an inside answer or why it has none"},
		{"unknown row", func(b *Book) { b.Algorithms = b.Algorithms[:1] }, "setnx-getset is not among the algorithms"},
		{"missing cell", func(b *Book) { b.Matrix.Cells = b.Matrix.Cells[:3] }, "no cell for setnx-getset under crash"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := testBook(t)
			c.change(b)
			_, err := Render(b)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

// The course holds every built-in once, in the course's order:
// naive SETNX → DEL race → GETSET → pauses → clocks → references → Redlock.
func TestChaptersCoverBuiltins(t *testing.T) {
	seen := map[string]int{}
	for i, ch := range Chapters {
		for _, name := range ch.Scenarios {
			if _, err := scenarios.Lookup(name); err != nil {
				t.Errorf("chapter %q: %v", ch.Title, err)
			}
			if _, dup := seen[name]; dup {
				t.Errorf("%s is in two chapters", name)
			}
			seen[name] = i
		}
	}
	for _, name := range scenarios.Names() {
		if _, ok := seen[name]; !ok {
			t.Errorf("built-in %s is in no chapter", name)
		}
	}
	for name, want := range map[string]int{"crash-deadlock": 0, "del-race": 1, "getset-race": 2, "pause-del-release": 3,
		"clock-skew-steal": 4, "token-pause": 5, "redlock-node-restart": 6} {
		if seen[name] != want {
			t.Errorf("%s in chapter %d, want %d", name, seen[name]+1, want+1)
		}
	}
	for _, d := range locks.Documents {
		if claims[d.ID] == "" {
			t.Errorf("no claim for document %s", d.ID)
		}
	}
}

// porcupine's page is not byte-stable (it iterates a map); the rest is.
var srcdoc = regexp.MustCompile(`srcdoc="[^"]*"`)

// normalise replaces porcupine's page with a placeholder.
func normalise(data []byte) []byte {
	return srcdoc.ReplaceAll(data, []byte(`srcdoc="(porcupine's page)"`))
}

func TestRenderDeterministic(t *testing.T) {
	a, b := render(t, testBook(t)), render(t, testBook(t))
	if len(a) != len(b) {
		t.Errorf("%d files, then %d", len(a), len(b))
	}
	for p := range a {
		if !bytes.Equal(normalise(a[p]), normalise(b[p])) {
			t.Errorf("%s differs between two renders", p)
		}
	}
}

// The pages the book makes itself load nothing: no scripts, styles or
// images from anywhere (the reports are checked in reports/).
func TestSelfContained(t *testing.T) {
	site := render(t, testBook(t))
	for p, data := range site {
		if strings.HasPrefix(p, "scenarios/") || strings.HasPrefix(p, "counterexamples/") {
			continue
		}
		for _, bad := range []*regexp.Regexp{
			regexp.MustCompile(`(?i)<(script|img|iframe|link|source|embed|object)\b`),
			regexp.MustCompile(`(?i)url\(|@import`),
		} {
			if m := bad.Find(data); m != nil {
				t.Errorf("%s loads something: %q", p, m)
			}
		}
	}
}

// writeSite writes a rendered site into dir.
func writeSite(t *testing.T, dir string, site map[string][]byte) {
	t.Helper()
	for p, data := range site {
		f := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Badges say which safety an unsafe verdict broke, in the course and in an
// algorithm's matrix row, and that no fault touched the lock when none did.
func TestBadgesSayWhatBroke(t *testing.T) {
	b := testBook(t)
	for _, o := range b.Scenarios {
		if o.Scenario.Name == "getset-race" {
			o.Result.Faults = []sim.FaultUse{{Fired: true, Why: "c1 had finished"}} // none acted
		}
	}
	b.Matrix.Cells[3] = Cell{Algorithm: "setnx-getset", Class: "crash", Inside: &Answer{Verdict: "unsafe", Broke: model.BrokeOverlap,
		Text: "unsafe #3 (2p/1f) overlap, resource safe", Counterexample: outcome(t, "del-race"), YAML: []byte("name: y\n")},
		Outside: Answer{Verdict: "unsafe", Broke: model.BrokeLostUpdate, Text: "unsafe #1 (2p/1f) lost update",
			Counterexample: outcome(t, "del-race"), YAML: []byte("name: z\n"), BreakingPoint: "a pause of 2.97s"}}
	files := render(t, b)
	index, algo := string(files["index.html"]), string(files["algorithms/setnx-getset.html"])
	for _, want := range []string{
		`del-race</a> <span class="v v-unsafe">unsafe (lost update)</span>`,
		`crash-deadlock</a> <span class="v v-stuck">stuck</span>`,
		`getset-race</a> <span class="v v-safe">safe (but no fault touched the lock)</span>`,
		`title="unsafe #3 (2p/1f) overlap, resource safe">crash: unsafe (overlap, resource safe)</a>`,
		`title="unsafe #1 (2p/1f) lost update">crash: unsafe (lost update)</a>`,
		`href="counterexamples/setnx-getset/crash-inside.html" class="v v-unsafe" title="inside: the counterexample">unsafe #3 (2p/1f) overlap, resource safe</a>`,
		`<div class="muted">breaking point: a pause of 2.97s</div>`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	if !strings.Contains(algo, `href="../counterexamples/setnx-getset/crash-inside.html" class="v v-unsafe" title="inside: the counterexample">unsafe #3 (2p/1f) overlap, resource safe</a>`) {
		t.Errorf("the algorithm's matrix row lacks the cell's text")
	}
}
