package judge_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// Redlock's restart rules (a delayed restart, AOF persistence): the built-ins beside
// redlock-node-restart join the table of builtin_test.go here.
func init() {
	builtinCases["redlock-delayed-restart"] = builtinCase{mustNot: []finding{overlap("c1", "c2")},
		check: func(t *testing.T, o *judge.Outcome) {
			h := o.Result.History
			// Node 2 is unavailable for its 100 ms plus the 11 s delay, and
			// C2's SET there gets no answer.
			if r := nodeRestart(t, h, 2); r.Dur != 11100*time.Millisecond {
				t.Errorf("node 2 down %v, want 11.1s", r.Dur)
			}
			if got := resultOn(h, "c2", 2, "SET"); got != "timeout: node down" {
				t.Errorf("c2's SET on node 2: %q, want a timeout: node down", got)
			}
			if len(holds(h, "c2")) != 0 {
				t.Error("c2 acquired")
			}
		}}
	builtinCases["redlock-aof-everysec"] = builtinCase{must: []finding{overlap("c1", "c2"), kind(model.KindLostUpdate, "c1", "c2")},
		check: func(t *testing.T, o *judge.Outcome) {
			r := nodeRestart(t, o.Result.History, 2)
			if r.RestartPersistence() != sim.PersistEverysec || r.Key.Exists {
				t.Errorf("node 2's restart: %s, key %+v; want aof-everysec without the key", r.RestartPersistence(), r.Key)
			}
		}}
	builtinCases["redlock-aof-always"] = builtinCase{mustNot: []finding{overlap("c1", "c2")},
		check: func(t *testing.T, o *judge.Outcome) {
			h := o.Result.History
			r := nodeRestart(t, h, 2)
			if r.RestartPersistence() != sim.PersistAlways || !r.Key.Exists || r.Key.TTL <= 9*time.Second {
				t.Errorf("node 2's restart: %s, key %+v; want aof-always with C1's key and most of its TTL", r.RestartPersistence(), r.Key)
			}
			// C2's SET on node 2 is refused: the reloaded key is C1's.
			if got := resultOn(h, "c2", 2, "SET"); got != "(nil)" {
				t.Errorf("c2's SET on node 2: %q, want (nil)", got)
			}
			if len(holds(h, "c2")) != 0 {
				t.Error("c2 acquired")
			}
		}}
}

// nodeRestart is the node-restart event of node n (the run's last one).
func nodeRestart(t *testing.T, h sim.History, n int) sim.Event {
	t.Helper()
	var out *sim.Event
	for i := range h.Events {
		if e := &h.Events[i]; e.Kind == sim.KindFault && e.Fault == fault.NodeRestart && e.Node == n {
			out = e
		}
	}
	if out == nil {
		t.Fatalf("no restart of node %d", n)
	}
	return *out
}

// resultOn is what proc's first cmd on node n got: its error, "(nil)", or
// the reply's string.
func resultOn(h sim.History, proc string, n int, cmd string) string {
	for _, e := range h.Events {
		if e.Kind == sim.KindCommandResult && h.Procs[e.Proc] == proc && e.Node == n && strings.EqualFold(e.Args[0], cmd) {
			switch {
			case e.Err != "":
				return e.Err
			case e.Reply.Kind == 0:
				return "(nil)"
			}
			return e.Reply.Str
		}
	}
	return "no " + cmd
}

// The narratives' edits, replayed.
func TestRestartRuleEdits(t *testing.T) {
	// The everysec edit: node 2 restarts at 1.5 s, after the fsync at 1 s,
	// and C2 starts at 2 s.
	later := func(s *scenarios.Scenario) {
		f := &s.Faults[len(s.Faults)-1]
		f.On, f.At = nil, scenarios.Duration(1500*time.Millisecond)
		client(s, "c2").Start = scenarios.Duration(2 * time.Second)
	}
	for _, c := range []struct {
		scenario, why string
		edit          func(s *scenarios.Scenario)
		verdict       string
	}{
		{"redlock-delayed-restart", "node 2 alone delayed", func(s *scenarios.Scenario) {
			for i := range s.Nodes {
				if i != 2 {
					s.Nodes[i].RestartDelay = 0
				}
			}
		}, model.VerdictSafe},
		{"redlock-delayed-restart", "delay shorter than the TTL", func(s *scenarios.Scenario) {
			// Back at 1.2 s (node 2) and 1.1 s (nodes 3, 4): C2 at 1 s
			// finds them down; the same plan at 1.3 s finds them empty.
			for i := range s.Nodes {
				s.Nodes[i].RestartDelay = scenarios.Duration(100 * time.Millisecond)
			}
			client(s, "c2").Start = scenarios.Duration(1300 * time.Millisecond)
		}, model.VerdictUnsafe},
		{"redlock-aof-everysec", "restart after the next fsync", later, model.VerdictSafe},
		{"redlock-aof-everysec", "the same edit without persistence", func(s *scenarios.Scenario) {
			later(s)
			for i := range s.Nodes {
				s.Nodes[i].Persistence = ""
			}
		}, model.VerdictUnsafe},
	} {
		t.Run(c.scenario+"/"+strings.ReplaceAll(c.why, " ", "_"), func(t *testing.T) {
			s, err := scenarios.Lookup(c.scenario)
			if err != nil {
				t.Fatal(err)
			}
			c.edit(s)
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			o, err := judge.Run(s, "", model.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if o.Verdict.Verdict != c.verdict {
				t.Errorf("verdict %s, want %s", o.Verdict.Verdict, c.verdict)
			}
		})
	}
}
