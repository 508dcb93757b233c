package sim

import (
	"strconv"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
)

// extendLock is tokenLock with a compare-and-PEXPIRE renewal.
type extendLock struct{ tokenLock }

const extendScript = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("pexpire",KEYS[1],ARGV[2]) else return 0 end`

func (l extendLock) Extend(p Proc, le Lease) (bool, error) {
	r, err := p.Do(0, "EVAL", extendScript, "1", "lock", le.Token, strconv.FormatInt(l.ttl.Milliseconds(), 10))
	return err == nil && r.Int == 1, nil
}

func renewConfig(mod func(*Config)) Config {
	cfg := standardConfig(3)
	cfg.Procs = []ProcSpec{
		{Name: "c1", Iterations: 1, Work: 5 * time.Second, RenewEvery: 300 * time.Millisecond},
		{Name: "c2", Start: 100 * time.Millisecond, Iterations: 1, Work: 10 * time.Millisecond},
	}
	cfg.NewLocker = func(int) Locker { return extendLock{tokenLock{ttl: time.Second}} }
	if mod != nil {
		mod(&cfg)
	}
	return cfg
}

// A watchdog keeps a lease alive through work five times its TTL: the
// second process gets the lock only after the first released it.
func TestWatchdogKeepsLeaseAlive(t *testing.T) {
	res, err := Run(renewConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	h := res.History
	ext := eventsOf(h, KindExtendReturn)
	if len(ext) < 10 {
		t.Fatalf("%d renewals in 5 s every 300 ms, want at least 10", len(ext))
	}
	for _, e := range ext {
		if !e.Held {
			t.Fatalf("a renewal failed at %v: %+v", e.At, e)
		}
	}
	rel := eventsOf(h, KindReleaseInvoke)
	held := eventsOf(h, KindLockReturn)
	if len(rel) != 2 || len(held) != 2 || held[1].Proc != 1 || held[1].At < rel[0].At {
		t.Fatalf("c2 got the lock before c1 released it: holds %+v, releases %+v", held, rel)
	}
	if w := eventsOf(h, KindResourceWrite); len(w) != 2 {
		t.Fatalf("%d writes, want 2", len(w))
	}
	// No renewal after the holder's release (the watchdog was stopped).
	for _, e := range eventsOf(h, KindExtendInvoke) {
		if e.At > rel[0].At {
			t.Fatalf("a renewal began at %v after the release at %v", e.At, rel[0].At)
		}
	}
}

// A pause longer than the TTL pauses the watchdog too: the key expires, c2
// takes it, and c1's next renewal fails; c1 then skips its write and its
// release.
func TestWatchdogPausedWithItsProcess(t *testing.T) {
	cfg := renewConfig(func(c *Config) {
		c.Faults = []Fault{{Kind: fault.Pause, Proc: 0, Dur: 2 * time.Second, On: Trigger{Point: PointAcquired, Proc: 0, N: 1}}}
	})
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := res.History
	ext := eventsOf(h, KindExtendReturn)
	if len(ext) != 1 || ext[0].Held || ext[0].At < Time(2*time.Second) {
		t.Fatalf("want one failed renewal after the pause, got %+v", ext)
	}
	for _, e := range eventsOf(h, KindResourceWrite) {
		if e.Proc == 0 {
			t.Fatalf("c1 wrote after it learned it lost the lock: %+v", e)
		}
	}
	for _, e := range eventsOf(h, KindReleaseInvoke) {
		if e.Proc == 0 {
			t.Fatalf("c1 released a lock it knew it had lost: %+v", e)
		}
	}
	// Same config, same digest.
	again, _ := Run(cfg)
	if again.History.Digest() != h.Digest() {
		t.Fatal("a run with a watchdog is not deterministic")
	}
}

// A crash ends the watchdog with its process: no renewal after the crash.
func TestWatchdogCrashesWithItsProcess(t *testing.T) {
	res, err := Run(renewConfig(func(c *Config) {
		c.Faults = []Fault{{Kind: fault.Crash, Proc: 0, At: time.Second}}
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.History.Events {
		if (e.Kind == KindExtendInvoke || e.Kind == KindCommand && e.Proc == 0) && e.At > Time(time.Second) {
			t.Fatalf("c1 acted after its crash: %+v", e)
		}
	}
	if n := len(eventsOf(res.History, KindExtendReturn)); n < 2 {
		t.Fatalf("%d renewals before the crash, want at least 2", n)
	}
}

// Re-entering a lock that is not re-entrant fails (SET NX finds our own key)
// and is recorded; the holder goes on with its outer hold.
func TestReenterRecorded(t *testing.T) {
	cfg := standardConfig(5)
	cfg.Procs = []ProcSpec{{Name: "c1", Iterations: 1, Work: time.Millisecond, Reenter: 2}}
	cfg.NewLocker = func(int) Locker { return onceLock{} }
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	re := eventsOf(res.History, KindReenter)
	ex := eventsOf(res.History, KindReexit)
	if len(re) != 2 || len(ex) != 2 || !re[0].Held || re[0].Token != "inner" {
		t.Fatalf("reenter %+v, reexit %+v", re, ex)
	}
	if w := eventsOf(res.History, KindResourceWrite); len(w) != 1 || w[0].At < ex[1].At {
		t.Fatalf("the outer write must follow the inner releases: %+v", w)
	}
}

// onceLock grants every acquire without any command.
type onceLock struct{}

func (onceLock) Acquire(Proc) (Lease, error) { return Lease{Held: true, Token: "inner"}, nil }
func (onceLock) Release(Proc, Lease) error   { return nil }

// silentExtendLock's failed renewals are not told to the holder.
type silentExtendLock struct{ extendLock }

func (silentExtendLock) RenewalFailsSilently() bool { return true }

// A renewal that fails silently (python-redis-lock's thread dies) ends the
// watchdog but not the hold: after a pause past the TTL, c2 takes the lock,
// c1's renewal fails, and c1 still writes and releases, unlike the told
// holder of TestWatchdogPausedWithItsProcess.
func TestWatchdogSilentFailure(t *testing.T) {
	cfg := renewConfig(func(c *Config) {
		c.Faults = []Fault{{Kind: fault.Pause, Proc: 0, Dur: 2 * time.Second, On: Trigger{Point: PointAcquired, Proc: 0, N: 1}}}
		c.NewLocker = func(int) Locker { return silentExtendLock{extendLock{tokenLock{ttl: time.Second}}} }
	})
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := res.History
	ext := eventsOf(h, KindExtendReturn)
	if len(ext) != 1 || ext[0].Held || !ext[0].Silent {
		t.Fatalf("want one silent failed renewal and no more, got %+v", ext)
	}
	wrote, released := false, false
	for _, e := range eventsOf(h, KindResourceWrite) {
		wrote = wrote || e.Proc == 0
	}
	for _, e := range eventsOf(h, KindReleaseInvoke) {
		released = released || e.Proc == 0
	}
	if !wrote || !released {
		t.Fatalf("c1, never told, did not go on: wrote %v, released %v", wrote, released)
	}
	// Silent is part of the digest: the told run differs.
	told, _ := Run(renewConfig(func(c *Config) { c.Faults = cfg.Faults }))
	if told.History.Digest() == h.Digest() {
		t.Fatal("a silent failure hashes as a told one")
	}
}
