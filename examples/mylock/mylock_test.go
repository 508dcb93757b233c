package mylock_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/examples/mylock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/simtest"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

func newLock(p simtest.Params) sim.Locker       { return mylock.New(p.Key, p.TTL) }
func newOptimistic(p simtest.Params) sim.Locker { return mylock.NewOptimistic(p.Key, p.TTL) }

// What a team writes: its lock is safe under the faults it claims to
// survive (crashed clients, skewed clocks, a slow and lossy network).
func TestLock(t *testing.T) {
	simtest.Check(t, newLock, simtest.Faults("crash", "skew", "net"))
}

// The optimistic lock is caught under the faults Lock survives. Check
// reports to a Recorder, so this test passes while asserting that the real
// one would fail with the counterexample and the way to replay it.
func TestOptimisticLockIsCaught(t *testing.T) {
	dir := t.TempDir()
	rec := &simtest.Recorder{TB: t}
	if simtest.Check(rec, newOptimistic, simtest.Faults("net"), simtest.SaveTo(dir)) {
		t.Fatal("Check passed the optimistic lock")
	}
	path := filepath.Join(dir, "TestOptimisticLockIsCaught.yaml")
	yaml, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"simtest: go-lock is UNSAFE inside its assumptions under net",
		string(yaml), // the counterexample, in full
		`simtest.Replay(t, newLocker, "` + path + `")`, // the replay line
	} {
		if !strings.Contains(rec.Message(), want) {
			t.Errorf("the failure lacks %q:\n%s", want, rec.Message())
		}
	}

	// The counterexample replays: unsafe for the optimistic lock, safe for
	// the fixed one.
	for _, c := range []struct {
		name      string
		newLocker simtest.NewLocker
		verdict   string
	}{
		{"optimistic", newOptimistic, "unsafe"},
		{"fixed", newLock, "safe"},
	} {
		again := &simtest.Recorder{TB: t}
		o := simtest.Replay(again, c.newLocker, path)
		if o == nil || o.Verdict.Verdict != c.verdict || again.Failed() != (c.verdict != "safe") {
			t.Errorf("%s lock on the counterexample: %v, want %s:\n%s", c.name, o, c.verdict, again.Message())
		}
	}
}
