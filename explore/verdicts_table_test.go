package explore

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// tableRow is one row of docs/verdicts.md's table of what each built-in
// lock should answer.
type tableRow struct {
	lock, expiry string
	inside       string   // the derived inside verdict
	classes      []string // the classes the inside search is checked under
	breaking     []string // the breaking point kinds accepted
}

var backticked = regexp.MustCompile("`([^`]+)`")

// verdictTable reads the table between its markers.
func verdictTable(t *testing.T) []tableRow {
	t.Helper()
	data, err := os.ReadFile("../docs/verdicts.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "<!-- verdict table")
	end := strings.Index(doc, "<!-- end of verdict table -->")
	if start < 0 || end < start {
		t.Fatal("docs/verdicts.md: no verdict table between its markers")
	}
	var rows []tableRow
	for _, line := range strings.Split(doc[start:end], "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) != 5 || !strings.HasPrefix(line, "| `") {
			continue
		}
		first := func(cell string) string {
			m := backticked.FindStringSubmatch(cell)
			if m == nil {
				t.Fatalf("docs/verdicts.md: no `word` in %q", cell)
			}
			return m[1]
		}
		r := tableRow{lock: first(cells[0]), expiry: strings.TrimSpace(cells[1]), inside: first(cells[2]),
			classes: strings.Split(first(cells[3]), ",")}
		// The kinds before the first colon (an "and …" aside after it
		// names what the outside search may also report).
		head, _, _ := strings.Cut(cells[4], ":")
		head, _, _ = strings.Cut(head, "(")
		for _, m := range backticked.FindAllStringSubmatch(head, -1) {
			r.breaking = append(r.breaking, m[1])
		}
		rows = append(rows, r)
	}
	return rows
}

// TestVerdictTable runs every built-in lock both ways and compares the
// answers with the table derived by hand in docs/verdicts.md: the inside
// verdict under the row's classes, the expiry its assumptions declare, and
// the kind of the outside search's breaking point under every class.
func TestVerdictTable(t *testing.T) {
	rows := verdictTable(t)
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.lock
	}
	for _, want := range []string{"setnx-del", "set-nx-px-token", "set-nx-px-wait"} {
		if !slices.Contains(names, want) {
			t.Fatalf("the table has no row for %s (rows: %v)", want, names)
		}
	}
	runs := 1000
	if testing.Short() {
		runs = 500
	}
	for i, r := range rows {
		if testing.Short() && i%3 != 0 {
			continue // a sample
		}
		t.Run(r.lock, func(t *testing.T) {
			in, err := Answer(context.Background(), Options{Algorithm: r.lock, Classes: r.classes, Seed: 1, Runs: runs, ShrinkTries: 300},
				AnswerOptions{Inside: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := in.Assumptions.Expiry.String(); got != r.expiry {
				t.Errorf("expiry %s, the table says %s", got, r.expiry)
			}
			if got := in.InsideReport("").Verdict; got != r.inside {
				t.Errorf("inside under %v: %s, the table says %s", r.classes, got, r.inside)
			}
			out, err := Answer(context.Background(), Options{Algorithm: r.lock, Classes: []string{"all"}, Seed: 1, Runs: runs, ShrinkTries: 300},
				AnswerOptions{Outside: true})
			if err != nil {
				t.Fatal(err)
			}
			bp := out.Breaking
			if bp == nil || !slices.Contains(r.breaking, bp.Kind) {
				t.Errorf("outside: breaking point %+v, the table says %v", bp, r.breaking)
			} else {
				t.Logf("inside %s; outside %s", r.inside, bp.Words)
			}
		})
	}
}
