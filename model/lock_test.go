package model

import (
	"slices"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

// Every lock case runs through Check with porcupine, so the direct verdict
// and porcupine's are asserted side by side.
func TestLockHistories(t *testing.T) {
	tests := []struct {
		name    string
		h       sim.History
		verdict string
		lin     Tri
		kinds   []string
		procs   []string // of the first violation
		from    sim.Time
		to      sim.Time
	}{
		{
			name:    "intervals that touch",
			h:       newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).acquire(1, ms(2), ms(10), 0).release(0, ms(10), ms(11)).release(1, ms(20), ms(21)).build(),
			verdict: VerdictSafe, lin: Yes,
		},
		{
			name:    "intervals that overlap by a nanosecond",
			h:       newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).acquire(1, ms(2), ms(10)-1, 0).release(0, ms(10), ms(11)).release(1, ms(20), ms(21)).build(),
			verdict: VerdictUnsafe, lin: No, kinds: []string{KindOverlap}, procs: []string{"c1", "c2"}, from: ms(10) - 1, to: ms(10),
		},
		{
			name: "crash while holding, then another acquires",
			h: newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).fault(0, ms(5), fault.Crash, 0).
				acquire(1, ms(2), ms(5), 0).release(1, ms(8), ms(9)).build(),
			verdict: VerdictSafe, lin: Yes,
		},
		{
			name: "crash while holding, after another acquired",
			h: newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).acquire(1, ms(2), ms(4), 0).fault(0, ms(5), fault.Crash, 0).
				release(1, ms(8), ms(9)).build(),
			verdict: VerdictUnsafe, lin: No, kinds: []string{KindOverlap}, procs: []string{"c1", "c2"}, from: ms(4), to: ms(5),
		},
		{
			name: "crash, restart, hold again",
			h: newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).fault(0, ms(2), fault.Crash, 0).fault(0, ms(3), fault.Respawn, 0).
				acquire(0, ms(4), ms(5), 0).release(0, ms(6), ms(7)).build(),
			verdict: VerdictSafe, lin: Yes,
		},
		{
			name: "a failed acquire while another holds",
			h: newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).failAcquire(1, ms(2), ms(3)).failAcquire(1, ms(4), ms(6)).
				release(0, ms(10), ms(11)).build(),
			verdict: VerdictSafe, lin: Yes,
		},
		{
			name: "an acquire still in flight when its process crashes",
			h: newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).invoke(1, ms(2)).fault(1, ms(3), fault.Crash, 0).
				release(0, ms(10), ms(11)).build(),
			verdict: VerdictSafe, lin: Yes,
		},
		{
			name:    "a release by a non-holder",
			h:       newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).release(1, ms(2), ms(3)).release(0, ms(10), ms(11)).build(),
			verdict: VerdictUnsafe, lin: No, kinds: []string{KindNotLinearizable}, procs: []string{"c2"}, from: ms(2), to: ms(2),
		},
		{
			name:    "a release after a failed acquire",
			h:       newHist("c1").failAcquire(0, ms(0), ms(1)).release(0, ms(2), ms(3)).build(),
			verdict: VerdictUnsafe, lin: No, kinds: []string{KindNotLinearizable}, procs: []string{"c1"}, from: ms(2), to: ms(2),
		},
		{
			name:    "an acquire while already holding",
			h:       newHist("c1").acquire(0, ms(0), ms(1), 0).acquire(0, ms(2), ms(3), 0).release(0, ms(4), ms(5)).build(),
			verdict: VerdictUnsafe, lin: No, kinds: []string{KindNotLinearizable}, procs: []string{"c1"}, from: ms(3), to: ms(3),
		},
		{
			// Porcupine orders a process's own calls only by time, so at a tie
			// it may put the acquire first, and then the release is valid.
			name:    "a release without holding, at the instant its process acquires",
			h:       newHist("c1").release(0, ms(2), ms(2)).acquire(0, ms(2), ms(4), 0).build(),
			verdict: VerdictSafe, lin: Yes,
		},
		{
			name:    "still holding at the end, nobody else acquires",
			h:       newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).failAcquire(1, ms(2), ms(3)).tick(ms(50)).build(),
			verdict: VerdictSafe, lin: Yes,
		},
		{
			name:    "still holding at the end while another acquires",
			h:       newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).acquire(1, ms(2), ms(30), 0).tick(ms(50)).build(),
			verdict: VerdictUnsafe, lin: No, kinds: []string{KindOverlap}, procs: []string{"c1", "c2"}, from: ms(30), to: ms(50),
		},
		{
			name:    "both acquire at the very last instant",
			h:       newHist("c1", "c2").acquire(0, ms(0), ms(5), 0).acquire(1, ms(0), ms(5), 0).build(),
			verdict: VerdictUnsafe, lin: No, kinds: []string{KindOverlap}, procs: []string{"c1", "c2"}, from: ms(5), to: ms(5),
		},
		{
			name:    "an instant hold inside another's hold",
			h:       newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).acquire(1, ms(2), ms(3), 0).release(1, ms(3), ms(4)).release(0, ms(10), ms(11)).build(),
			verdict: VerdictUnsafe, lin: No, kinds: []string{KindOverlap}, procs: []string{"c1", "c2"}, from: ms(3), to: ms(3),
		},
		{
			name:    "an instant hold at the moment the other releases",
			h:       newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).acquire(1, ms(2), ms(10), 0).release(1, ms(10), ms(11)).release(0, ms(10), ms(12)).build(),
			verdict: VerdictSafe, lin: Yes,
		},
		{
			name: "a failed release still ends the hold",
			h: newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).releaseErr(0, ms(2), ms(9), "timeout").
				acquire(1, ms(3), ms(5), 0).release(1, ms(6), ms(7)).build(),
			verdict: VerdictSafe, lin: Yes,
		},
		{
			name: "a process that stops on a client error while holding",
			h: newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).end(0, ms(2), "int(None)").
				acquire(1, ms(3), ms(5), 0).release(1, ms(6), ms(7)).build(),
			verdict: VerdictClientError, lin: Yes, kinds: []string{KindClientError}, procs: []string{"c1"}, from: ms(2), to: ms(2),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(tc.h, Options{})
			if v.Verdict != tc.verdict || v.Linearizable != tc.lin || !slices.Equal(kinds(v), tc.kinds) {
				t.Fatalf("got %s linearizable=%v kinds=%v, want %s linearizable=%v kinds=%v\n%+v",
					v.Verdict, v.Linearizable, kinds(v), tc.verdict, tc.lin, tc.kinds, v.Violations)
			}
			if len(tc.kinds) == 0 {
				return
			}
			got := v.Violations[0]
			if !slices.Equal(got.Processes, tc.procs) || got.From != tc.from || got.To != tc.to {
				t.Errorf("first violation %v %s..%s, want %v %s..%s (%s)", got.Processes, since(got.From), since(got.To),
					tc.procs, since(tc.from), since(tc.to), got.Detail)
			}
		})
	}
}

// The overlap's witness is the commands each process sent on the lock key
// before the second hold began, not later ones and not other keys.
func TestOverlapWitness(t *testing.T) {
	k := keyVal("x", time.Second)
	h := newHist("c1", "c2").
		cmd(0, 0, ms(1), k, "SET", "lock", "x", "NX", "PX", "1000").acquire(0, ms(0), ms(2), 0).
		cmd(1, 0, ms(3), k, "GET", "other").
		cmd(1, 0, ms(4), k, "EVAL", "return 1", "1", "lock").acquire(1, ms(3), ms(5), 0).
		cmd(0, 0, ms(6), noKey, "DEL", "lock").release(0, ms(6), ms(7)).
		release(1, ms(8), ms(9)).build()
	v := Check(h, Options{})
	if len(v.Violations) != 1 {
		t.Fatalf("violations %+v", v.Violations)
	}
	var got []string
	for _, e := range v.Violations[0].Witness {
		got = append(got, e.Args[0])
	}
	if want := []string{"SET", "EVAL"}; !slices.Equal(got, want) {
		t.Errorf("witness %v, want %v", got, want)
	}
}
