package fault

import (
	"slices"
	"testing"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// TestTable fails when a row lacks a part every layer reads: a name, a
// history name, a target, and for a kind a plan may hold its file name,
// length field and classes. Names are unique, and the numbers never move:
// they are hashed into digests.
func TestTable(t *testing.T) {
	kinds := Kinds()
	names := map[string]Kind{}
	for _, k := range kinds {
		s := k.Spec()
		if prev, ok := names[s.Name]; ok {
			t.Errorf("kinds %d and %d are both named %q", prev, k, s.Name)
		}
		names[s.Name] = k
		if s.History == "" || (s.Target != OnClient && s.Target != OnNode) {
			t.Errorf("%s: no history name or no target", s.Name)
		}
		if k.Planned() != (s.Field != 0) {
			t.Errorf("%s: a kind a file writes takes a length field, and only it", s.Name)
		}
		if k.Planned() && len(s.Classes) == 0 {
			t.Errorf("%s: planned under no fault class", s.Name)
		}
		if k.Planned() && OfFile(s.File, s.Target == OnNode) != k {
			t.Errorf("%s: file kind %q aimed at its target is another kind", s.Name, s.File)
		}
	}
	want := map[Kind]string{1: "pause", 2: "crash", 3: "respawn", 4: "client-jump", 5: "node-jump",
		6: "node-restart", 7: "failover", 8: "lose-request", 9: "lose-reply", 10: "watchdog-pause"}
	for k, n := range want {
		if k.Name() != n {
			t.Errorf("kind %d is %q, want %q: a renumbered kind changes every digest", k, k.Name(), n)
		}
	}
	if len(kinds) < len(want) {
		t.Errorf("Kinds() = %v: want at least %d", kinds, len(want))
	}
	// The words histories and files hold, which goldens and scenario files pin.
	history := []string{"pause", "crash", "restart", "proc-clock-jump", "node-clock-jump", "node-restart",
		"failover", "lose-request", "lose-reply", "watchdog-pause"}
	for i, h := range history {
		if k := Kind(i + 1); k.String() != h {
			t.Errorf("%s: history name %q, want %q", k.Name(), k, h)
		}
	}
	files := []string{"pause", "crash", "clock-jump", "node-restart", "failover", "lose-request", "lose-reply", "watchdog-pause"}
	if got := Files(); !slices.Equal(got[:min(len(got), len(files))], files) {
		t.Errorf("Files() = %v, want %v first", got, files)
	}
	if Kind(0).String() != "unknown" || Kind(200).Target() != 0 || Kind(200).Planned() || Kind(200).Mark() != "" {
		t.Error("an unknown kind must be unknown, target nothing, not be planned and have no facts")
	}
}

// TestFactsAgree fails when a kind's facts contradict each other in a way
// the checkers or the reports would show wrong: a crash ends a life, a
// promotion happens on a node that goes down, a shifting clock takes a
// signed length, a lost command or a stopped watchdog is a client's, and
// every kind draws a mark or a bar.
func TestFactsAgree(t *testing.T) {
	for _, k := range Kinds() {
		s := k.Spec()
		if s.Crashes && !s.EndsLife {
			t.Errorf("%s: crashes but does not end a life", s.Name)
		}
		if s.Promotes && (!s.LosesData || s.Target != OnNode) {
			t.Errorf("%s: promotes a replica but is not a node going down", s.Name)
		}
		if s.LosesData && s.Target != OnNode {
			t.Errorf("%s: loses data but targets no node", s.Name)
		}
		if s.ShiftsClock && !k.Signed() && k.Planned() {
			t.Errorf("%s: shifts a clock, which may go backwards, but its length is unsigned", s.Name)
		}
		if (s.LosesCommand || s.StopsWatchdog || s.Pauses || s.EndsLife) && s.Target != OnClient {
			t.Errorf("%s: acts on a client but targets none", s.Name)
		}
		if s.Mark == "" && !s.Pauses {
			t.Errorf("%s: no mark and no pause bar: the reports would not draw it", s.Name)
		}
		if s.Bar == "" {
			t.Errorf("%s: no words for the timeline's bar", s.Name)
		}
	}
}

// TestBreaksTTL names exactly the kinds a plain TTL lock's assumptions
// refuse outright.
func TestBreaksTTL(t *testing.T) {
	var got []Kind
	for _, k := range Kinds() {
		if k.BreaksTTL() != "" {
			got = append(got, k)
		}
	}
	if want := []Kind{NodeJump, NodeRestart, Failover}; !slices.Equal(got, want) {
		t.Errorf("kinds that break a TTL lock: %v, want %v", got, want)
	}
}
