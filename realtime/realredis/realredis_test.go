package realredis

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/internal/redistest"
	"github.com/locksim/locksim/realtime/engine"
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

// TestStartOnTakenPort: a server started on a port another process holds
// cannot bind it, and another process answers there: a second redis-server,
// or a lag link, whose PONG is its primary's. startProc says the port is
// taken (not that the server started), and onFreePort tries other ports.
func TestStartOnTakenPort(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not on PATH: nothing to start (scripts/redis-server.sh installs it)")
	}
	dir := t.TempDir()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	first, err := startProc(bin, serverArgs(port, dir+"/first", sim.PersistNone), nil, dir+"/first", port)
	defer killCmd(&first)
	if err != nil {
		t.Fatal(err)
	}
	second, err := startProc(bin, serverArgs(port, dir+"/second", sim.PersistNone), nil, dir+"/second", port)
	if !errors.Is(err, errPortTaken) || second != nil {
		t.Errorf("a second server on the first's port: %v, process %v; want errPortTaken and none", err, second)
	}
	link, err := newLagLink("127.0.0.1:"+strconv.Itoa(port), sim.Latency{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer link.close()
	onLink, err := startProc(bin, serverArgs(link.port(), dir+"/link", sim.PersistNone), nil, dir+"/link", link.port())
	if !errors.Is(err, errPortTaken) || onLink != nil {
		t.Errorf("a server on a lag link's port: %v, process %v; want errPortTaken and none", err, onLink)
	}

	var tried []int
	got, err := onFreePort(func(p int) error {
		tried = append(tried, p)
		if len(tried) < 3 {
			return fmt.Errorf("start: %w", errPortTaken)
		}
		return nil
	})
	if err != nil || len(tried) != 3 || got != tried[2] {
		t.Errorf("taken twice, then free: port %d, %v after tries %v; want the third try's port", got, err, tried)
	}
	tried = nil
	if _, err := onFreePort(func(p int) error { tried = append(tried, p); return errPortTaken }); !errors.Is(err, errPortTaken) || len(tried) != 3 {
		t.Errorf("always taken: %v after %d tries; want errPortTaken after 3", err, len(tried))
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
	var cs [2]engine.Conn
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

// startOrSkip starts servers for specs, skipping the test with the reason
// when what they need is not installed; the servers stop when it ends.
func startOrSkip(t *testing.T, specs ...ServerSpec) (*Servers, *Wire) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not on PATH: nothing to start (scripts/redis-server.sh installs it)")
	}
	for _, sp := range specs {
		if err := Faketime(); sp.Clock && err != nil {
			t.Skip(err.Error())
		}
	}
	srv, err := StartSpecs(specs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	w, err := OpenServers(srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return srv, w
}

func mustExec(t *testing.T, w *Wire, n int, args ...string) sim.Reply {
	t.Helper()
	c, err := w.Dial(n)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, _, err := c.Exec(args, "")
	if err != nil {
		t.Fatalf("node %d: %v: %v", n, args, err)
	}
	return r
}

// waitAOF waits (at most 3 s) until node i's AOF holds want: under
// everysec Redis may postpone its write() while an fsync runs, after it
// replied.
func waitAOF(t *testing.T, srv *Servers, i int, want string) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		srv.mu.Lock()
		srv.mark(i)
		m := srv.synced[i]
		srv.mu.Unlock()
		if b, _ := os.ReadFile(m.path); strings.Contains(string(b), want) {
			return
		}
	}
	t.Fatalf("node %d's AOF lacks %q after 3 s", i, want)
}

// TestStartedServersPersist: a restart of a server with appendfsync always
// replays its AOF (the key and the rest of its TTL are back); with everysec
// the AOF is cut back to its last mark (the emulated fsync at a whole
// second of the server's clock) and the server has exactly what is left:
// what came before the mark, not what came after unless a whole second
// marked it too; without persistence it keeps nothing.
func TestStartedServersPersist(t *testing.T) {
	srv, w := startOrSkip(t, ServerSpec{Persistence: sim.PersistEverysec},
		ServerSpec{Persistence: sim.PersistAlways}, ServerSpec{})
	for n := range 3 {
		mustExec(t, w, n, "SET", "before", "v", "PX", "60000")
	}
	waitAOF(t, srv, 0, "before") // marks node 0's AOF with "before" in it
	for n := range 3 {
		mustExec(t, w, n, "SET", "after", "v", "PX", "60000")
	}
	for n := range 3 {
		if err := w.Restart(n); err != nil {
			t.Fatal(err)
		}
	}
	srv.mu.Lock()
	m := srv.synced[0]
	srv.mu.Unlock()
	aof, err := os.ReadFile(m.path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(aof)) != m.size {
		t.Errorf("aof-everysec: the AOF is %d bytes after the restart, its last mark %d", len(aof), m.size)
	}
	afterKept := int64(0)
	if strings.Contains(string(aof), "after") {
		afterKept = 1 // a whole second passed between the write and the restart
		t.Log("a whole second marked node 0's AOF after the second write: it is kept")
	}
	for n, want := range [][2]int64{{1, afterKept}, {1, 1}, {0, 0}} {
		b, a := mustExec(t, w, n, "EXISTS", "before"), mustExec(t, w, n, "EXISTS", "after")
		if got := [2]int64{b.Int, a.Int}; got != want {
			t.Errorf("node %d (%s) after its restart: before, after %v; want %v", n, srv.specs[n].Persistence, got, want)
		}
	}
	if ttl := mustExec(t, w, 1, "PTTL", "before"); ttl.Int < 50000 || ttl.Int > 60000 {
		t.Errorf("aof-always: the key's TTL after the reload %d ms, want the rest of 60 s", ttl.Int)
	}
}

// TestFaketimeStepsExpiry: a server under libfaketime expires a key when
// locksim steps its clock past the key's TTL, and TIME follows the step;
// the other server's clock is its host's.
func TestFaketimeStepsExpiry(t *testing.T) {
	_, w := startOrSkip(t, ServerSpec{Clock: true}, ServerSpec{})
	for n := range 2 {
		mustExec(t, w, n, "SET", "k", "v", "PX", "10000")
	}
	before := mustExec(t, w, 0, "TIME").Elems[0].Str
	// 11 s: a step of exactly the TTL leaves the key alive for the
	// millisecond in which Redis's now equals its expiry (now > when).
	if err := w.JumpClock(0, 11*time.Second); err != nil {
		t.Fatal(err)
	}
	after := mustExec(t, w, 0, "TIME").Elems[0].Str
	b, _ := strconv.Atoi(before)
	a, _ := strconv.Atoi(after)
	if d := a - b; d < 11 || d > 13 {
		t.Errorf("TIME moved %d s over an 11 s step", d)
	}
	if r := mustExec(t, w, 0, "GET", "k"); r.Kind != node.Nil {
		t.Errorf("node 0: GET k after an 11 s step over its PX 10000: %+v, want nil", r)
	}
	if r := mustExec(t, w, 1, "GET", "k"); r.Str != "v" {
		t.Errorf("node 1 (no step): GET k %+v, want v", r)
	}
	if err := w.JumpClock(1, time.Second); err == nil {
		t.Error("stepping a server that is not under libfaketime did not fail")
	}
	if p := w.Parts(); !p.Processes || !p.Clocks {
		t.Errorf("parts %+v", p)
	}
}

// TestReplicaLagAndFailover: a replica behind a 300 ms link has a write
// only after the lag, WAIT 1 50 answers 0 and WAIT 1 1000 answers 1 once
// the lag is over; a write the failover cuts off is not on the replica
// Sentinel promotes, and clients dialling afterwards reach the promoted
// replica, a primary now.
func TestReplicaLagAndFailover(t *testing.T) {
	t.Parallel() // seconds of wall time on servers of its own, next to the other tests'
	if _, err := exec.LookPath("redis-sentinel"); err != nil {
		t.Skip("redis-sentinel is not on PATH (scripts/redis-server.sh installs it)")
	}
	lag := 300 * time.Millisecond
	srv, w := startOrSkip(t, ServerSpec{Replicas: 1, Lag: sim.Latency{Min: lag, Max: lag}, Sentinel: true, DownAfter: 200 * time.Millisecond})
	replica := srv.replicaAddr(0, 0)
	onReplica := func(args ...string) string {
		out, err := ask(replica, args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	c, err := w.Dial(0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	do := func(args ...string) sim.Reply {
		r, _, err := c.Exec(args, "")
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return r
	}
	start := time.Now()
	do("SET", "a", "1")
	if got := onReplica("GET", "a"); got != "$-1\r\n" && time.Since(start) < lag {
		t.Errorf("the replica has a before its lag: %q", got)
	}
	if r := do("WAIT", "1", "50"); r.Int != 0 && time.Since(start) < lag {
		t.Errorf("WAIT 1 50 within the lag answered %d, want 0", r.Int)
	}
	if r := do("WAIT", "1", "1000"); r.Int != 1 || time.Since(start) < lag {
		t.Errorf("WAIT 1 1000 answered %d after %v, want 1 after the %v lag", r.Int, time.Since(start), lag)
	}
	if got := onReplica("GET", "a"); got != "$1\r\n1\r\n" {
		t.Errorf("the replica lacks a after the lag: %q", got)
	}
	do("SET", "b", "2")
	k, ks, err := w.Failover(0, "b") // within b's lag: the link drops it
	if err != nil || k != 0 || ks.Exists {
		t.Fatalf("failover: replica %d, key b %+v, %v; want replica 0 without b", k, ks, err)
	}
	if !c.(engine.StaleConn).Stale() {
		t.Error("a connection to the killed primary is not stale")
	}
	// Sentinel promotes the replica: down-after plus its own steps.
	var addr string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if addr, err = srv.primaryAddr(0); err == nil && addr == replica {
			break
		}
	}
	if addr != replica {
		t.Fatalf("Sentinel names %q (%v), want the replica %s", addr, err, replica)
	}
	c2, err := w.Dial(0)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	for _, cmd := range [][]string{{"GET", "a"}, {"GET", "b"}, {"SET", "c", "3"}} {
		r, _, err := c2.Exec(cmd, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("on the promoted replica: %v → %s", cmd, replyText(r))
	}
	if got := onReplica("GET", "a") + onReplica("GET", "b") + onReplica("GET", "c"); got != "$1\r\n1\r\n$-1\r\n$1\r\n3\r\n" {
		t.Errorf("the promoted replica has a, b, c: %q; want a and c (written after the promotion), not b", got)
	}
}

// SpecsFor reads only node faults' nodes (a process fault's Node is -1):
// every built-in maps onto servers without a panic, and the failover and
// persistence ones onto what they need.
func TestSpecsForBuiltins(t *testing.T) {
	cfg := sim.Config{
		Nodes: []sim.NodeSpec{{Replicas: 1, Persistence: sim.PersistAlways}, {}},
		Faults: []sim.Fault{
			{Kind: fault.Pause, Proc: 0, Node: -1},
			{Kind: fault.Failover, Node: 0, Dur: time.Second},
			{Kind: fault.NodeJump, Node: 1},
			{Kind: fault.Failover, Node: 0, Dur: 5 * time.Second}, // the first one sets Sentinel's delay
		},
	}
	got := SpecsFor(&cfg)
	want := []ServerSpec{
		{Persistence: sim.PersistAlways, Replicas: 1, Sentinel: true, DownAfter: time.Second},
		{Clock: true},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("specs %+v, want %+v", got, want)
	}
}
