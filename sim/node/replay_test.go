package node

import (
	"math"
	"reflect"
	"testing"
	"time"
)

// TestReplayAsLua runs scripts whose outcome hangs on what a replay does not
// see in the calls and replies, the seed of math.random and the instruction
// budget, on a node that replays known paths and one that runs every script
// in Lua: their replies must be the same.
func TestReplayAsLua(t *testing.T) {
	const (
		random = `return math.random(1000) + redis.call("exists", KEYS[1])`
		loop   = `redis.call("exists", KEYS[1]) for i = 1, 50 do end return 1`
	)
	fast, slow := New(1), New(1)
	slow.noReplay = true
	now := t0
	for i := range 40 {
		seed := int64(1 + i%3)
		fast.Reset(seed)
		slow.Reset(seed)
		for j, c := range []struct {
			budget int64
			args   []string
		}{
			{0, []string{"EVAL", random, "1", "k"}},
			{0, []string{"EVAL", random, "1", "k"}},
			{0, []string{"EVAL", loop, "1", "k"}},
			{30, []string{"EVAL", loop, "1", "k"}},
			{0, []string{"EVAL", loop, "1", "k"}},
			{0, []string{"EVAL", `return redis.call("set", KEYS[1], "v")`, "1", "k"}},
			{0, []string{"EVAL_RO", `return redis.call("set", KEYS[1], "v")`, "1", "k"}},
		} {
			fast.ScriptBudget, slow.ScriptBudget = c.budget, c.budget
			now = now.Add(time.Millisecond)
			if got, want := fast.Exec(0, now, c.args), slow.Exec(0, now, c.args); !reflect.DeepEqual(got, want) {
				t.Fatalf("run %d, script %d (seed %d, budget %d): replied %v, in Lua %v", i, j, seed, c.budget, got, want)
			}
		}
	}
	if fast.replays == 0 {
		t.Fatal("no script replayed: the test tests nothing")
	}
}

// TestPollReplays: a waiter's poll of a held hash lock, whose reply (the
// key's PTTL) differs every time, is replayed, not run in Lua.
func TestPollReplays(t *testing.T) {
	n := New(1)
	now := t0
	if r := n.Exec(0, now, []string{"EVAL", hashLockScript, "1", "k", "30000", "holder"}); r.Kind != Nil {
		t.Fatalf("the holder's acquire replied %v", r)
	}
	for i := range 100 {
		now = now.Add(100 * time.Millisecond)
		r := n.Exec(1, now, []string{"EVAL", hashLockScript, "1", "k", "30000", "waiter"})
		if want := int64(30000 - 100*(i+1)); r.Kind != Int || r.Int != want {
			t.Fatalf("poll %d replied %v, want (integer) %d", i, r, want)
		}
	}
	if n.replays < 99 {
		t.Fatalf("%d of 100 polls replayed, want all but the first", n.replays)
	}
}

// A tail call's reply skips the round trip through Lua only where the
// trip gives the reply back unchanged: throughLua must equal it for every
// kind, integers past a Lua number's precision included.
func TestThroughLuaAsTheRoundTrip(t *testing.T) {
	vm, err := newLuaVM(New(1))
	if err != nil {
		t.Fatal(err)
	}
	defer vm.close()
	replies := []Reply{{Kind: Nil}, {Kind: Status, Str: "OK"}, {Kind: Error, Str: "ERR no"}, {Kind: Bulk, Str: "tok"},
		{Kind: Array, Elems: []Reply{{Kind: Int, Int: 7}, {Kind: Bulk, Str: "x"}}}}
	for _, x := range []int64{0, 1, -1, 29_999, 1<<53 - 1, -(1<<53 - 1), 1 << 53, 1<<53 + 1, -(1<<53 + 1), 1<<62 + 3, math.MaxInt64, math.MinInt64} {
		replies = append(replies, Reply{Kind: Int, Int: x})
	}
	for _, r := range replies {
		if got, want := vm.throughLua(r), toReply(vm.toLua(r)); !got.Equal(want) {
			t.Errorf("%v: throughLua %v, through Lua %v", r, got, want)
		}
	}
}
