package explore

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

func mustAnswer(t *testing.T, o Options, ao AnswerOptions) *Answers {
	t.Helper()
	a, err := Answer(context.Background(), o, ao)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A correct TTL lock is safe inside and breaks outside at a pause, found
// to the millisecond: the size found breaks it, a millisecond less does
// not, and the counterexample at the breaking point lies outside.
func TestAnswerBreakingPoint(t *testing.T) {
	a := mustAnswer(t, Options{Algorithm: "set-nx-px-token", Classes: []string{"pause"}, Seed: 1, Runs: 200}, AnswerOptions{})
	if a.InsideFind != nil || a.InsideUntested != "" {
		t.Fatalf("inside: %+v %q, want safe", a.InsideFind, a.InsideUntested)
	}
	bp := a.Breaking
	if bp == nil || bp.Kind != scenarios.TermPause || bp.Verdict != model.VerdictUnsafe || bp.Size-bp.Below != time.Millisecond {
		t.Fatalf("breaking point %+v, want an unsafe pause bisected to the millisecond", bp)
	}
	if !strings.HasPrefix(bp.Words, "unsafe from a pause of "+bp.Size.String()+" with ") || !strings.HasSuffix(bp.Words, ", TTL 30s") {
		t.Errorf("words %q", bp.Words)
	}
	if bp.Counterexample.InsideTTL() == nil || bp.Outcome.Verdict.Verdict != model.VerdictUnsafe {
		t.Errorf("the breaking point's run is inside or not unsafe: %v", bp.Outcome.Verdict.Verdict)
	}
	// A millisecond less: not unsafe.
	e, err := New(Options{Algorithm: "set-nx-px-token", Classes: []string{"pause"}, Seed: 1, Runs: 200})
	if err != nil {
		t.Fatal(err)
	}
	less := cloneScenario(bp.Counterexample)
	for i := range less.Faults {
		if less.Faults[i].Kind == fault.Pause.File() && less.Faults[i].For.D() == bp.Size {
			less.Faults[i].For = scenarios.Duration(bp.Below)
		}
	}
	if v, res, err := e.Verdict(less); err != nil || v.Verdict == model.VerdictUnsafe {
		t.Errorf("a pause of %s: %v %v, want not unsafe", bp.Below, v.Verdict, err)
	} else {
		res.Release()
	}
}

// Under every class the pause class alone gives the breaking point, and
// the whole search's first break follows; the answers are the same
// whatever the workers.
func TestAnswerPrefersThePauseClassAndIsDeterministic(t *testing.T) {
	var first *Answers
	for _, w := range []int{1, 2} {
		a := mustAnswer(t, Options{Algorithm: "set-nx-px-token", Classes: []string{"all"}, Seed: 1, Runs: 100, Workers: w},
			AnswerOptions{Outside: true})
		if a.Inside != nil || a.Breaking == nil || a.Breaking.Class != scenarios.ClassPause || len(a.Also) != 1 || a.Also[0].Kind == scenarios.TermPause {
			t.Fatalf("workers %d: breaking %+v, also %+v: want the pause class's, then the whole search's", w, a.Breaking, a.Also)
		}
		if first == nil {
			first = a
			continue
		}
		if a.Breaking.Words != first.Breaking.Words || a.Also[0].Words != first.Also[0].Words ||
			!reflect.DeepEqual(a.Breaking.Counterexample, first.Breaking.Counterexample) {
			t.Errorf("workers %d: %q / %q, workers 1: %q / %q", w, a.Breaking.Words, a.Also[0].Words, first.Breaking.Words, first.Also[0].Words)
		}
	}
}

// A run of the outside search that fails inside the assumptions is an
// inside finding, not a breaking point: the DEL race needs only a crash.
func TestOutsideFindInsideIsAnInsideFinding(t *testing.T) {
	e, err := New(Options{Algorithm: "setnx-del-recover", Classes: []string{"crash"}, Seed: 1, Runs: 400})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Run(context.Background())
	if err != nil || r.Counterexample == nil {
		t.Fatalf("the DEL race was not found: %v", err)
	}
	bp, in, err := e.breaking(context.Background(), r)
	if err != nil || bp != nil || in == nil || in.Verdict != model.VerdictUnsafe || in.Counterexample.InsideTTL() != nil {
		t.Fatalf("breaking point %+v, inside find %+v, %v: want an inside finding", bp, in, err)
	}
}

// neverHeld is a lock whose every Acquire fails, as a client pointed at an
// address nobody serves does.
type neverHeld struct{}

func (neverHeld) Acquire(sim.Proc) (sim.Lease, error) {
	return sim.Lease{}, errors.New("dial tcp 127.0.0.1:1: connection refused")
}
func (neverHeld) Release(sim.Proc, sim.Lease) error { return nil }

// A search in which nobody held the lock answers nothing, in one line
// that says why; with no floor it answers what it met, the failed
// Acquires' client errors, which it was not asked to count.
func TestAnswerNeverPassesOnNothing(t *testing.T) {
	lock := locks.Algorithm{Name: "never", Defaults: locks.Params{Key: "k", TTL: time.Second},
		New: func(locks.Params) sim.Locker { return neverHeld{} }}
	o := Options{Lock: lock, Classes: []string{"none"}, Seed: 1, Runs: 20, Verdicts: []string{model.VerdictUnsafe}}
	a := mustAnswer(t, o, AnswerOptions{})
	for _, line := range []string{a.InsideUntested, a.OutsideUntested} {
		if !strings.HasPrefix(line, "no client ever held the lock in 20 runs (run 0: the first Acquire failed: ") ||
			!strings.Contains(line, "connection refused") || strings.Contains(line, "\n") {
			t.Errorf("untested line %q", line)
		}
	}
	if v := a.InsideReport("").Verdict; v != Untested {
		t.Errorf("inside verdict %s, want %s", v, Untested)
	}
	if a := mustAnswer(t, o, AnswerOptions{MinHeld: -1, Inside: true}); a.InsideUntested != "" || a.InsideReport("").Verdict != model.VerdictClientError {
		t.Errorf("no floor: %q %s", a.InsideUntested, a.InsideReport("").Verdict)
	}
}

// The floor is a share of the runs searched.
func TestUntestedShare(t *testing.T) {
	for _, c := range []struct {
		runs, never int
		min         float64
		want        string
	}{
		{10, 0, 0.5, ""},
		{10, 5, 0.5, ""},
		{10, 6, 0.5, "only 4 of 10 runs reached the critical section, below the 50% a search needs (run 3: why)"},
		{10, 10, 0.5, "no client ever held the lock in 10 runs (run 3: why): nothing was tested"},
		{10, 10, -1, ""},
	} {
		sr := &SearchResult{Runs: c.runs, NeverHeld: c.never, NeverHeldAt: []int{3}, NeverHeldWhy: "why"}
		if got := untested(sr, c.min); got != c.want {
			t.Errorf("%d of %d never held, floor %v: %q, want %q", c.never, c.runs, c.min, got, c.want)
		}
	}
}

// Shards of the inside search and of the outside one are two searches:
// merge refuses to mix them.
func TestMergeRefusesMixedSearches(t *testing.T) {
	in := Report{Algorithm: "a", Faults: []string{"pause"}, Seed: 1, RunsLimit: 10, Shard: "0/2", Search: "inside"}
	out := Report{Algorithm: "a", Faults: []string{"pause"}, Seed: 1, RunsLimit: 10, Shard: "1/2"}
	if _, err := Merge([]Report{in, out}); err == nil || !strings.Contains(err.Error(), "search differ") {
		t.Errorf("merged an inside and an outside shard: %v", err)
	}
	out.Search = "inside"
	if m, err := Merge([]Report{in, out}); err != nil || m.Search != "inside" {
		t.Errorf("two inside shards: %+v %v", m, err)
	}
}
