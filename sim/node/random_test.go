package node

import (
	"slices"
	"testing"
	"time"
)

// randomScript draws from miniredis's random source by every command that
// does, directly, inside MULTI and from a script, between commands that do
// not.
var randomScript = [][]string{
	{"SADD", "s", "a", "b", "c", "d", "e", "f", "g", "h"},
	{"HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4"},
	{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"},
	{"SET", "k1", "v"}, {"SET", "k2", "v"}, {"SET", "k3", "v"},
	{"srandmember", "s", "2"}, {"SRANDMEMBER", "s", "3"}, {"HRANDFIELD", "h", "-5"},
	{"GET", "k1"}, {"ZRANDMEMBER", "z", "-5"}, {"SPOP", "s"},
	{"MULTI"}, {"SPOP", "s", "2"}, {"HRANDFIELD", "h", "2"}, {"EXEC"},
	{"EVAL", "return redis.call('SRANDMEMBER', KEYS[1], 4)", "1", "s"},
	{"RANDOMKEY"}, // refused: miniredis picks by Go's map order
}

func runRandomScript(n *Node) []string {
	var out []string
	for i, args := range randomScript {
		out = append(out, n.Exec(0, t0.Add(secs(i)), args).String())
	}
	return out
}

func secs(i int) time.Duration { return time.Duration(i) * time.Second }

// Seeding miniredis's random source only before the first command that
// draws from it gives every reply that seeding at New gives, and a Reset
// node draws again what a new one does.
func TestRandomCommandsSeededLazily(t *testing.T) {
	eager := New(5)
	eager.m.Seed(int(eager.seed))
	eager.seeded = true
	want := runRandomScript(eager)

	lazy := New(5)
	if got := runRandomScript(lazy); !slices.Equal(got, want) {
		t.Fatalf("lazily seeded:\n%q\nseeded at New:\n%q", got, want)
	}
	lazy.Reset(5)
	if got := runRandomScript(lazy); !slices.Equal(got, want) {
		t.Fatalf("after Reset:\n%q\nnew node:\n%q", got, want)
	}
	if last := want[len(want)-1]; last != "(error) ERR locksim: RANDOMKEY is not simulated" {
		t.Fatalf("RANDOMKEY answered %s; miniredis's pick is not deterministic, it must be refused", last)
	}
	other := New(6)
	if got := runRandomScript(other); slices.Equal(got, want) {
		t.Fatalf("seeds 5 and 6 drew the same: the seed is not used (%q)", got)
	}
}
