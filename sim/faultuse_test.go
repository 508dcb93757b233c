package sim

import (
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
)

// TestFaultUse classes each kind of fault, acted and not, from the run's own
// facts: the node served a command after it, the process was alive, the
// pause deferred something, the clock was read, the loss took a command.
func TestFaultUse(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	// getSleepGet sends a GET at 0, sleeps 10ms, sends another (a zero
	// latency network: each runs and answers at once).
	getSleepGet := func(p Proc) (Lease, error) {
		p.Do(0, "GET", "k")
		p.Sleep(ms(10))
		p.Do(0, "GET", "k")
		return Lease{}, nil
	}
	twoNodes := func(c *Config) { c.Nodes = []NodeSpec{{}, {}} }
	// idler adds c2, which only sleeps: the run goes on to 30ms, after
	// c1 has finished (a run ends when its last process does).
	idler := func(c *Config) { c.Procs = append(c.Procs, ProcSpec{Name: "c2", Iterations: 1}) }
	getSleepGetIdle := func(p Proc) (Lease, error) {
		if p.Name() == "c2" {
			p.Sleep(ms(30))
			return Lease{}, nil
		}
		return getSleepGet(p)
	}
	cases := []struct {
		name  string
		body  func(p Proc) (Lease, error)
		mod   func(c *Config)
		fault Fault
		acted bool
		why   string
	}{
		{name: "node restart of a node never used", body: getSleepGet, mod: twoNodes,
			fault: Fault{Kind: fault.NodeRestart, Node: 1, At: ms(5), Dur: ms(1)},
			why:   "node1 never served this lock"},
		{name: "node restart after the node's last command", body: getSleepGetIdle, mod: idler,
			fault: Fault{Kind: fault.NodeRestart, Node: 0, At: ms(11), Dur: ms(1)},
			why:   "node0 served no command after it"},
		{name: "node restart before a command", body: getSleepGet,
			fault: Fault{Kind: fault.NodeRestart, Node: 0, At: ms(5), Dur: ms(1)}, acted: true},
		{name: "node restart whose outage drops a request", body: getSleepGet,
			fault: Fault{Kind: fault.NodeRestart, Node: 0, On: Trigger{Point: PointSend, Proc: 0, Cmd: "GET", N: 2}, Dur: ms(1)},
			acted: true},
		{name: "node clock jump of a node never used", body: getSleepGet, mod: twoNodes,
			fault: Fault{Kind: fault.NodeJump, Node: 1, At: ms(5), Dur: time.Second},
			why:   "node1 never served this lock"},
		{name: "node clock jump before a command", body: getSleepGet,
			fault: Fault{Kind: fault.NodeJump, Node: 0, At: ms(5), Dur: time.Second}, acted: true},
		{name: "failover after the last command", body: getSleepGetIdle,
			mod:   func(c *Config) { withReplica(ms(1))(c); idler(c) },
			fault: Fault{Kind: fault.Failover, Node: 0, At: ms(20), Dur: ms(5)},
			why:   "node0 served no command after it"},
		{name: "failover that loses a reply in flight",
			body: func(p Proc) (Lease, error) {
				p.Do(0, "SET", "k", "v")
				return Lease{}, nil
			},
			mod: func(c *Config) {
				withReplica(ms(1))(c)
				c.Network.Request = Latency{Min: ms(10), Max: ms(10)}
				c.Network.Reply = c.Network.Request
			},
			// The SET ran at 10ms, before it; its reply, due at 20ms, is lost.
			fault: Fault{Kind: fault.Failover, Node: 0, At: ms(15), Dur: ms(5)}, acted: true},
		{name: "crash of a live process", body: getSleepGet,
			fault: Fault{Kind: fault.Crash, Proc: 0, At: ms(5)}, acted: true},
		{name: "crash of a finished process", body: getSleepGetIdle, mod: idler,
			fault: Fault{Kind: fault.Crash, Proc: 0, At: ms(20)}, why: "c1 had finished"},
		{name: "crash before the process starts", body: getSleepGet,
			mod:   func(c *Config) { c.Procs[0].Start = time.Second },
			fault: Fault{Kind: fault.Crash, Proc: 0, At: ms(5)}, why: "c1 had not started"},
		{name: "pause of a finished process", body: getSleepGetIdle, mod: idler,
			fault: Fault{Kind: fault.Pause, Proc: 0, At: ms(20), Dur: time.Second}, why: "c1 had finished"},
		{name: "pause over the end of a sleep", body: getSleepGet,
			fault: Fault{Kind: fault.Pause, Proc: 0, At: ms(5), Dur: ms(20)}, acted: true},
		{name: "pause inside a sleep", body: getSleepGet,
			fault: Fault{Kind: fault.Pause, Proc: 0, At: ms(2), Dur: ms(3)},
			why:   "c1 had nothing to do while paused"},
		{name: "pause at a send", body: getSleepGet,
			fault: Fault{Kind: fault.Pause, Proc: 0, On: Trigger{Point: PointSend, Proc: 0, N: 2}, Dur: ms(1)},
			acted: true},
		{name: "pause while a reply is on its way",
			body: getSleepGet,
			mod: func(c *Config) {
				c.Network.Request = Latency{Min: ms(10), Max: ms(10)}
				c.Network.Reply = c.Network.Request
			},
			// The first GET's reply comes at 20ms, after the pause.
			fault: Fault{Kind: fault.Pause, Proc: 0, At: ms(5), Dur: ms(5)},
			why:   "c1 had nothing to do while paused"},
		{name: "clock jump read after it",
			body: func(p Proc) (Lease, error) {
				p.Now()
				p.Sleep(ms(10))
				p.Now()
				return Lease{}, nil
			},
			fault: Fault{Kind: fault.ClientJump, Proc: 0, At: ms(5), Dur: time.Second}, acted: true},
		{name: "clock jump never read after it",
			body: func(p Proc) (Lease, error) {
				p.Now()
				p.Sleep(ms(10))
				p.Do(0, "GET", "k")
				return Lease{}, nil
			},
			fault: Fault{Kind: fault.ClientJump, Proc: 0, At: ms(5), Dur: time.Second},
			why:   "c1 never read its clock after it"},
		{name: "lost request at a send", body: getSleepGet,
			fault: Fault{Kind: fault.LoseRequest, Proc: 0, On: Trigger{Point: PointSend, Proc: 0, N: 2}, Dur: ms(5)},
			acted: true},
		{name: "lost reply with no command after it",
			body: func(p Proc) (Lease, error) {
				p.Do(0, "GET", "k")
				p.Sleep(ms(10))
				return Lease{}, nil
			},
			fault: Fault{Kind: fault.LoseReply, Proc: 0, At: ms(5), Dur: ms(5)},
			why:   "c1 sent no command after it"},
		{name: "lost reply undone by a crash",
			body: getSleepGet,
			mod: func(c *Config) {
				c.Faults = append(c.Faults, Fault{Kind: fault.Crash, Proc: 0, At: ms(6)})
			},
			fault: Fault{Kind: fault.LoseReply, Proc: 0, At: ms(5), Dur: ms(5)},
			why:   "c1 sent no command after it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			planned := 0
			res, err := oneProc(c.body, func(cfg *Config) {
				cfg.Faults = []Fault{c.fault}
				if c.mod != nil {
					c.mod(cfg)
				}
				planned = len(cfg.Faults)
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Faults) != planned {
				t.Fatalf("%d fault uses for a plan of %d", len(res.Faults), planned)
			}
			u := res.Faults[0]
			if !u.Fired || u.Acted != c.acted || u.Why != c.why {
				t.Errorf("fault use %+v, want fired, acted %v, why %q", u, c.acted, c.why)
			}
			want := Time(c.fault.At)
			if c.fault.On.Point != PointAt {
				want = faultAt(res, c.fault.Kind)
			}
			if u.At != want {
				t.Errorf("fault use at %v, want %v", u.At, want)
			}
		})
	}
}

// faultAt is the time of the first fault event of kind k in the history.
func faultAt(res *Result, k fault.Kind) Time {
	for _, e := range eventsOf(res.History, KindFault) {
		if e.Fault == k {
			return e.At
		}
	}
	return -1
}

// TestFaultUseDeadOrNeverFired: a second crash finds the process crashed,
// and a fault timed after the run's end never fires, dated at the end.
func TestFaultUseDeadOrNeverFired(t *testing.T) {
	res, err := oneProc(func(p Proc) (Lease, error) {
		p.Sleep(10 * time.Millisecond)
		return Lease{}, nil
	}, func(cfg *Config) {
		cfg.Faults = []Fault{
			{Kind: fault.Crash, Proc: 0, At: time.Millisecond, Dur: 5 * time.Millisecond},
			{Kind: fault.Pause, Proc: 0, At: 3 * time.Millisecond, Dur: time.Second},
			{Kind: fault.NodeRestart, Node: 0, At: 2 * time.Hour, Dur: time.Second},
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []FaultUse{
		{Fired: true, Acted: true, At: Time(time.Millisecond)},
		{Fired: true, At: Time(3 * time.Millisecond), Why: "c1 had crashed"},
		{At: res.End, Why: "never fired"},
	}
	if len(res.Faults) != len(want) {
		t.Fatalf("fault uses %+v, want %+v", res.Faults, want)
	}
	for i := range want {
		if res.Faults[i] != want[i] {
			t.Errorf("faults[%d]: %+v, want %+v", i, res.Faults[i], want[i])
		}
	}
	if res.Vacuous() {
		t.Error("a run whose crash acted is not vacuous")
	}
}

// TestVacuous: a run is vacuous when it injected something (a plan, a lossy
// network) and nothing of it touched the lock.
func TestVacuous(t *testing.T) {
	acted, idle := FaultUse{Fired: true, Acted: true}, FaultUse{Fired: true, Why: "c1 had finished"}
	for _, c := range []struct {
		name string
		res  Result
		want bool
	}{
		{"nothing injected", Result{}, false},
		{"a plan, none acted", Result{Faults: []FaultUse{idle, idle}}, true},
		{"a plan, one acted", Result{Faults: []FaultUse{idle, acted}}, false},
		{"a lossy network, every command answered", Result{LossyNetwork: true}, true},
		{"a lossy network, a command unanswered", Result{LossyNetwork: true, Unanswered: 1}, false},
		{"a plan that did nothing on a lossy network that lost", Result{Faults: []FaultUse{idle}, LossyNetwork: true, Unanswered: 2}, false},
		{"a plan that acted on a lossy network that lost nothing", Result{Faults: []FaultUse{acted}, LossyNetwork: true}, false},
		// Unanswered commands on a network that loses nothing are the
		// lock's own (a WAIT that timed out): no injection.
		{"a plan that did nothing, a timeout of the lock's own", Result{Faults: []FaultUse{idle}, Unanswered: 1}, true},
	} {
		if got := c.res.Vacuous(); got != c.want {
			t.Errorf("%s: Vacuous %v, want %v", c.name, got, c.want)
		}
	}
}

// TestLossyNetworkCounted: Run says whether its network could lose, and
// counts the commands it did.
func TestLossyNetworkCounted(t *testing.T) {
	get := func(p Proc) (Lease, error) {
		p.Do(0, "GET", "k")
		p.Do(0, "GET", "k")
		return Lease{}, nil
	}
	for _, c := range []struct {
		name       string
		net        Network
		lossy      bool
		unanswered int
		vacuous    bool
	}{
		{"a network that loses nothing", Network{Timeout: time.Second}, false, 0, false},
		{"a loss rate that loses nothing here", Network{Timeout: time.Second, LossRequest: 1e-12}, true, 0, true},
		{"every request lost", Network{Timeout: time.Second, LossRequest: 1}, true, 2, false},
		{"every reply lost", Network{Timeout: time.Second, LossReply: 1}, true, 2, false},
		{"a timeout below the round trip", Network{Timeout: time.Millisecond,
			Request: Latency{Min: time.Millisecond, Max: time.Millisecond}, Reply: Latency{Max: time.Millisecond}}, true, 2, false},
		{"a timeout the slowest round trip meets", Network{Timeout: 2 * time.Millisecond,
			Request: Latency{Max: time.Millisecond}, Reply: Latency{Max: time.Millisecond}}, false, 0, false},
	} {
		res, err := oneProc(get, func(cfg *Config) { cfg.Network = c.net })
		if err != nil {
			t.Fatal(err)
		}
		if res.LossyNetwork != c.lossy || res.Unanswered != c.unanswered || res.Vacuous() != c.vacuous {
			t.Errorf("%s: lossy %v, unanswered %d, vacuous %v; want %v, %d, %v", c.name,
				res.LossyNetwork, res.Unanswered, res.Vacuous(), c.lossy, c.unanswered, c.vacuous)
		}
	}
}

// TestUnansweredByNodeAndFailover: a request a down node dropped and a reply
// a failover lost are unanswered too.
func TestUnansweredByNodeAndFailover(t *testing.T) {
	set := func(p Proc) (Lease, error) {
		p.Do(0, "SET", "k", "v")
		return Lease{}, nil
	}
	down, err := oneProc(set, func(cfg *Config) {
		cfg.Faults = []Fault{{Kind: fault.NodeRestart, Node: 0, Dur: time.Second}}
	})
	if err != nil {
		t.Fatal(err)
	}
	lost, err := oneProc(set, func(c *Config) {
		withReplica(time.Millisecond)(c)
		c.Network.Request = Latency{Min: 10 * time.Millisecond, Max: 10 * time.Millisecond}
		c.Network.Reply = c.Network.Request
		c.Faults = []Fault{{Kind: fault.Failover, Node: 0, At: 15 * time.Millisecond, Dur: 5 * time.Millisecond}}
	})
	if err != nil {
		t.Fatal(err)
	}
	if down.Unanswered != 1 || lost.Unanswered != 1 {
		t.Errorf("unanswered: %d with the node down, %d lost in the failover; want 1 and 1", down.Unanswered, lost.Unanswered)
	}
}

// TestPauseOfAnEarlierLife: a crash ends a pause with its process's life; a
// pause of the next life deferring something does not make it act.
func TestPauseOfAnEarlierLife(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	res, err := oneProc(func(p Proc) (Lease, error) {
		p.Do(0, "GET", "k")
		p.Sleep(ms(10))
		p.Do(0, "GET", "k")
		return Lease{}, nil
	}, func(cfg *Config) {
		cfg.Faults = []Fault{
			{Kind: fault.Pause, Proc: 0, At: ms(2), Dur: ms(20)},
			{Kind: fault.Crash, Proc: 0, At: ms(3), Dur: ms(1)},
			// The new life sleeps from 4ms to 14ms, inside this pause.
			{Kind: fault.Pause, Proc: 0, At: ms(6), Dur: ms(20)},
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Faults) != 3 || res.Faults[0].Acted || !res.Faults[1].Acted || !res.Faults[2].Acted {
		t.Errorf("fault uses %+v: want the first pause idle, the crash and the second pause acted", res.Faults)
	}
}
