package mutants

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/diff"
	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/golden"
	"github.com/locksim/locksim/internal/racedetect"
	"github.com/locksim/locksim/internal/searchtest"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/search"
)

// TestMain: these tests are searches, run as simrun runs them (internal/searchtest).
func TestMain(m *testing.M) { searchtest.Main(m) }

// The budget of each front door, the figure's: seed 1, every fault class.
const (
	insideRuns = 1000 // explore with Inside: runs 0 to 999
	diffRuns   = 1000 // simrun diff: runs 0 to 999 of each half
)

// The subjects are the algorithm files of examples/: the reference locks
// (set-nx-px-token.yaml and redlock.yaml reproduce the built-ins command
// for command), the libraries' locks, and the documents' locks.
func subjects(t *testing.T) []string {
	files, err := filepath.Glob("../examples/*.yaml")
	if err != nil || len(files) < 9 {
		t.Fatalf("examples: %v (%d files)", err, len(files))
	}
	return files
}

// references are the subjects that are correct TTL locks: inside their
// assumptions a search meets no failing verdict at all.
var references = []string{"set-nx-px-token", "redlock"}

// brokenByDesign are the documents' locks, broken inside their own
// assumptions as written (docs/algorithms.md): the inside door can only
// notice a mutant of them that meets a verdict they never meet.
var brokenByDesign = map[string]string{
	"setnx-getset": "the SETNX page's C4 client trusts client clocks, and its plain DEL releases whoever holds the key",
	"php-eval":     "its unlock deletes only an expired key, so a holder that finishes in time leaves its key (stale), and a crash leaves it too",
}

// insideDoor is explore with Inside, counting as found only the failing
// verdicts not in base: the verdicts met, each at its first run; the search
// stops at the first run of one of them. A mutant is killed there when it
// meets a failing verdict its unmutated lock never meets under the same
// search: a library whose documented behaviour is a client error
// (redis-py's LockError, redsync's panic on a failed Unlock) has that
// verdict as its baseline, not a kill.
//
// base nil is the baseline's own search: explore's default, which counts
// every failing verdict and stops at unsafe.
func insideDoor(t *testing.T, a locks.Algorithm, base map[string]int) map[string]int {
	var count []string
	if base != nil {
		for _, v := range search.WorstFirst {
			if _, ok := base[v]; !ok {
				count = append(count, v)
			}
		}
		if len(count) == 0 {
			return nil // every failing verdict is the lock's own: nothing to kill with
		}
	}
	e, err := explore.New(explore.Options{Lock: a, Inside: true, Runs: insideRuns, Seed: 1, Verdicts: count})
	if err != nil {
		t.Fatalf("%s: %v", a.Name, err)
	}
	r, err := e.Search(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", a.Name, err)
	}
	met := map[string]int{}
	for _, f := range r.Met {
		if f.Verdict != model.VerdictIncomplete {
			met[f.Verdict] = f.Index
		}
	}
	return met
}

// diffDoor is simrun diff against the unmutated lock: per half, the first
// run worse for the mutant, -1 for none.
func diffDoor(t *testing.T, old, nw locks.Algorithm) map[string]int {
	d, err := diff.New(diff.Options{Old: old, New: nw, Runs: diffRuns, Seed: 1})
	if err != nil {
		t.Fatalf("%s: %v", nw.Name, err)
	}
	out := map[string]int{}
	for _, h := range diff.Halves {
		hr, err := d.Search(context.Background(), h)
		if err != nil {
			t.Fatalf("%s: %v", nw.Name, err)
		}
		out[h] = -1
		if hr.Found != nil {
			out[h] = hr.Found.Index
		}
	}
	return out
}

// kill is one mutant's result at each door.
type kill struct {
	m       Mutant
	inside  string // the new verdict the inside door met, "" none
	diffIn  int    // first run worse for the mutant, inside half; -1 none
	diffOut int
}

func (k kill) byDiff() bool { return k.diffIn >= 0 || k.diffOut >= 0 }
func (k kill) killed() bool { return k.inside != "" || k.byDiff() }

// survivors are the mutants neither door kills within the budget, each
// with why: an equivalent mutant, or where locksim's search does not reach.
var survivors = map[string]string{
	"python-redis-lock:extend-always-held@extend": "equivalent: the file's extend is already silent " +
		"(python-redis-lock's renewal thread dies without telling anyone), so an extend that answers held " +
		"changes only whether renewals go on after the key is lost, and each renewal's script still " +
		"checks the token and renews nothing",
}

func TestMutationFigure(t *testing.T) {
	start := time.Now()
	var all []Mutant
	for _, f := range subjects(t) {
		ms, err := Mutate(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ms...)
	}
	sample := all
	sampled := map[string]bool{} // the subjects of the sample's mutants
	if testing.Short() {
		// Every fourth mutant: a sample, each door at the full budget.
		// Under the race detector, where each run costs several times as
		// much and the detector's memory grows with every one (7 GB for
		// every fourth), every twelfth, and only their subjects' baselines.
		stride := 4
		if racedetect.Enabled {
			stride = 12
		}
		sample = nil
		for i := 0; i < len(all); i += stride {
			sample = append(sample, all[i])
			sampled[all[i].Subject] = true
		}
		t.Logf("-short: every %dth mutant, %d of %d; go test ./mutants -run TestMutationFigure checks them all",
			stride, len(sample), len(all))
	}
	// Each subject's baseline: the verdicts its unmutated lock meets
	// inside, and diff of the lock with itself (loaded twice), which must
	// find nothing: no false kill.
	base := map[string]map[string]int{}
	loaded := map[string]locks.Algorithm{}
	for _, f := range subjects(t) {
		if racedetect.Enabled && !sampled[f] {
			continue // no mutant of it in the race detector's sample
		}
		u, err := algofile.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		twin, err := algofile.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		loaded[f] = u
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		base[f] = insideDoor(t, u, nil)
		// Under -short the self-diff is left to diff's own property test
		// (TestIdenticalLocksNeverDiffer), which checks it on fewer runs.
		if !testing.Short() {
			if d := diffDoor(t, u, twin); d[diff.Inside] >= 0 || d[diff.Outside] >= 0 {
				t.Errorf("%s: diff of the lock with itself found a worse run %v: a false kill", name, d)
			}
		}
		_, unsafe := base[f][model.VerdictUnsafe]
		switch {
		case slices.Contains(references, name) && len(base[f]) > 0:
			t.Errorf("%s, a reference lock, met %v inside its assumptions", name, base[f])
		case unsafe && brokenByDesign[name] == "":
			t.Errorf("%s is unsafe inside its assumptions (run %d): a bug in the lock, or in what inside allows", name, base[f][model.VerdictUnsafe])
		}
	}
	kills := make([]kill, len(sample))
	for i, m := range sample { // one at a time: each door uses every core
		a, err := m.Load()
		if err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		k := kill{m: m}
		met := insideDoor(t, a, base[m.Subject])
		for _, v := range search.WorstFirst {
			if _, ok := met[v]; ok {
				if _, had := base[m.Subject][v]; !had {
					k.inside = v
					break
				}
			}
		}
		d := diffDoor(t, loaded[m.Subject], a)
		k.diffIn, k.diffOut = d[diff.Inside], d[diff.Outside]
		kills[i] = k
		t.Logf("%-70s inside %-12q diff: inside half %d, outside half %d", m.Name(), k.inside, k.diffIn, k.diffOut)
	}
	if t.Failed() {
		return
	}
	table := figure(kills)
	t.Logf("mutation figure (%d of %d mutants, %s):\n%s", len(sample), len(all), time.Since(start).Round(time.Second), table)
	var inside, byDiff, any int
	for _, k := range kills {
		if k.inside != "" {
			inside++
		}
		if k.byDiff() {
			byDiff++
		}
		if k.killed() {
			any++
			if why := survivors[k.m.Name()]; why != "" {
				t.Errorf("%s is listed as surviving (%s) but was killed: take it off the list", k.m.Name(), why)
			}
			continue
		}
		if survivors[k.m.Name()] == "" {
			t.Errorf("%s survives both doors, with no reason listed: a regression in locksim's power, or a new equivalent mutant", k.m.Name())
		}
	}
	if testing.Short() {
		return // a sample: the survivors above are its check
	}
	// The floors: the figure's counts. A change that kills fewer fails
	// here; one that kills more raises them.
	for _, f := range []struct {
		door          string
		killed, floor int
	}{{"inside", inside, 38}, {"diff", byDiff, 83}, {"either", any, 83}} {
		if f.killed < f.floor {
			t.Errorf("the %s door killed %d of %d mutants, below its floor of %d", f.door, f.killed, len(kills), f.floor)
		}
	}
	checkDoc(t, table)
}

// figure is the Markdown table of docs/verdicts.md: per mistake, the
// mutants and how many each door killed.
func figure(kills []kill) string {
	var b strings.Builder
	b.WriteString("| mistake | mutants | inside verdict | diff, inside half | diff, outside half | diff | either |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	type row struct{ n, in, dIn, dOut, d, any int }
	var total row
	for _, op := range Operators {
		var r row
		for _, k := range kills {
			if k.m.Operator != op.Name {
				continue
			}
			r.n++
			count := func(c *int, ok bool) {
				if ok {
					*c++
				}
			}
			count(&r.in, k.inside != "")
			count(&r.dIn, k.diffIn >= 0)
			count(&r.dOut, k.diffOut >= 0)
			count(&r.d, k.byDiff())
			count(&r.any, k.killed())
		}
		if r.n == 0 {
			continue
		}
		fmt.Fprintf(&b, "| `%s`: %s | %d | %d | %d | %d | %d | %d |\n", op.Name, op.Mistake, r.n, r.in, r.dIn, r.dOut, r.d, r.any)
		total.n, total.in, total.dIn, total.dOut, total.d, total.any = total.n+r.n, total.in+r.in, total.dIn+r.dIn, total.dOut+r.dOut, total.d+r.d, total.any+r.any
	}
	fmt.Fprintf(&b, "| **all** | %d | %d | %d | %d | %d | %d |\n", total.n, total.in, total.dIn, total.dOut, total.d, total.any)
	return b.String()
}

// checkDoc compares the figure with the one in docs/verdicts.md, between
// its markers, or rewrites it there with -update.
func checkDoc(t *testing.T, table string) {
	const path = "../docs/verdicts.md"
	const begin, end = "<!-- mutation figure: go test ./mutants -run TestMutationFigure -update -->\n", "<!-- end of the mutation figure -->"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no mutation figure between %q and %q", path, begin, end)
	}
	if got := doc[i+len(begin) : j]; got != table {
		if !golden.Update() {
			t.Errorf("%s's mutation figure is not the measured one (go test ./mutants -run TestMutationFigure -update):\n%s", path, table)
			return
		}
		if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+table+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
