package judge_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// faultNotes are the verdict's notes on faults, in order.
func faultNotes(v model.Verdict) []model.Note {
	var out []model.Note
	for _, n := range v.Notes {
		if strings.HasPrefix(n.Text, "faults[") {
			out = append(out, n)
		}
	}
	return out
}

// TestFaultNotesOfAReplay: redlock-node-restart's plan restarts nodes 2, 3
// and 4; replayed against a one-node lock it touches nothing, and the
// verdict says so, fault by fault, at the time each one fired. Its own
// five-node Redlock meets every fault: no note.
func TestFaultNotesOfAReplay(t *testing.T) {
	s, err := scenarios.Lookup("redlock-node-restart")
	if err != nil {
		t.Fatal(err)
	}
	o, err := judge.Run(s, "set-nx-px-token", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var restarts []sim.Time
	for _, e := range o.Result.History.Events {
		if e.Kind == sim.KindFault {
			restarts = append(restarts, e.At)
		}
	}
	want := []string{
		"faults[0] (node-restart node3): node3 never served this lock",
		"faults[1] (node-restart node4): node4 never served this lock",
		"faults[2] (node-restart node2): node2 never served this lock",
	}
	notes := faultNotes(o.Verdict)
	if len(notes) != len(want) || len(restarts) != len(want) {
		t.Fatalf("notes %+v, restarts at %v: want %d of each", notes, restarts, len(want))
	}
	for i, n := range notes {
		if n.Text != want[i] || n.From != restarts[i] || n.To != restarts[i] || n.Processes != nil {
			t.Errorf("note %d: %+v, want %q at %v with no process", i, n, want[i], restarts[i])
		}
	}
	if !o.Result.Vacuous() {
		t.Error("the replay's faults touched nothing: the run should be vacuous")
	}

	own, err := judge.Run(s, "", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := faultNotes(own.Verdict); len(n) != 0 || own.Result.Vacuous() {
		t.Errorf("redlock-node-restart's own run: fault notes %+v, vacuous %v; want none, false", n, own.Result.Vacuous())
	}
}

// TestFaultNotesNameTheFileKind: a note names the kind as the file writes it
// (clock-jump, not the engine's node-clock-jump), and a client's fault names
// the client among its processes.
func TestFaultNotesNameTheFileKind(t *testing.T) {
	s, err := scenarios.Lookup("redlock-clock-jump")
	if err != nil {
		t.Fatal(err)
	}
	s = s.Clone()
	// c1 has released by 5.1 s, c2 is still running: a pause of c1 then
	// finds it finished.
	s.Faults = append(s.Faults, scenarios.Fault{Kind: fault.Pause.File(), Client: "c1",
		At: scenarios.Duration(5500 * time.Millisecond), For: scenarios.Duration(time.Second)})
	o, err := judge.Run(s, "set-nx-px-token", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	notes := faultNotes(o.Verdict)
	texts := make([]string, len(notes))
	for i, n := range notes {
		texts[i] = n.Text
	}
	for _, want := range []string{
		"faults[2] (clock-jump node2): node2 never served this lock",
		"faults[3] (pause c1): c1 had finished",
	} {
		if !slices.Contains(texts, want) {
			t.Errorf("notes %q: want %q", texts, want)
		}
	}
	last := notes[len(notes)-1]
	if !slices.Equal(last.Processes, []string{"c1"}) || last.From != sim.Time(5500*time.Millisecond) {
		t.Errorf("the pause's note %+v: want c1 at 5.5s", last)
	}
}
