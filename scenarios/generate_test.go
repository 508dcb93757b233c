package scenarios

import (
	"bytes"
	"flag"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"pgregory.net/rapid"
)

// atLeastChecks makes the rapid.Check calls of this test run at least n
// cases, unless -rapid.checks asks for more.
func atLeastChecks(t *testing.T, n int) {
	f := flag.Lookup("rapid.checks")
	if f == nil {
		t.Fatal("rapid registers no -rapid.checks flag")
	}
	old := f.Value.String()
	if cur, err := strconv.Atoi(old); err == nil && cur >= n {
		return
	}
	if err := f.Value.Set(strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

func TestParseClasses(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		bad  bool
	}{
		{in: "none", want: []string{"none"}},
		{in: "pause,crash", want: []string{"crash", "pause"}},
		{in: "crash, crash ,none", want: []string{"crash"}},
		{in: "all", want: FaultClasses[1:]},
		{in: "net,all", want: FaultClasses[1:]},
		{in: "gc", bad: true},
		{in: "", bad: true},
		{in: "crash,", bad: true},
	}
	for _, c := range cases {
		got, err := ParseClasses(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("ParseClasses(%q) = %v, want an error", c.in, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseClasses(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestGeneratorRejectsUnknownClass(t *testing.T) {
	algo, _ := locks.Lookup("set-nx-px-token")
	if _, err := Generator(algo, GenOptions{Classes: []string{"gc"}}); err == nil {
		t.Fatal("Generator accepted the fault class gc")
	}
}

// Every generated scenario, for every algorithm and every class, is valid,
// replays bit for bit from its file, keeps work below the TTL, and runs.
func TestGeneratedScenarios(t *testing.T) {
	sets := append([][]string{{"all"}}, splitClasses()...)
	for _, algo := range locks.All() {
		gens := make([]*rapid.Generator[*Scenario], len(sets))
		for i, classes := range sets {
			g, err := Generator(algo, GenOptions{Classes: classes})
			if err != nil {
				t.Fatal(err)
			}
			gens[i] = g
		}
		t.Run(algo.Name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				g := gens[rapid.IntRange(0, len(gens)-1).Draw(rt, "classes")]
				checkGenerated(rt, algo, g.Draw(rt, "scenario"))
			})
		})
	}
}

func splitClasses() [][]string {
	var out [][]string
	for _, c := range FaultClasses {
		out = append(out, []string{c})
	}
	return out
}

func checkGenerated(t *rapid.T, algo locks.Algorithm, s *Scenario) {
	if err := s.Validate(); err != nil {
		t.Fatalf("invalid: %v", err)
	}
	if n := len(s.Clients); n < genMinClients || n > genMaxClients {
		t.Fatalf("%d clients", n)
	}
	// The lock's contract: a holder finishes inside its TTL.
	p := algo.With(s.lockParams())
	bound := p.TTL
	if l := algo.Lifetime(s.lockParams()); l > 0 {
		bound = min(bound, l)
	}
	for _, c := range s.Clients {
		if c.Work.D() >= bound {
			t.Fatalf("%s works %s, not below the TTL %s", c.Name, c.Work.D(), bound)
		}
	}
	data, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("generated.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !reflect.DeepEqual(s, back) {
		t.Fatalf("round trip changed the scenario:\n%s", data)
	}
	again, _ := Marshal(back)
	if !bytes.Equal(data, again) {
		t.Fatalf("second Marshal differs:\n%s\n---\n%s", data, again)
	}
	o1, err := s.Execute("", model.Options{SkipPorcupine: true})
	if err != nil {
		t.Fatal(err)
	}
	o2, err := back.Execute("", model.Options{SkipPorcupine: true})
	if err != nil {
		t.Fatal(err)
	}
	if o1.Digest != o2.Digest {
		t.Fatalf("the file replays with another digest")
	}
}

// Example(seed) is a pure function of the seed: what explore relies on.
func TestGeneratorDeterministic(t *testing.T) {
	algo, _ := locks.Lookup("setnx-getset")
	for seed := range 20 {
		g1, _ := Generator(algo, GenOptions{Classes: []string{"all"}})
		g2, _ := Generator(algo, GenOptions{Classes: []string{"all"}})
		a, b := g1.Example(seed), g2.Example(seed)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: two draws differ", seed)
		}
	}
}

// No false positives: set-nx-px-token is never unsafe when a run stays
// inside its assumptions (InsideTTL: work + pauses + 2 × round trip + drift
// over the TTL < TTL, no node restart, no node clock jump). Liveness is not
// claimed: a lost reply may leave a lock nobody holds until its TTL.
func TestTokenLockInsideAssumptionsIsSafe(t *testing.T) {
	atLeastChecks(t, 1000)
	algo, _ := locks.Lookup("set-nx-px-token")
	gen, err := Generator(algo, GenOptions{Classes: []string{"all"}, Inside: true})
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		s := gen.Draw(rt, "scenario")
		if err := s.InsideTTL(); err != nil {
			rt.Fatalf("the Inside generator left the assumptions: %v", err)
		}
		o, err := s.Execute("", model.Options{SkipPorcupine: true})
		if err != nil {
			rt.Fatal(err)
		}
		if o.Verdict.Verdict == model.VerdictUnsafe {
			data, _ := Marshal(s)
			rt.Fatalf("unsafe inside the assumptions: %+v\n%s", o.Verdict.Violations, data)
		}
	})
}

// The same claim on the unconstrained generator: whenever a drawn run
// happens to be inside the assumptions, it is not unsafe.
func TestTokenLockSafeWheneverInside(t *testing.T) {
	algo, _ := locks.Lookup("set-nx-px-token")
	gen, _ := Generator(algo, GenOptions{Classes: []string{"all"}})
	inside := 0
	rapid.Check(t, func(rt *rapid.T) {
		s := gen.Draw(rt, "scenario")
		if s.InsideTTL() != nil {
			return
		}
		inside++
		o, err := s.Execute("", model.Options{SkipPorcupine: true})
		if err != nil {
			rt.Fatal(err)
		}
		if o.Verdict.Verdict == model.VerdictUnsafe {
			data, _ := Marshal(s)
			rt.Fatalf("unsafe inside the assumptions: %+v\n%s", o.Verdict.Violations, data)
		}
	})
	t.Logf("%d runs were inside the assumptions", inside)
}

// Porcupine agrees on a smaller sample: the lock history inside the
// assumptions is linearizable.
func TestTokenLockInsideAssumptionsLinearizable(t *testing.T) {
	algo, _ := locks.Lookup("set-nx-px-token")
	gen, _ := Generator(algo, GenOptions{Classes: []string{"all"}, Inside: true})
	rapid.Check(t, func(rt *rapid.T) {
		s := gen.Draw(rt, "scenario")
		o, err := s.Execute("", model.Options{})
		if err != nil {
			rt.Fatal(err)
		}
		if o.Verdict.Linearizable == model.No {
			data, _ := Marshal(s)
			rt.Fatalf("porcupine: not linearizable inside the assumptions\n%s", data)
		}
	})
}

func TestInsideTTL(t *testing.T) {
	zero := 0
	base := func() *Scenario {
		return &Scenario{Name: "x", Algorithm: "set-nx-px-token", Params: Params{TTL: Duration(1e9)},
			Seed: 1, Duration: Duration(10e9),
			Clients: []Client{{Name: "a", Iterations: 1, Work: Duration(400e6)}, {Name: "b", Iterations: 1}},
			Network: Network{Request: fixedLatency(1e6), Reply: fixedLatency(1e6)}}
	}
	cases := []struct {
		name   string
		change func(*Scenario)
		inside bool
	}{
		{"plain", func(*Scenario) {}, true},
		{"one pause fits", func(s *Scenario) { s.Faults = []Fault{{Kind: FaultPause, Client: "a", For: Duration(500e6)}} }, true},
		{"two pauses add up", func(s *Scenario) {
			s.Faults = []Fault{{Kind: FaultPause, Client: "a", For: Duration(300e6)}, {Kind: FaultPause, Client: "a", For: Duration(300e6)}}
		}, false},
		{"latency", func(s *Scenario) { s.Network.Reply = fixedLatency(300e6) }, false},
		{"drift", func(s *Scenario) { s.Nodes = []Node{{Clock: Clock{DriftPPM: 600_000}}} }, false},
		{"node restart", func(s *Scenario) { s.Faults = []Fault{{Kind: FaultNodeRestart, Node: &zero}} }, false},
		{"node jump", func(s *Scenario) { s.Faults = []Fault{{Kind: FaultClockJump, Node: &zero, By: Duration(1e6)}} }, false},
		{"client jump", func(s *Scenario) { s.Faults = []Fault{{Kind: FaultClockJump, Client: "b", By: Duration(5e9)}} }, true},
	}
	for _, c := range cases {
		s := base()
		c.change(s)
		if err := s.InsideTTL(); (err == nil) != c.inside {
			t.Errorf("%s: InsideTTL() = %v, want inside %v", c.name, err, c.inside)
		}
	}
}

func fixedLatency(d time.Duration) Latency { return Latency{Min: Duration(d), Max: Duration(d)} }

func TestProbeCommands(t *testing.T) {
	for _, name := range []string{"setnx-getset", "set-nx-px-token", "redlock"} {
		algo, _ := locks.Lookup(name)
		if cmds := probeCommands(algo); len(cmds) == 0 {
			t.Errorf("%s: the probe saw no commands", name)
		} else {
			t.Logf("%s: %v", name, cmds)
		}
	}
}
