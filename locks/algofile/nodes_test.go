package algofile

import (
	"github.com/locksim/locksim/internal/locktest"
	"strings"
	"testing"

	"github.com/locksim/locksim/locks"
)

func quorumFile(nodes string) string {
	return "name: mine\nkey: k\nttl: 10s\n" + nodes + "acquire:\n  command: [SET, \"{key}\", \"{token}\", NX, PX, \"{ttl_ms}\"]\n  success: ok\n  errors: retry\n" +
		"release:\n  script: |-\n    if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end\n    return 0\n" +
		"  keys: [\"{key}\"]\n  args: [\"{token}\"]\n  errors: done\n"
}

// nodes: runs each operation on every node in turn with one token; the
// acquire holds when a quorum granted; release goes to every node.
func TestFileQuorum(t *testing.T) {
	for _, c := range []struct {
		nodes string
		down  []int
		held  bool
	}{
		{"nodes: 3\n", []int{2}, true},
		{"nodes: 3\n", []int{1, 2}, false},
		{"nodes: 3\nquorum: 3\n", []int{2}, false},
		{"nodes: 3\nquorum: 1\n", []int{1, 2}, true},
	} {
		a := mustParse(t, quorumFile(c.nodes), nil)
		if err := a.Validate(locks.Params{}); err != nil {
			t.Fatal(err)
		}
		if a.NodesNeeded(locks.Params{}) != 3 {
			t.Fatalf("needs %d nodes", a.NodesNeeded(locks.Params{}))
		}
		w := locktest.NewWorld(t, 3)
		for _, n := range c.down {
			w.Down[n] = true
		}
		p := w.Proc("c1", 0)
		l := a.New(locks.Params{})
		lease, err := l.Acquire(p)
		if err != nil || lease.Held != c.held {
			t.Errorf("%q down %v: %+v %v after %q", c.nodes, c.down, lease, err, w.Log)
			continue
		}
		sets := 0
		for _, line := range w.Log {
			if strings.Contains(line, " SET k "+lease.Token) || !c.held && strings.Contains(line, " SET k ") {
				sets++
			}
		}
		if sets != 3 {
			t.Errorf("%q: %d SETs with the lease's token, want one per node: %q", c.nodes, sets, w.Log)
		}
		if c.held {
			w.Log = nil
			locktest.MustRelease(t, l, p, lease)
			if len(w.Log) != 3 || !strings.HasPrefix(w.Log[2], "c1 2 EVAL") {
				t.Errorf("release sent %q, want one per node", w.Log)
			}
		}
	}
}

func TestFileQuorumErrors(t *testing.T) {
	for _, c := range []struct{ nodes, want string }{
		{"nodes: 0\nquorum: 1\n", "a.yaml: quorum: needs nodes"},
		{"nodes: 40\n", "a.yaml: nodes: 40: want 1 to 32"},
		{"nodes: -1\n", "a.yaml: nodes: -1: want 1 to 32"},
		{"nodes: 3\nquorum: 4\n", `a.yaml: quorum: "4": want majority or a count of nodes from 1 to 3`},
		{"nodes: 3\nquorum: most\n", `a.yaml: quorum: "most": want majority`},
	} {
		if _, err := parse(t, quorumFile(c.nodes), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.nodes, err, c.want)
		}
	}
	fenced := strings.Replace(quorumFile("nodes: 3\n"), "  errors: retry\n", "  errors: retry\n  fence: true\n", 1)
	fenced = strings.Replace(fenced, "command: [SET, \"{key}\", \"{token}\", NX, PX, \"{ttl_ms}\"]\n  success: ok", "command: [INCR, \"{key}\"]\n  success: integer", 1)
	if _, err := parse(t, fenced, nil); err == nil || !strings.Contains(err.Error(), "a.yaml: nodes: 3: a fencing number (fence: true) comes from one node") {
		t.Errorf("fence on 3 nodes: %v", err)
	}
	// A scenario's nodes override: refused in one line where it cannot run.
	one := mustParse(t, quorumFile(""), nil)
	if err := one.Validate(locks.Params{Nodes: 5}); err == nil || !strings.Contains(err.Error(), "mine: nodes 5: this algorithm file runs on one node (give it nodes: and quorum: to run on several)") {
		t.Errorf("nodes 5 on a one-node file: %v", err)
	}
	three := mustParse(t, quorumFile("nodes: 3\nquorum: 3\n"), nil)
	if err := three.Validate(locks.Params{Nodes: 2}); err == nil || !strings.Contains(err.Error(), "mine: nodes 2: fewer than the file's quorum of 3") {
		t.Errorf("quorum 3 of 2: %v", err)
	}
	if err := mustParse(t, quorumFile("nodes: 3\n"), nil).Validate(locks.Params{Nodes: 7}); err != nil {
		t.Errorf("a majority of 7: %v", err)
	}
}
