package sim

import (
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
)

// A coroutine that runs the events up to its own resumption (runOwn) must
// leave the history the scheduler leaves. OnPoint, set, keeps every event
// with the scheduler: the two runs of each configuration must agree, and
// the coroutines must have run some events themselves.
func TestCoroutinesRunTheirOwnEventsAsTheSchedulerWould(t *testing.T) {
	own, others := 0, 0
	ranOwn = func(other bool) {
		own++
		if other {
			others++
		}
	}
	defer func(off bool) { ranOwn, inlineOff = nil, off }(inlineOff)
	inlineOff = false // on under -race too: this test races the path
	configs := map[string]func(uint64) Config{"standard": standardConfig, "faulty": faultyConfig, "send": sendFaultConfig}
	for _, name := range []string{"standard", "faulty", "send"} {
		for seed := uint64(0); seed < 60; seed++ {
			cfg := configs[name](seed)
			before := own
			inline := digestOf(t, cfg)
			ran := own - before
			cfg.OnPoint = func(Point, int, Time, int) {}
			scheduled := digestOf(t, cfg)
			if own != before+ran {
				t.Fatalf("%s seed %d: a coroutine ran events itself with OnPoint set", name, seed)
			}
			if inline != scheduled {
				t.Fatalf("%s seed %d: %d events run by coroutines changed the history: digest %s, the scheduler's %s",
					name, seed, ran, inline, scheduled)
			}
		}
	}
	if own == 0 || others == 0 {
		t.Fatalf("coroutines ran %d events themselves, %d of them another's: the test compares too little", own, others)
	}
	t.Logf("%d events run by coroutines, %d of them another coroutine's", own, others)
}

// sendFaultConfig pauses c2 at its third release script's send and crashes
// c3 at its fifth SET's reply: trigger points inside a command's yield.
func sendFaultConfig(seed uint64) Config {
	cfg := standardConfig(seed)
	cfg.Faults = []Fault{
		{Kind: fault.Pause, Proc: 1, On: Trigger{Point: PointSend, Proc: 1, Cmd: "EVAL", N: 3}, Dur: 30 * time.Millisecond},
		{Kind: fault.Crash, Proc: 2, On: Trigger{Point: PointReply, Proc: 2, Cmd: "SET", N: 5}, Dur: 20 * time.Millisecond},
	}
	return cfg
}
