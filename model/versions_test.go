package model

import (
	"slices"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// TestKeyVersions: who wrote each version, lane by lane, under each of the
// rule's cases (versions.go).
func TestKeyVersions(t *testing.T) {
	fresh := func(k sim.KeyState) sim.KeyState { k.Fresh = true; return k }
	hash := func(v string) sim.KeyState {
		return sim.KeyState{Exists: true, Type: node.KeyHash, Value: v, TTL: -1}
	}
	t1 := keyVal("t1", time.Second)
	b := newHist("c1", "c2")
	b.h.Nodes, b.h.Replicas = 1, []int{0} // lane 1 replicates node 0
	cmd := func(p int, at sim.Time, req uint64, k sim.KeyState) {
		b.add(sim.Event{At: at, Kind: sim.KindCommand, Proc: p, Node: 0, Req: req, Sent: at, Key: k})
	}
	cmd(0, ms(1), 1, t1)                                                                                   // 0: c1 writes t1: version 0, c1's
	cmd(1, ms(2), 2, t1)                                                                                   // 1: c2 refused: same version
	b.add(sim.Event{At: ms(3), Kind: sim.KindReplicate, Proc: -1, Node: 1, Req: 1, Key: t1})               // 2: the replica applies c1's write: version 1, c1's
	cmd(1, ms(4), 3, fresh(t1))                                                                            // 3: c2 writes t1 again, marked: version 2, c2's
	cmd(0, ms(5), 4, hash("t1"))                                                                           // 4: same content, another type: version 3, c1's
	cmd(0, ms(6), 5, noKey)                                                                                // 5: deleted
	b.add(sim.Event{At: ms(7), Kind: sim.KindFault, Proc: -1, Node: 0, Fault: fault.NodeRestart, Key: t1}) // 6: a reload: version 4, nobody's
	b.add(sim.Event{At: ms(8), Kind: sim.KindFault, Proc: -1, Node: 0, Fault: fault.Failover, Value: 1,
		Key: keyVal("t1", 500*time.Millisecond)}) // 7: promotes the replica's t1: no new version (same content)
	b.add(sim.Event{At: ms(9), Kind: sim.KindFault, Proc: -1, Node: 0, Fault: fault.Failover, Value: 1,
		Key: fresh(t1)}) // 8: marked: version 5, the replica's writer, c1
	b.add(sim.Event{At: ms(10), Kind: sim.KindReplicate, Proc: -1, Node: 1, Req: 99, Key: hash("x")}) // 9: an entry of no known command: version 6, nobody's
	b.tick(ms(11))                                                                                    // 10: carries no key
	h := b.build()
	vs, at := KeyVersions(&h)
	want := []KeyVersion{{Lane: 0, Writer: 0, Event: 0}, {Lane: 1, Writer: 0, Event: 2}, {Lane: 0, Writer: 1, Event: 3},
		{Lane: 0, Writer: 0, Event: 4}, {Lane: 0, Writer: -1, Event: 6}, {Lane: 0, Writer: 0, Event: 8},
		{Lane: 1, Writer: -1, Event: 9}}
	if !slices.Equal(vs, want) {
		t.Errorf("versions\n got  %+v\n want %+v", vs, want)
	}
	if wantAt := []int{0, 0, 1, 2, 3, -1, 4, 4, 5, 6, -1}; !slices.Equal(at, wantAt) {
		t.Errorf("version by event: got %v, want %v", at, wantAt)
	}
}

// TestParseKey: the corpus's KEY syntax (parseEvent).
func TestParseKey(t *testing.T) {
	for _, c := range []struct {
		in, after string
		want      sim.KeyState
	}{
		{"- DEL lock", " DEL lock", noKey},
		{"t1 SET", " SET", keyVal("t1", -1)},
		{"t1@1s SET", " SET", keyVal("t1", time.Second)},
		{"t1@1s! SET", " SET", sim.KeyState{Exists: true, Fresh: true, Value: "t1", TTL: time.Second}},
		{"lock:t1@2s SET", " SET", keyVal("lock:t1", 2*time.Second)},
		{`{"owner":"t1"} SET`, " SET", keyVal(`{"owner":"t1"}`, -1)},
		{"hash:{u1:1: 1, u2:1: 2}@30s! EVAL", " EVAL",
			sim.KeyState{Exists: true, Fresh: true, Type: node.KeyHash, Value: "{u1:1: 1, u2:1: 2}", TTL: 30 * time.Second}},
		{"list:[a, b] RPUSH", " RPUSH", sim.KeyState{Exists: true, Type: node.KeyList, Value: "[a, b]", TTL: -1}},
	} {
		got, after, err := parseKey(c.in)
		if err != nil || got != c.want || after != c.after {
			t.Errorf("parseKey(%q) = %+v, %q, %v; want %+v, %q", c.in, got, after, err, c.want, c.after)
		}
	}
	for _, bad := range []string{"hash:{u1:1: 1 EVAL", "hash:{a: 1}x EVAL", "hash:{a: 1}@soon EVAL"} {
		if _, _, err := parseKey(bad); err == nil {
			t.Errorf("parseKey(%q): no error", bad)
		}
	}
}
