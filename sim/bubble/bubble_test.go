package bubble

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// TestWriteQueuesWholeCommandsWhateverTheCuts: what the library writes, in
// any pieces, becomes the same commands in order; a piece that ends inside
// a command waits for the rest; the buffers are reused.
func TestWriteQueuesWholeCommandsWhateverTheCuts(t *testing.T) {
	wire := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv1\r\n*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
	for cut := 0; cut <= len(wire); cut++ {
		c := &libConn{l: &Library{b: &bubble{wake: make(chan struct{}, 1)}}, ready: make(chan struct{}, 1)}
		for _, piece := range []string{wire[:cut], wire[cut:]} {
			if n, err := c.Write([]byte(piece)); err != nil || n != len(piece) {
				t.Fatalf("cut at %d: wrote %d of %q: %v", cut, n, piece, err)
			}
		}
		var got []string
		for _, args := range c.out {
			got = append(got, strings.Join(args, " "))
		}
		if strings.Join(got, "|") != "SET k v1|PING|GET k" || len(c.in) != 0 || c.l.b.pending != 3 {
			t.Fatalf("cut at %d: commands %q, %d bytes left, %d pending", cut, got, len(c.in), c.l.b.pending)
		}
	}
}

// rawLock is a client library reduced to its bones: on a goroutine of its
// own it dials node 0, sleeps, and sends SET NX PX over the connection,
// reading the reply with a deadline; it notes the time it read from
// time.Now before and after.
type rawLock struct {
	sleep    time.Duration
	before   *time.Time
	after    *time.Time
	err      *error
	deadline time.Duration
}

func (l rawLock) Acquire(p sim.Proc) (sim.Lease, error) {
	lib, err := LibraryFor(p, synctest.Wait)
	if err != nil {
		return sim.Lease{}, err
	}
	var reply string
	lib.Call(p, func(context.Context) {
		c, err := lib.Dial(0)
		if err != nil {
			*l.err = err
			return
		}
		time.Sleep(l.sleep)
		*l.before = time.Now()
		fmt.Fprintf(c, "*6\r\n$3\r\nSET\r\n$4\r\nlock\r\n$1\r\nt\r\n$2\r\nNX\r\n$2\r\nPX\r\n$4\r\n1000\r\n")
		if l.deadline > 0 {
			c.SetReadDeadline(time.Now().Add(l.deadline))
		}
		reply, *l.err = bufio.NewReader(c).ReadString('\n')
		*l.after = time.Now()
	})
	return sim.Lease{Held: reply == "+OK\r\n", Token: "t"}, nil
}

func (rawLock) Release(sim.Proc, sim.Lease) error { return nil }

func rawConfig(l rawLock, nw sim.Network) sim.Config {
	return sim.Config{Seed: 1, Duration: time.Minute, Nodes: []sim.NodeSpec{{}},
		Procs:     []sim.ProcSpec{{Name: "c1", Iterations: 1}},
		Network:   nw,
		NewLocker: func(int) sim.Locker { return l },
		WatchKey:  "lock",
	}
}

// libraryLock is a lock whose Acquire runs call as one library call of its
// process and returns the lease call gives.
func libraryLock(call func(lib *Library) sim.Lease) scriptLock {
	return scriptLock{acquire: func(p sim.Proc) (sim.Lease, error) {
		lib, err := LibraryFor(p, synctest.Wait)
		if err != nil {
			return sim.Lease{}, err
		}
		var lease sim.Lease
		lib.Call(p, func(context.Context) { lease = call(lib) })
		return lease, nil
	}}
}

// TestLibraryTimeIsTrueTime: the library's sleep, its time.Now and the
// network's latency are one timeline, true time from Epoch.
func TestLibraryTimeIsTrueTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var before, after time.Time
		var err error
		l := rawLock{sleep: 30 * time.Second, before: &before, after: &after, err: &err}
		nw := sim.Network{Request: sim.Latency{Min: 3 * time.Millisecond, Max: 3 * time.Millisecond},
			Reply: sim.Latency{Min: 4 * time.Millisecond, Max: 4 * time.Millisecond}}
		res, rerr := sim.Run(rawConfig(l, nw))
		if rerr != nil || err != nil {
			t.Fatal(rerr, err)
		}
		if want := sim.Epoch.Add(30 * time.Second); !before.Equal(want) {
			t.Errorf("time.Now after a 30 s sleep: %s, want %s", before, want)
		}
		if d := after.Sub(before); d != 7*time.Millisecond {
			t.Errorf("the round trip took %s of the library's time, want the network's 7ms", d)
		}
		var cmd *sim.Event
		for i, e := range res.History.Events {
			if e.Kind == sim.KindCommand {
				cmd = &res.History.Events[i]
			}
		}
		if cmd == nil || cmd.Args[0] != "SET" || !cmd.At.Std().Equal(sim.Epoch.Add(30*time.Second+3*time.Millisecond)) {
			t.Fatalf("the SET in the history: %+v", cmd)
		}
		if res.Stats.Acquired != 1 {
			t.Errorf("acquired %d, want 1", res.Stats.Acquired)
		}
	})
}

// TestLibraryLostReplyMeetsItsDeadline: a lost reply never comes; the
// library's own read deadline ends its wait, at its time.
func TestLibraryLostReplyMeetsItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var before, after time.Time
		var err error
		l := rawLock{before: &before, after: &after, err: &err, deadline: 2 * time.Second}
		nw := sim.Network{Request: sim.Latency{Min: time.Millisecond, Max: time.Millisecond},
			Reply: sim.Latency{Min: time.Millisecond, Max: time.Millisecond}, LossReply: 1}
		res, rerr := sim.Run(rawConfig(l, nw))
		if rerr != nil {
			t.Fatal(rerr)
		}
		if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
			t.Fatalf("the read: %v, want a timeout", err)
		}
		if d := after.Sub(before); d != 2*time.Second {
			t.Errorf("timed out after %s, want the 2s deadline", d)
		}
		if res.Stats.Acquired != 0 || res.Stats.Failed != 1 {
			t.Errorf("stats %+v, want one failed acquire", res.Stats)
		}
	})
}

func TestLibraryOutsideABubbleIsRefused(t *testing.T) {
	var before, after time.Time
	var err error
	res, rerr := sim.Run(rawConfig(rawLock{before: &before, after: &after, err: &err}, sim.Network{}))
	if rerr != nil {
		t.Fatal(rerr)
	}
	end := lastEndError(res)
	if !strings.Contains(end, "not inside a synctest bubble") {
		t.Errorf("the process ended with %q, want the bubble named", end)
	}
}

// lastEndError is the error the run's last process to end ended with.
func lastEndError(res *sim.Result) string {
	var end string
	for _, e := range res.History.Events {
		if e.Kind == sim.KindProcEnd {
			end = e.Err
		}
	}
	return end
}

func TestLibraryRefusesAClientClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var before, after time.Time
		var err error
		cfg := rawConfig(rawLock{before: &before, after: &after, err: &err}, sim.Network{})
		cfg.Procs[0].Clock = sim.ClockSpec{Offset: time.Second}
		res, rerr := sim.Run(cfg)
		if rerr != nil {
			t.Fatal(rerr)
		}
		end := lastEndError(res)
		if !strings.Contains(end, "c1: clock offset or drift") {
			t.Errorf("the process ended with %q, want its clock refused", end)
		}
	})
}

// TestLibraryBlockingPopWaitsInSimulatedTime: a library's BLPOP parks on
// its node and its own 1 s timeout answers nil, as for a built-in lock.
func TestLibraryBlockingPopWaitsInSimulatedTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var sent, got time.Time
		var reply string
		l := libraryLock(func(lib *Library) sim.Lease {
			c, _ := lib.Dial(0)
			sent = time.Now()
			fmt.Fprintf(c, "*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n1\r\n")
			reply, _ = bufio.NewReader(c).ReadString('\n')
			got = time.Now()
			return sim.Lease{}
		})
		cfg := rawConfig(rawLock{}, sim.Network{Request: sim.Latency{Min: time.Millisecond, Max: time.Millisecond},
			Reply: sim.Latency{Min: time.Millisecond, Max: time.Millisecond}, Timeout: 5 * time.Second})
		cfg.NewLocker = func(int) sim.Locker { return l }
		if _, err := sim.Run(cfg); err != nil {
			t.Fatal(err)
		}
		if reply != "$-1\r\n" && reply != "*-1\r\n" {
			t.Errorf("BLPOP answered %q, want nil", reply)
		}
		if d := got.Sub(sent); d != time.Second+2*time.Millisecond {
			t.Errorf("BLPOP took %s, want its 1s timeout and the round trip", d)
		}
	})
}

// TestLibraryTimerAtAnArrivalIsTaken: the engine steps a command's arrival
// without waiting for the libraries first (advance), so a library
// goroutine whose own timer fires at that very instant must still have
// what it does taken at that instant: a write is sent then, and a read
// deadline it sets without writing (no write to signal the engine) times
// the read out at its time, not at the next event's.
func TestLibraryTimerAtAnArrivalIsTaken(t *testing.T) {
	const lat = 10 * time.Millisecond
	digests := map[bool]string{} // twenty runs of each give one
	for i := range 40 {
		write := i%2 == 1
		synctest.Test(t, func(t *testing.T) {
			var woke, timedOut time.Time
			var readErr error
			l := libraryLock(func(lib *Library) sim.Lease {
				c0, _ := lib.Dial(0)
				c1, _ := lib.Dial(0)
				done := make(chan struct{})
				go func() { // wakes when the SET below arrives
					defer close(done)
					time.Sleep(lat)
					woke = time.Now()
					if write {
						fmt.Fprintf(c1, "*2\r\n$3\r\nGET\r\n$4\r\nlock\r\n")
					}
					c1.SetReadDeadline(time.Now().Add(3 * time.Millisecond))
					_, readErr = c1.Read(make([]byte, 64))
					timedOut = time.Now()
				}()
				fmt.Fprintf(c0, "*3\r\n$3\r\nSET\r\n$4\r\nlock\r\n$1\r\nt\r\n")
				bufio.NewReader(c0).ReadString('\n')
				<-done
				return sim.Lease{}
			})
			cfg := rawConfig(rawLock{}, sim.Network{Request: sim.Latency{Min: lat, Max: lat}, Reply: sim.Latency{Min: lat, Max: lat}})
			cfg.NewLocker = func(int) sim.Locker { return l }
			res, err := sim.Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if want := sim.Epoch.Add(lat); !woke.Equal(want) {
				t.Fatalf("the timer woke at %s, want the SET's arrival %s", woke, want)
			}
			if d, ok := digests[write]; ok && d != res.History.Digest() {
				t.Fatalf("run %d: digest %.12s, first %.12s", i, res.History.Digest(), d)
			}
			digests[write] = res.History.Digest()
			if write {
				var get *sim.Event
				for i, e := range res.History.Events {
					if e.Kind == sim.KindCommand && e.Args[0] == "GET" {
						get = &res.History.Events[i]
					}
				}
				if get == nil || get.Sent != sim.Time(lat) {
					t.Fatalf("the GET written at the arrival: %+v, want it sent then (%s)", get, lat)
				}
				return // its reply comes before the deadline
			}
			if ne, ok := readErr.(net.Error); !ok || !ne.Timeout() {
				t.Fatalf("the read: %v, want a timeout", readErr)
			}
			if d := timedOut.Sub(woke); d != 3*time.Millisecond {
				t.Errorf("the read timed out %s after its deadline was set, want 3ms", d)
			}
		})
	}
}

// TestLibraryArrivalsNeedNoWake: sleeping past arrivals (advance) gives
// the digests of waking at every one, on runs where libraries' goroutines
// write, sleep on timers and time reads out between arrivals and replies:
// three clients, random latencies, lost replies.
func TestLibraryArrivalsNeedNoWake(t *testing.T) {
	l := libraryLock(func(lib *Library) sim.Lease {
		var held bool
		c, _ := lib.Dial(0)
		other, _ := lib.Dial(0)
		r := bufio.NewReader(c)
		go func() { // a watchdog on its own timer, on its own connection
			time.Sleep(3 * time.Millisecond)
			fmt.Fprintf(other, "*2\r\n$3\r\nGET\r\n$4\r\nlock\r\n")
			other.SetReadDeadline(time.Now().Add(4 * time.Millisecond))
			other.Read(make([]byte, 64))
		}()
		for try := 0; try < 3 && !held; try++ {
			fmt.Fprintf(c, "*6\r\n$3\r\nSET\r\n$4\r\nlock\r\n$1\r\nt\r\n$2\r\nNX\r\n$2\r\nPX\r\n$2\r\n20\r\n")
			c.SetReadDeadline(time.Now().Add(8 * time.Millisecond))
			reply, err := r.ReadString('\n')
			held = err == nil && reply == "+OK\r\n"
			if err != nil {
				r.Reset(c)
			}
			time.Sleep(time.Duration(1+try) * time.Millisecond)
		}
		return sim.Lease{Held: held, Token: "t"}
	})
	run := func(seed uint64) string {
		var digest string
		synctest.Test(t, func(t *testing.T) {
			cfg := sim.Config{Seed: seed, Duration: time.Second, Nodes: []sim.NodeSpec{{}},
				Procs: []sim.ProcSpec{{Name: "c1", Iterations: 2}, {Name: "c2", Iterations: 2, Start: time.Millisecond},
					{Name: "c3", Iterations: 2, Start: 2 * time.Millisecond}},
				Network: sim.Network{Request: sim.Latency{Min: time.Millisecond, Max: 5 * time.Millisecond},
					Reply: sim.Latency{Min: time.Millisecond, Max: 5 * time.Millisecond}, LossReply: 0.2},
				NewLocker: func(int) sim.Locker { return l },
				WatchKey:  "lock",
			}
			res, err := sim.Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			digest = res.History.Digest()
		})
		return digest
	}
	defer func() { wakeAtArrivals = false }()
	for seed := uint64(1); seed <= 20; seed++ {
		wakeAtArrivals = false
		past := run(seed)
		wakeAtArrivals = true
		if woken := run(seed); woken != past {
			t.Errorf("seed %d: digest %.12s sleeping past arrivals, %.12s waking at each", seed, past, woken)
		}
	}
}

// renewingLibLock is a library lock whose Acquire and Release are instant
// library calls and whose Extend is a library call that waits for its
// context or for wait to pass, noting how it ended. It keeps the Library
// its first Acquire got, as a lock keeps the clients it made on it.
type renewingLibLock struct {
	lib      **Library
	wait     time.Duration
	extended *[]string
	released *int
}

func (l renewingLibLock) call(p sim.Proc, f func(ctx context.Context)) error {
	if *l.lib == nil {
		lib, err := LibraryFor(p, synctest.Wait)
		if err != nil {
			return err
		}
		*l.lib = lib
	}
	(*l.lib).Call(p, f)
	return nil
}

func (l renewingLibLock) Acquire(p sim.Proc) (sim.Lease, error) {
	return sim.Lease{Held: true, Token: "t"}, l.call(p, func(context.Context) {})
}

func (l renewingLibLock) Release(p sim.Proc, _ sim.Lease) error {
	return l.call(p, func(context.Context) { *l.released++ })
}

func (l renewingLibLock) Extend(p sim.Proc, _ sim.Lease) (bool, error) {
	err := l.call(p, func(ctx context.Context) {
		select {
		case <-ctx.Done():
			*l.extended = append(*l.extended, "cancelled at "+time.Duration(time.Now().Sub(sim.Epoch)).String())
		case <-time.After(l.wait):
			*l.extended = append(*l.extended, "done")
		}
	})
	return true, err
}

// TestStoppedWatchdogEndsOnlyItsLibraryCall: a holder whose work ends while
// its watchdog's Extend waits inside the library (the renewal in flight
// when the holder releases) stops the watchdog, and that stop cancels the
// Extend's call alone: the Release that follows runs, the run ends, and
// the Extend's context is cancelled at the instant of the stop. Closing the
// whole library there left the Release waiting on a closed library until
// the run's duration cut it.
func TestStoppedWatchdogEndsOnlyItsLibraryCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var extended []string
		released := 0
		var lib *Library
		l := renewingLibLock{lib: &lib, wait: 500 * time.Millisecond, extended: &extended, released: &released}
		cfg := sim.Config{Seed: 1, Duration: 10 * time.Second, Nodes: []sim.NodeSpec{{}},
			Procs:     []sim.ProcSpec{{Name: "c1", Iterations: 1, Work: 720 * time.Millisecond, RenewEvery: 720 * time.Millisecond}},
			NewLocker: func(int) sim.Locker { return l }, WatchKey: "lock"}
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Cut != "" || released != 1 {
			t.Fatalf("cut %q, %d releases: the Release after a stopped watchdog's Extend did not return", res.Cut, released)
		}
		if len(extended) != 1 || extended[0] != "cancelled at 720ms" {
			t.Errorf("the Extend: %q, want it cancelled at the stop, 720ms", extended)
		}
		if len(eventsOf(res.History, sim.KindExtendInvoke)) != 1 || len(eventsOf(res.History, sim.KindReleaseReturn)) != 1 {
			t.Errorf("want one extend invoked and one release returned:\n%v", res.History.Events)
		}
	})
}

// stuckInLibrary waits for its context only: a library call that never
// returns while the run lasts.
//
//go:noinline
func stuckInLibrary(ctx context.Context) { <-ctx.Done() }

// TestHangNamesTheCallAndWhereItWaits: a run cut at its duration while a
// library call waits says whose call it is, which (Acquire), and where its
// goroutine waits.
func TestHangNamesTheCallAndWhereItWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res, err := oneProc(func(p sim.Proc) (sim.Lease, error) {
			lib, err := LibraryFor(p, synctest.Wait)
			if err != nil {
				return sim.Lease{}, err
			}
			lib.Call(p, stuckInLibrary)
			return sim.Lease{}, nil
		}, func(c *sim.Config) { c.Duration = 5 * time.Second })
		if err != nil {
			t.Fatal(err)
		}
		want := "duration limit 5s reached; c1's Acquire has not returned: its goroutine waits (chan receive) in "
		if !strings.HasPrefix(res.Cut, want) || !strings.Contains(res.Cut, "bubble.stuckInLibrary") {
			t.Fatalf("cut %q, want it to start %q and name stuckInLibrary", res.Cut, want)
		}
		t.Log(res.Cut)
	})
}

// TestPauseOfALibraryActsWhenItHoldsSomething: a pause acted when it held
// back a library call's reply, or the command a library timer (its sleep)
// let it write; one during the holder's work, with no call under way and
// nothing due, did not.
func TestPauseOfALibraryActsWhenItHoldsSomething(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tenMs := sim.Network{Request: sim.Latency{Min: ms(10), Max: ms(10)}, Reply: sim.Latency{Min: ms(10), Max: ms(10)}}
	for _, c := range []struct {
		name  string
		sleep time.Duration // the library's, before it sends
		work  time.Duration
		at    time.Duration // the pause's, for 100ms
		acted bool
	}{
		{name: "the reply, due at 20ms", at: ms(15), acted: true},
		{name: "the SET the library's 50ms sleep lets it write", sleep: ms(50), at: ms(10), acted: true},
		{name: "inside the work, nothing due", work: time.Second, at: ms(100)},
	} {
		synctest.Test(t, func(t *testing.T) {
			var before, after time.Time
			var err error
			cfg := rawConfig(rawLock{sleep: c.sleep, before: &before, after: &after, err: &err}, tenMs)
			cfg.Procs[0].Work = c.work
			cfg.Faults = []sim.Fault{{Kind: fault.Pause, Proc: 0, At: c.at, Dur: ms(100)}}
			res, rerr := sim.Run(cfg)
			if rerr != nil || err != nil {
				t.Fatal(rerr, err)
			}
			if u := res.Faults[0]; !u.Fired || u.Acted != c.acted {
				t.Errorf("%s: fired %v, acted %v (%s), want acted %v", c.name, u.Fired, u.Acted, u.Why, c.acted)
			}
		})
	}
}

// scriptLock runs test code as the acquire step: the engine's workload then
// records it like any algorithm.
type scriptLock struct {
	acquire func(p sim.Proc) (sim.Lease, error)
}

func (l scriptLock) Acquire(p sim.Proc) (sim.Lease, error) { return l.acquire(p) }
func (l scriptLock) Release(sim.Proc, sim.Lease) error     { return nil }

// oneProc runs body once in a single process on one node, with mod's
// changes to the configuration.
func oneProc(body func(p sim.Proc) (sim.Lease, error), mod func(*sim.Config)) (*sim.Result, error) {
	cfg := sim.Config{
		Seed:      7,
		Duration:  time.Hour,
		Nodes:     []sim.NodeSpec{{}},
		Procs:     []sim.ProcSpec{{Name: "c1", Iterations: 1}},
		Network:   sim.Network{Timeout: time.Second},
		NewLocker: func(int) sim.Locker { return scriptLock{acquire: body} },
		WatchKey:  "k",
	}
	if mod != nil {
		mod(&cfg)
	}
	return sim.Run(cfg)
}

func eventsOf(h sim.History, k sim.Kind) []sim.Event {
	var out []sim.Event
	for _, e := range h.Events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}
