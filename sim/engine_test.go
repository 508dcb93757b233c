package sim

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
)

// faultyConfig exercises every mechanism that draws randomness or reorders
// events: jittered latency, losses, timeouts, pauses, crashes with restart,
// clock drift and jumps, a node restart.
func faultyConfig(seed uint64) Config {
	cfg := standardConfig(seed)
	cfg.Network.LossRequest, cfg.Network.LossReply = 0.05, 0.05
	cfg.Procs[1].Clock = ClockSpec{Offset: 300 * time.Millisecond, DriftPPM: 200}
	cfg.Nodes[0].Clock = ClockSpec{DriftPPM: -50}
	cfg.Faults = []Fault{
		{Kind: fault.Pause, Proc: 0, On: Trigger{Point: PointAcquired, Proc: 0, N: 3}, Dur: 2 * time.Second},
		{Kind: fault.Crash, Proc: 2, On: Trigger{Point: PointReply, Proc: 2, Cmd: "SET", N: 4}, Dur: 100 * time.Millisecond},
		{Kind: fault.ClientJump, Proc: 1, At: 50 * time.Millisecond, Dur: 2 * time.Second},
		{Kind: fault.NodeRestart, Node: 0, At: 120 * time.Millisecond, Dur: 5 * time.Millisecond},
	}
	return cfg
}

func digestOf(t testing.TB, cfg Config) string {
	t.Helper()
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res.History.Digest()
}

// digestOnNewNodes is digestOf with every node made new, none from the
// pool: what a pooled node's run must equal.
func digestOnNewNodes(t testing.TB, cfg Config) string {
	t.Helper()
	freshNodes = true
	defer func() { freshNodes = false }()
	return digestOf(t, cfg)
}

func TestSameSeedSameDigest(t *testing.T) {
	a, b := digestOf(t, faultyConfig(42)), digestOf(t, faultyConfig(42))
	if a != b {
		t.Fatalf("same seed, different digests: %s vs %s", a, b)
	}
	if c := digestOf(t, faultyConfig(43)); c == a {
		t.Fatalf("different seeds gave the same digest %s: the seed is not used", a)
	}
}

func TestDigestsAgreeAcrossSeedsAndGOMAXPROCS(t *testing.T) {
	const seeds = 200
	want := make([]string, seeds)
	for s := range want {
		want[s] = digestOf(t, faultyConfig(uint64(s)))
	}
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		for s := range want {
			if got := digestOf(t, faultyConfig(uint64(s))); got != want[s] {
				t.Errorf("GOMAXPROCS=%d seed %d: digest %s, first run %s", procs, s, got, want[s])
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

func TestClockArithmetic(t *testing.T) {
	cases := []struct {
		name   string
		spec   ClockSpec
		jumped time.Duration
		at     Time
		want   Time
	}{
		{"true time", ClockSpec{}, 0, 5e9, 5e9},
		{"offset", ClockSpec{Offset: 900 * time.Millisecond}, 0, 1e9, 1.9e9},
		{"negative offset", ClockSpec{Offset: -time.Second}, 0, 3e9, 2e9},
		{"fast drift", ClockSpec{DriftPPM: 100}, 0, 10e9, 10e9 + 1e6},
		{"slow drift", ClockSpec{DriftPPM: -250}, 0, 4e9, 4e9 - 1e6},
		{"drift below a microsecond", ClockSpec{DriftPPM: 1}, 0, 999_999, 999_999},
		{"jump", ClockSpec{}, 2 * time.Second, 1e9, 3e9},
		{"all", ClockSpec{Offset: time.Millisecond, DriftPPM: 1000}, -time.Second, 2e9, 2e9 + 1e6 + 2e6 - 1e9},
		{"a day of drift", ClockSpec{DriftPPM: 100000}, 0, Time(24 * time.Hour), Time(24*time.Hour + 24*time.Hour/10)},
	}
	for _, c := range cases {
		cl := clock{spec: c.spec, jumped: c.jumped}
		if got := cl.at(c.at); got != c.want {
			t.Errorf("%s: at(%d) = %d, want %d", c.name, c.at, got, c.want)
		}
	}
}

// A key set with PX 100 is there at node time +99 ms and gone at +100 ms,
// and a node clock that runs fast expires it early in true time.
func TestTTLFollowsNodeTime(t *testing.T) {
	for _, c := range []struct {
		name      string
		drift     int64
		aliveFor  time.Duration // true time after SET it is still there
		goneAfter time.Duration // true time after SET it is gone
	}{
		{"node on true time", 0, 99 * time.Millisecond, 100 * time.Millisecond},
		// +100000 ppm: 100 ms of node time pass in 90.9 ms of true time.
		{"node runs 10% fast", 100000, 90 * time.Millisecond, 91 * time.Millisecond},
	} {
		var present, gone Reply
		_, err := oneProc(func(p Proc) (Lease, error) {
			p.Do(0, "SET", "k", "v", "PX", "100")
			p.Sleep(c.aliveFor)
			present, _ = p.Do(0, "GET", "k")
			p.Sleep(c.goneAfter - c.aliveFor)
			gone, _ = p.Do(0, "GET", "k")
			return Lease{}, nil
		}, func(cfg *Config) { cfg.Nodes[0].Clock.DriftPPM = c.drift })
		if err != nil {
			t.Fatal(err)
		}
		if present.Str != "v" {
			t.Errorf("%s: GET after %v = %v, want \"v\"", c.name, c.aliveFor, present)
		}
		if gone.Kind != 0 {
			t.Errorf("%s: GET after %v = %v, want (nil)", c.name, c.goneAfter, gone)
		}
	}
}

func TestLostReplyRanButCallerGotTimeout(t *testing.T) {
	var err1 error
	res, err := oneProc(func(p Proc) (Lease, error) {
		_, err1 = p.Do(0, "SET", "k", "v")
		return Lease{}, nil
	}, func(cfg *Config) { cfg.Network.LossReply = 1 })
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(err1, ErrTimeout) {
		t.Fatalf("caller got %v, want ErrTimeout", err1)
	}
	cmds := eventsOf(res.History, KindCommand)
	if len(cmds) != 1 || cmds[0].Reply.Str != "OK" || !cmds[0].Key.Exists {
		t.Fatalf("the SET should have run on the node: %+v", cmds)
	}
	results := eventsOf(res.History, KindCommandResult)
	if len(results) != 1 || results[0].At != Time(time.Second) || !strings.Contains(results[0].Err, "reply lost") {
		t.Fatalf("the client should time out after 1s with the reply lost: %+v", results)
	}
}

func TestLostRequestNeverRuns(t *testing.T) {
	var err1 error
	res, err := oneProc(func(p Proc) (Lease, error) {
		_, err1 = p.Do(0, "SET", "k", "v")
		return Lease{}, nil
	}, func(cfg *Config) { cfg.Network.LossRequest = 1 })
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(err1, ErrTimeout) || len(eventsOf(res.History, KindCommand)) != 0 {
		t.Fatalf("a lost request must not run and must time out: err=%v", err1)
	}
}

func TestSlowReplyTimesOut(t *testing.T) {
	var err1 error
	_, err := oneProc(func(p Proc) (Lease, error) {
		_, err1 = p.Do(0, "GET", "k")
		return Lease{}, nil
	}, func(cfg *Config) {
		cfg.Network.Reply = Latency{Min: 2 * time.Second, Max: 2 * time.Second}
	})
	if err != nil || !errors.Is(err1, ErrTimeout) {
		t.Fatalf("a reply slower than the timeout must time out: %v %v", err, err1)
	}
}

func TestRedisErrorReply(t *testing.T) {
	var err1 error
	_, err := oneProc(func(p Proc) (Lease, error) {
		p.Do(0, "LPUSH", "k", "x")
		_, err1 = p.Do(0, "GET", "k")
		return Lease{}, nil
	}, nil)
	var re *RedisError
	if err != nil || !errors.As(err1, &re) || !strings.HasPrefix(re.Msg, "WRONGTYPE") {
		t.Fatalf("GET on a list should be a WRONGTYPE error, got %v", err1)
	}
}

func TestPauseDelaysTheProcess(t *testing.T) {
	var before, after time.Time
	res, err := oneProc(func(p Proc) (Lease, error) {
		before = p.Now()
		p.Do(0, "GET", "k")
		after = p.Now()
		return Lease{}, nil
	}, func(cfg *Config) {
		cfg.Faults = []Fault{{Kind: fault.Pause, Proc: 0, On: Trigger{Point: PointReply, Proc: 0, Cmd: "get", N: 1}, Dur: 3 * time.Second}}
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := after.Sub(before); d != 3*time.Second {
		t.Fatalf("pause of 3s after the GET reply: the process resumed after %v", d)
	}
	if f := eventsOf(res.History, KindFault); len(f) != 1 || f[0].Fault != fault.Pause {
		t.Fatalf("the pause should be in the history: %+v", f)
	}
}

func TestPauseAtSendDelaysTheCommand(t *testing.T) {
	res, err := oneProc(func(p Proc) (Lease, error) {
		p.Do(0, "GET", "k")
		p.Do(0, "DEL", "k")
		return Lease{}, nil
	}, func(cfg *Config) {
		cfg.Faults = []Fault{{Kind: fault.Pause, Proc: 0, On: Trigger{Point: PointSend, Proc: 0, Cmd: "DEL", N: 1}, Dur: time.Second}}
	})
	if err != nil {
		t.Fatal(err)
	}
	cmds := eventsOf(res.History, KindCommand)
	if len(cmds) != 2 || cmds[1].At != Time(time.Second) {
		t.Fatalf("DEL should run after the 1s pause: %+v", cmds)
	}
}

func TestCrashAtSendNeverSends(t *testing.T) {
	res, err := oneProc(func(p Proc) (Lease, error) {
		p.Do(0, "SET", "k", "v")
		p.Do(0, "DEL", "k")
		return Lease{}, nil
	}, func(cfg *Config) {
		cfg.Faults = []Fault{{Kind: fault.Crash, Proc: 0, On: Trigger{Point: PointSend, Proc: 0, Cmd: "DEL", N: 1}}}
	})
	if err != nil {
		t.Fatal(err)
	}
	cmds := eventsOf(res.History, KindCommand)
	if len(cmds) != 1 || !cmds[0].Key.Exists {
		t.Fatalf("crashed before DEL: only SET should have run: %+v", cmds)
	}
	if len(eventsOf(res.History, KindProcEnd)) != 0 {
		t.Fatal("a crashed process does not end normally")
	}
}

func TestCrashRestartsFreshProcess(t *testing.T) {
	starts := 0
	res, err := oneProc(func(p Proc) (Lease, error) {
		starts++
		p.Do(0, "INCR", "k")
		return Lease{Held: false}, nil
	}, func(cfg *Config) {
		cfg.Faults = []Fault{{Kind: fault.Crash, Proc: 0, On: Trigger{Point: PointReply, Proc: 0, Cmd: "INCR", N: 1}, Dur: time.Second}}
	})
	if err != nil {
		t.Fatal(err)
	}
	if starts != 2 {
		t.Fatalf("the process should start twice (crash, then restart), started %d times", starts)
	}
	ps := eventsOf(res.History, KindProcStart)
	if len(ps) != 2 || ps[1].Incarnation != 1 || ps[1].At != Time(time.Second) {
		t.Fatalf("restart should be a new incarnation 1s later: %+v", ps)
	}
}

func TestNoGoroutineOutlivesARun(t *testing.T) {
	before := runtime.NumGoroutine()
	for s := uint64(0); s < 20; s++ {
		cfg := faultyConfig(s)
		// Also crash one process for good and cut the run short, so every
		// way a coroutine can end is exercised.
		cfg.Faults = append(cfg.Faults, Fault{Kind: fault.Crash, Proc: 1, At: 30 * time.Millisecond})
		cfg.Duration = 200 * time.Millisecond
		if _, err := Run(cfg); err != nil {
			t.Fatal(err)
		}
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Fatalf("goroutines before %d, after %d: a process outlived its run", before, after)
	}
}

func TestNodeRestartLosesData(t *testing.T) {
	var got Reply
	_, err := oneProc(func(p Proc) (Lease, error) {
		p.Do(0, "SET", "k", "v")
		p.Sleep(2 * time.Second)
		got, _ = p.Do(0, "GET", "k")
		return Lease{}, nil
	}, func(cfg *Config) {
		cfg.Faults = []Fault{{Kind: fault.NodeRestart, Node: 0, At: time.Second}}
	})
	if err != nil || got.Kind != 0 {
		t.Fatalf("GET after a node restart = %v (err %v), want (nil)", got, err)
	}
}

func TestNodeDownTimesOut(t *testing.T) {
	var err1 error
	_, err := oneProc(func(p Proc) (Lease, error) {
		p.Sleep(time.Second)
		_, err1 = p.Do(0, "GET", "k")
		return Lease{}, nil
	}, func(cfg *Config) {
		cfg.Faults = []Fault{{Kind: fault.NodeRestart, Node: 0, At: time.Second, Dur: time.Minute}}
	})
	if err != nil || !errors.Is(err1, ErrTimeout) {
		t.Fatalf("a command to a node that is down must time out: %v %v", err, err1)
	}
}

func TestAlgorithmPanicIsAClientError(t *testing.T) {
	res, err := oneProc(func(p Proc) (Lease, error) {
		panic("the algorithm's own bug")
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ends := eventsOf(res.History, KindProcEnd)
	if len(ends) != 1 || !strings.HasPrefix(ends[0].Err, "panic: ") {
		t.Fatalf("a panic in algorithm code should end the process with a client error: %+v", ends)
	}
}

func TestRunStopsAtTheLimits(t *testing.T) {
	spin := func(p Proc) (Lease, error) {
		for {
			p.Do(0, "GET", "k")
			p.Sleep(time.Millisecond)
		}
	}
	res, err := oneProc(spin, func(cfg *Config) { cfg.Duration = time.Second })
	if err != nil || !strings.Contains(res.Cut, "duration") || res.End != Time(time.Second) {
		t.Fatalf("run should be cut at its duration: %+v %v", res.Cut, err)
	}
	res, err = oneProc(spin, func(cfg *Config) { cfg.MaxEvents = 100 })
	if err != nil || !strings.Contains(res.Cut, "event limit") || len(res.History.Events) != 100 {
		t.Fatalf("run should be cut at 100 events: %q, %d events, %v", res.Cut, len(res.History.Events), err)
	}
}

func TestInvalidConfig(t *testing.T) {
	cfg := standardConfig(1)
	cfg.Faults = []Fault{{Kind: fault.Crash, Proc: 9}}
	if _, err := Run(cfg); err == nil || !strings.Contains(err.Error(), "faults[0]") {
		t.Fatalf("a fault on a missing process must be rejected naming it, got %v", err)
	}
}

// A node taken from the pool is Reset; its runs must be bit for bit those of
// a new node, scripts, node restarts and clock faults included.
func TestPooledNodesAreFresh(t *testing.T) {
	for s := uint64(0); s < 30; s++ {
		pooled := digestOf(t, faultyConfig(s))
		fresh := digestOnNewNodes(t, faultyConfig(s))
		if pooled != fresh {
			t.Fatalf("seed %d: pooled node gave %s, a new node %s", s, pooled, fresh)
		}
	}
}

// Two crashes on the same event while the process runs: it dies once and
// restarts once. (Each used to schedule a restart, and two coroutines then
// shared one process's replies.)
func TestTwoCrashesOnOneEventRestartOnce(t *testing.T) {
	starts := 0
	res, err := oneProc(func(p Proc) (Lease, error) {
		starts++
		p.Do(0, "INCR", "k")
		return Lease{Held: true}, nil
	}, func(cfg *Config) {
		crash := Fault{Kind: fault.Crash, Proc: 0, On: Trigger{Point: PointAcquired, Proc: 0, N: 1}, Dur: 10 * time.Millisecond}
		cfg.Faults = []Fault{crash, crash}
	})
	if err != nil {
		t.Fatal(err)
	}
	if starts != 2 {
		t.Fatalf("want one crash and one restart (2 starts), got %d starts", starts)
	}
	crashes := 0
	for _, e := range eventsOf(res.History, KindFault) {
		if e.Fault == fault.Crash {
			crashes++
		}
	}
	if crashes != 1 {
		t.Fatalf("the second crash hit a dying process: %d crashes recorded", crashes)
	}
}

// A planned loss is the network's random loss made certain for one command:
// at a send point it is that command; a lost request never runs, a lost
// reply's command runs; either way the client times out after the fault's
// Dur, and the commands before and after are untouched.
func TestPlannedLossLosesOneCommand(t *testing.T) {
	for _, c := range []struct {
		kind fault.Kind
		ran  int // commands that ran on the node
		why  string
	}{
		{fault.LoseRequest, 2, "request lost"},
		{fault.LoseReply, 3, "reply lost"},
	} {
		errs := make([]error, 3)
		res, err := oneProc(func(p Proc) (Lease, error) {
			_, errs[0] = p.Do(0, "GET", "k")
			_, errs[1] = p.Do(0, "SET", "k", "v")
			_, errs[2] = p.Do(0, "GET", "k")
			return Lease{}, nil
		}, func(cfg *Config) {
			cfg.Faults = []Fault{{Kind: c.kind, Proc: 0, On: Trigger{Point: PointSend, Proc: 0, Cmd: "SET", N: 1}, Dur: 300 * time.Millisecond}}
		})
		if err != nil {
			t.Fatal(err)
		}
		if errs[0] != nil || !errors.Is(errs[1], ErrTimeout) || errs[2] != nil {
			t.Fatalf("%s: errors %v, want only the SET to time out", c.kind, errs)
		}
		if n := len(eventsOf(res.History, KindCommand)); n != c.ran {
			t.Errorf("%s: %d commands ran, want %d", c.kind, n, c.ran)
		}
		var timedOut []Event
		for _, e := range eventsOf(res.History, KindCommandResult) {
			if e.Err != "" {
				timedOut = append(timedOut, e)
			}
		}
		if len(timedOut) != 1 || !strings.Contains(timedOut[0].Err, c.why) || timedOut[0].At-timedOut[0].Sent != Time(300*time.Millisecond) {
			t.Errorf("%s: timeouts %+v, want one %q after the fault's 300ms", c.kind, timedOut, c.why)
		}
		if f := eventsOf(res.History, KindFault); len(f) != 1 || f[0].Fault != c.kind {
			t.Errorf("%s: fault events %+v", c.kind, f)
		}
	}
}

// With no Dur the client waits out the network's timeout.
func TestPlannedLossDefaultsToTheNetworkTimeout(t *testing.T) {
	res, err := oneProc(func(p Proc) (Lease, error) {
		p.Do(0, "GET", "k")
		return Lease{}, nil
	}, func(cfg *Config) {
		cfg.Faults = []Fault{{Kind: fault.LoseReply, Proc: 0, On: Trigger{Point: PointSend, Proc: 0, N: 1}}}
	})
	if err != nil {
		t.Fatal(err)
	}
	r := eventsOf(res.History, KindCommandResult)
	if len(r) != 1 || r[0].At != Time(time.Second) || r[0].Err == "" {
		t.Fatalf("want a timeout at the network's 1s: %+v", r)
	}
}
