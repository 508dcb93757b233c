package node

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPollsAsMiniredis runs one random command stream on two nodes, one
// that answers a waiter's polls itself (answerPoll) and replays scripts'
// known paths (replay.go), and one that sends every command through
// miniredis and runs every script in Lua: every reply, the watched key after each
// command, OBJECT IDLETIME and the whole state (State) must be the same on
// both, over node times that jump back as well as forward.
func TestPollsAsMiniredis(t *testing.T) {
	// tokenScript branches on a reply that varies, ending in a tail call
	// on two of its paths.
	const tokenScript = `local v = redis.call("get", KEYS[1])
if v == false then return redis.call("set", KEYS[1], ARGV[1], "PX", ARGV[2]) end
if v == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) end
return redis.call("pttl", KEYS[1])`
	rng := rand.New(rand.NewPCG(5, 6))
	ms := func() string { return strconv.Itoa(1 + rng.IntN(3000)) }
	key := func() string { return []string{"k", "k", "other"}[rng.IntN(3)] }
	cmds := []func() []string{
		func() []string { return []string{"SET", key(), "t" + ms(), "NX", "PX", ms()} },
		func() []string { return []string{"set", key(), "t", "px", ms(), "nx"} },
		func() []string { return []string{"SET", key(), "t", "NX", "EX", "1"} },
		func() []string { return []string{"SET", key(), "t", "NX"} },
		func() []string { return []string{"SET", key(), "t", "NX", "PXAT", strconv.Itoa(rng.IntN(5000))} },
		func() []string { return []string{"SET", key(), "t", "NX", "PX", "0"} },
		func() []string { return []string{"SET", key(), "t", "NX", "PX", "-5"} },
		func() []string { return []string{"SET", key(), "t", "NX", "PX", "abc"} },
		func() []string { return []string{"SET", key(), "t", "NX", "PX"} },
		func() []string { return []string{"SET", key(), "t", "NX", "PX", "5", "EX", "5"} },
		func() []string { return []string{"SET", key(), "t", "NX", "GET"} },
		func() []string { return []string{"SET", key(), "t", "NX", "XX"} },
		func() []string { return []string{"SET", key(), "t", "NX", "KEEPTTL"} },
		func() []string { return []string{"SET", key(), "t", "NX", "BOGUS"} },
		func() []string { return []string{"SET", key(), "t", "PX", ms()} },
		func() []string { return []string{"SETNX", key(), "t"} },
		func() []string { return []string{"setnx", key(), "t", "x"} },
		func() []string { return []string{"SETNX", key()} },
		func() []string { return []string{"HSET", key(), "f", "v"} },
		func() []string { return []string{"PEXPIRE", key(), ms()} },
		func() []string { return []string{"DEL", key()} },
		func() []string { return []string{"GET", key()} },
		func() []string { return []string{"get", key()} },
		func() []string { return []string{"GET", key(), "x"} },
		func() []string { return []string{"GET"} },
		func() []string { return []string{"PTTL", key()} },
		func() []string { return []string{"OBJECT", "IDLETIME", key()} },
		func() []string { return []string{"MULTI"} },
		func() []string { return []string{"EXEC"} },
		func() []string { return []string{"WATCH", key()} },
		func() []string {
			return []string{"EVAL", `return redis.call("set", KEYS[1], "s", "NX", "PX", "100")`, "1", key()}
		},
		func() []string { return []string{"EXISTS", key()} },
		func() []string { return []string{"exists", key(), key()} },
		func() []string { return []string{"PTTL", key()} },
		func() []string { return []string{"pttl", key(), "x"} },
		func() []string { return []string{"PERSIST", key()} },
		func() []string { return []string{"HEXISTS", key(), "f"} },
		func() []string { return []string{"HEXISTS", key(), "g"} },
		func() []string { return []string{"HEXISTS", key()} },
		func() []string { return []string{"HDEL", key(), "f"} },
		func() []string { return []string{"EVAL", hashLockScript, "1", key(), ms(), "f"} },
		func() []string { return []string{"EVAL", hashLockScript, "1", key(), ms(), "g"} },
		func() []string {
			return []string{"EVAL", `return {redis.call("hexists", KEYS[1], "f"), redis.call("exists", KEYS[1]), redis.call("hexists", KEYS[1], "f"), redis.call("pttl", KEYS[1])}`, "1", key()}
		},
		func() []string {
			return []string{"EVAL", `redis.call("exists", KEYS[1]); redis.call("hset", KEYS[1], "g", "1"); return redis.call("hexists", KEYS[1], "g")`, "1", key()}
		},
		func() []string { return []string{"EVAL", `return redis.call("get", KEYS[1])`, "1", key()} },
		func() []string {
			return []string{"EVAL", `redis.call("exists", KEYS[1]); pcall(redis.call, "rename", KEYS[2], KEYS[1]); return redis.call("hexists", KEYS[1], "f")`, "2", "k", "other"}
		},
		// Scripts a replay of known paths (replay.go) must tell apart:
		// the same calls and replies, or a tail call, each ending the
		// script its own way.
		func() []string { return []string{"EVAL", hashLockScript, "1", key(), "1000", "f"} },
		func() []string { return []string{"EVAL", hashLockScript, "1", "k", "2000", "g"} },
		func() []string {
			return []string{"EVAL", tokenScript, "1", key(), []string{"t1", "t2"}[rng.IntN(2)], "1500"}
		},
		func() []string { return []string{"EVAL", `return pcall(redis.call, "pttl", KEYS[1])`, "1", key()} },
		func() []string { return []string{"EVAL", `local t = redis.call("pttl", KEYS[1]) return t`, "1", key()} },
		func() []string { return []string{"EVAL", `return redis.call("pttl", KEYS[1]) + 0`, "1", key()} },
		func() []string { return []string{"EVAL", `return {redis.call("pttl", KEYS[1])}`, "1", key()} },
		func() []string { return []string{"EVAL", `return tostring(redis.call("pttl", KEYS[1]))`, "1", key()} },
		func() []string {
			return []string{"EVAL", `local function f() return redis.call("pttl", KEYS[1]) end return f()`, "1", key()}
		},
		func() []string { return []string{"EVAL", `return redis.call("incr", KEYS[1])`, "1", "n" + key()} },
		func() []string { return []string{"EVAL", `return redis.call("incr", KEYS[1])`, "1", key()} },
		func() []string {
			return []string{"EVAL", `return math.random(1000) + redis.call("exists", KEYS[1])`, "1", key()}
		},
		func() []string {
			return []string{"EVAL", `local r = redis.pcall("hincrby", KEYS[1], "f", 1) if type(r) == "table" then return r.err end return r`, "1", key()}
		},
		func() []string {
			return []string{"EVAL", `if redis.call("exists", KEYS[1]) == 1 then return redis.pcall("hget", KEYS[1], "f") end return redis.status_reply("none")`, "1", key()}
		},
		func() []string { return []string{"EVAL_RO", `return redis.call("get", KEYS[1])`, "1", key()} },
		func() []string { return []string{"EVAL_RO", `return redis.call("del", KEYS[1])`, "1", key()} },
		func() []string {
			return []string{"EVAL", `redis.call("exists", KEYS[1]) return redis.call()`, "1", key()}
		},
	}
	fast, slow := New(1), New(1)
	fast.Watch("k")
	slow.Watch("k")
	slow.noPolls, slow.noReplay = true, true
	state := func(n *Node, now time.Time) string {
		var b strings.Builder
		ok := n.State(now, func(s string) { b.WriteString(s + ",") }, func(v int64) { fmt.Fprint(&b, v, ",") })
		return fmt.Sprint(ok, b.String())
	}
	now := t0
	for i := range 30000 {
		step := time.Duration(rng.IntN(2_000_000_000)) // up to 2 s: IDLETIME counts seconds
		if rng.IntN(10) == 0 {
			step = -step / 3
		}
		now = now.Add(step)
		if rng.IntN(300) == 0 {
			fast.Flush()
			slow.Flush()
		}
		conn, args := rng.IntN(3), cmds[rng.IntN(len(cmds))]()
		if rng.IntN(700) == 0 {
			args = []string{"SELECT", strconv.Itoa(rng.IntN(2))}
		}
		if i > 27000 && rng.IntN(100) == 0 { // from then on fields can expire on their own (fieldTTLs)
			args = []string{"HEXPIRE", key(), "1", "FIELDS", "1", "f"}
		}
		got, want := fast.Exec(conn, now, args), slow.Exec(conn, now, args)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: %q replied %+v, through miniredis %+v", i, args, got, want)
		}
		if g, w := fast.Watched(), slow.Watched(); g != w {
			t.Fatalf("step %d: after %q the watched key is %+v, through miniredis %+v", i, args, g, w)
		}
		if rng.IntN(50) == 0 {
			if g, w := state(fast, now), state(slow, now); g != w {
				t.Fatalf("step %d: after %q the state is\n%s\nthrough miniredis\n%s", i, args, g, w)
			}
		}
	}
	if fast.polls < 1000 || slow.polls != 0 {
		t.Fatalf("%d polls answered without miniredis (and %d on the node that must not): the test tests little", fast.polls, slow.polls)
	}
	if !fast.fieldTTLs {
		t.Fatal("no hash field was given a TTL of its own: the test tests little")
	}
	if fast.owes < 1000 {
		t.Fatalf("%d reads of a polled key owed the clock step: the test tests little", fast.owes)
	}
	if fast.replays < 1000 || slow.replays != 0 {
		t.Fatalf("%d scripts replayed (and %d on the node that must not): the test tests little", fast.replays, slow.replays)
	}
}

// TestPollsOweTheStep follows a held lock's waiters through the clock's
// moves that matter to a step a poll owes (clockstep.go): polls a
// millisecond apart, a command that reads no data, the clock back before
// the last poll and forward again, a poll at the very instant the key
// expires, and other commands between; each reply, the TTLs and OBJECT IDLETIME must be those of a
// node whose every poll steps miniredis's clock.
func TestPollsOweTheStep(t *testing.T) {
	fast, slow := pollPair()
	both := func(step string, now time.Time, args ...string) {
		t.Helper()
		pollsAgree(t, fast, slow, 1, step, now, args...)
		pollsAgree(t, fast, slow, 2, step+", then", now, "PTTL", "lock")
		pollsAgree(t, fast, slow, 2, step+", then", now, "PTTL", "other")
	}
	poll := eval(hashLockScript, []string{"lock"}, "1000", "waiter")
	now := t0
	both("holder", now, eval(hashLockScript, []string{"lock"}, "1000", "holder")...)
	both("other key", now, "SET", "other", "v", "PX", "1500")
	for i := range 5 {
		now = now.Add(time.Millisecond)
		both(fmt.Sprintf("poll %d", i), now, poll...)
		both(fmt.Sprintf("get %d", i), now, "GET", "other")
	}
	now = now.Add(-time.Millisecond) // before the last poll, which owes its step
	both("back a little", now, poll...)
	now = now.Add(time.Millisecond)
	both("forward a little", now, poll...)
	polled := now
	// PING reads no data: miniredis makes no step.
	pollsAgree(t, fast, slow, 1, "ping", now.Add(5*time.Millisecond), "PING")
	now = polled.Add(-3 * time.Millisecond) // before the last polls
	both("back", now, poll...)
	now = now.Add(200 * time.Millisecond)
	both("forward", now, poll...)
	both("idle", now, "OBJECT", "IDLETIME", "lock")
	// The lock's TTL of 1 s counted 5 ms to the first time the clock went
	// back, 1 ms after, and 200 ms after the second: 794 ms are left, to
	// 996 ms.
	now = t0.Add(995 * time.Millisecond)
	both("before expiry", now, poll...)
	both("again", now.Add(500*time.Microsecond), poll...)
	now = t0.Add(996 * time.Millisecond) // the lock's TTL runs out now
	both("expiry", now, poll...)
	now = now.Add(time.Millisecond)
	both("after", now, "EXISTS", "other")
	now = t0.Add(1500 * time.Millisecond)
	both("other's expiry", now, "GET", "other")
	if fast.owes == 0 {
		t.Fatal("no poll owed the step: the test tests nothing")
	}
}

// TestPollReadsAreForgotten: what polls read of a key (clockStep.read) is
// kept until the data changes, and is forgotten when it does without a
// command: a flush, and the owed step paid when the clock goes back past
// it from later (payOwed's own SetTime). Each
// poll of one key must reply as on a node that steps at every poll.
func TestPollReadsAreForgotten(t *testing.T) {
	fast, slow := pollPair()
	both := func(step string, now time.Time, args ...string) {
		t.Helper()
		pollsAgree(t, fast, slow, 1, step, now, args...)
	}
	pttl := []string{"PTTL", "lock"}
	now := t0
	both("holder", now, "SET", "lock", "v", "PX", "10000")
	both("first poll", now.Add(time.Second), pttl...)
	both("owing poll", now.Add(2*time.Second), pttl...)
	both("no data read", now.Add(2500*time.Millisecond), "EVAL", "return 1", "0") // the node's clock past the owed step, no dispatch
	both("clock back, the owed step paid", now.Add(1500*time.Millisecond), pttl...)
	both("forward", now.Add(3*time.Second), pttl...)
	reads := fast.polls
	fast.Flush()
	slow.Flush()
	both("after a flush", now.Add(4*time.Second), pttl...)
	if fast.owes == 0 || reads < 3 {
		t.Fatalf("%d polls answered, %d owed the step: the test tests little", reads, fast.owes)
	}
}

// pollPair is a node that answers polls and replays scripts, and one that
// runs every command through miniredis, stepping its clock at every poll.
func pollPair() (fast, slow *Node) {
	fast, slow = New(1), New(1)
	slow.noPolls, slow.noReplay = true, true
	return fast, slow
}

// pollsAgree runs args from conn at now on both nodes of a pollPair and fails
// unless they reply the same.
func pollsAgree(t *testing.T, fast, slow *Node, conn int, step string, now time.Time, args ...string) {
	t.Helper()
	if g, w := fast.Exec(conn, now, args), slow.Exec(conn, now, args); !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: %q replied %+v, stepping at every poll %+v", step, args, g, w)
	}
}
