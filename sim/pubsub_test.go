package sim

import (
	"fmt"
	"github.com/locksim/locksim/fault"
	"testing"
	"time"
)

func subwait(p Proc, out *popResult, args ...string) {
	out.reply, out.err = p.Do(0, append([]string{"SUBWAIT"}, args...)...)
	out.at = p.Now().Sub(Epoch)
}

// SUBWAIT parks until a PUBLISH to its channel, from a client or a script,
// reaches its node (every waiter on the channel gets the message, one reply
// latency later; PUBLISH counts them), or its own timeout (nil). A message
// published before the wait arrived is not kept for it.
func TestSubWait(t *testing.T) {
	ms := time.Millisecond
	var a, b, c, early popResult
	var pub, script Reply
	res := procsRun(t, []func(p Proc){
		func(p Proc) { subwait(p, &a, "ch", "5") },
		func(p Proc) { p.Sleep(10 * ms); subwait(p, &b, "other", "ch", "5") },
		func(p Proc) { p.Sleep(20 * ms); subwait(p, &c, "other", "0.5") },
		func(p Proc) {
			p.Sleep(2 * time.Second)
			pub, _ = p.Do(0, "PUBLISH", "ch", "unlocked")
			script, _ = p.Do(0, "EVAL", `return redis.call("publish", KEYS[1], "x")`, "1", "ch")
		},
		func(p Proc) { p.Do(0, "PUBLISH", "late", "gone"); p.Sleep(10 * ms); subwait(p, &early, "late", "1") },
	}, nil)
	// The PUBLISH runs at 2.001 s; each message takes 1 ms back.
	if a.err != nil || a.reply.String() != `["message", "ch", "unlocked"]` || a.at != 2002*ms {
		t.Errorf("first waiter: %v %v at %v", a.reply, a.err, a.at)
	}
	if b.err != nil || b.reply.String() != `["message", "ch", "unlocked"]` || b.at != 2002*ms {
		t.Errorf("second waiter: %v %v at %v", b.reply, b.err, b.at)
	}
	if pub.Int != 2 || script.Int != 0 {
		t.Errorf("PUBLISH reached %v, the script's %v; want 2 then 0 (the waiters left)", pub, script)
	}
	if c.err != nil || c.reply.String() != "(nil)" || c.at != 522*ms {
		t.Errorf("timeout: %v %v at %v, want nil at 0.522s", c.reply, c.err, c.at)
	}
	if early.err != nil || early.reply.String() != "(nil)" {
		t.Errorf("a message before the wait reached it: %v %v", early.reply, early.err)
	}
	var ran []string
	for _, e := range eventsOf(res.History, KindCommand) {
		ran = append(ran, fmt.Sprintf("%s@%v", e.Args[0], time.Duration(e.At)))
	}
	if want := "[PUBLISH@1ms SUBWAIT@521ms SUBWAIT@1.013s PUBLISH@2.001s SUBWAIT@2.001s SUBWAIT@2.001s EVAL@2.003s]"; fmt.Sprint(ran) != want {
		t.Errorf("commands ran %v\nwant         %s", ran, want)
	}
}

// A script's PUBLISH wakes a waiter too, and a lost reply loses the message:
// the waiter times out at its deadline, the network timeout plus its own.
func TestSubWaitLost(t *testing.T) {
	var got, lost popResult
	var n Reply
	release := func(p Proc) {
		p.Sleep(time.Second)
		n, _ = p.Do(0, "EVAL", `return redis.call("publish", KEYS[1], ARGV[1])`, "1", "ch", "0")
	}
	procsRun(t, []func(p Proc){func(p Proc) { subwait(p, &got, "ch", "3") }, release}, nil)
	if got.err != nil || got.reply.String() != `["message", "ch", "0"]` || got.at != 1002*time.Millisecond || n.Int != 1 {
		t.Errorf("script's message: %v %v at %v, PUBLISH %v", got.reply, got.err, got.at, n)
	}
	procsRun(t, []func(p Proc){func(p Proc) { subwait(p, &lost, "ch", "3") }, release}, func(c *Config) {
		c.Faults = []Fault{{Kind: fault.LoseReply, Proc: 0, On: Trigger{Point: PointSend, Proc: 0, Cmd: "SUBWAIT", N: 1}}}
	})
	if lost.err != ErrTimeout || lost.at != 4*time.Second || n.Int != 1 {
		t.Errorf("lost message: %v %v at %v, PUBLISH %v; want a timeout at 4s (1 s + 3 s)", lost.reply, lost.err, lost.at, n)
	}
}

// A node restart or a crash of the waiter closes its connection: a later
// PUBLISH reaches no one, and the waiter that lived sees a timeout.
func TestSubWaitConnectionLost(t *testing.T) {
	var w popResult
	var n Reply
	procsRun(t, []func(p Proc){
		func(p Proc) { subwait(p, &w, "ch", "3") },
		func(p Proc) { p.Sleep(time.Second); n, _ = p.Do(0, "PUBLISH", "ch", "x") },
	}, func(c *Config) {
		c.Faults = []Fault{{Kind: fault.NodeRestart, Node: 0, At: 500 * time.Millisecond, Dur: 10 * time.Millisecond}}
	})
	if n.Int != 0 || w.err != ErrTimeout || w.at != 4*time.Second {
		t.Errorf("after a restart: PUBLISH %v, waiter %v %v at %v; want 0, a timeout at 4s", n, w.reply, w.err, w.at)
	}
	procsRun(t, []func(p Proc){
		func(p Proc) { subwait(p, &w, "ch", "3") },
		func(p Proc) { p.Sleep(time.Second); n, _ = p.Do(0, "PUBLISH", "ch", "x") },
	}, func(c *Config) {
		c.Faults = []Fault{{Kind: fault.Crash, Proc: 0, At: 500 * time.Millisecond}}
	})
	if n.Int != 0 {
		t.Errorf("a crashed waiter got the message: PUBLISH %v", n)
	}
}

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		want   bool
	}{
		{"l*", "lock", true}, {"l*", "x", false}, {"*", "", true}, {"a?c", "abc", true}, {"a?c", "ac", false},
		{"h[ae]llo", "hello", true}, {"h[ae]llo", "hillo", false}, {"h[^e]llo", "hallo", true},
		{"h[^e]llo", "hello", false}, {"h[a-b]llo", "hbllo", true}, {"h[a-b]llo", "hcllo", false},
		{`a\*`, "a*", true}, {`a\*`, "ab", false}, {"*:ch", "redisson_lock__channel:ch", true}, {"a*b*c", "axxbyyc", true},
	} {
		if got := globMatch(c.pat, c.s); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.pat, c.s, got)
		}
	}
}
