package node

import (
	"slices"
	"testing"
	"time"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// BenchmarkExecEval is the compare-and-delete release through the node's
// own scripting, on a held lock (GET, compare, DEL) re-taken each time.
func BenchmarkExecEval(b *testing.B) {
	n := New(1)
	release := eval(releaseScript, []string{"lock"}, "tok")
	set := cmd("SET", "lock", "tok")
	b.ReportAllocs()
	for b.Loop() {
		n.Exec(0, t0, set)
		if r := n.Exec(0, t0, release); r.Kind != Int || r.Int != 1 {
			b.Fatalf("release: %s", r)
		}
	}
}

// BenchmarkMiniredisEval is the same through stock miniredis EVAL, which
// builds a new Lua state per call.
func BenchmarkMiniredisEval(b *testing.B) {
	s := newStock(b, 1)
	release := eval(releaseScript, []string{"lock"}, "tok")
	set := cmd("SET", "lock", "tok")
	b.ReportAllocs()
	for b.Loop() {
		s.exec(b, t0, set)
		if r := s.exec(b, t0, release); r.Kind != Int || r.Int != 1 {
			b.Fatalf("release: %s", r)
		}
	}
}

func BenchmarkExecGet(b *testing.B) {
	n := New(1)
	n.Exec(0, t0, cmd("SET", "lock", "tok"))
	get := cmd("GET", "lock")
	b.ReportAllocs()
	for b.Loop() {
		n.Exec(0, t0, get)
	}
}

// BenchmarkExecSet is the SET each EVAL benchmark also pays for per loop.
func BenchmarkExecSet(b *testing.B) {
	n := New(1)
	set := cmd("SET", "lock", "tok")
	b.ReportAllocs()
	for b.Loop() {
		n.Exec(0, t0, set)
	}
}

// BenchmarkFirstScript is a fresh node's first EVAL: making its Lua state.
func BenchmarkFirstScript(b *testing.B) {
	release := eval(releaseScript, []string{"lock"}, "tok")
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		n := New(1)
		b.StartTimer()
		n.Exec(0, t0, release)
	}
}

// BenchmarkWatchedOverKey is what following the watched key adds to a
// command: Exec then Watched on a node that watches the lock, over Exec then
// Key (what the engine did before versions were recorded), in alternating
// batches of a lock's commands (a held key with a TTL, refused SET NX tries,
// reads, a renewal by its holder), so that both halves see the same machine.
func BenchmarkWatchedOverKey(b *testing.B) {
	mix := [][]string{
		cmd("SET", "lock", "tok", "NX", "PX", "30000"),
		cmd("SET", "lock", "other", "NX", "PX", "30000"),
		cmd("GET", "lock"),
		cmd("PEXPIRE", "lock", "30000"),
		cmd("SET", "lock", "other", "NX", "PX", "30000"),
	}
	const batch = 1000
	plain, watched := New(1), New(1)
	watched.Watch("lock")
	var keyed, followed time.Duration
	at := 0
	for b.Loop() {
		start := time.Now()
		for i := range batch {
			now := t0.Add(time.Duration(at+i) * time.Microsecond)
			plain.Exec(i%2, now, mix[i%len(mix)])
			plain.Key(now, "lock")
		}
		mid := time.Now()
		for i := range batch {
			now := t0.Add(time.Duration(at+i) * time.Microsecond)
			watched.Exec(i%2, now, mix[i%len(mix)])
			watched.Watched()
		}
		at += batch
		keyed, followed = keyed+mid.Sub(start), followed+time.Since(mid)
	}
	b.ReportMetric(float64(keyed.Nanoseconds())/float64(b.N*batch), "key-ns/cmd")
	b.ReportMetric(float64(followed.Nanoseconds())/float64(b.N*batch), "watched-ns/cmd")
	b.ReportMetric(float64(followed)/float64(keyed), "watched/key")
}

// BenchmarkRestartReplay10k is one restart of an aof-everysec node that has
// run 10,000 commands (SET NX PX and its release script, as a lock does)
// and lost the last, a GET: the replay's cost. (An aof-always restart, or
// an everysec one that lost nothing, replays nothing.)
func BenchmarkRestartReplay10k(b *testing.B) {
	n := New(1)
	n.SetPersistence(PersistEverysec)
	script := `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`
	for i := 0; i < 5000; i++ {
		now := at(time.Duration(i) * time.Millisecond)
		n.Exec(0, now, []string{"SET", "lock", "tok", "NX", "PX", "10000"})
		n.Exec(0, now, []string{"EVAL", script, "1", "lock", "tok"})
	}
	n.Exec(0, at(5500*time.Millisecond), []string{"GET", "lock"})
	saved := n.aof
	if saved.synced >= len(saved.log) {
		b.Fatal("nothing to lose: no replay")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a := saved
		a.log = slices.Clone(saved.log) // Restart writes its marker in place
		n.aof = a
		n.Restart(at(5600 * time.Millisecond))
	}
}

// BenchmarkCheckSet is what redis7.go adds to every SET a lock sends.
func BenchmarkCheckSet(b *testing.B) {
	args := []string{"SET", "lock", "tok-123456", "NX", "PX", "3000"}
	for b.Loop() {
		if msg, c := checkSet(args, 1767225600000); msg != "" || c != nil {
			b.Fatal(msg)
		}
	}
}

// BenchmarkHashLockPoll is a waiter's poll of a held hash lock (EXISTS,
// HEXISTS, then the tail call PTTL), the clock a millisecond on each time:
// run in Lua, and replayed from its known path (replay.go).
func BenchmarkHashLockPoll(b *testing.B) {
	for _, way := range []struct {
		name     string
		noReplay bool
	}{{"lua", true}, {"known-path", false}} {
		b.Run(way.name, func(b *testing.B) {
			n := New(1)
			n.noReplay = way.noReplay
			now := t0
			n.Exec(0, now, eval(hashLockScript, []string{"lock"}, "1000000000", "holder")) // 11 days: b.Loop may poll millions of times, a millisecond apart
			poll := eval(hashLockScript, []string{"lock"}, "1000000000", "waiter")
			b.ReportAllocs()
			for b.Loop() {
				now = now.Add(time.Millisecond)
				n.written = 0 // a run's bound on script writes (MaxScriptWrites), not a benchmark's
				if r := n.Exec(1, now, poll); r.Kind != Int {
					b.Fatalf("poll: %s", r)
				}
			}
		})
	}
}
