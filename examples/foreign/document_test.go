package foreign_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/internal/golden"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks/resolve"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/foreign"
)

// needs skips t when lang's lock programs cannot run here, saying why.
func needs(t testing.TB, lang foreign.Lang) {
	t.Helper()
	if err := foreign.Available(lang); err != nil {
		t.Skip(err)
	}
}

// commands is a run's commands and their replies, one line each: what two
// locks that behave alike send and see, whatever their tokens.
func commands(h sim.History) []string {
	var out []string
	for _, e := range h.Events {
		if e.Kind == sim.KindCommandResult {
			out = append(out, fmt.Sprintf("%s %s %s → %s%s", e.At.String(), h.Procs[e.Proc], strings.Join(e.Args, " "), e.Reply.String(), e.Err))
		}
	}
	return out
}

// outcome runs scenario s with lock l: its verdict, its commands, or why
// it cannot run.
func outcome(s *scenarios.Scenario, l resolve.Lock) (string, []string, *judge.Outcome) {
	p, err := l.Prepare(s)
	if err != nil {
		return "n/a: " + firstLine(err.Error()), nil, nil
	}
	o, err := judge.Prepared(s, p, model.Options{})
	if err != nil {
		return "error: " + firstLine(err.Error()), nil, nil
	}
	return o.Verdict.String(), commands(o.Result.History), o
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// TestDocument002AgainstItsMirror runs every built-in scenario with 002's
// code pasted verbatim (python/002-document.py, through 002-setnx.py) and
// with its Go mirror, python-setnx: the table in
// testdata/002-vs-python-setnx.md, where each row says whether the two
// sent the same commands and got the same verdict. docs/foreign.md
// explains each difference.
func TestDocument002AgainstItsMirror(t *testing.T) {
	needs(t, foreign.Python)
	prog, err := resolve.File("python/002-setnx.py")
	if err != nil {
		t.Fatal(err)
	}
	mirror, err := resolve.Name("python-setnx")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| scenario | python-setnx (Go mirror) | 002's code, verbatim | commands |\n|---|---|---|---|\n")
	same := 0
	for _, s := range scenarios.Builtins() {
		mv, mc, _ := outcome(s, mirror)
		pv, pc, _ := outcome(s, prog)
		cmds := "same"
		switch {
		case mc == nil || pc == nil:
			cmds = "—"
		case !slices.Equal(mc, pc):
			i := 0
			for i < len(mc) && i < len(pc) && mc[i] == pc[i] {
				i++
			}
			cmds = fmt.Sprintf("differ from the %s of %d", ordinal(i+1), max(len(mc), len(pc)))
		default:
			if mv == pv {
				same++
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", s.Name, mv, pv, cmds)
	}
	fmt.Fprintf(&b, "\n%d of %d scenarios: the same commands, replies and verdict.\n", same, len(scenarios.Builtins()))
	golden.Check(t, "testdata/002-vs-python-setnx.md", []byte(b.String()))
}

func ordinal(n int) string {
	switch {
	case n%100/10 == 1:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}
