package gen

import (
	"testing"
	"time"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// By default every drawn scenario keeps the lock's TTL, a built-in's or a
// file's, and sizes the workload, the faults and the event cap by it;
// DrawTTL draws the TTL from 0.5 to 4 s.
func TestOwnTTL(t *testing.T) {
	file, err := algofile.ParseFile("long.yaml", []byte(`
name: long-lock
key: k
ttl: 60s
retry: {attempts: forever, sleep: 1s}
acquire:
  command: [SET, "{key}", "{token}", NX, PX, "{ttl_ms}"]
  success: ok
  errors: retry
release:
  command: [DEL, "{key}"]
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	builtin, _ := locks.Lookup("set-nx-px-token")
	for _, algo := range []locks.Algorithm{file, builtin} {
		own := algo.With(locks.Params{}).TTL
		g, err := Generator(algo, Options{Classes: []string{"all"}})
		if err != nil {
			t.Fatal(err)
		}
		drawn, _ := Generator(algo, Options{Classes: []string{"all"}, DrawTTL: true})
		seen := map[time.Duration]bool{}
		for seed := range 40 {
			s := g.Example(seed)
			if s.Params.TTL.D() != own {
				t.Fatalf("%s seed %d: ttl %s, want the lock's %s", algo.Name, seed, s.Params.TTL.D(), own)
			}
			for _, c := range s.Clients {
				if c.Work.D() > own/2 {
					t.Errorf("%s seed %d: work %s over half the TTL", algo.Name, seed, c.Work.D())
				}
			}
			if s.Duration.D() < own {
				t.Errorf("%s seed %d: the run lasts %s, less than one TTL", algo.Name, seed, s.Duration.D())
			}
			if want := eventCap(own); s.MaxEvents != want || want < min(genMaxEvents*int(own/genDrawnTTLMax), scenarios.MaxEvents) {
				t.Errorf("%s seed %d: event cap %d, want %d, in proportion to the TTL", algo.Name, seed, s.MaxEvents, want)
			}
			ds := drawn.Example(seed)
			d := ds.Params.TTL.D()
			if d < 500*time.Millisecond || d > 4*time.Second {
				t.Errorf("%s seed %d: drawn ttl %s outside 0.5 to 4 s", algo.Name, seed, d)
			}
			if ds.MaxEvents != genMaxEvents {
				t.Errorf("%s seed %d: a drawn TTL's event cap %d, want %d", algo.Name, seed, ds.MaxEvents, genMaxEvents)
			}
			seen[d] = true
		}
		if len(seen) < 3 {
			t.Errorf("%s: drawn TTLs %v barely vary", algo.Name, seen)
		}
		// A 60 s lock's scenario runs to its end.
		s := g.Example(1)
		p, err := s.PrepareWith(algo)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := judge.Prepared(s, p, model.Options{}); err != nil {
			t.Fatal(err)
		}
		if algo.Name == builtin.Name {
			if err := s.Validate(); err != nil {
				t.Errorf("%s: a drawn scenario does not validate: %v", algo.Name, err)
			}
		}
	}
}

// The event cap is the fixed one up to the longest drawn TTL and grows in
// proportion above it, rounded up to whole multiples, up to the engine's
// ceiling.
func TestEventCap(t *testing.T) {
	for _, c := range []struct {
		ttl  time.Duration
		want int
	}{
		{500 * time.Millisecond, genMaxEvents},
		{4 * time.Second, genMaxEvents},
		{4*time.Second + time.Millisecond, 2 * genMaxEvents},
		{8 * time.Second, 2 * genMaxEvents},
		{30 * time.Second, 8 * genMaxEvents},
		{36 * time.Second, 9 * genMaxEvents},
		{time.Minute, scenarios.MaxEvents},
	} {
		if got := eventCap(c.ttl); got != c.want {
			t.Errorf("eventCap(%s) = %d, want %d", c.ttl, got, c.want)
		}
	}
}
