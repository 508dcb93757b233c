package prove

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/internal/racedetect"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// jumpSpaces hold client clock jumps: set-nx-px-token never reads its
// clock (every last jump is taken unrun), the others store and compare
// timestamps (some jumps must run).
var jumpSpaces = []Options{
	{Algorithm: "set-nx-px-token", Rounds: 1, Classes: []string{ClassCrash, ClassClientJump}, MaxFaults: 1, MaxDelays: 1},
	{Algorithm: "set-nx-px-token", Rounds: 1, Classes: []string{ClassShortPause, ClassClientJump}, MaxFaults: 2},
	{Algorithm: "java-getset", Rounds: 1, Classes: []string{ClassClientJump}, MaxFaults: 2, MaxDelays: 0},
	{Algorithm: "java-getset", Classes: []string{ClassClientJump}, MaxFaults: 2, MaxDelays: 1},
	{Algorithm: "php-eval", Rounds: 1, Classes: []string{ClassClientJump, ClassCrash}, MaxFaults: 2},
	{Algorithm: "setnx-getset", Rounds: 1, Classes: []string{ClassClientJump, ClassShortPause}, MaxFaults: 1, MaxDelays: 1},
	{Algorithm: "setnx-del-recover", Clients: 3, Rounds: 1, Classes: []string{ClassClientJump, ClassCrash}, MaxFaults: 1, MaxDelays: 1},
	{Algorithm: "token-extend", Rounds: 1, Classes: []string{ClassClientJump, ClassLongPause}, MaxFaults: 2},
}

// TestUnreadJumpsFindWhatTheFullSpaceFinds: --jumps unread against the
// full space (ReduceOff, DelaysAll, every jump run) and against the same
// reductions with every jump run: the same outcome, verdicts and first
// schedules; the same schedules judged, each side; and, against its like,
// the same counts, but for the runs it saved.
func TestUnreadJumpsFindWhatTheFullSpaceFinds(t *testing.T) {
	spaces := jumpSpaces
	switch {
	case racedetect.Enabled:
		t.Log("under -race, one space; the plain go test checks them all")
		spaces = spaces[:1]
	case testing.Short():
		spaces = spaces[:3]
	}
	var unrun, ran int64
	for _, o := range spaces {
		o.Reduce, o.Delays = ReduceOff, DelaysAll
		full := run(t, o)
		o.Reduce, o.Delays = ReduceHistory, DelaysRaces
		like := run(t, o)
		o.Jumps = JumpsUnread
		r := run(t, o)
		t.Logf("%s %v K=%d D=%d: %d schedules full, %d reduced, %d of them unrun, %d jumps ran", o.Algorithm, o.Classes, o.MaxFaults, o.MaxDelays,
			full.Explored, r.Explored, r.Unrun, r.JumpsRan)
		if err := sameFindings(full, r); err != nil {
			t.Errorf("%s %v K=%d D=%d, against the full space: %v", o.Algorithm, o.Classes, o.MaxFaults, o.MaxDelays, err)
		}
		if err := sameFindings(like, r); err != nil {
			t.Errorf("%s %v K=%d D=%d, against every jump run: %v", o.Algorithm, o.Classes, o.MaxFaults, o.MaxDelays, err)
		}
		if r.Explored != like.Explored || r.Pruned != like.Pruned || r.Incomplete != like.Incomplete || r.Depth != like.Depth ||
			r.Inside.Schedules != like.Inside.Schedules || r.Outside.Schedules != like.Outside.Schedules || r.Outside.Skipped != like.Outside.Skipped {
			t.Errorf("%s %v: counts %+v with --jumps unread, %+v with every jump run", o.Algorithm, o.Classes, r, like)
		}
		if like.Unrun != 0 || like.JumpsRan != 0 || r.Unrun > r.Explored {
			t.Errorf("%s %v: %d and %d unrun, %d and %d jumps ran", o.Algorithm, o.Classes, like.Unrun, r.Unrun, like.JumpsRan, r.JumpsRan)
		}
		unrun += r.Unrun
		ran += r.JumpsRan
	}
	if unrun == 0 {
		t.Error("no schedule was taken unrun: the test shows nothing")
	}
	if ran == 0 && !racedetect.Enabled && !testing.Short() {
		t.Error("every jump was unread: the test shows nothing of the jumps that must run")
	}
}

// TestUnreadJumpIsItsParent checks the claim itself, schedule by schedule:
// each one taken unrun, run, has its parent's history with one clock-jump
// event more (or none, on a client no longer alive), and its verdict.
func TestUnreadJumpIsItsParent(t *testing.T) {
	spaces := jumpSpaces
	if racedetect.Enabled || testing.Short() {
		spaces = spaces[:1]
	}
	checked, earlier := 0, 0
	for _, o := range spaces {
		o.Jumps = JumpsUnread
		p, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		runOf := func(steps []Step) (*sim.Result, string) {
			s, err := p.Scenario(steps)
			if err != nil {
				t.Fatal(err)
			}
			prep, err := s.PrepareWith(p.algo)
			if err != nil {
				t.Fatal(err)
			}
			res, v, err := judge.Verdict(prep, model.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return res, v.Verdict
		}
		p.onUnrun = func(steps []Step, jump int, verdict string) {
			checked++
			if jump < len(steps)-1 {
				earlier++
			}
			child, cv := runOf(steps)
			defer child.Release()
			without := append(slices.Clone(steps[:jump]), steps[jump+1:]...)
			source, sv := runOf(without)
			defer source.Release()
			if cv != verdict || sv != verdict {
				t.Errorf("%s %v: taken as %s, runs %s, without its jump %d %s", o.Algorithm, steps, verdict, cv, jump, sv)
			}
			// One of the child's jump events of that client, taken out,
			// leaves the history of the schedule without it; or none
			// fired (the client was no longer alive).
			same := child.History.Digest() == source.History.Digest()
			for i, e := range child.History.Events {
				if same {
					break
				}
				if e.Kind == sim.KindFault && e.Fault == fault.ClientJump && e.Proc >= 0 && p.names[e.Proc] == steps[jump].Client {
					h := child.History
					h.Events = append(slices.Clone(h.Events[:i]), h.Events[i+1:]...)
					same = h.Digest() == source.History.Digest()
				}
			}
			if !same {
				t.Errorf("%s %v: its history is not that of the schedule without its jump %d (%d and %d events)", o.Algorithm, steps, jump, len(child.History.Events), len(source.History.Events))
			}
		}
		if _, err := p.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if checked == 0 || earlier == 0 {
		t.Fatalf("%d schedules taken unrun, %d of them by a jump before the last step: the test shows too little", checked, earlier)
	}
	t.Logf("%d schedules taken unrun (%d by an earlier jump), each run and compared", checked, earlier)
}

// The jumps taken unrun are decided from runs, in canonical order: the same
// counts and findings whatever the workers.
func TestUnreadJumpsSameWhateverWorkers(t *testing.T) {
	o := jumpSpaces[0]
	o.Jumps, o.Workers = JumpsUnread, 1
	one := run(t, o)
	o.Workers = 2
	two := run(t, o)
	if one.Explored != two.Explored || one.Unrun != two.Unrun || one.JumpsRan != two.JumpsRan || one.Pruned != two.Pruned || one.Unrun == 0 {
		t.Fatalf("1 worker: %d explored, %d unrun, %d ran; 2 workers: %d, %d, %d", one.Explored, one.Unrun, one.JumpsRan, two.Explored, two.Unrun, two.JumpsRan)
	}
	if err := sameFindings(one, two); err != nil {
		t.Fatal(err)
	}
}

// TestUnreadJumpsProperty: on random small spaces with clock jumps,
// --jumps unread and the full space agree (sameFindings).
func TestUnreadJumpsProperty(t *testing.T) {
	// Locks that never read their clock and locks that do.
	algos := []string{"set-nx-px-token", "setnx-del-recover", "setnx-getset", "php-eval", "java-getset", "fenced-token", "token-extend"}
	checks := 100
	if testing.Short() || racedetect.Enabled {
		checks = 10
	}
	unrun, ran := 0, 0
	setChecks(t, checks)
	rapid.Check(t, func(rt *rapid.T) {
		o := Options{
			Algorithm: rapid.SampledFrom(algos).Draw(rt, "algorithm"),
			Clients:   rapid.IntRange(1, 3).Draw(rt, "clients"),
			Rounds:    rapid.IntRange(1, 2).Draw(rt, "rounds"),
			MaxFaults: rapid.IntRange(1, 2).Draw(rt, "K"),
			MaxDelays: rapid.IntRange(0, 1).Draw(rt, "D"),
		}
		others := []string{ClassShortPause, ClassLongPause, ClassCrash, ClassNet}
		o.Classes = append([]string{ClassClientJump}, rapid.SliceOfNDistinct(rapid.SampledFrom(others), 0, 1, rapid.ID[string]).Draw(rt, "classes")...)
		keepSmall(&o)
		o.Reduce, o.Delays = ReduceOff, DelaysAll
		full := run(t, o)
		o.Reduce, o.Delays, o.Jumps = ReduceHistory, DelaysRaces, JumpsUnread
		r := run(t, o)
		rt.Logf("%+v: %d schedules, %d reduced, %d unrun", o, full.Explored, r.Explored, r.Unrun)
		if err := sameFindings(full, r); err != nil {
			rt.Fatalf("--jumps unread: %v", err)
		}
		if r.Unrun > 0 {
			unrun++
		}
		if r.JumpsRan > 0 {
			ran++
		}
	})
	if !testing.Short() && !racedetect.Enabled && (unrun == 0 || ran == 0) {
		t.Errorf("cases with schedules unrun: %d, with jumps run: %d: the property shows too little", unrun, ran)
	}
}
