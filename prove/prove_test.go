package prove

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/internal/searchtest"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/search"
)

// TestMain: these tests are searches, run as simrun runs them (internal/searchtest).
func TestMain(m *testing.M) { searchtest.Main(m) }

func run(t *testing.T, o Options) *Result {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCountTinySpace checks that the enumeration is complete on spaces
// small enough to count by hand. One client, one round of set-nx-px-token
// and no contention: the fault-free run has P = 5 choice points (send SET,
// SET's reply, acquired, send EVAL (the release), EVAL's reply).
//
//   - crash, K=1: the fault-free run + one crash at each point = 1 + 5 = 6.
//   - crash, K=2: a crashed client has no later points, so no schedule has
//     two faults: 6 again.
//   - pause, K=2: a pause of TTL/2 changes no point (nobody else runs), so
//     after a pause at point i (0-based) there are 5-1-i points left for
//     the second: 1 + 5 + (4+3+2+1+0) = 16.
//   - pause and crash, K=1: 1 + 5·2 = 11.
//   - delays only (3 of them), D=1: 1 + 5·3 = 16 with every delay
//     offered (DelaysAll); 1 with delays where they race, as nothing
//     else runs.
//   - net, K=1: a lost request or reply is offered at the 2 send points
//     only (SET, EVAL): 1 + 2·2 = 5.
func TestCountTinySpace(t *testing.T) {
	for _, c := range []struct {
		classes []string
		k, d    int
		want    int64
		delays  Delays
	}{
		{[]string{ClassCrash}, 1, 0, 6, DelaysAll},
		{[]string{ClassCrash}, 2, 0, 6, DelaysAll},
		{[]string{ClassShortPause}, 2, 0, 16, DelaysAll},
		{[]string{ClassShortPause, ClassCrash}, 1, 0, 11, DelaysAll},
		{[]string{ClassShortPause}, 0, 1, 16, DelaysAll},
		{[]string{ClassShortPause}, 0, 1, 1, DelaysRaces},
		{[]string{ClassNet}, 1, 0, 5, DelaysAll},
	} {
		r := run(t, Options{Algorithm: "set-nx-px-token", Clients: 1, Rounds: 1, Classes: c.classes, MaxFaults: c.k, MaxDelays: c.d, Delays: c.delays})
		if r.Explored+r.Pruned != c.want || r.Found != nil || !r.Proved() {
			t.Errorf("%v K=%d D=%d %s: explored %d + pruned %d, want %d in all, proved (found %+v)", c.classes, c.k, c.d, c.delays, r.Explored, r.Pruned, c.want, r.Found)
		}
	}
}

// TestProvesReference: the reference lock inside its assumptions (pauses
// shorter than the TTL, crashes) survives every schedule of 2 clients × 2
// rounds with one fault and one reordering. With lost commands too (the
// first space prove was built for: K=1 fault from {pause < TTL, crash, lost reply}; the
// net class brings a lost request too) prove says proved, and the lost
// commands were among the schedules run.
func TestProvesReference(t *testing.T) {
	d := 1
	if testing.Short() {
		d = 0
	}
	without := run(t, Options{Algorithm: "set-nx-px-token", Classes: []string{ClassShortPause, ClassCrash}, MaxFaults: 1, MaxDelays: d})
	if !without.Proved() || without.Explored < 40 {
		t.Fatalf("not proved: found %+v, explored %d, incomplete %d", without.Found, without.Explored, without.Incomplete)
	}
	r := run(t, Options{Algorithm: "set-nx-px-token", Classes: []string{ClassShortPause, ClassCrash, ClassNet}, MaxFaults: 1, MaxDelays: d})
	if !r.Proved() {
		t.Fatalf("not proved: found %+v, explored %d, incomplete %d", r.Found, r.Explored, r.Incomplete)
	}
	if r.Explored <= without.Explored {
		t.Fatalf("explored %d with net, %d without: no lost command was tried", r.Explored, without.Explored)
	}
}

// TestLostCommandFindsSetnxDel: setnx-del's Acquire and Release return a
// timeout as an error (the document says nothing of timeouts), so the first
// lost request is a client-error; a lost SETNX reply leaves the key set for
// ever: stuck. The enumeration goes past the client-error, which comes
// first in canonical order, to the stuck one: the worst verdict met is the
// result, every other one is in Met, and both replay from their files.
func TestLostCommandFindsSetnxDel(t *testing.T) {
	p, err := New(Options{Algorithm: "setnx-del", Classes: []string{ClassNet}, MaxFaults: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	lostReply := []Step{{Client: "c1", Point: "send", N: 1, Choice: "lost reply"}}
	lostRequest := []Step{{Client: "c1", Point: "send", N: 1, Choice: "lost request"}}
	if r.Found == nil || r.Found.Verdict != model.VerdictStuck || !slices.Equal(r.Found.Schedule, lostReply) {
		t.Fatalf("found %+v, want stuck at %v", r.Found, lostReply)
	}
	if len(r.Met) != 2 || r.Met[1].Verdict != model.VerdictClientError || !slices.Equal(r.Met[1].Schedule, lostRequest) {
		t.Fatalf("met %+v, want stuck then a client-error at %v", r.Met, lostRequest)
	}
	for _, f := range r.Met {
		s, o, _, err := p.Shrink(&f)
		if err != nil {
			t.Fatal(err)
		}
		replay(t, s, f.Verdict, o.Digest)
	}
}

// TestRestartMenu: a lock on several nodes gets one restart choice per
// node, each a node-restart of that node triggered on the client's event,
// which validates as a scenario.
func TestRestartMenu(t *testing.T) {
	p, err := New(Options{Algorithm: "redlock", Classes: []string{ClassRestart}, MaxFaults: 1})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range p.menu {
		names = append(names, c.name)
	}
	if want := []string{"restart node0", "restart node1", "restart node2", "restart node3", "restart node4"}; !slices.Equal(names, want) {
		t.Fatalf("menu %v, want %v", names, want)
	}
	s, err := p.Scenario([]Step{{Client: "c2", Point: "reply", N: 3, Choice: "restart node3"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if f := s.Faults[0]; f.Kind != fault.NodeRestart.File() || f.Node == nil || *f.Node != 3 || f.Client != "" || f.On.Client != "c2" {
		t.Fatalf("fault %+v", f)
	}
}

// TestFindsRedlockNodeFaults: redlock's documented node bugs each need one
// node fault and one reordering: with no delay the space is proved (c1
// takes every node first), with one the overlap is found and its file
// replays. restart: a node that granted the lock restarts empty, and
// another client wins a majority with it. node-jump: Redlock's clock-jump
// objection, node0's clock jumps forward by the TTL right after it granted
// c1, so c1's key there expires at once.
func TestFindsRedlockNodeFaults(t *testing.T) {
	for _, c := range []struct{ class, choice string }{
		{ClassRestart, "restart node"},
		{ClassNodeJump, "clock +TTL"},
	} {
		t.Run(c.class, func(t *testing.T) {
			if r := run(t, Options{Algorithm: "redlock", Classes: []string{c.class}, MaxFaults: 1}); !r.Proved() {
				t.Fatalf("K=1, D=0: %+v", r.Found)
			}
			if testing.Short() {
				t.Skip("the search with a delay takes ~10 s")
			}
			p, err := New(Options{Algorithm: "redlock", Classes: []string{c.class}, MaxFaults: 1, MaxDelays: 1})
			if err != nil {
				t.Fatal(err)
			}
			r, err := p.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if r.Found == nil || r.Found.Verdict != model.VerdictUnsafe || !slices.ContainsFunc(r.Found.Schedule, func(s Step) bool { return strings.Contains(s.Choice, c.choice) }) {
				t.Fatalf("found %+v, want an overlap with %q", r.Found, c.choice)
			}
			s, o, _, err := p.Shrink(r.Found)
			if err != nil {
				t.Fatal(err)
			}
			replay(t, s, model.VerdictUnsafe, o.Digest)
		})
	}
}

// replay writes s as a file, reads it back and runs it, as `simrun run`
// does: it must give verdict (and digest, when given).
func replay(t *testing.T, s *scenarios.Scenario, verdict, digest string) {
	t.Helper()
	data, err := scenarios.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := scenarios.Parse("counterexample.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	again, err := judge.Run(back, "", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Verdict.Verdict != verdict || digest != "" && again.Digest != digest || back.Expect != s.Expect {
		t.Fatalf("replay: %s %s (expect %q), want %s %s (expect %q)\n%s", again.Verdict.Verdict, again.Digest, back.Expect, verdict, digest, s.Expect, data)
	}
}

// TestFindsOverlap: with a pause longer than the TTL on the menu, the
// reference lock lets two holders in, and the shrunk counterexample,
// written and read back as a file, replays to the same verdict and digest.
func TestFindsOverlap(t *testing.T) {
	p, err := New(Options{Algorithm: "set-nx-px-token", Classes: []string{ClassShortPause, ClassLongPause, ClassCrash}, MaxFaults: 1, MaxDelays: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Found == nil || r.Found.Verdict != model.VerdictUnsafe || r.Proved() {
		t.Fatalf("no overlap found: %+v", r)
	}
	if len(r.Found.Schedule) != 1 || r.Found.Schedule[0].Choice != "pause 3·TTL/2" {
		t.Fatalf("first counterexample %v, want one long pause", r.Found.Schedule)
	}
	s, o, _, err := p.Shrink(r.Found)
	if err != nil {
		t.Fatal(err)
	}
	if s.Expect != model.VerdictUnsafe {
		t.Fatalf("shrunk counterexample expects %q, want unsafe", s.Expect)
	}
	replay(t, s, model.VerdictUnsafe, o.Digest)
	// The unshrunk schedule replays too.
	raw, err := judge.Run(r.Found.Scenario, "", model.Options{})
	if err != nil || raw.Verdict.Verdict != model.VerdictUnsafe {
		t.Fatalf("unshrunk schedule replays %v, %v", raw, err)
	}
}

// TestFindsDelRace: setnx-del-recover with 3 clients, one crash and one
// reordering: the holder crashes, two waiters both see its timestamp
// expired, and one DELs the other's fresh lock.
func TestFindsDelRace(t *testing.T) {
	var paths [][]int
	for _, w := range []int{1, 2} {
		r := run(t, Options{Algorithm: "setnx-del-recover", Clients: 3, Rounds: 1, Classes: []string{ClassCrash}, MaxFaults: 1, MaxDelays: 1, Workers: w})
		if r.Found == nil || r.Found.Verdict != model.VerdictUnsafe {
			t.Fatalf("workers %d: DEL race not found: %+v", w, r)
		}
		if !slices.ContainsFunc(r.Found.Schedule, func(s Step) bool { return s.Choice == "crash" }) {
			t.Fatalf("schedule %v has no crash", r.Found.Schedule)
		}
		paths = append(paths, r.Found.Path)
	}
	if !slices.Equal(paths[0], paths[1]) {
		t.Fatalf("first counterexample depends on workers: %v", paths)
	}
}

// TestShardsSplitTheSpace: the shards run the fault-free schedule each and
// the rest once between them.
func TestShardsSplitTheSpace(t *testing.T) {
	o := Options{Algorithm: "set-nx-px-token", Classes: []string{ClassShortPause, ClassCrash}, MaxFaults: 1}
	whole := run(t, o).Explored
	var sum int64
	for i := range 3 {
		o.Shard = search.Shard{Index: i, Count: 3}
		sum += run(t, o).Explored
	}
	if sum != whole+2 {
		t.Fatalf("shards explored %d, the whole space %d (+2 fault-free runs)", sum, whole)
	}
}

func TestBadOptions(t *testing.T) {
	for _, c := range []struct {
		o     Options
		field string // the error names it first
	}{
		{Options{Algorithm: "nope"}, "algo: "},
		{Options{Algorithm: "set-nx-px-token", Clients: 65}, "clients: "},
		{Options{Algorithm: "set-nx-px-token", Rounds: 101}, "rounds: "},
		{Options{Algorithm: "set-nx-px-token", MaxFaults: -1}, "max-faults: "},
		{Options{Algorithm: "set-nx-px-token", MaxDelays: 9}, "max-delays: "},
		{Options{Algorithm: "set-nx-px-token", Shard: search.Shard{Index: 3, Count: 2}}, "shard: "},
		{Options{}, "algo: "},
	} {
		if _, err := New(c.o); err == nil || !strings.HasPrefix(err.Error(), c.field) {
			t.Errorf("%+v: error %v, want one naming %q", c.o, err, c.field)
		}
	}
	// A single node's restart is refused alone, and dropped from a longer
	// list, so that no result names a class it never tried.
	if _, err := New(Options{Algorithm: "set-nx-px-token", Classes: []string{ClassRestart}}); err == nil {
		t.Error("restart alone on a single-node lock: no error")
	}
	if p, err := New(Options{Algorithm: "set-nx-px-token", Classes: []string{ClassCrash, ClassRestart}}); err != nil || !slices.Equal(p.opts.Classes, []string{ClassCrash}) {
		t.Errorf("crash,restart on a single-node lock: %v, %v", err, p)
	}
	if _, err := ParseClasses("pause,bogus"); err == nil {
		t.Error("ParseClasses took bogus")
	}
	// One vocabulary: a word means in prove what it means in explore. pause
	// is both pauses and jump both clock jumps, in menu order whatever the
	// order typed; a class prove cannot offer is refused by name, saying why.
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"crash,short-pause", []string{ClassShortPause, ClassCrash}},
		{"crash,pause", []string{ClassShortPause, ClassLongPause, ClassCrash}},
		{"node-jump,jump,short-pause", []string{ClassShortPause, ClassClientJump, ClassNodeJump}},
		{"client-jump", []string{ClassClientJump}},
		{"all", allClasses},
	} {
		if got, err := ParseClasses(c.in); err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseClasses(%s) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, why string }{
		{"skew", "client-jump"}, {"crash,failover", "replicas"}, {"none", "--max-faults 0"}, {"clock-step", "prove takes"},
	} {
		if _, err := ParseClasses(c.in); err == nil || !strings.Contains(err.Error(), c.why) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseClasses(%s): %v, want a one-line refusal saying %q", c.in, err, c.why)
		}
	}
}

// TestClassesAreTheVocabulary fails when prove's menu names a class the
// vocabulary does not have, or refuses, or offers one it does not take.
func TestClassesAreTheVocabulary(t *testing.T) {
	for _, c := range Classes {
		if k := scenarios.ClassOf(c); k == nil || k.NotProved != "" || len(k.Parts) > 0 {
			t.Errorf("menu class %q is not a class of the vocabulary prove offers", c)
		}
	}
	for _, c := range Offered() {
		if _, err := ParseClasses(c); err != nil {
			t.Errorf("offered %q, refused: %v", c, err)
		}
	}
	// Each choice plans a kind its class plans, on the class's target: a
	// client-jump steps a client's clock, a node-jump a node's.
	for _, c := range menuOf(Classes, 0, 3, sizes{ttl: time.Second, k: 1, latency: defaultLatency, short: time.Second / 2}) {
		f := c.fault
		if k := scenarios.ClassOf(c.class); k == nil || !slices.Contains(k.Kinds(), f.EngineKind()) {
			t.Errorf("%s (%s) plans %s, which its class does not", c.name, c.class, f.Kind)
		}
		if (c.class == ClassNodeJump || c.class == ClassRestart) != (f.Node != nil) {
			t.Errorf("%s (%s): on a node %v", c.name, c.class, f.Node != nil)
		}
	}
}
