package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/locks"
)

// teamLock is a lock file's algorithm as a test can make one: a 10 s TTL
// and its own key.
var teamLock = locks.Algorithm{Name: "team-lock", Defaults: locks.Params{Key: "team:lock", TTL: 10 * time.Second}}

// A built-in's summary and narrative state the run's lock parameters: the
// lock's own, or the scenario's where it sets them.
func TestWordingFollowsTheRun(t *testing.T) {
	s, err := Lookup("token-pause")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Summary, "holding a 30 s SET NX PX lock") {
		t.Errorf("token-pause's own summary: %q", s.Summary)
	}
	p, err := s.PrepareWith(teamLock)
	if err != nil {
		t.Fatal(err)
	}
	summary, narrative := s.Wording(p)
	if !strings.Contains(summary, "holding a 10 s SET NX PX lock") || strings.Contains(summary, "30 s") {
		t.Errorf("token-pause with a 10 s lock: summary %q", summary)
	}
	for _, want := range []string{"NX PX 10000", "At 10 s Redis expires the key"} {
		if !strings.Contains(narrative, want) {
			t.Errorf("token-pause with a 10 s lock: narrative lacks %q:\n%s", want, narrative)
		}
	}
	// del-race sets ttl: 3s over any lock's own, and the narrative says 3.
	d, err := Lookup("del-race")
	if err != nil {
		t.Fatal(err)
	}
	dp, err := d.PrepareWith(teamLock)
	if err != nil {
		t.Fatal(err)
	}
	if _, n := d.Wording(dp); !strings.Contains(n, "C3 takes team:lock with SETNX <now + 3 + 1>") {
		t.Errorf("del-race with team-lock: narrative:\n%s", n)
	}
	// A summary set after Parse (a counterexample's) is its own.
	s.Summary = "found by explore"
	if got, _ := s.Wording(p); got != "found by explore" {
		t.Errorf("a summary set after Parse was reworded: %q", got)
	}
}

// Written out, a built-in keeps its placeholders, so it reads back the same.
func TestWordingRoundTrip(t *testing.T) {
	s, err := Lookup("token-pause")
	if err != nil {
		t.Fatal(err)
	}
	data, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "holding a {ttl} SET NX PX lock") {
		t.Errorf("Marshal wrote the worded summary, not its template:\n%s", data)
	}
}

func TestWordingErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"summary: \"a {ttl2} lock\"", "summary: {ttl2}: unknown placeholder"},
		{"narrative: \"PX {ttl_ms+x}\"", "narrative: {ttl_ms+x}: want a whole number"},
		{"summary: \"{key+1}\"", "summary: {key+1}: the key takes no offset"},
	} {
		_, err := Parse("w.yaml", []byte("name: w\nalgorithm: set-nx-px-token\n"+c.text+
			"\nseed: 1\nclients: [{name: a, iterations: 1}]\nnetwork: {request: 1ms, reply: 1ms}\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.text, err, c.want)
		}
	}
	if got := spoken(3500 * time.Millisecond); got != "3.5 s" {
		t.Errorf("spoken(3.5s) = %q", got)
	}
	if got := spoken(200 * time.Millisecond); got != "200 ms" {
		t.Errorf("spoken(200ms) = %q", got)
	}
}
