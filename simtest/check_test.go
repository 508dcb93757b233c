package simtest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// builtin is a registered algorithm as a team's constructor: the same code,
// reached through simtest.
func builtin(t testing.TB, name string) NewLocker {
	t.Helper()
	a, err := locks.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return func(p Params) sim.Locker { return a.New(locks.Params{Key: p.Key, TTL: p.TTL}) }
}

func TestCheckPassesTokenLock(t *testing.T) {
	rec := &Recorder{TB: t}
	if !Check(rec, builtin(t, "set-nx-px-token"), Runs(300)) || rec.Failed() {
		t.Fatalf("set-nx-px-token failed under the default faults:\n%s", rec.Message())
	}
}

// A broken lock is caught: the message carries the YAML, which parses,
// the file it was written to, and the Go replay line; replaying the file
// gives the same run.
func TestCheckCatchesBrokenLocks(t *testing.T) {
	for _, c := range []struct {
		algo, faults, verdict string
		opts                  []Option
	}{
		{"setnx-del-recover", "crash", "unsafe", nil}, // the DEL race: inside the lock's assumptions
		// A pause past the TTL lies outside: it fails the test only when
		// asked to.
		{"setnx-getset", "pause", "unsafe", []Option{FailOnAnyFault()}},
		{"python-setnx", "none", "client-error", nil},
	} {
		t.Run(c.algo, func(t *testing.T) {
			dir := t.TempDir()
			rec := &Recorder{TB: t}
			lock := builtin(t, c.algo)
			if Check(rec, lock, append([]Option{Faults(c.faults), FailOn(c.verdict), SaveTo(dir), Runs(20_000)}, c.opts...)...) {
				t.Fatal("Check passed")
			}
			msg := rec.Message()
			path := filepath.Join(dir, fileName(t.Name()))
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"simtest: go-lock is " + strings.ToUpper(c.verdict), string(data),
				replayCall(path, config{failOn: []string{c.verdict}}), "'simrun run " + path + " --algo set-nx-px-token --trace'",
				"\ngo_lock: " + t.Name() + "\n"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q:\n%s", want, msg)
				}
			}
			if s, err := scenarios.Parse(path, data); err != nil || s.Algorithm != "" || s.GoLock != t.Name() {
				t.Errorf("the counterexample does not load as go_lock %s: %v %+v", t.Name(), err, s)
			}
			f, err := Explore(lock, append([]Option{Faults(c.faults), FailOn(c.verdict), SaveTo(""), Runs(20_000)}, c.opts...)...)
			if err != nil || f == nil {
				t.Fatalf("Explore: %v %v", f, err)
			}
			again := &Recorder{TB: t}
			o := Replay(again, lock, path, FailOn(c.verdict))
			if o == nil || o.Verdict.Verdict != c.verdict || o.Digest != f.Outcome.Digest || !again.Failed() {
				t.Errorf("replay: %+v failed %v, want %s with digest %.12s", o, again.Failed(), c.verdict, f.Outcome.Digest)
			}
		})
	}
}

// The same seed finds the same counterexample whatever the workers.
func TestExploreDeterministic(t *testing.T) {
	var want string
	for _, workers := range []int{1, 3, 1} {
		f, err := Explore(builtin(t, "setnx-getset-checked"), Faults("pause"), Seed(7), Workers(workers), SaveTo(""), Runs(20_000), FailOnAnyFault())
		if err != nil || f == nil {
			t.Fatalf("%d workers: %v %v", workers, f, err)
		}
		if by := "Found by: simtest.Explore, faults pause, seed 7 (run "; !strings.Contains(string(f.YAML), by) {
			t.Errorf("%d workers: the narrative lacks %q:\n%s", workers, by, f.YAML)
		}
		if got := string(f.YAML); want == "" {
			want = got
		} else if got != want {
			t.Errorf("%d workers:\n%s\nwant:\n%s", workers, got, want)
		}
	}
}

// Without a file, the message says to save the YAML and replays FILE.
func TestNoSave(t *testing.T) {
	f, err := Explore(builtin(t, "setnx-del-recover"), Faults("crash"), SaveTo(""), Runs(20_000))
	if err != nil || f == nil {
		t.Fatalf("%v %v", f, err)
	}
	if f.Path != "" || !strings.Contains(f.Message, "save it as a file, FILE below") || !strings.Contains(string(f.YAML), "\ngo_lock: "+DefaultName+"\n") ||
		!strings.Contains(f.Message, `simtest.Replay(t, newLocker, "FILE")`) {
		t.Errorf("path %q, message:\n%s", f.Path, f.Message)
	}
}

// Bad options fail the test with one message naming the option; nothing runs.
func TestBadOptions(t *testing.T) {
	for _, c := range []struct {
		opt  Option
		want string
	}{
		{Faults("gc"), `simtest.Faults(["gc"]): "gc" is not a fault class`},
		{Faults(), "simtest.Faults(): no fault class"},
		{FailOn("safe"), `simtest.FailOn(["safe"]): "safe": want unsafe`},
		{FailOn(), "simtest.FailOn(): no verdict"},
		{Runs(0), "simtest.Runs(0)"},
		{Workers(0), "simtest.Workers(0)"},
		{ShrinkTime(0), "simtest.ShrinkTime(0s)"},
		{Key(""), `simtest.Key("")`},
		{Resolution(2 * time.Second), "simtest.Resolution(2s)"},
		{Name("my lock"), `simtest.Name("my lock")`},
		{TTL(0), "simtest.TTL(0s)"},
		{TTL(2 * time.Hour), "simtest.TTL(2h0m0s)"},
	} {
		rec := &Recorder{TB: t}
		if Check(rec, builtin(t, "set-nx-px-token"), c.opt) || len(rec.Messages()) != 1 || !strings.Contains(rec.Message(), c.want) {
			t.Errorf("%s: messages %q", c.want, rec.Messages())
		}
	}
	rec := &Recorder{TB: t}
	if Check(rec, nil) || !strings.Contains(rec.Message(), "no NewLocker") {
		t.Errorf("nil NewLocker: %q", rec.Messages())
	}
}

// Replay takes a built-in scenario too; a Go lock that is a built-in's code
// gives the built-in's history, digest included.
func TestReplayBuiltin(t *testing.T) {
	for _, c := range []struct{ scenario, algo string }{
		{"del-race", "set-nx-px-token"},
		{"token-pause", "set-nx-px-token"},
		{"del-race", "setnx-del-recover"},
	} {
		s, err := scenarios.Resolve(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		want, err := judge.Run(s, c.algo, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := locks.Lookup(c.algo)
		rec := &Recorder{TB: t}
		o := Replay(rec, builtin(t, c.algo), c.scenario, Key(a.Defaults.Key), FailOn("unsafe", "stuck", "stale", "client-error"))
		if o == nil || o.Digest != want.Digest || rec.Failed() != (want.Verdict.Verdict != "safe") {
			t.Errorf("%s: digest %v, failed %v; the built-in: %s, %s", c.scenario, o, rec.Failed(), want.Digest, want.Verdict.Verdict)
		}
	}
	rec := &Recorder{TB: t}
	if Replay(rec, builtin(t, "set-nx-px-token"), "no-such.yaml") != nil || !strings.Contains(rec.Message(), "no-such.yaml") {
		t.Errorf("a missing file: %q", rec.Messages())
	}
}

func TestReplayCall(t *testing.T) {
	for _, c := range []struct {
		failOn []string
		want   string
	}{
		{DefaultFailOn, `simtest.Replay(t, newLocker, "f.yaml")`},
		{[]string{"unsafe", "stuck"}, `simtest.Replay(t, newLocker, "f.yaml", simtest.FailOn("unsafe", "stuck"))`},
	} {
		if got := replayCall("f.yaml", config{failOn: c.failOn}); got != c.want {
			t.Errorf("%v: %s, want %s", c.failOn, got, c.want)
		}
	}
}

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{
		"TestLock":              "TestLock.yaml",
		"TestLock/pause,net":    "TestLock_pause_net.yaml",
		"TestLock/a b/../c.d-e": "TestLock_a_b_.._c.d-e.yaml",
	} {
		if got := fileName(in); got != want {
			t.Errorf("fileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// A correct TTL lock passes under pauses: a pause past its TTL lies outside
// its assumptions, and the log says where it breaks; asked to fail on any
// fault, the same search fails.
func TestCheckAnswersInsideAndLogsTheBreakingPoint(t *testing.T) {
	rec := &Recorder{TB: t}
	if !Check(rec, builtin(t, "set-nx-px-token"), Faults("pause"), Runs(300), SaveTo("")) || rec.Failed() {
		t.Fatalf("set-nx-px-token failed inside its assumptions:\n%s", rec.Message())
	}
	if log := rec.Logs(); !strings.Contains(log, "outside the lock's assumptions") || !strings.Contains(log, "unsafe from a pause of ") {
		t.Errorf("the log lacks the breaking point:\n%s", log)
	}
	rec = &Recorder{TB: t}
	if Check(rec, builtin(t, "set-nx-px-token"), Faults("pause"), Runs(300), SaveTo(""), FailOnAnyFault()) {
		t.Fatal("FailOnAnyFault: passed a pause past the TTL")
	}
	if msg := rec.Message(); !strings.Contains(msg, "UNSAFE outside its assumptions") {
		t.Errorf("message:\n%s", msg)
	}
	// Explore is the one search as before, any violation; Answer is Check's.
	if f, err := Explore(builtin(t, "set-nx-px-token"), Faults("pause"), Runs(300), SaveTo("")); err != nil || f == nil || f.Verdict != "unsafe" {
		t.Errorf("Explore: %+v %v, want the pause past the TTL", f, err)
	}
	f, a, err := Answer(builtin(t, "set-nx-px-token"), Faults("pause"), Runs(300), SaveTo(""))
	if err != nil || f != nil || a.Breaking == nil || a.InsideFind != nil {
		t.Errorf("Answer: %+v %+v %v, want safe inside and a breaking point", f, a, err)
	}
}

// neverLocks is a lock whose every Acquire fails, as a client pointed at
// an address nobody serves does.
type neverLocks struct{}

func (neverLocks) Acquire(p sim.Proc) (sim.Lease, error) {
	return sim.Lease{}, errors.New("dial tcp 127.0.0.1:1: connection refused")
}
func (neverLocks) Release(sim.Proc, sim.Lease) error { return nil }

// A search in which nobody ever held the lock fails, saying why; a lock
// that Acquires only now and then fails below the share asked for.
func TestCheckNeverPassesOnNothing(t *testing.T) {
	rec := &Recorder{TB: t}
	if Check(rec, func(Params) sim.Locker { return neverLocks{} }, Faults("none"), Runs(50), SaveTo("")) {
		t.Fatal("Check passed a lock that never acquires")
	}
	msg := rec.Message()
	if !strings.Contains(msg, "no client ever held the lock in 50 runs") || !strings.Contains(msg, "connection refused") ||
		strings.Count(msg, "\n") != 0 {
		t.Errorf("want one line saying nobody held the lock and why, got %q", msg)
	}
	if _, err := Explore(func(Params) sim.Locker { return neverLocks{} }, Faults("none"), Runs(50), SaveTo("")); !errors.Is(err, ErrUntested) {
		t.Errorf("Explore: %v, want ErrUntested", err)
	}
	// No floor: the same search passes, having tested nothing it could fail.
	if f, err := Explore(func(Params) sim.Locker { return neverLocks{} }, Faults("none"), Runs(50), SaveTo(""), MinHeld(0)); f != nil || err != nil {
		t.Errorf("MinHeld(0): %v %v", f, err)
	}
}

// Assumes declares what the lock assumes: a lock that never expires
// survives any pause, so a pause is inside it and searched there.
func TestCheckAssumes(t *testing.T) {
	if _, err := newConfig([]Option{Assumes(locks.Assumptions{Pause: -1})}); err == nil {
		t.Error("Assumes accepted a negative pause")
	}
	f, err := Explore(builtin(t, "setnx-del"), Faults("crash"), SaveTo(""), Runs(200), FailOn("stuck"),
		Assumes(locks.Assumptions{Expiry: locks.ExpiryNone}))
	if err != nil || f == nil || f.Verdict != "stuck" || !strings.Contains(f.Message, "inside its assumptions") {
		t.Fatalf("setnx-del under crash, no expiry: %v %v", f, err)
	}
}

// TestTTLKeepsTheLocksTTL: with TTL every scenario gives the lock that TTL
// (none drawn), and the counterexample runs at it.
func TestTTLKeepsTheLocksTTL(t *testing.T) {
	var other int
	lock := func(p Params) sim.Locker {
		if p.TTL != 3*time.Second {
			other++
		}
		return builtin(t, "setnx-del-recover")(p)
	}
	f, err := Explore(lock, TTL(3*time.Second), Faults("crash"), SaveTo(""), Runs(20_000))
	if err != nil || f == nil {
		t.Fatalf("%v %v, want a counterexample", err, f)
	}
	if ttl := f.Outcome.Scenario.Params.TTL.D(); ttl != 3*time.Second || other > 10 {
		t.Errorf("counterexample at TTL %s, %d locks made with another TTL (the generator's probes make a few): want 3s", ttl, other)
	}
}

// SettingsOf reads back what options set, and zero where none did.
func TestSettingsOf(t *testing.T) {
	s, err := SettingsOf(Faults("crash", "net"), Runs(7), Seed(9), Key("k"), Name("n"), SaveTo("d"))
	if err != nil || !slices.Equal(s.Faults, []string{"crash", "net"}) || s.Runs != 7 || s.Seed != 9 ||
		s.Key != "k" || s.Name != "n" || s.SaveDir != "d" {
		t.Errorf("SettingsOf = %+v, %v", s, err)
	}
	if s, err := SettingsOf(); err != nil || s.Faults != nil || s.Runs != 0 || s.Seed != 0 || s.Name != "" {
		t.Errorf("no options: %+v, %v", s, err)
	}
	if _, err := SettingsOf(Runs(-1)); err == nil {
		t.Error("a bad option's error was dropped")
	}
}
