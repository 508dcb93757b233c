package gen

import (
	"bytes"
	"flag"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/shrink"
	"pgregory.net/rapid"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
	"github.com/locksim/locksim/internal/searchtest"
)

// TestMain: these tests are searches, run as simrun runs them (internal/searchtest).
func TestMain(m *testing.M) { searchtest.Main(m) }

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

func TestGeneratorRejectsUnknownClass(t *testing.T) {
	algo, _ := locks.Lookup("set-nx-px-token")
	if _, err := Generator(algo, Options{Classes: []string{"gc"}}); err == nil {
		t.Fatal("Generator accepted the fault class gc")
	}
}

// Every generated scenario, for every algorithm and every class, is valid,
// replays bit for bit from its file, keeps work below the TTL, and runs.
func TestGeneratedScenarios(t *testing.T) {
	sets := append([][]string{{"all"}}, splitClasses()...)
	for _, algo := range locks.All() {
		gens := make([]*rapid.Generator[*scenarios.Scenario], len(sets))
		for i, classes := range sets {
			g, err := Generator(algo, Options{Classes: classes})
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
	for _, c := range scenarios.FaultClasses {
		out = append(out, []string{c})
	}
	return out
}

func checkGenerated(t *rapid.T, algo locks.Algorithm, s *scenarios.Scenario) {
	if err := s.Validate(); err != nil {
		t.Fatalf("invalid: %v", err)
	}
	if n := len(s.Clients); n < genMinClients || n > genMaxClients {
		t.Fatalf("%d clients", n)
	}
	// The lock's contract: a holder finishes inside its TTL.
	p := algo.With(s.LockParams())
	bound := p.TTL
	if l := algo.Lifetime(s.LockParams()); l > 0 {
		bound = min(bound, l)
	}
	// A lock whose watchdog renews it may be held past its TTL: up to the
	// drawn work (half the bound) plus twice the bound (leasesLast).
	renews, _ := leaseSupport(algo)
	for _, c := range s.Clients {
		switch {
		case !renews && c.Work.D() >= bound:
			t.Fatalf("%s works %s, not below the TTL %s", c.Name, c.Work.D(), bound)
		case renews && c.Work.D() > bound/2+2*bound:
			t.Fatalf("%s works %s, more than the watchdog's hold allows (TTL %s)", c.Name, c.Work.D(), bound)
		}
	}
	data, err := scenarios.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := scenarios.Parse("generated.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !reflect.DeepEqual(s, back) {
		t.Fatalf("round trip changed the scenario:\n%s", data)
	}
	again, _ := scenarios.Marshal(back)
	if !bytes.Equal(data, again) {
		t.Fatalf("second Marshal differs:\n%s\n---\n%s", data, again)
	}
	o1, err := judge.Run(s, "", model.Options{SkipPorcupine: true})
	if err != nil {
		t.Fatal(err)
	}
	o2, err := judge.Run(back, "", model.Options{SkipPorcupine: true})
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
		g1, _ := Generator(algo, Options{Classes: []string{"all"}})
		g2, _ := Generator(algo, Options{Classes: []string{"all"}})
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
	gen, err := Generator(algo, Options{Classes: []string{"all"}, Inside: true})
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		s := gen.Draw(rt, "scenario")
		if err := s.InsideTTL(); err != nil {
			rt.Fatalf("the Inside generator left the assumptions: %v", err)
		}
		notUnsafe(rt, s)
	})
}

// notUnsafe runs s (a run inside the TTL's assumptions) and fails rt, with
// the scenario, if it is unsafe.
func notUnsafe(rt *rapid.T, s *scenarios.Scenario) {
	o, err := judge.Run(s, "", model.Options{SkipPorcupine: true})
	if err != nil {
		rt.Fatal(err)
	}
	if o.Verdict.Verdict == model.VerdictUnsafe {
		data, _ := scenarios.Marshal(s)
		rt.Fatalf("unsafe inside the assumptions: %+v\n%s", o.Verdict.Violations, data)
	}
}

// The same claim on the unconstrained generator: whenever a drawn run
// happens to be inside the assumptions, it is not unsafe.
func TestTokenLockSafeWheneverInside(t *testing.T) {
	algo, _ := locks.Lookup("set-nx-px-token")
	gen, _ := Generator(algo, Options{Classes: []string{"all"}})
	inside := 0
	rapid.Check(t, func(rt *rapid.T) {
		s := gen.Draw(rt, "scenario")
		if s.InsideTTL() != nil {
			return
		}
		inside++
		notUnsafe(rt, s)
	})
	t.Logf("%d runs were inside the assumptions", inside)
}

// Porcupine agrees on a smaller sample: the lock history inside the
// assumptions is linearizable.
func TestTokenLockInsideAssumptionsLinearizable(t *testing.T) {
	algo, _ := locks.Lookup("set-nx-px-token")
	gen, _ := Generator(algo, Options{Classes: []string{"all"}, Inside: true})
	rapid.Check(t, func(rt *rapid.T) {
		s := gen.Draw(rt, "scenario")
		o, err := judge.Run(s, "", model.Options{})
		if err != nil {
			rt.Fatal(err)
		}
		if o.Verdict.Linearizable == model.No {
			data, _ := scenarios.Marshal(s)
			rt.Fatalf("porcupine: not linearizable inside the assumptions\n%s", data)
		}
	})
}

func TestProbeCommands(t *testing.T) {
	for _, name := range []string{"setnx-getset", "set-nx-px-token", "redlock"} {
		algo, _ := locks.Lookup(name)
		if cmds, _ := probeCommands(algo, false); len(cmds) == 0 {
			t.Errorf("%s: the probe saw no commands", name)
		} else {
			t.Logf("%s: %v", name, cmds)
		}
	}
}

// The shrinker tries the generator's quiet network: a scenario drawn with
// the net class off is already as quiet as shrinking makes it.
func TestShrinkQuietLatencyIsTheGenerators(t *testing.T) {
	if genBaseLatency != shrink.QuietLatency {
		t.Errorf("generator's latency %+v, shrinker's quiet one %+v", genBaseLatency, shrink.QuietLatency)
	}
}

// The lease options are drawn for the locks that support them and only
// for those: token-extend renews (a watchdog period, work past the TTL)
// but is not re-entrant; hash-reentrant-watchdog does both; a lock with
// neither never draws either, so its draws are what they were.
func TestLeasesDrawnWhereSupported(t *testing.T) {
	for _, c := range []struct {
		algo             string
		renews, reenters bool
	}{
		{"token-extend", true, false},
		{"hash-reentrant-watchdog", true, true},
		{"set-nx-px-token", false, false},
		{"redlock", false, false},
		// extend: with no every: offers renewal but runs no watchdog of
		// its own: renew_every 0 would be none, so nothing is drawn.
		{"../../examples/bsm-redislock.yaml", false, false},
	} {
		algo, err := locks.Lookup(c.algo)
		if strings.HasSuffix(c.algo, ".yaml") {
			algo, err = algofile.LoadFile(c.algo)
		}
		if err != nil {
			t.Fatal(err)
		}
		if r, e := leaseSupport(algo); r != c.renews || e != c.reenters {
			t.Fatalf("%s: leaseSupport = renews %v, reenters %v; want %v, %v", c.algo, r, e, c.renews, c.reenters)
		}
		g, err := Generator(algo, Options{Classes: []string{"all"}})
		if err != nil {
			t.Fatal(err)
		}
		var renewed, reentered, pastTTL int
		for seed := range 200 {
			s := g.Example(seed)
			for _, cl := range s.Clients {
				if cl.RenewEvery > 0 {
					renewed++
				}
				if cl.Reenter > 0 {
					reentered++
				}
				if cl.Work > s.Params.TTL {
					pastTTL++
				}
			}
		}
		if (renewed > 0) != c.renews || (pastTTL > 0) != c.renews || (reentered > 0) != c.reenters {
			t.Fatalf("%s over 200 seeds: %d clients with renew_every, %d working past the TTL, %d re-entering",
				c.algo, renewed, pastTTL, reentered)
		}
	}
}

// The Inside generator keeps every lock inside its own assumptions: every
// scenario it draws, for every built-in lock, under every fault class and
// with drawn TTLs too, is InsideTTL()==nil.
func TestInsideGeneratorKeepsEveryLockInside(t *testing.T) {
	for _, algo := range locks.All() {
		for _, draw := range []bool{false, true} {
			g, err := Generator(algo, Options{Classes: []string{"all"}, Inside: true, DrawTTL: draw})
			if err != nil {
				t.Fatal(err)
			}
			n := 300
			if testing.Short() {
				n = 60
			}
			for seed := range n {
				s := g.Example(seed + 1)
				if err := s.InsideTTL(); err != nil {
					data, _ := scenarios.Marshal(s)
					t.Fatalf("%s (draw-ttl %v), seed %d: the Inside generator left the assumptions: %v\n%s", algo.Name, draw, seed+1, err, data)
				}
			}
		}
	}
}
