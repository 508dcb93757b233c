package node

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// Every key type is recorded with its type and its canonical drawing.
func TestKeyDrawsEveryType(t *testing.T) {
	tests := []struct {
		name  string
		cmds  [][]string
		typ   KeyType
		value string
	}{
		{"string", [][]string{{"SET", "k", "tok"}}, KeyString, "tok"},
		{"hash by field", [][]string{{"HSET", "k", "zed", "1", "abc:7", "2"}}, KeyHash, "{abc:7: 2, zed: 1}"},
		{"set by member", [][]string{{"SADD", "k", "b", "a", "c"}}, KeySet, "{a, b, c}"},
		{"zset by score then member", [][]string{{"ZADD", "k", "2", "x", "1.5", "y", "2", "a", "-1e30", "m"}},
			KeyZSet, "{m: -1e+30, y: 1.5, a: 2, x: 2}"},
		{"zset infinities", [][]string{{"ZADD", "k", "+inf", "top", "-inf", "bottom"}}, KeyZSet, "{bottom: -inf, top: inf}"},
		{"list in order", [][]string{{"RPUSH", "k", "b", "a"}, {"LPUSH", "k", "z"}}, KeyList, "[z, b, a]"},
		{"stream by ID", [][]string{{"XADD", "k", "2-0", "f", "v"}, {"XADD", "k", "3-1", "b", "1", "a", "2"}},
			KeyStream, "[2-0 {f: v}, 3-1 {b: 1, a: 2}]"},
		{"hll is other", [][]string{{"PFADD", "k", "a"}}, KeyOther, ""},
		{"separators are quoted", [][]string{{"HSET", "k", "a: b", "x, y", "", `"q`}}, KeyHash, `{"": "\"q", "a: b": "x, y"}`},
		{"control bytes are quoted", [][]string{{"SADD", "k", "a\nb", "ok"}}, KeySet, `{"a\nb", ok}`},
	}
	for _, tt := range tests {
		n := New(1)
		for _, c := range tt.cmds {
			if r := n.Exec(0, t0, c); r.Kind == Error {
				t.Fatalf("%s: %q: %s", tt.name, c, r.Str)
			}
		}
		k := n.Key(t0, "k")
		if !k.Exists || k.Type != tt.typ || k.Value != tt.value || k.TTL != -1 || k.Fresh {
			t.Errorf("%s: Key = %+v, want type %s value %q TTL -1", tt.name, k, tt.typ, tt.value)
		}
	}
}

// Two contents of one type never draw alike, separators or not.
func TestDrawingsDoNotCollide(t *testing.T) {
	pairs := [][]string{
		{"a", "b: c"}, {"a: b", "c"},
		{"a", "b, c: d"}, {"a", "b", "c", "d"},
		{"", "x"}, {`""`, "x"},
	}
	seen := map[string][]string{}
	for _, p := range pairs {
		d := DrawHash(p)
		if other, ok := seen[d]; ok {
			t.Errorf("%q and %q both draw %s", other, p, d)
		}
		seen[d] = p
	}
	if a, b := DrawSet([]string{"a, b"}), DrawSet([]string{"a", "b"}); a == b {
		t.Errorf("set {\"a, b\"} and {a, b} both draw %s", a)
	}
}

// The drawings order what a real server's replies leave in any order.
func TestDrawOrders(t *testing.T) {
	tests := []struct{ got, want string }{
		{DrawHash([]string{"b", "1", "a", "2"}), "{a: 2, b: 1}"},
		{DrawSet([]string{"b", "c", "a"}), "{a, b, c}"},
		{DrawZSet([]string{"b", "a", "c"}, []float64{1, 1, 0.5}), "{c: 0.5, a: 1, b: 1}"},
		{DrawList([]string{"b", "a"}), "[b, a]"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("drew %s, want %s", tt.got, tt.want)
		}
	}
}

func TestParseKeyType(t *testing.T) {
	tests := []struct {
		name   string
		typ    KeyType
		exists bool
	}{
		{"none", KeyString, false}, {"", KeyString, false}, {"string", KeyString, true},
		{"hash", KeyHash, true}, {"list", KeyList, true}, {"set", KeySet, true},
		{"zset", KeyZSet, true}, {"stream", KeyStream, true}, {"hll", KeyOther, true}, {"ReJSON-RL", KeyOther, true},
	}
	for _, tt := range tests {
		if typ, ok := ParseKeyType(tt.name); typ != tt.typ || ok != tt.exists {
			t.Errorf("ParseKeyType(%q) = %s, %v; want %s, %v", tt.name, typ, ok, tt.typ, tt.exists)
		}
	}
}

// step is one command of a Fresh test: conn runs args at t0+at, after which
// the watched key must be Fresh as fresh says.
type step struct {
	conn  int
	at    time.Duration
	args  []string
	fresh bool
}

const hashAcquire = `redis.call('HINCRBY', KEYS[1], ARGV[1], 1); redis.call('PEXPIRE', KEYS[1], ARGV[2]); return 1`

func TestWatchedFresh(t *testing.T) {
	ms := time.Millisecond
	set := func(v, px string) []string { return []string{"SET", "k", v, "PX", px} }
	tests := []struct {
		name  string
		steps []step
	}{
		{"SET NX on an absent key", []step{
			{0, 0, []string{"SET", "k", "a", "NX", "PX", "1000"}, true}}},
		{"a failed SET NX by another", []step{
			{0, 0, set("a", "1000"), true},
			{1, 10 * ms, []string{"SET", "k", "b", "NX", "PX", "1000"}, false}}},
		{"a second SET of another value", []step{
			{0, 0, set("a", "1000"), true},
			{0, 10 * ms, set("b", "1000"), true}}},
		{"the same value re-SET by another process", []step{
			{0, 0, set("a", "1000"), true},
			{1, 100 * ms, set("a", "1000"), true}}},
		{"the same value re-SET by its writer", []step{
			{0, 0, set("a", "1000"), true},
			{0, 100 * ms, set("a", "1000"), false}}},
		{"the writer extends", []step{
			{0, 0, set("a", "1000"), true},
			{0, 100 * ms, []string{"PEXPIRE", "k", "5000"}, false}}},
		{"another process's PEXPIRE", []step{
			{0, 0, set("a", "1000"), true},
			{1, 100 * ms, []string{"PEXPIRE", "k", "5000"}, true},
			{0, 200 * ms, []string{"PEXPIRE", "k", "5000"}, true}, // the version is conn 1's now
			{1, 300 * ms, []string{"GET", "k"}, false}}},
		{"another process reads", []step{
			{0, 0, set("a", "1000"), true},
			{1, 100 * ms, []string{"GET", "k"}, false},
			{1, 200 * ms, []string{"PTTL", "k"}, false}}},
		{"the same value and TTL again at once", []step{
			{0, 0, set("a", "1000"), true},
			{0, 0, set("a", "1000"), false}}},
		{"expired and re-set by its writer with no command between", []step{
			{0, 0, set("a", "100"), true},
			{0, 200 * ms, set("a", "100"), true}}},
		{"expired to the nanosecond", []step{
			{0, 0, set("a", "100"), true},
			{0, 100 * ms, set("a", "100"), true}}},
		{"a nanosecond before", []step{
			{0, 0, set("a", "100"), true},
			{0, 100*ms - 1, set("a", "100"), false}}},
		{"deleted", []step{
			{0, 0, set("a", "1000"), true},
			{0, 10 * ms, []string{"DEL", "k"}, false},
			{0, 20 * ms, set("a", "1000"), true}}},
		{"other keys", []step{
			{0, 0, set("a", "1000"), true},
			{1, 10 * ms, []string{"SET", "other", "x", "PX", "10"}, false}}},
		{"a script's write is its caller's", []step{
			{2, 0, eval(`return redis.call('SET', KEYS[1], ARGV[1], 'PX', 1000)`, []string{"k"}, "a"), true},
			{2, 100 * ms, []string{"PEXPIRE", "k", "1000"}, false},
			{1, 200 * ms, []string{"PEXPIRE", "k", "1000"}, true}}},
		{"Redisson-style HINCRBY", []step{
			{0, 0, eval(hashAcquire, []string{"k"}, "c0:1", "30000"), true},
			{0, 10 * ms, eval(hashAcquire, []string{"k"}, "c0:1", "30000"), true}, // the count changed
			{0, 20 * ms, []string{"PEXPIRE", "k", "30000"}, false},
			{1, 30 * ms, eval(`return redis.call('HEXISTS', KEYS[1], ARGV[1])`, []string{"k"}, "c1:1"), false}}},
		{"a transaction", []step{
			{0, 0, []string{"MULTI"}, false},
			{0, 0, []string{"SET", "k", "a"}, false}, // queued
			{0, 0, []string{"EXEC"}, true}}},
	}
	for _, tt := range tests {
		n := New(1)
		n.Watch("k")
		for i, s := range tt.steps {
			if r := n.Exec(s.conn, t0.Add(s.at), s.args); r.Kind == Error {
				t.Fatalf("%s: step %d %q: %s", tt.name, i, s.args, r.Str)
			}
			if got := n.Watched(); got.Fresh != s.fresh {
				t.Errorf("%s: after step %d %q: %+v, want Fresh %v", tt.name, i, s.args, got, s.fresh)
			}
		}
	}
}

// Watched is the key as Key reads it, Fresh aside.
func TestWatchedIsTheKey(t *testing.T) {
	n := New(1)
	n.Watch("k")
	n.Exec(0, t0, eval(hashAcquire, []string{"k"}, "c0:1", "30000"))
	got := n.Watched()
	got.Fresh = false
	if want := n.Key(t0, "k"); got != want || want.Type != KeyHash || want.Value != "{c0:1: 1}" || want.TTL != 30*time.Second {
		t.Errorf("Watched %+v, Key %+v", got, want)
	}
	// Observe: nothing ran, the key expired.
	if k := n.Observe(t0.Add(31 * time.Second)); k.Exists || k.Fresh {
		t.Errorf("Observe after the TTL: %+v, want absent", k)
	}
}

// A replica's applied entry is a new version of the writer on the primary.
func TestApplyFresh(t *testing.T) {
	ms := time.Millisecond
	r := New(2)
	r.Watch("k")
	steps := []struct {
		conn  int
		cmds  [][]string
		fresh bool
	}{
		{3, [][]string{{"SET", "k", "a", "PX", "1000"}}, true},
		{3, [][]string{{"PEXPIRE", "k", "2000"}}, false},
		{4, [][]string{{"PEXPIRE", "k", "2000"}}, true},
		// A script's writes are one entry, one event.
		{4, [][]string{{"DEL", "k"}, {"SET", "k", "a", "PX", "2000"}}, false},
		{5, [][]string{{"DEL", "k"}, {"SET", "k", "b", "PX", "2000"}}, true},
	}
	for i, s := range steps {
		r.Apply(s.conn, t0.Add(time.Duration(i)*ms), s.cmds)
		if k := r.Watched(); !k.Exists || k.Fresh != s.fresh {
			t.Errorf("entry %d %q: %+v, want Fresh %v", i, s.cmds, k, s.fresh)
		}
	}
}

func TestRestartFresh(t *testing.T) {
	at := func(d time.Duration) time.Time { return time.Unix(100, 0).Add(d) }
	ms := time.Millisecond
	tests := []struct {
		name   string
		mode   Persistence
		steps  []step
		at     time.Duration // of the restart
		exists bool
		fresh  bool
		after  []step // after the restart
	}{
		{"AOF always reloads the same version", PersistAlways,
			[]step{{0, 0, []string{"SET", "k", "a", "PX", "60000"}, true}},
			500 * ms, true, false,
			[]step{{0, 600 * ms, []string{"PEXPIRE", "k", "60000"}, false}}},
		{"no persistence: absent", PersistNone,
			[]step{{0, 0, []string{"SET", "k", "a", "PX", "60000"}, true}},
			500 * ms, false, false,
			[]step{{0, 600 * ms, []string{"SET", "k", "a", "PX", "60000"}, true}}},
		// everysec: the fsync at 1 s keeps the SET of a; the DEL and
		// conn 1's SET of b at 1.2 s are lost. The reload is a's
		// version again, conn 0's.
		{"everysec reloads an older version", PersistEverysec,
			[]step{
				{0, 0, []string{"SET", "k", "a", "PX", "60000"}, true},
				{0, 1100 * ms, []string{"DEL", "k"}, false},
				{1, 1200 * ms, []string{"SET", "k", "b", "PX", "60000"}, true}},
			1500 * ms, true, true,
			[]step{
				{0, 1600 * ms, []string{"PEXPIRE", "k", "60000"}, false},
				{1, 1700 * ms, []string{"PEXPIRE", "k", "60000"}, true}}},
	}
	for _, tt := range tests {
		n := New(1)
		n.SetPersistence(tt.mode)
		n.Watch("k")
		run := func(steps []step) {
			for i, s := range steps {
				n.Exec(s.conn, at(s.at), s.args)
				if got := n.Watched(); got.Fresh != s.fresh {
					t.Errorf("%s: after step %d %q: %+v, want Fresh %v", tt.name, i, s.args, got, s.fresh)
				}
			}
		}
		run(tt.steps)
		n.Restart(at(tt.at))
		if k := n.Watched(); k.Exists != tt.exists || k.Fresh != tt.fresh {
			t.Errorf("%s: after the restart %+v, want exists %v Fresh %v", tt.name, k, tt.exists, tt.fresh)
		}
		run(tt.after)
	}
}

// A promoted replica's key is a new version when it is not the one the
// lost primary had.
func TestTakeOverFresh(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name      string
		primary   [][]string // by conn 0, then conn 1 for the second
		oneWriter bool       // all by conn 0
		replica   [][]string // applied, all by conn 0
		fresh     bool
	}{
		{"the same version", [][]string{{"SET", "k", "a", "PX", "1000"}}, false,
			[][]string{{"SET", "k", "a", "PX", "1000"}}, false},
		{"an older version", [][]string{{"SET", "k", "a", "PX", "1000"}, {"SET", "k", "b", "PX", "1000"}}, false,
			[][]string{{"SET", "k", "a", "PX", "1000"}}, true},
		// One writer: only the expiry can make the replica's key new.
		{"the lost primary's had expired", [][]string{{"SET", "k", "a", "PX", "1000"}, {"SET", "k", "a", "PX", "1"}}, true,
			[][]string{{"SET", "k", "a", "PX", "1000"}}, true},
		{"an older writer's, same content", [][]string{{"SET", "k", "a", "PX", "1000"}, {"SET", "k", "a", "PX", "1000"}}, false,
			[][]string{{"SET", "k", "a", "PX", "1000"}}, true},
	}
	for _, tt := range tests {
		p, r := New(1), New(2)
		p.Watch("k")
		r.Watch("k")
		for i, c := range tt.primary {
			conn := i
			if tt.oneWriter {
				conn = 0
			}
			p.Exec(conn, t0.Add(time.Duration(i)*ms), c)
		}
		for _, c := range tt.replica {
			r.Apply(0, t0, [][]string{c})
		}
		k := r.TakeOver(t0.Add(5*ms), p)
		if !k.Exists || k.Fresh != tt.fresh {
			t.Errorf("%s: promoted %+v, want Fresh %v", tt.name, k, tt.fresh)
		}
		// The promoted version is the replica's writer's (conn 0).
		r.Exec(0, t0.Add(6*ms), []string{"PEXPIRE", "k", "1000"})
		if k := r.Watched(); k.Fresh {
			t.Errorf("%s: the promoted version's writer extending: %+v, want not Fresh", tt.name, k)
		}
	}
}

// Reset forgets the watched key, as New has none.
func TestResetForgetsWatch(t *testing.T) {
	n := New(1)
	n.Watch("k")
	n.Exec(0, t0, []string{"SET", "k", "a"})
	n.Reset(1)
	n.Exec(0, t0, []string{"SET", "k", "a"})
	if k := n.Watched(); k != (KeyState{TTL: -1}) {
		t.Errorf("after Reset Watched = %+v, want the zero state", k)
	}
}

// watchBefore's count of a key's TTL agrees with the data's own, to the
// nanosecond, over random commands at random node times, backward jumps
// included, and with looks from outside (Key) between: a string's, and a
// hash's until a command gives its fields TTLs of their own (HEXPIRE, in
// the second half of the second stream), from when the hash is looked at.
func TestWatchBeforeCountsAsTheData(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ms := func() string { return strconv.Itoa(1 + rng.IntN(50)) }
	cmds := []func() []string{
		func() []string { return []string{"SET", "k", "v", "PX", ms()} },
		func() []string { return []string{"SET", "k", "v", "NX", "PX", ms()} },
		func() []string { return []string{"PEXPIRE", "k", ms()} },
		func() []string { return []string{"GET", "k"} },
		func() []string { return []string{"SET", "k", "w"} },
		func() []string { return []string{"PERSIST", "k"} },
		func() []string { return []string{"DEL", "k"} },
		func() []string { return []string{"SET", "other", "x", "PX", "5"} },
		func() []string { return []string{"HSET", "k", "f" + strconv.Itoa(rng.IntN(3)), "v"} },
		func() []string { return []string{"HINCRBY", "k", "f1", "1"} },
		func() []string { return []string{"HDEL", "k", "f0"} },
		func() []string {
			return []string{"EVAL", hashLockScript, "1", "k", ms(), "f" + strconv.Itoa(rng.IntN(3))}
		},
	}
	fieldTTL := func() []string { return []string{"HEXPIRE", "k", "1", "FIELDS", "1", "f" + strconv.Itoa(rng.IntN(3))} }
	for _, withFieldTTLs := range []bool{false, true} {
		n := New(1)
		n.Watch("k")
		now := t0
		counted := 0
		for i := range 20000 {
			step := time.Duration(rng.IntN(3_000_000)) // up to 3 ms
			if rng.IntN(10) == 0 {
				step = -step * 5
			}
			now = now.Add(step)
			if n.watch.last.Exists && n.watch.last.Type == KeyHash && !n.fieldTTLs {
				counted++
			}
			got := n.watchBefore(now)
			if want := n.lookBefore(now); got != want {
				t.Fatalf("step %d at %v: counted %+v, the data says %+v", i, now.Sub(t0), got, want)
			}
			args := cmds[rng.IntN(len(cmds))]()
			if withFieldTTLs && i > 10000 && rng.IntN(4) == 0 {
				args = fieldTTL()
			}
			n.Exec(rng.IntN(3), now, args)
			if rng.IntN(20) == 0 { // a look from outside, later than the next step may be
				n.Key(now.Add(time.Duration(rng.IntN(3_000_000))), "k")
			}
		}
		if counted < 1000 || withFieldTTLs != n.fieldTTLs {
			t.Fatalf("field TTLs %v: %d hashes counted, fieldTTLs %v: the test tests little", withFieldTTLs, counted, n.fieldTTLs)
		}
	}
}

// hashLockScript is hash-reentrant-watchdog's acquire (package locks): a
// waiter's poll reads the hash (EXISTS, HEXISTS, PTTL) and changes nothing.
const hashLockScript = `if redis.call("exists",KEYS[1]) == 0 or redis.call("hexists",KEYS[1],ARGV[2]) == 1 then
    redis.call("hincrby",KEYS[1],ARGV[2],1)
    redis.call("pexpire",KEYS[1],ARGV[1])
    return nil
end
return redis.call("pttl",KEYS[1])`

// TestKnownSetsReadAsTheData runs one random command stream on two nodes,
// one that follows the watched key through commands' replies and one
// that reads the data after every command: the watched key after each
// command, and OBJECT IDLETIME, must be the same on both.
func TestKnownSetsReadAsTheData(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ms := func() string { return strconv.Itoa(1 + rng.IntN(50)) }
	cmds := []func() []string{
		func() []string { return []string{"SET", "k", "v" + ms()} },
		func() []string { return []string{"SET", "k", "v", "NX", "PX", ms()} },
		func() []string { return []string{"set", "k", "w", "px", ms(), "nx"} },
		func() []string { return []string{"SET", "k", "v", "XX", "EX", "1"} },
		func() []string { return []string{"SET", "k", "v", "XX"} },
		func() []string { return []string{"SET", "k", "v", "NX", "GET"} },
		func() []string { return []string{"SET", "k", "v", "KEEPTTL"} },
		func() []string { return []string{"SET", "k", "v", "PX", "5", "PX", ms()} },
		func() []string { return []string{"SET", "k", "v", "PX", "0"} },
		func() []string { return []string{"SET", "k", "v", "EX", "99999999999999"} },
		func() []string { return []string{"SET", "other", "x", "PX", "5"} },
		func() []string { return []string{"HSET", "k", "f", "v"} },
		func() []string { return []string{"PEXPIRE", "k", ms()} },
		func() []string { return []string{"GET", "k"} },
		func() []string { return []string{"DEL", "k"} },
		func() []string { return []string{"MULTI"} },
		func() []string { return []string{"EXEC"} },
		func() []string { return []string{"OBJECT", "IDLETIME", "k"} },
		func() []string { return []string{"DEL", "k", "other"} },
		func() []string { return []string{"DEL", "other"} },
		func() []string { return []string{"EVAL", releaseScript, "1", "k", "v"} },
		func() []string { return []string{"EVAL", releaseScript, "1", "k", "w"} },
		func() []string {
			return []string{"EVAL", `redis.call("get", KEYS[1]); return redis.call("set", KEYS[1], ARGV[1], "px", ARGV[2])`, "1", "k", "v", ms()}
		},
		func() []string { return []string{"EVAL", `return redis.call("append", KEYS[1], "x")`, "1", "k"} },
		func() []string {
			return []string{"EVAL", `redis.call("select", "1"); return redis.call("set", KEYS[1], "z")`, "1", "k"}
		},
		func() []string { return []string{"HSET", "k", "f", "v"} },
		func() []string { return []string{"HEXISTS", "k", "f"} },
		func() []string { return []string{"HGET", "k", "f"} },
		func() []string { return []string{"EXISTS", "k"} },
		func() []string { return []string{"PTTL", "k"} },
		func() []string { return []string{"TTL", "k"} },
		func() []string { return []string{"EVAL", hashLockScript, "1", "k", ms(), "f"} },
		func() []string { return []string{"EVAL", hashLockScript, "1", "k", ms(), "g"} },
		func() []string { return []string{"EVAL", `return redis.call("hexists", KEYS[1], "f")`, "1", "k"} },
		func() []string { return []string{"SETNX", "k", "s" + ms()} },
		func() []string { return []string{"SETNX", "other", "s"} },
		func() []string { return []string{"GETSET", "k", "g" + ms()} },
		func() []string { return []string{"EVAL", `return redis.call("setnx", KEYS[1], "e")`, "1", "k"} },
		func() []string { return []string{"EVAL", `return redis.call("getset", KEYS[1], "e")`, "1", "k"} },
	}
	known, read := New(1), New(1)
	known.Watch("k")
	read.Watch("k")
	read.readBack = true
	now := t0
	for i := range 20000 {
		step := time.Duration(rng.IntN(3_000_000_000)) // up to 3 s: IDLETIME counts seconds
		if rng.IntN(10) == 0 {
			step = -step / 2
		}
		now = now.Add(step)
		if rng.IntN(200) == 0 { // connections made new, on database 0
			known.Flush()
			read.Flush()
		}
		conn, args := rng.IntN(3), cmds[rng.IntN(len(cmds))]()
		if rng.IntN(500) == 0 { // a SET after it may write another database
			args = []string{"SELECT", strconv.Itoa(rng.IntN(2))}
		}
		if i > 15000 && rng.IntN(100) == 0 { // from then on a hash is read, not followed
			args = []string{"HEXPIRE", "k", "1", "FIELDS", "1", "f"}
		}
		got := known.Exec(conn, now, args)
		want := read.Exec(conn, now, args)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: %q replied %+v, on the node that reads %+v", i, args, got, want)
		}
		if g, w := known.Watched(), read.Watched(); g != w {
			t.Fatalf("step %d: after %q the watched key is %+v, the data says %+v", i, args, g, w)
		}
	}
	if fast := known.follows; fast < 2000 {
		t.Fatalf("only %d of 20000 commands known from their reply: the test tests little", fast)
	}
}
