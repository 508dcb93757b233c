package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
)

// procsRun runs one body per process, each once, on one node with 1 ms
// request and reply latency and a 1 s client timeout.
func procsRun(t *testing.T, bodies []func(p Proc), mod func(*Config)) *Result {
	t.Helper()
	cfg := Config{
		Seed:     3,
		Duration: time.Hour,
		Nodes:    []NodeSpec{{}},
		Network: Network{Request: Latency{Min: time.Millisecond, Max: time.Millisecond},
			Reply: Latency{Min: time.Millisecond, Max: time.Millisecond}, Timeout: time.Second},
		WatchKey: "k",
	}
	for i := range bodies {
		cfg.Procs = append(cfg.Procs, ProcSpec{Name: fmt.Sprintf("c%d", i+1), Iterations: 1})
	}
	cfg.NewLocker = func(i int) Locker {
		return scriptLock{acquire: func(p Proc) (Lease, error) { bodies[i](p); return Lease{}, nil }}
	}
	if mod != nil {
		mod(&cfg)
	}
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

type popResult struct {
	reply Reply
	err   error
	at    time.Duration // since the epoch, when the reply came back
}

func blpop(p Proc, out *popResult, args ...string) {
	out.reply, out.err = p.Do(0, append([]string{"BLPOP"}, args...)...)
	out.at = p.Now().Sub(Epoch)
}

// BLPOP parks on its node until a push (the oldest parked connection is
// served first), or its own timeout (nil); an element already there is
// popped at once; the client's deadline is its timeout plus the pop's.
func TestBlockingPop(t *testing.T) {
	ms := time.Millisecond
	var a, b popResult
	procsRun(t, []func(p Proc){
		func(p Proc) { blpop(p, &a, "sig", "5") },
		func(p Proc) { p.Sleep(10 * ms); blpop(p, &b, "sig", "5") },
		func(p Proc) { p.Sleep(2 * time.Second); p.Do(0, "RPUSH", "sig", "x", "y") },
	}, nil)
	// The push runs at 2.001 s; each pop's reply takes 1 ms back.
	if a.err != nil || a.reply.String() != `["sig", "x"]` || a.at != 2002*ms {
		t.Errorf("first waiter: %v %v at %v", a.reply, a.err, a.at)
	}
	if b.err != nil || b.reply.String() != `["sig", "y"]` || b.at != 2002*ms {
		t.Errorf("second waiter: %v %v at %v", b.reply, b.err, b.at)
	}

	var c, d popResult
	res := procsRun(t, []func(p Proc){
		func(p Proc) { blpop(p, &c, "sig", "2.5") },
		func(p Proc) { p.Do(0, "RPUSH", "other", "z"); blpop(p, &d, "sig", "other", "3") },
	}, nil)
	if c.err != nil || c.reply.String() != "(nil)" || c.at != 2502*ms {
		t.Errorf("timeout: %v %v at %v, want nil at 2.502s (beyond the 1 s client timeout)", c.reply, c.err, c.at)
	}
	if d.err != nil || d.reply.String() != `["other", "z"]` || d.at != 4*ms {
		t.Errorf("already there: %v %v at %v", d.reply, d.err, d.at)
	}
	// The history has the pop where it ran: at its timeout.
	var ran []string
	for _, e := range eventsOf(res.History, KindCommand) {
		ran = append(ran, fmt.Sprintf("%s@%v", e.Args[0], time.Duration(e.At)))
	}
	if fmt.Sprint(ran) != "[RPUSH@1ms BLPOP@3ms BLPOP@2.501s]" {
		t.Errorf("commands ran %v", ran)
	}
}

// A client that gives up (a lost reply, or its crash) closes the
// connection: the parked pop is dropped and pops nothing.
func TestBlockingPopGivenUp(t *testing.T) {
	var a, late popResult
	var left Reply
	procsRun(t, []func(p Proc){
		func(p Proc) { blpop(p, &a, "sig", "0") },
		func(p Proc) {
			p.Sleep(3 * time.Second)
			p.Do(0, "RPUSH", "sig", "x")
			left, _ = p.Do(0, "LLEN", "sig")
		},
	}, func(c *Config) {
		c.Faults = []Fault{{Kind: fault.Crash, Proc: 0, At: time.Second}}
	})
	if left.Int != 1 {
		t.Errorf("a crashed waiter popped: LLEN %v", left)
	}
	// BLPOP 0 with a client timeout: it waits past the timeout (no
	// deadline), for the push at 3 s.
	procsRun(t, []func(p Proc){
		func(p Proc) { blpop(p, &late, "sig", "0") },
		func(p Proc) { p.Sleep(3 * time.Second); p.Do(0, "RPUSH", "sig", "x") },
	}, nil)
	if late.err != nil || late.at != 3002*time.Millisecond {
		t.Errorf("BLPOP 0: %v %v at %v", late.reply, late.err, late.at)
	}
	var bad popResult
	procsRun(t, []func(p Proc){func(p Proc) { blpop(p, &bad, "sig", "-1") }}, nil)
	if bad.err == nil || bad.err.Error() != "ERR timeout is negative" {
		t.Errorf("negative timeout: %v", bad.err)
	}
}
