package shrink

import (
	"math"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/locksim/locksim/explore/gen"
	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// big is a scenario with more of everything than a counterexample needs.
func big() *scenarios.Scenario {
	node := 1
	return &scenarios.Scenario{
		Name: "big", Algorithm: "set-nx-px-token", Params: scenarios.Params{TTL: scenarios.Duration(2 * time.Second)},
		Seed: 42, Duration: scenarios.Duration(30 * time.Second), MaxEvents: 100_000,
		Clients: []scenarios.Client{
			{Name: "c1", Iterations: 3, Start: scenarios.Duration(time.Second), Work: scenarios.Duration(400 * time.Millisecond)},
			{Name: "c2", Iterations: 2, Think: scenarios.Duration(300 * time.Millisecond), Clock: scenarios.Clock{DriftPPM: 20_000}},
			{Name: "c3", Iterations: 3, Work: scenarios.Duration(200 * time.Millisecond)},
			{Name: "c4", Iterations: 1},
		},
		Network: scenarios.Network{Request: QuietLatency, Reply: QuietLatency, LossReply: 0.1, Timeout: scenarios.Duration(500 * time.Millisecond)},
		Faults: []scenarios.Fault{
			{Kind: fault.Crash.File(), Client: "c1", At: scenarios.Duration(2 * time.Second)},
			{Kind: fault.Pause.File(), Client: "c3", On: &scenarios.Trigger{Client: "c3", Point: scenarios.PointSend, Command: "SET", N: 2}, For: scenarios.Duration(6 * time.Second)},
			{Kind: fault.NodeJump.File(), Node: &node, At: scenarios.Duration(time.Second), By: scenarios.Duration(-3 * time.Second)},
		},
	}
}

// pausedLong is a stand-in verdict: some client pauses for at least 1s
// while another client exists. It needs no simulation, so the test checks
// the shrinker alone.
func pausedLong(s *scenarios.Scenario) bool {
	if len(s.Clients) < 2 {
		return false
	}
	for _, f := range s.Faults {
		if f.Kind == fault.Pause.File() && f.For.D() >= time.Second {
			return true
		}
	}
	return false
}

// Shrink drops everything the verdict does not need, lowers what remains,
// keeps a margin (halving, not a search down to the boundary), leaves its
// input alone and gives the same result every time.
func TestShrinkStructural(t *testing.T) {
	s := big()
	before, _ := scenarios.Marshal(s)
	got, tries, capped := Shrink(s, pausedLong, 10_000)
	if after, _ := scenarios.Marshal(s); string(after) != string(before) {
		t.Fatal("Shrink changed its input")
	}
	if capped || tries == 0 || tries > 10_000 {
		t.Fatalf("tries %d, capped %v", tries, capped)
	}
	if !pausedLong(got) || len(got.Clients) != 2 || len(got.Faults) != 1 {
		data, _ := scenarios.Marshal(got)
		t.Fatalf("shrunk to %d clients, %d faults:\n%s", len(got.Clients), len(got.Faults), data)
	}
	f := got.Faults[0]
	if f.For.D() < time.Second || f.For.D() >= 2*time.Second {
		t.Errorf("pause %v, want within [1s, 2s): halved from 6s while it fails", f.For)
	}
	if f.On == nil || *f.On != (scenarios.Trigger{Client: "c1", Point: scenarios.PointAcquired, N: 1}) || f.Client != "c1" {
		t.Errorf("fault %+v (on %+v), want on c1's first acquire", f, f.On)
	}
	for _, c := range got.Clients {
		if c.Iterations != 1 || c.Start != 0 || c.Work != 0 || c.Think != 0 || c.Clock != (scenarios.Clock{}) {
			t.Errorf("client %+v not plain", c)
		}
	}
	if got.Network.LossReply != 0 || got.Seed != 0 || got.Duration.D() != time.Second || got.Params.TTL.D() != time.Second {
		t.Errorf("network %+v, seed %d, duration %v, ttl %v: want no loss, seed 0, 1s, 1s", got.Network, got.Seed, got.Duration, got.Params.TTL)
	}
	again, tries2, _ := Shrink(big(), pausedLong, 10_000)
	if !reflect.DeepEqual(got, again) || tries != tries2 {
		t.Error("two shrinks of the same scenario differ")
	}
}

// A budget stops Shrink after that many calls, with the smallest failing
// scenario found so far.
func TestShrinkBudget(t *testing.T) {
	for _, budget := range []int{0, 1, 5} {
		calls := 0
		got, tries, capped := Shrink(big(), func(s *scenarios.Scenario) bool { calls++; return pausedLong(s) }, budget)
		if tries != budget || calls != budget || !capped || !pausedLong(got) {
			t.Errorf("budget %d: %d tries, %d calls, capped %v, fails %v", budget, tries, calls, capped, pausedLong(got))
		}
	}
}

// Shrinks own no shared state: many at once give what one alone gives (run
// with -race, this also checks that they share nothing).
func TestShrinkConcurrent(t *testing.T) {
	want, _, _ := Shrink(big(), pausedLong, 10_000)
	var wg sync.WaitGroup
	got := make([]*scenarios.Scenario, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _, _ = Shrink(big(), pausedLong, 10_000)
		}()
	}
	wg.Wait()
	for i, g := range got {
		if !reflect.DeepEqual(g, want) {
			t.Fatalf("shrink %d of 8 at once differs from one alone", i)
		}
	}
}

// A real verdict: a generated scenario whose pause breaks set-nx-px-token
// shrinks to two clients and that pause, and the result still fails.
func TestShrinkGeneratedRun(t *testing.T) {
	algo, err := locks.Lookup("set-nx-px-token")
	if err != nil {
		t.Fatal(err)
	}
	g, err := gen.Generator(algo, gen.Options{Classes: []string{scenarios.ClassPause}})
	if err != nil {
		t.Fatal(err)
	}
	unsafe := func(s *scenarios.Scenario) bool {
		o, err := judge.Run(s, "", model.Options{SkipPorcupine: true})
		return err == nil && o.Verdict.Verdict == "unsafe"
	}
	for seed := range 200 {
		s := g.Example(seed)
		if !unsafe(s) {
			continue
		}
		got, _, capped := Shrink(s, unsafe, 2000)
		if !unsafe(got) || len(got.Clients) != 2 || len(got.Faults) != 1 || capped {
			data, _ := scenarios.Marshal(got)
			t.Fatalf("seed %d shrunk to %d clients, %d faults (capped %v):\n%s", seed, len(got.Clients), len(got.Faults), capped, data)
		}
		return
	}
	t.Fatal("no unsafe run in 200 seeds")
}

// Shrinking a scenario drawn with the lock's own TTL keeps that TTL; the
// default shrink lowers it.
func TestShrinkKeepTTL(t *testing.T) {
	algo, _ := locks.Lookup("set-nx-px-token")
	g, err := gen.Generator(algo, gen.Options{Classes: []string{"pause"}})
	if err != nil {
		t.Fatal(err)
	}
	s := g.Example(3)
	// Any scenario "fails": the shrinker makes it as small as it may.
	always := func(*scenarios.Scenario) bool { return true }
	kept, _, _ := With(s, always, 2000, Options{KeepTTL: true})
	if kept.Params.TTL.D() != 30*time.Second {
		t.Errorf("KeepTTL: ttl %s, want 30s", kept.Params.TTL.D())
	}
	lowered, _, _ := Shrink(s, always, 2000)
	if lowered.Params.TTL.D() >= 30*time.Second {
		t.Errorf("the default shrink kept ttl %s", lowered.Params.TTL.D())
	}
}

// Every length field of a fault is shrunk, whatever kind takes it: a new
// kind's field needs no change to the shrinker.
func TestFaultLengthsAreEveryDurationField(t *testing.T) {
	for _, name := range []string{"At", "For", "RestartAfter", "By"} {
		if !slices.Contains(faultLengths, name) {
			t.Errorf("faultLengths %v lack %s", faultLengths, name)
		}
	}
}

// TestShrinkKeyIsTheFile: the shrinker's key tells two scenarios apart
// exactly when scenarios.Marshal writes them differently, over generated
// scenarios, big(), and each of them changed in one place at a time (every
// number, string and flag, a pointer set or cleared, a list nil or empty or
// one longer, a zero float made -0). A field Marshal does not write, or
// writes so that two values look alike, fails it, as does a key that skips
// a field or tells a nil list from an empty one.
func TestShrinkKeyIsTheFile(t *testing.T) {
	pool := []*scenarios.Scenario{big()}
	for _, algo := range []string{"set-nx-px-token", "redlock", "php-set-get", "fenced-token"} {
		a, err := locks.Lookup(algo)
		if err != nil {
			t.Fatal(err)
		}
		g, err := gen.Generator(a, gen.Options{Classes: []string{"all"}})
		if err != nil {
			t.Fatal(err)
		}
		for seed := 1; seed <= 8; seed++ {
			pool = append(pool, g.Example(seed))
		}
	}
	var all []*scenarios.Scenario
	for _, s := range pool {
		all = append(all, s)
		for n := 0; ; n++ {
			c, m := s.Clone(), n
			if !changeNth(reflect.ValueOf(c).Elem(), &m) {
				break
			}
			all = append(all, c)
		}
	}
	sh := &shrinker{}
	files := map[[32]byte]string{} // key → file
	keys := map[string][32]byte{}  // file → key
	for _, s := range all {
		k := sh.key(s)
		b, err := scenarios.Marshal(s)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		f := string(b)
		if prev, seen := files[k]; seen && prev != f {
			t.Fatalf("one key for two files:\n%s\n%s", prev, f)
		}
		if prev, seen := keys[f]; seen && prev != k {
			t.Fatalf("two keys for one file:\n%s", f)
		}
		files[k], keys[f] = f, k
	}
	if len(all) < 1000 || len(files) < len(all)/2 {
		t.Fatalf("%d scenarios, %d files: the changes changed little", len(all), len(files))
	}
}

// changeNth makes the n-th change changeNth knows in v (counting down n),
// and reports whether there was one.
func changeNth(v reflect.Value, n *int) bool {
	next := func() bool { *n--; return *n < 0 }
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && changeNth(v.Field(i), n) {
				return true
			}
		}
	case reflect.Slice:
		if next() { // nil and empty swapped
			if v.IsNil() {
				v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			} else if v.Len() == 0 {
				v.Set(reflect.Zero(v.Type()))
			}
			return true
		}
		if next() { // one more, a zero element
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
			return true
		}
		for i := range v.Len() {
			if changeNth(v.Index(i), n) {
				return true
			}
		}
	case reflect.Pointer:
		if next() {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			} else {
				v.Set(reflect.Zero(v.Type()))
			}
			return true
		}
		return !v.IsNil() && changeNth(v.Elem(), n)
	case reflect.String:
		if next() {
			v.SetString(v.String() + "x")
			return true
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if next() {
			v.SetInt(v.Int() + 1)
			return true
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if next() {
			v.SetUint(v.Uint() + 1)
			return true
		}
	case reflect.Bool:
		if next() {
			v.SetBool(!v.Bool())
			return true
		}
	case reflect.Float32, reflect.Float64:
		if next() {
			if v.Float() == 0 {
				v.SetFloat(math.Copysign(0, -1))
			} else {
				v.SetFloat(v.Float() / 2)
			}
			return true
		}
	}
	return false
}
