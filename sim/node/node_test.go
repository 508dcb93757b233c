package node

import (
	"reflect"
	"testing"
	"time"
)

func TestKeyFollowsNodeTime(t *testing.T) {
	n := New(1)
	mustExec(t, n, t0, cmd("SET", "k", "v", "PX", "100"), status("OK"))
	mustExec(t, n, t0, cmd("SET", "forever", "f"), status("OK"))
	tests := []struct {
		at     time.Duration
		key    string
		exists bool
		value  string
		ttl    time.Duration
	}{
		{0, "k", true, "v", 100 * time.Millisecond},
		{40 * time.Millisecond, "k", true, "v", 60 * time.Millisecond},
		{99 * time.Millisecond, "k", true, "v", time.Millisecond},
		{100 * time.Millisecond, "k", false, "", -1},
		{time.Hour, "forever", true, "f", -1},
		{time.Hour, "missing", false, "", -1},
	}
	for _, tt := range tests {
		k := n.Key(t0.Add(tt.at), tt.key)
		exists, value, ttl := k.Exists, k.Value, k.TTL
		if exists != tt.exists || value != tt.value || ttl != tt.ttl {
			t.Errorf("Key(t0+%v, %q) = %v, %q, %v; want %v, %q, %v",
				tt.at, tt.key, exists, value, ttl, tt.exists, tt.value, tt.ttl)
		}
	}
}

func TestExecFollowsNodeTime(t *testing.T) {
	n := New(1)
	mustExec(t, n, t0, cmd("SET", "k", "v", "PX", "100"), status("OK"))
	mustExec(t, n, t0.Add(99*time.Millisecond), cmd("GET", "k"), bulk("v"))
	mustExec(t, n, t0.Add(99*time.Millisecond), eval("return redis.call('PTTL', KEYS[1])", []string{"k"}), integer(1))
	mustExec(t, n, t0.Add(100*time.Millisecond), cmd("GET", "k"), nilReply)
	// A zero time is the Unix epoch, never the host clock.
	mustExec(t, n, time.Time{}, cmd("TIME"), array(bulk("0"), bulk("0")))
}

func TestRefused(t *testing.T) {
	tests := []struct {
		args []string
		name string
	}{
		{cmd("BLPOP", "l", "0"), "BLPOP"},
		{cmd("brpop", "l", "0"), "BRPOP"},
		{cmd("BLMOVE", "a", "b", "LEFT", "RIGHT", "0"), "BLMOVE"},
		{cmd("BRPOPLPUSH", "a", "b", "0"), "BRPOPLPUSH"},
		{cmd("BZPOPMIN", "z", "0"), "BZPOPMIN"},
		{cmd("BZPOPMAX", "z", "0"), "BZPOPMAX"},
		{cmd("BLMPOP", "0", "1", "l", "LEFT"), "BLMPOP"},
		{cmd("BZMPOP", "0", "1", "z", "MIN"), "BZMPOP"},
		{cmd("WAIT", "1", "0"), "WAIT"},
		{cmd("WAITAOF", "1", "0", "0"), "WAITAOF"},
		{cmd("SUBSCRIBE", "ch"), "SUBSCRIBE"},
		{cmd("PSUBSCRIBE", "c*"), "PSUBSCRIBE"},
		{cmd("SSUBSCRIBE", "ch"), "SSUBSCRIBE"},
		{cmd("unsubscribe"), "UNSUBSCRIBE"},
		{cmd("PUNSUBSCRIBE", "c*"), "PUNSUBSCRIBE"},
		{cmd("MONITOR"), "MONITOR"},
		{cmd("HELLO", "3"), "HELLO"},
		{cmd("SHUTDOWN"), "SHUTDOWN"},
		{cmd("DEBUG", "SLEEP", "0"), "DEBUG"},
		{cmd("quit"), "QUIT"},
		{cmd("XREAD", "COUNT", "1", "BLOCK", "0", "STREAMS", "s", "$"), "XREAD BLOCK"},
		{cmd("xreadgroup", "GROUP", "g", "c", "block", "0", "STREAMS", "s", ">"), "XREADGROUP BLOCK"},
	}
	for _, tt := range tests {
		want := errr("ERR locksim: " + tt.name + " is not simulated")
		n := New(1)
		mustExec(t, n, t0, tt.args, want)
		// From a script the same.
		script := "return redis.pcall(unpack(ARGV))"
		mustExec(t, n, t0, append(cmd("EVAL", script, "0"), tt.args...), want)
	}

	n := New(1)
	// Not blocking: a group that happens to be called BLOCK, and no BLOCK.
	mustExec(t, n, t0, cmd("XREADGROUP", "GROUP", "BLOCK", "c", "STREAMS", "s", ">"),
		errr("NOGROUP No such key 's' or consumer group 'BLOCK' in XREADGROUP with GROUP option"))
	mustExec(t, n, t0, cmd("XREAD", "STREAMS", "s", "0"), nilReply)
}

func TestSupported(t *testing.T) {
	for cmd, want := range map[string]bool{
		"GET": true, "get": true, "Eval": true, "EVALSHA": true, "SCRIPT": true,
		"XREAD": true, "MULTI": true,
		"BLPOP": false, "blpop": false, "WAIT": false, "HELLO": false, "QUIT": false,
		"SUBSCRIBE": false, "NOPE": false, "WAITAOF": false,
	} {
		if got := Supported(cmd); got != want {
			t.Errorf("Supported(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestCommandTableIsMiniredis: the static table Supported reads holds
// exactly the commands a node's miniredis registers, read from its private
// table, so a miniredis upgrade that adds or drops one fails here.
func TestCommandTableIsMiniredis(t *testing.T) {
	n := New(1)
	registered := reflect.ValueOf(n.srv).Elem().FieldByName("cmds").MapKeys()
	if len(registered) != len(miniredisCommands) {
		t.Errorf("miniredis registers %d commands, the table has %d", len(registered), len(miniredisCommands))
	}
	for _, k := range registered {
		if !commandTable[k.String()] {
			t.Errorf("miniredis registers %s, the table lacks it", k.String())
		}
	}
	for _, name := range miniredisCommands {
		if !n.srv.IsRegisteredCommand(name) {
			t.Errorf("the table has %s, miniredis does not register it", name)
		}
	}
}

// TestTransactions: script commands cannot join miniredis's queue, so inside
// MULTI they are refused and the transaction aborts, as after any refusal.
func TestTransactions(t *testing.T) {
	n := New(1)
	abort := errr("EXECABORT Transaction discarded because of previous errors.")
	mustExec(t, n, t0, cmd("MULTI"), status("OK"))
	mustExec(t, n, t0, cmd("SET", "a", "1"), status("QUEUED"))
	mustExec(t, n, t0, eval("return 1", nil), errr("ERR locksim: EVAL inside MULTI is not simulated"))
	mustExec(t, n, t0, cmd("EXEC"), abort)
	mustExec(t, n, t0, cmd("GET", "a"), nilReply)

	mustExec(t, n, t0, cmd("MULTI"), status("OK"))
	mustExec(t, n, t0, cmd("BLPOP", "l", "0"), errr("ERR locksim: BLPOP is not simulated"))
	mustExec(t, n, t0, cmd("EXEC"), abort)

	mustExec(t, n, t0, cmd("MULTI"), status("OK"))
	n.Exec(0, t0, cmd("NOPE"))
	mustExec(t, n, t0, cmd("EXEC"), abort)

	// After EXEC or DISCARD scripts run again.
	mustExec(t, n, t0, cmd("MULTI"), status("OK"))
	mustExec(t, n, t0, cmd("SET", "a", "1"), status("QUEUED"))
	mustExec(t, n, t0, cmd("EXEC"), array(status("OK")))
	mustExec(t, n, t0, eval("return redis.call('GET', 'a')", nil), bulk("1"))
	mustExec(t, n, t0, cmd("MULTI"), status("OK"))
	mustExec(t, n, t0, cmd("DISCARD"), status("OK"))
	mustExec(t, n, t0, eval("return 2", nil), integer(2))

	// Another connection's MULTI does not stop this one.
	n.Exec(1, t0, cmd("MULTI"))
	mustExec(t, n, t0, eval("return 3", nil), integer(3))
}

func TestFlushForgetsEverything(t *testing.T) {
	n := New(1)
	n.Exec(0, t0, cmd("SELECT", "2"))
	n.Exec(0, t0, cmd("SET", "k", "v"))
	n.Exec(0, t0, eval("return 1", nil))
	n.Flush()
	mustExec(t, n, t0, cmd("SELECT", "2"), status("OK"))
	mustExec(t, n, t0, cmd("GET", "k"), nilReply)
	mustExec(t, n, t0, eval("return redis.call('SET', 'k', 'again')", nil), status("OK"))
	// The kept Lua state answers as a new node's does.
	probe := eval("return {math.random(1000000), tostring({}), type(KEYS)}", nil)
	mustExec(t, n, t0, probe, New(1).Exec(0, t0, probe))
}

// TestClosedConnectionsAreNew: Reset, Flush, Disconnect and Restart close
// every connection, and the kept peers must then answer as new ones: no
// selected DB, client name, MULTI (miniredis's or the node's own flag) or
// WATCH survives.
func TestClosedConnectionsAreNew(t *testing.T) {
	for _, c := range []struct {
		name  string
		close func(*Node)
	}{
		{"Reset", func(n *Node) { n.Reset(1) }},
		{"Flush", (*Node).Flush},
		{"Disconnect", (*Node).Disconnect},
		{"Restart", func(n *Node) { n.Restart(t0) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := New(1)
			n.Exec(0, t0, cmd("SELECT", "1"))
			n.Exec(0, t0, cmd("CLIENT", "SETNAME", "old"))
			n.Exec(1, t0, cmd("WATCH", "w"))
			n.Exec(2, t0, cmd("MULTI"))
			c.close(n)
			mustExec(t, n, t0, cmd("SET", "k", "v"), status("OK"))
			if !n.Key(t0, "k").Exists {
				t.Fatal("connection 0 still has DB 1 selected")
			}
			mustExec(t, n, t0, cmd("CLIENT", "GETNAME"), nilReply)
			n.Exec(0, t0, cmd("SET", "w", "changed"))
			n.Exec(1, t0, cmd("MULTI"))
			n.Exec(1, t0, cmd("SET", "x", "1"))
			mustExecOn(t, n, 1, t0, cmd("EXEC"), array(status("OK")))
			mustExecOn(t, n, 2, t0, eval("return 1", nil), integer(1))
			mustExecOn(t, n, 2, t0, cmd("EXEC"), errr("ERR EXEC without MULTI"))
		})
	}
}

// State refuses (ok false) what it cannot read: an open transaction, a
// WATCH; a disconnect makes the node readable again.
func TestStateRefusesConnectionState(t *testing.T) {
	n := New(1)
	t0 := time.Unix(100, 0)
	visit := func() bool { return n.State(t0, func(string) {}, func(int64) {}) }
	n.Exec(0, t0, cmd("SET", "k", "v"))
	if !visit() {
		t.Fatal("a node with one key: State refused")
	}
	n.Exec(0, t0, cmd("MULTI"))
	if visit() {
		t.Fatal("inside MULTI: State read the node")
	}
	n.Exec(0, t0, cmd("EXEC"))
	if !visit() {
		t.Fatal("after EXEC: State refused")
	}
	n.Exec(1, t0, cmd("WATCH", "k"))
	if visit() {
		t.Fatal("after WATCH: State read the node")
	}
	n.Flush()
	if !visit() {
		t.Fatal("after a restart's flush: State refused")
	}
}
