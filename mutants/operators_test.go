package mutants

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/locksim/locksim/locks/algofile"
)

// Every operator applies somewhere in examples/; every mutant loads, is
// another file than its subject, and is made the same way twice.
func TestOperatorsApplyAndLoad(t *testing.T) {
	per := map[string]int{}
	for _, f := range subjects(t) {
		orig, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := Mutate(f)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Mutate(f)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for i, m := range ms {
			per[m.Operator]++
			if names[m.Name()] {
				t.Errorf("%s: two mutants of that name", m.Name())
			}
			names[m.Name()] = true
			if !bytes.Equal(m.YAML, again[i].YAML) {
				t.Errorf("%s: made differently twice", m.Name())
			}
			a, err := m.Load()
			if err != nil {
				t.Errorf("%s: %v", m.Name(), err)
				continue
			}
			if bytes.Equal(m.YAML, orig) || !strings.HasSuffix(a.Name, m.Operator) {
				t.Errorf("%s: not a mutant (its name %q)", m.Name(), a.Name)
			}
		}
	}
	for _, op := range Operators {
		if per[op.Name] == 0 {
			t.Errorf("operator %s applies to no example file", op.Name)
		}
	}
}

// What a mutant is: the file with that one edit, the rest unchanged.
func TestMutantEdits(t *testing.T) {
	ms, err := Mutate("../examples/set-nx-px-token.yaml")
	if err != nil {
		t.Fatal(err)
	}
	u, err := algofile.LoadFile("../examples/set-nx-px-token.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const command = `command: [SET, "{key}", "{token}", NX, PX, "{ttl_ms}"]`
	want := map[string]struct{ has, lacks string }{
		"no-nx":            {`command: [SET, "{key}", "{token}", PX, "{ttl_ms}"]`, command},
		"ttl-unit":         {`command: [SET, "{key}", "{token}", NX, PX, "{ttl_s}"]`, command},
		"no-ttl":           {`command: [SET, "{key}", "{token}", NX]`, command},
		"release-no-check": {`command: [DEL, "{key}"]`, "redis.call"},
		"shared-token":     {"token: shared", "{token}: 20 random"},
		"timeout-held":     {"errors: held", "errors: retry # a timeout"},
	}
	seen := 0
	for _, m := range ms {
		w, ok := want[m.Operator]
		if !ok {
			continue
		}
		seen++
		y := strings.ReplaceAll(string(m.YAML), "'", `"`) // either quote
		if !strings.Contains(y, w.has) || strings.Contains(y, w.lacks) && m.Operator != "shared-token" {
			t.Errorf("%s: want %q and no %q in:\n%s", m.Name(), w.has, w.lacks, y)
		}
		a, err := m.Load()
		if err != nil {
			t.Fatal(err)
		}
		if a.With(u.Defaults).TTL != u.Defaults.TTL || a.Defaults.Key != u.Defaults.Key {
			t.Errorf("%s: the lock's constants changed", m.Name())
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d operators looked for made a mutant of set-nx-px-token.yaml", seen, len(want))
	}
}
