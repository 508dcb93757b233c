package reports

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// A hash lock's versions, drawn by writer: c1's tries write {u1:1: 1} and
// lose their replies; the one after the key ran out is a new version (Fresh)
// of the same writer and content, so the same letter, drawn anew; c2 then
// writes the same content (Fresh): another writer, another letter. Hash
// contents show as "hash {…}", cut to their column, never as "".
func TestKeyVersionsByWriter(t *testing.T) {
	hash := func(v string, fresh bool) *sim.KeyState {
		return &sim.KeyState{Exists: true, Fresh: fresh, Type: node.KeyHash, Value: v, TTL: time.Second}
	}
	long := "{u1:1: 1, u2:1: 1, u3:1: 1, u4:1: 1, u5:1: 1, u6:1: 1}"
	b := newHist("lock", 1, "c1", "c2")
	b.proc(0, sim.KindProcStart, 0)
	b.proc(0, sim.KindProcStart, 1)
	b.proc(0, sim.KindLockInvoke, 0)
	r := b.ran(10*ms, 0, 0, nilR, hash("{u1:1: 1}", true), "EVAL", "lock", "1", "lock", "u1:1")
	b.result(60*ms, 0, 0, r, sim.Reply{}, "timeout: reply lost")
	r = b.ran(1100*ms, 0, 0, nilR, hash("{u1:1: 1}", true), "EVAL", "lock", "1", "lock", "u1:1")
	b.result(1150*ms, 0, 0, r, sim.Reply{}, "timeout: reply lost")
	b.proc(1150*ms, sim.KindLockReturn, 0)
	b.proc(2200*ms, sim.KindLockInvoke, 1)
	r = b.ran(2201*ms, 1, 0, nilR, hash("{u1:1: 1}", true), "EVAL", "lock", "1", "lock", "u1:1")
	b.result(2202*ms, 1, 0, r, nilR, "")
	r = b.ran(2300*ms, 1, 0, nilR, hash(long, false), "HSET", "lock", "u2:1", "1")
	b.result(2301*ms, 1, 0, r, nilR, "")
	b.proc(2301*ms, sim.KindLockReturn, 1)
	o := b.outcome(t, "hash-versions", "a hash lock's versions", 2400*ms)
	p := newPicture(o)
	if len(p.versions) != 3 {
		t.Fatalf("%d letters, want 3 (c1's content, c2's same content, c2's long hash): %+v", len(p.versions), p.versions)
	}
	// The version list cuts a content to 32 columns (a string: 30 and its
	// quotes), the trace to 44.
	for i, want := range []struct{ by, content string }{
		{"c1", `hash {u1:1: 1}`}, {"c2", `hash {u1:1: 1}`}, {"c2", `hash {u1:1: 1, u2:1: 1, u3:1: 1…`},
	} {
		v := p.versions[i]
		if d := v.describe(&eventWriter{}); v.by != want.by || !strings.HasPrefix(d, want.content+", TTL 1s: ") {
			t.Errorf("version %s: by %s, %q; want by %s, %q…", v.label, v.by, d, want.by, want.content)
		}
	}
	// node0: A from 10ms to its TTL's end, A again from 1.1s (a new version
	// of c1's), B from 2.201s, C from 2.3s.
	var got []string
	for _, s := range p.nodes[0].spans {
		got = append(got, p.versions[s.v].label+" "+Offset(s.from))
	}
	if want := []string{"A 10ms", "A 1.1s", "B 2.201s", "C 2.3s"}; strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("node0 spans %q, want %q", got, want)
	}
	rows := commandTrace(&o.Result.History)
	if k := rows[0].key; k != `hash {u1:1: 1} TTL 1s` {
		t.Errorf("trace key %q", k)
	}
	if k := rows[3].key; k != `hash {u1:1: 1, u2:1: 1, u3:1: 1, u4:1: 1, u… TTL 1s` {
		t.Errorf("trace key %q, want the hash cut to 44 columns", k)
	}
}
