package realredis

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/redistest"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

func TestParseAddrs(t *testing.T) {
	for _, c := range []struct {
		spec  string
		nodes int
		want  []Node
		err   string
	}{
		{spec: "127.0.0.1:6379", nodes: 1, want: []Node{{"127.0.0.1:6379", 0}}},
		{spec: "127.0.0.1:6379/3", nodes: 3, want: []Node{{"127.0.0.1:6379", 3}, {"127.0.0.1:6379", 4}, {"127.0.0.1:6379", 5}}},
		{spec: "a:1, b:2/7", nodes: 2, want: []Node{{"a:1", 0}, {"b:2", 7}}},
		{spec: "a:1,b:2", nodes: 5, err: "the run has 5 nodes: give one address (node i is its database db+i) or 5, not 2"},
		{spec: "a:1,b:2", nodes: 1, err: "the run has 1 node:"},
		{spec: "localhost", nodes: 1, err: `"localhost": want host:port or host:port/db`},
		{spec: "a:1/x", nodes: 1, err: `"a:1/x": the database after / must be a whole number ≥ 0`},
		{spec: "a:1/-1", nodes: 1, err: "whole number"},
		{spec: "", nodes: 1, err: "want host:port"},
	} {
		got, err := ParseAddrs(c.spec, c.nodes)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: %v", c.spec, got)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: node %d is %v, want %v", c.spec, i, got[i], c.want[i])
			}
		}
	}
}

// TestExecAgainstServer: the reply and the watched key as the command left
// it, including a command refused before it could run (EXECABORT) and a key
// of another type.
func TestExecAgainstServer(t *testing.T) {
	addr := redistest.Addr(t)
	w, err := Open(addr+"/9", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c, err := w.Dial(0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	steps := []struct {
		args  []string
		reply string
		key   sim.KeyState
	}{
		{[]string{"GET", "lock"}, "nil", sim.KeyState{TTL: -1}},
		{[]string{"SET", "lock", "a", "NX", "PX", "60000"}, "OK", sim.KeyState{Exists: true, Fresh: true, Value: "a", TTL: 60 * time.Second}},
		{[]string{"SETNX", "lock", "b"}, "0", sim.KeyState{Exists: true, Value: "a", TTL: 60 * time.Second}},
		{[]string{"SET", "lock"}, "ERR wrong number of arguments for 'set' command", sim.KeyState{Exists: true, Value: "a", TTL: 60 * time.Second}},
		{[]string{"PEXPIRE", "lock", "60000"}, "1", sim.KeyState{Exists: true, Value: "a", TTL: 60 * time.Second}},
		{[]string{"DEL", "lock"}, "1", sim.KeyState{TTL: -1}},
		{[]string{"HSET", "lock", "f", "1", "e", "2"}, "2", sim.KeyState{Exists: true, Fresh: true, Type: node.KeyHash, Value: "{e: 2, f: 1}", TTL: -1}},
		{[]string{"INCR", "lock"}, "WRONGTYPE Operation against a key holding the wrong kind of value", sim.KeyState{Exists: true, Type: node.KeyHash, Value: "{e: 2, f: 1}", TTL: -1}},
		{[]string{"HINCRBY", "lock", "f", "1"}, "2", sim.KeyState{Exists: true, Fresh: true, Type: node.KeyHash, Value: "{e: 2, f: 2}", TTL: -1}},
		{[]string{"DEL", "lock"}, "1", sim.KeyState{TTL: -1}},
		{[]string{"SADD", "lock", "b", "a"}, "2", sim.KeyState{Exists: true, Fresh: true, Type: node.KeySet, Value: "{a, b}", TTL: -1}},
		{[]string{"DEL", "lock"}, "1", sim.KeyState{TTL: -1}},
		{[]string{"ZADD", "lock", "2", "x", "1.5", "y"}, "2", sim.KeyState{Exists: true, Fresh: true, Type: node.KeyZSet, Value: "{y: 1.5, x: 2}", TTL: -1}},
		{[]string{"DEL", "lock"}, "1", sim.KeyState{TTL: -1}},
		{[]string{"RPUSH", "lock", "b", "a"}, "2", sim.KeyState{Exists: true, Fresh: true, Type: node.KeyList, Value: "[b, a]", TTL: -1}},
		{[]string{"DEL", "lock"}, "1", sim.KeyState{TTL: -1}},
		{[]string{"XADD", "lock", "1-1", "f", "v"}, "1-1", sim.KeyState{Exists: true, Fresh: true, Type: node.KeyStream, Value: "[1-1 {f: v}]", TTL: -1}},
	}
	for _, s := range steps {
		r, ks, err := c.Exec(s.args, "lock")
		if err != nil {
			t.Fatalf("%v: %v", s.args, err)
		}
		if got := replyText(r); got != s.reply {
			t.Errorf("%v: reply %q, want %q", s.args, got, s.reply)
		}
		if ks.TTL > 0 && s.key.TTL > 0 && s.key.TTL-ks.TTL < time.Second {
			ks.TTL = s.key.TTL // the clock ran between the two: within a second is the same
		}
		if ks != s.key {
			t.Errorf("%v: key %+v, want %+v", s.args, ks, s.key)
		}
	}
	if err := w.Restart(0); err != nil {
		t.Fatal(err)
	}
	if _, ks, _ := c.Exec([]string{"EXISTS", "lock"}, "lock"); ks.Exists {
		t.Error("the key survived a restart")
	}
}

func replyText(r sim.Reply) string {
	switch r.Kind {
	case node.Nil:
		return "nil"
	case node.Int:
		return strconv.FormatInt(r.Int, 10)
	}
	return r.Str
}

// TestStartedServersRestart: with servers locksim started, a node restart
// restarts the process: keys and cached scripts are gone, the other node
// keeps its data, and a fresh connection works.
func TestStartedServersRestart(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not on PATH: nothing to start (scripts/redis-server.sh installs it)")
	}
	srv, err := Start(2)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	w, err := OpenServers(srv)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if !strings.HasPrefix(w.Name(), "redis started by locksim: 127.0.0.1:") || strings.Count(w.Name(), ",") != 1 {
		t.Errorf("name %q", w.Name())
	}
	pid := srv.cmds[0].Process.Pid
	for n := range 2 {
		c, _ := w.Dial(n)
		c.Exec([]string{"SET", "k", "v"}, "")
		c.Exec([]string{"SCRIPT", "LOAD", "return 1"}, "")
		c.Close()
	}
	if err := w.Restart(0); err != nil {
		t.Fatal(err)
	}
	if srv.cmds[0].Process.Pid == pid {
		t.Error("the server process was not restarted")
	}
	sha := "e0e1f9fabfc9d4800c877a703b823ac0578ff8db" // sha1("return 1")
	for n, want := range []string{"0 0", "1 1"} {
		c, err := w.Dial(n)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := c.Exec([]string{"EXISTS", "k"}, "")
		s, _, err2 := c.Exec([]string{"SCRIPT", "EXISTS", sha}, "")
		if err != nil || err2 != nil || len(s.Elems) != 1 {
			t.Fatalf("node %d: %v %v %v", n, err, err2, s)
		}
		if got := strconv.FormatInt(r.Int, 10) + " " + strconv.FormatInt(s.Elems[0].Int, 10); got != want {
			t.Errorf("node %d after node 0's restart: key, script %s; want %s", n, got, want)
		}
		c.Close()
	}
}

// TestExecFreshAgainstServer: a new version as each connection tells it,
// the writer being the connection that last saw its own version.
func TestExecFreshAgainstServer(t *testing.T) {
	addr := redistest.Addr(t)
	w, err := Open(addr+"/9", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var cs [2]sim.Conn
	for i := range cs {
		if cs[i], err = w.Dial(0); err != nil {
			t.Fatal(err)
		}
		defer cs[i].Close()
	}
	steps := []struct {
		conn  int
		args  []string
		fresh bool
	}{
		{0, []string{"SET", "lock", "a", "NX", "PX", "60000"}, true},
		{1, []string{"SET", "lock", "b", "NX", "PX", "60000"}, false}, // refused
		{0, []string{"PEXPIRE", "lock", "90000"}, false},              // its own
		{1, []string{"PEXPIRE", "lock", "60000"}, true},               // another's
		{1, []string{"PEXPIRE", "lock", "90000"}, false},              // its own now
		// Conn 0 finds its content with a TTL that did not just count
		// down (conn 1's, 30 ms later): not its own version.
		{0, []string{"SET", "lock", "a", "PX", "30000"}, true},
		{1, []string{"SET", "lock", "a", "PX", "40000"}, true}, // over conn 0's
		{1, []string{"GET", "lock"}, false},
		// Its own content and TTL again, in one script: nothing anyone can see.
		{1, []string{"EVAL", "redis.call('DEL', KEYS[1]); return redis.call('SET', KEYS[1], 'a', 'PX', 40000)", "1", "lock"}, false},
		{0, []string{"EVAL", "return redis.call('HSET', 'other', 'f', 1)", "0"}, false},
		{1, []string{"DEL", "lock"}, false},
	}
	for i, s := range steps {
		if i == 4 {
			time.Sleep(30 * time.Millisecond)
		}
		_, ks, err := cs[s.conn].Exec(s.args, "lock")
		if err != nil {
			t.Fatalf("step %d %v: %v", i, s.args, err)
		}
		if ks.Fresh != s.fresh {
			t.Errorf("step %d: conn %d %v left %+v, want Fresh %v", i, s.conn, s.args, ks, s.fresh)
		}
	}
}
