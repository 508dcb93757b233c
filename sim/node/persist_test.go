package node

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// base is a whole second of node time: the everysec fsync points are at
// base, base+1s, ...
var base = time.Date(2026, 1, 1, 0, 0, 4, 0, time.UTC)

func at(d time.Duration) time.Time { return base.Add(d) }

func TestRestartKeepsWhatPersistenceKeeps(t *testing.T) {
	ms := time.Millisecond
	// Writes at 4.2 s, 4.9 s and 5.1 s; the restart at 5.5 s. everysec
	// fsynced at 5 s (the first command in second 5 saw it): a and b are on
	// disk, c is not.
	writes := []struct {
		at  time.Duration
		key string
	}{{200 * ms, "a"}, {900 * ms, "b"}, {1100 * ms, "c"}}
	tests := []struct {
		mode    Persistence
		restart time.Duration
		kept    string // keys that survive, in write order
	}{
		{PersistNone, 1500 * ms, ""},
		{PersistAlways, 1500 * ms, "abc"},
		{PersistEverysec, 1500 * ms, "ab"},
		// The restart's own second: at 5.999 s still nothing after 5 s is synced.
		{PersistEverysec, 1999 * ms, "ab"},
		// At 6 s the fsync point passed: everything before it is kept.
		{PersistEverysec, 2000 * ms, "abc"},
		// A restart within the second of the first write loses it all.
		{PersistEverysec, 1100 * ms, "ab"},
	}
	for _, tt := range tests {
		n := New(1)
		n.SetPersistence(tt.mode)
		for _, w := range writes {
			mustExec(t, n, at(w.at), cmd("SET", w.key, "v"), status("OK"))
		}
		n.Restart(at(tt.restart))
		var kept string
		for _, w := range writes {
			if r := n.Exec(0, at(tt.restart+time.Minute), cmd("GET", w.key)); r.Kind == Bulk {
				kept += w.key
			}
		}
		if kept != tt.kept {
			t.Errorf("%s, restart at +%v: kept %q, want %q", tt.mode, tt.restart, kept, tt.kept)
		}
	}
}

func TestEverysecWithinOneSecond(t *testing.T) {
	// Everything in the same second as the restart, even the first write, is
	// lost; a write exactly at a whole second is after that second's fsync.
	n := New(1)
	n.SetPersistence(PersistEverysec)
	mustExec(t, n, at(0), cmd("SET", "k", "v"), status("OK"))
	n.Restart(at(999 * time.Millisecond))
	mustExec(t, n, at(time.Second), cmd("GET", "k"), nilReply)
}

func TestEverysecBackwardJump(t *testing.T) {
	// The clock reaches 5.5 s, jumps back to 3 s: no new whole second is
	// reached before the restart at 4.9 s, so nothing since 5 s is synced.
	n := New(1)
	n.SetPersistence(PersistEverysec)
	mustExec(t, n, at(-500*time.Millisecond), cmd("SET", "early", "v"), status("OK"))
	mustExec(t, n, at(1500*time.Millisecond), cmd("SET", "late", "v"), status("OK"))
	mustExec(t, n, at(-time.Second), cmd("SET", "back", "v"), status("OK"))
	n.Restart(at(900 * time.Millisecond))
	now := at(900 * time.Millisecond)
	mustExec(t, n, now, cmd("GET", "early"), bulk("v"))
	mustExec(t, n, now, cmd("GET", "late"), nilReply)
	mustExec(t, n, now, cmd("GET", "back"), nilReply)
}

func TestRestartExpiresByNodeTime(t *testing.T) {
	// A key whose TTL runs out while the node is down is not served after
	// the reload; one still live keeps the rest of its TTL.
	n := New(1)
	n.SetPersistence(PersistAlways)
	mustExec(t, n, at(0), cmd("SET", "short", "v", "PX", "1000"), status("OK"))
	mustExec(t, n, at(0), cmd("SET", "long", "v", "PX", "10000"), status("OK"))
	n.Restart(at(500 * time.Millisecond))
	if k := n.Key(at(500*time.Millisecond), "short"); !k.Exists || k.Value != "v" || k.TTL != 500*time.Millisecond {
		t.Errorf("short at the restart: %+v, want true \"v\" 500ms", k)
	}
	back := at(3 * time.Second) // down 2.5 s
	mustExec(t, n, back, cmd("GET", "short"), nilReply)
	mustExec(t, n, back, cmd("PTTL", "long"), integer(7000))
}

func TestRestartForgetsConnectionsAndScripts(t *testing.T) {
	n := New(1)
	n.SetPersistence(PersistAlways)
	load := n.Exec(0, at(0), cmd("SCRIPT", "LOAD", "return 1"))
	if load.Kind != Bulk {
		t.Fatalf("SCRIPT LOAD: %s", load)
	}
	mustExec(t, n, at(0), cmd("MULTI"), status("OK"))
	mustExec(t, n, at(0), cmd("SET", "queued", "v"), status("QUEUED"))
	n.Restart(at(time.Second))
	r := n.Exec(0, at(2*time.Second), cmd("EVALSHA", load.Str, "0"))
	if r.Kind != Error || r.Str[:8] != "NOSCRIPT" {
		t.Errorf("EVALSHA after a restart: %s, want NOSCRIPT", r)
	}
	// The connection is new: not inside MULTI, and the queued SET never ran.
	mustExec(t, n, at(2*time.Second), cmd("GET", "queued"), nilReply)
	mustExec(t, n, at(2*time.Second), cmd("EXEC"), errr("ERR EXEC without MULTI"))
}

func TestRestartReplayIsExact(t *testing.T) {
	// A node rebuilt from its AOF answers as a twin that never restarted,
	// random commands included (the replay restores the random state), also
	// across two restarts. always keeps the node as it is; everysec here
	// loses only a GET in each restart's second, which forces the replay.
	for _, mode := range []Persistence{PersistAlways, PersistEverysec} {
		run := func(restart bool) []Reply {
			n := New(7)
			n.SetPersistence(mode)
			var out []Reply
			do := func(d time.Duration, args ...string) { out = append(out, n.Exec(0, at(d), args)) }
			do(0, "SADD", "s", "a", "b", "c", "d", "e", "f", "g", "h")
			do(10*time.Millisecond, "SPOP", "s")
			do(20*time.Millisecond, "SET", "k", "1", "PX", "3000")
			do(20*time.Millisecond, "EVAL", "return redis.call('INCR', KEYS[1])", "1", "n")
			do(1100*time.Millisecond, "GET", "k")
			if restart {
				n.Restart(at(1200 * time.Millisecond))
			}
			do(1500*time.Millisecond, "SPOP", "s")
			do(1500*time.Millisecond, "PTTL", "k")
			do(2100*time.Millisecond, "GET", "k")
			if restart {
				n.Restart(at(2200 * time.Millisecond))
			}
			do(2500*time.Millisecond, "SRANDMEMBER", "s", "3")
			do(2500*time.Millisecond, "GET", "n")
			do(4*time.Second, "GET", "k")
			return out
		}
		twin, restarted := run(false), run(true)
		for i := range twin {
			if !twin[i].Equal(restarted[i]) {
				t.Errorf("%s: reply %d: %s after restarts, %s without", mode, i, restarted[i], twin[i])
			}
		}
	}
}

// A replay passes an earlier restart as the live node did, counting TTLs
// down to it, so that a node clock that then jumps backwards leaves the
// rebuilt node the TTL the live one had: SET PX 10000 at 4.9 s, a restart
// at 5.5 s (0.6 s counted), the clock back to 3.1 s and on to 6.3 s (3.2 s
// more): 6.2 s left, 6.1 s after the second restart at 6.4 s, which lost
// the PTTL at 6.3 s and so replays.
func TestReplayCountsTTLsAtEarlierRestarts(t *testing.T) {
	n := New(1)
	n.SetPersistence(PersistEverysec)
	mustExec(t, n, at(900*time.Millisecond), cmd("SET", "k", "v", "PX", "10000"), status("OK"))
	n.Restart(at(1500 * time.Millisecond))
	mustExec(t, n, at(-900*time.Millisecond), cmd("GET", "k"), bulk("v"))
	mustExec(t, n, at(2200*time.Millisecond), cmd("GET", "k"), bulk("v"))
	mustExec(t, n, at(2300*time.Millisecond), cmd("PTTL", "k"), integer(6200))
	n.Restart(at(2400 * time.Millisecond))
	mustExec(t, n, at(2400*time.Millisecond), cmd("PTTL", "k"), integer(6100))
}

func TestResetForgetsPersistence(t *testing.T) {
	n := New(1)
	n.SetPersistence(PersistAlways)
	mustExec(t, n, at(0), cmd("SET", "k", "v"), status("OK"))
	n.Reset(1)
	if n.Persistence() != PersistNone || len(n.aof.log) != 0 {
		t.Fatalf("after Reset: %s with %d logged commands", n.Persistence(), len(n.aof.log))
	}
	mustExec(t, n, at(0), cmd("SET", "k", "v"), status("OK"))
	n.Restart(at(time.Second))
	mustExec(t, n, at(time.Second), cmd("GET", "k"), nilReply)
}

func TestParsePersistence(t *testing.T) {
	for _, name := range PersistenceNames() {
		p, ok := ParsePersistence(name)
		if !ok || p.String() != name {
			t.Errorf("%q: %v %v", name, p, ok)
		}
	}
	if _, ok := ParsePersistence("rdb"); ok {
		t.Error("rdb parsed")
	}
}

// Property: a node rebuilt by Restart holds exactly what a twin holds that
// ran only the commands its persistence keeps (all of them for always; for
// everysec those in an earlier whole second of node time than the restart),
// read at the restart's node time.
func TestRestartKeepsExactlyTheRule(t *testing.T) {
	keys := []string{"a", "b", "c"}
	rapid.Check(t, func(t *rapid.T) {
		mode := rapid.SampledFrom([]Persistence{PersistEverysec, PersistAlways}).Draw(t, "mode")
		type cmdAt struct {
			at   time.Duration
			args []string
		}
		var cmds []cmdAt
		var now time.Duration
		for i, n := 0, rapid.IntRange(0, 30).Draw(t, "commands"); i < n; i++ {
			now += time.Duration(rapid.IntRange(0, 700).Draw(t, "gap ms")) * time.Millisecond
			k := rapid.SampledFrom(keys).Draw(t, "key")
			var args []string
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0:
				args = []string{"SET", k, strconv.Itoa(i), "NX", "PX", strconv.Itoa(rapid.IntRange(1, 3000).Draw(t, "ttl"))}
			case 1:
				args = []string{"SET", k, strconv.Itoa(i)}
			case 2:
				args = []string{"DEL", k}
			case 3:
				args = []string{"INCR", k + "n"}
			case 4:
				args = []string{"PEXPIRE", k, strconv.Itoa(rapid.IntRange(1, 3000).Draw(t, "ttl"))}
			}
			cmds = append(cmds, cmdAt{now, args})
		}
		restart := now + time.Duration(rapid.IntRange(0, 1500).Draw(t, "restart after ms"))*time.Millisecond
		n, twin := New(3), New(3)
		n.SetPersistence(mode)
		for _, c := range cmds {
			n.Exec(0, at(c.at), c.args)
			if mode == PersistAlways || unixSecond(at(c.at)) < unixSecond(at(restart)) {
				twin.Exec(0, at(c.at), c.args)
			}
		}
		n.Restart(at(restart))
		for _, k := range append(keys, "an", "bn", "cn") {
			k1, k2 := n.Key(at(restart), k), twin.Key(at(restart), k)
			if k1 != k2 {
				t.Fatalf("%s: restarted %+v, twin %+v", k, k1, k2)
			}
		}
	})
}

// A primary that restarts keeps capturing its write stream for its
// replicas: the replay that rebuilds an everysec node (which Resets it)
// must not switch capture off.
func TestRestartKeepsCapture(t *testing.T) {
	for _, mode := range []Persistence{PersistNone, PersistAlways, PersistEverysec} {
		n := New(1)
		n.SetPersistence(mode)
		n.Capture(true)
		mustExec(t, n, at(100*time.Millisecond), cmd("SET", "a", "1"), status("OK"))
		mustExec(t, n, at(1100*time.Millisecond), cmd("SET", "lost", "1"), status("OK"))
		n.Restart(at(1200 * time.Millisecond)) // everysec: loses "lost", replays "a"
		mustExec(t, n, at(1300*time.Millisecond), cmd("SET", "b", "2"), status("OK"))
		if got := n.Effects(); len(got) != 1 || strings.Join(got[0], " ") != "SET b 2" {
			t.Errorf("%s: effects %q after the restart, want [SET b 2]", mode, got)
		}
	}
}

// Reset switches capture off, as New has it: a pooled primary taken for a
// node without replicas captures nothing.
func TestResetStopsCapture(t *testing.T) {
	n := New(1)
	n.Capture(true)
	mustExec(t, n, at(0), cmd("SET", "a", "1"), status("OK"))
	n.Reset(1)
	mustExec(t, n, at(0), cmd("SET", "b", "2"), status("OK"))
	if got := n.Effects(); len(got) != 0 {
		t.Errorf("effects %q after Reset, want none", got)
	}
}

// A promoted replica's Disconnect is in its log: the replay of a restart
// drops the connections where the live node did. A write sent afresh on a
// connection whose MULTI the replica had applied (not yet its EXEC) ran,
// and a WATCH from before did not abort a later transaction; the rebuilt
// node must keep both (it queued the SET and lost the x, before).
func TestReplayDisconnectsWhereTheNodeDid(t *testing.T) {
	n := New(1)
	n.SetPersistence(PersistEverysec)
	on := func(conn int, d time.Duration, args []string, want Reply) {
		t.Helper()
		mustExecOn(t, n, conn, at(d), args, want)
	}
	ms := time.Millisecond
	on(1, 100*ms, cmd("MULTI"), status("OK"))
	on(2, 100*ms, cmd("WATCH", "w"), status("OK"))
	n.Disconnect()
	on(1, 200*ms, cmd("SET", "k", "v"), status("OK"))
	on(0, 200*ms, cmd("SET", "w", "changed"), status("OK"))
	on(2, 300*ms, cmd("MULTI"), status("OK"))
	on(2, 300*ms, cmd("SET", "x", "1"), status("QUEUED"))
	on(2, 300*ms, cmd("EXEC"), array(status("OK")))
	on(0, 1500*ms, cmd("SET", "lost", "1"), status("OK")) // after the fsync at 1 s
	if replayed := n.Restart(at(1600 * ms)); replayed == 0 {
		t.Fatal("the restart did not replay")
	}
	on(0, 1700*ms, cmd("GET", "lost"), nilReply)
	on(0, 1700*ms, cmd("GET", "k"), bulk("v"))
	on(0, 1700*ms, cmd("GET", "x"), bulk("1"))
}
