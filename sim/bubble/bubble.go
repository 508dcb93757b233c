// Package bubble is the library backend: real Go lock libraries (redsync,
// bsm/redislock, any go-redis code) run unmodified inside a simulated run,
// in a testing/synctest bubble whose fake clock the run moves from event to
// event. A lock call gets its process's Library (LibraryFor), dials the
// run's nodes through it and makes its library calls through Call.
//
// It is a package of its own, beside the engine rather than inside it,
// because it adds goroutines, a mutex and a fake clock to a run that has
// none of them otherwise, and needs only a narrow view of the run:
// sim.Host, the seam (sim/libhost.go), through which it steps the run's
// events, sends what a library wrote through the run's network and parks
// the coroutines that wait for a library call. It sits under sim (as
// sim/node does) because it runs only inside a simulated run: the
// processes, nodes, network, faults and history stay the engine's, and a
// library's commands are recorded as a built-in lock's are. The RESP on its
// connections is package internal/resp's.
package bubble

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/internal/resp"
	"github.com/locksim/locksim/sim"
)

// Real client libraries inside a run. A lock library (redsync,
// bsm/redislock) runs its own goroutines, reads time.Now, sets timers and
// talks to Redis through a net.Conn. It runs unmodified when the whole run
// is inside a testing/synctest bubble: the engine's goroutine, the
// processes' coroutines and every goroutine the library starts share the
// bubble's fake clock, and the engine moves that clock from event to event,
// so a library's time.Now, sleeps, timers and deadlines follow true time.
//
// Determinism with real goroutines: the engine lets the bubble's clock move
// only when every goroutine of the bubble is blocked (the bubble's Wait),
// and then gathers what the library wrote at that instant, process by
// process in creation order, connection by connection in node and dial
// order, and sends it in that order. A reply is handed to one connection at
// a time, and the engine waits for the library to be blocked again before
// the next event. What several library goroutines write at one instant is
// therefore sent in one order whichever of them the Go scheduler ran first.
//
// The bytes on a connection are RESP2 (a client that asks for RESP3 gets an
// error for HELLO 3 and falls back). Dialing is instant and never fails;
// every command goes through the run's network (latency, loss), nodes
// (restarts, failover, clock jumps), faults and history as a built-in
// lock's. A lost request or reply, or one slower than the network's
// timeout, is never answered: the library's own read deadline decides when
// it gives up, as it would against a real server. A failover closes the
// connections to the lost primary.
//
// A pause of a process stops its connections: nothing it writes is sent and
// nothing is handed to it until the pause ends. Its goroutines' timers still
// fire (a real GC pause fires them the moment it ends). A crash closes the
// process's connections; its goroutines are abandoned, see their
// connections fail, and unwind.

// Library is one process incarnation's door to the run for a client
// library: simulated connections to the run's nodes (Dial) and calls into
// the library that the process's code waits for (Call).
type Library struct {
	b    *bubble
	home sim.Proc // the process's main coroutine (Host.Home)
	inc  int
	// conns are in node order, each node's in dial order: a library that
	// dials several nodes at once (redsync's pools, one goroutine each)
	// dials them in the scheduler's order, which must decide nothing.
	conns []*libConn
	calls []*libCall // started and not yet taken back by their coroutine
	dead  bool       // the incarnation ended: connections closed
	// wakeAt is the end of the pause an evLibrary event is already
	// scheduled for.
	wakeAt sim.Time
	ctx    context.Context
	cancel context.CancelFunc
}

// bubble is a run's state for the libraries in it; nil for a run with none.
type bubble struct {
	h     *sim.Host
	wait  func()
	base  time.Time // the bubble's clock at true time 0
	wake  chan struct{}
	mu    sync.Mutex // calls' done flags, conns' buffers
	ports []*Library // in creation order: the order their effects are taken
	// dirty: the engine may have woken a goroutine of the bubble (a
	// reply, a close, a timed-out read, a call started, time moved) since
	// its last Wait. Library goroutines run only when woken, so a clean
	// bubble is blocked already and settle need not Wait. Written by the
	// engine's goroutine and the coroutines, which never run at once.
	dirty bool
	// pending counts the commands written and not yet taken by libSends.
	pending int
	// sendConns is libSends' copy of a Library's connections, reused.
	sendConns []*libConn
	// timer is sleepUntil's, one per run: a run sleeps once per instant
	// that has events, and a timer each time was a tenth of its garbage.
	timer *time.Timer
}

// libCall is a call into the library by one coroutine.
type libCall struct {
	co       sim.Proc
	done     bool
	panicked any
	gid      string // the id of the goroutine that runs it, for hang
}

// LibraryFor gives the process p (the sim.Proc an Acquire, Release or Extend
// is called with) its Library, making it on first use. wait is
// testing/synctest.Wait (this package does not import testing); the run must be
// inside a synctest bubble, which LibraryFor checks by calling it. The
// real-time backend (realtime/engine, --redis) has no Library: a library talks to
// real servers itself there.
func LibraryFor(p sim.Proc, wait func()) (l *Library, err error) {
	r, ok := sim.HostOf(p)
	if !ok {
		return nil, fmt.Errorf("a client library runs in the simulated engine only, not in %T", p)
	}
	h, spec, id := r.Home(p), r.Spec(p), r.ID(p)
	// A library reads time.Now, the bubble's one clock: a client's own
	// clock cannot reach it.
	if spec.Clock != (sim.ClockSpec{}) {
		return nil, fmt.Errorf("%s: clock offset or drift: a client library reads the run's one clock (time.Now); client clock skew cannot reach it", spec.Name)
	}
	for _, f := range r.Faults() {
		if f.Kind == fault.ClientJump && f.Proc == id {
			return nil, fmt.Errorf("%s: %s: a client library reads the run's one clock (time.Now); a client clock jump cannot reach it", spec.Name, f.Kind)
		}
	}
	b, _ := r.Libraries().(*bubble)
	if b == nil {
		if err := checkBubble(wait); err != nil {
			return nil, err
		}
		b = &bubble{h: r, wait: wait, wake: make(chan struct{}, 1)}
		r.Join(b)
		// The library's clock reads true time when the bubble is young
		// enough (its first run); after earlier runs, the same instants
		// shifted.
		if d := r.Now().Std().Sub(time.Now()); d > 0 {
			time.Sleep(d)
		}
		b.base = time.Now().Add(-time.Duration(r.Now()))
	}
	inc := r.Incarnation(p)
	for _, l := range b.ports {
		if l.home == h && l.inc == inc && !l.dead {
			return l, nil
		}
	}
	l = &Library{b: b, home: h, inc: inc}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	b.ports = append(b.ports, l)
	return l, nil
}

// checkBubble calls wait, which panics outside a bubble.
func checkBubble(wait func()) (err error) {
	if wait == nil {
		return errors.New("no wait function (testing/synctest.Wait)")
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("not inside a synctest bubble (%v): run the lock through a bubble, as golock.Check does", v)
		}
	}()
	wait()
	return nil
}

// Call runs f on a goroutine of its own and makes p's coroutine wait until
// f returns, while the engine serves f's connections and moves time. ctx is
// what f passes to the library's calls: the incarnation's life (Context),
// or, for a call of p's watchdog, the watchdog's, which its holder's stop
// cancels too. A panic in f is the library's: it is raised again in p's
// coroutine, where the run records it as the process's client error. If p
// crashes while it waits, its connections close and f's goroutine is
// abandoned. If the holder stops the watchdog while its call waits (the
// work ended during an Extend), that call alone is cancelled and
// abandoned: what it sent still reaches its node, and the holder's
// Release goes on over the same connections.
func (l *Library) Call(p sim.Proc, f func(ctx context.Context)) {
	h := l.b.h
	c := &libCall{co: p}
	ctx := l.ctx
	var cancel context.CancelFunc
	if h.IsWatchdog(p) {
		ctx, cancel = context.WithCancel(l.ctx)
	}
	l.calls = append(l.calls, c)
	l.b.dirty = true
	h.Go(func() { // redsync's and go-redis's calls run deep, as a coroutine's do
		id := goroutineID()
		l.b.mu.Lock()
		c.gid = id
		l.b.mu.Unlock()
		defer func() {
			v := recover()
			l.b.mu.Lock()
			c.done, c.panicked = true, v
			l.b.mu.Unlock()
			l.b.signal()
		}()
		f(ctx)
	})
	finished := false
	defer func() {
		switch {
		case finished:
			if cancel != nil {
				cancel()
			}
		case h.Stopped(p):
			cancel() // the holder stopped its watchdog: this call alone ends
			l.b.dirty = true
		default:
			l.close() // unwound by a crash or the run's end
		}
	}()
	h.Wait(p)
	finished = true
	if c.panicked != nil {
		panic(c.panicked)
	}
}

// Dial opens a connection to node n. It never fails for a node of the run.
func (l *Library) Dial(n int) (net.Conn, error) {
	if nodes := l.b.h.Nodes(); n < 0 || n >= nodes {
		return nil, fmt.Errorf("no node %d: the run has %d", n, nodes)
	}
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	if l.dead {
		return nil, net.ErrClosed
	}
	c := &libConn{l: l, node: n, ready: make(chan struct{}, 1)}
	at := len(l.conns)
	for at > 0 && l.conns[at-1].node > n {
		at--
	}
	l.conns = slices.Insert(l.conns, at, c)
	return c, nil
}

// signal wakes the engine if it sleeps: a library goroutine wrote or a call
// ended.
func (b *bubble) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Context is the incarnation's life: cancelled when it crashes or the run
// ends, so that a library call waiting on it (a retry loop, a timer)
// unwinds. Pass it to the library's calls.
func (l *Library) Context() context.Context { return l.ctx }

// close closes every connection of the incarnation and cancels its
// context.
func (l *Library) close() {
	l.b.mu.Lock()
	l.dead = true
	for _, c := range l.conns {
		c.closeLocked()
	}
	l.b.mu.Unlock()
	l.cancel()
	l.b.dirty = true
}

// drain lets the goroutines of the run's library calls end before the run
// returns: the bubble ends only when every goroutine in it has, and a
// later run in the same bubble must not share it with this one's. Their
// connections are closed and their contexts cancelled; a call that still
// waits on a timer gets up to an hour of the bubble's time. One that never
// ends is the library's own leak: the bubble reports it when it ends.
func (b *bubble) drain() {
	for range 64 {
		b.wait()
		if b.callsDone() {
			return
		}
		t := time.NewTimer(time.Minute)
		select {
		case <-b.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

func (b *bubble) callsDone() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, l := range b.ports {
		for _, c := range l.calls {
			if !c.done {
				return false
			}
		}
	}
	return true
}

// Loop is the engine's loop once a library is in the run (sim.Libraries):
// before every event the bubble's clock is moved to the event's time, and
// what the libraries did on the way is taken first.
func (b *bubble) Loop() {
	r := b.h
	defer func() {
		for _, l := range b.ports {
			l.close()
		}
		b.drain()
	}()
	for r.Running() > 0 {
		b.settle()
		if r.Cut() != "" {
			break
		}
		readAt, reading := b.firstReadDeadline(r.Now())
		if !b.advance(readAt, reading) {
			break
		}
	}
	if r.Cut() != "" {
		if h := b.hang(); h != "" {
			r.ExplainCut(h)
		}
	}
}

// hang says, for a run cut at a bound, which library call of a live
// process had not returned, the oldest one, and where its goroutine waits:
// "c1's Release has not returned: its goroutine waits (select) in
// github.com/go-redsync/redsync/v4.(*Mutex).actOnPoolsAsync". A call that
// waits out a timeout the run was too short for and one that would never
// return read alike; where it waits tells them apart.
func (b *bubble) hang() string {
	r := b.h
	var c *libCall
	b.mu.Lock()
	for _, l := range b.ports {
		for _, k := range l.calls {
			if c == nil && !k.done && r.Live(k.co) && !l.dead {
				c = k
			}
		}
	}
	var gid string
	if c != nil {
		gid = c.gid
	}
	b.mu.Unlock()
	if c == nil {
		return ""
	}
	msg := fmt.Sprintf("%s's %s has not returned", r.Label(c.co), r.OpenCall(c.co))
	if where := waitsIn(gid); where != "" {
		msg += ": its goroutine waits " + where
	}
	return msg
}

// goroutineID is the calling goroutine's id, as its stack's first line
// gives it.
func goroutineID() string {
	var buf [64]byte
	line := buf[:runtime.Stack(buf[:], false)]
	line = bytes.TrimPrefix(line, []byte("goroutine "))
	if i := bytes.IndexByte(line, ' '); i > 0 {
		return string(line[:i])
	}
	return ""
}

// Stacks is every goroutine's stack, as runtime.Stack writes them, whole:
// what a hang (Result.Cut) and a goroutine left after a run are read from.
func Stacks() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// plumbing says whether a frame is the seam between the run and the
// library: this package's connection and call, the run's side of the seam
// (sim.Host), and golock's glue (its hook and the calls it makes), which
// say nothing of where the lock waits.
func plumbing(fn string) bool {
	return strings.HasPrefix(fn, "github.com/locksim/locksim/sim/bubble.(*lib") ||
		strings.HasPrefix(fn, "github.com/locksim/locksim/sim/bubble.(*Library)") ||
		strings.HasPrefix(fn, "github.com/locksim/locksim/sim.(*Host)") ||
		strings.HasPrefix(fn, "github.com/locksim/locksim/golock")
}

// waitsIn describes where goroutine gid waits: its state, the first frame
// of its stack outside the standard library and the seam (plumbing), and
// the first frame of the lock's own code (not go-redis's) when that is
// another; "" when it is not found.
func waitsIn(gid string) string {
	if gid == "" {
		return ""
	}
	head := "goroutine " + gid + " ["
	for _, block := range strings.Split(Stacks(), "\n\n") {
		if !strings.HasPrefix(block, head) {
			continue
		}
		lines := strings.Split(block, "\n")
		state, _, _ := strings.Cut(strings.TrimPrefix(lines[0], head), "]")
		state, _, _ = strings.Cut(state, ",")
		state = strings.TrimSuffix(state, " (durable)") // a bubble's mark
		var at, lock string
		for i := 1; i < len(lines); i += 2 { // function lines, then file lines
			fn := lines[i]
			if k := strings.LastIndexByte(fn, '('); k > 0 {
				fn = fn[:k] // its arguments
			}
			// A module's path starts with a domain; the standard
			// library's does not.
			first, _, nested := strings.Cut(fn, "/")
			if !nested || !strings.Contains(first, ".") || strings.HasPrefix(fn, "created by ") || plumbing(fn) {
				continue // the standard library, or the seam (plumbing)
			}
			if at == "" {
				at = fn
			}
			if lock == "" && !strings.HasPrefix(fn, "github.com/redis/go-redis/") {
				lock = fn
			}
		}
		switch {
		case at == "":
			return "(" + state + ")"
		case lock == "" || lock == at:
			return fmt.Sprintf("(%s) in %s", state, at)
		default:
			return fmt.Sprintf("(%s) in %s, called from %s", state, at, lock)
		}
	}
	return ""
}

// advance moves the bubble's clock to the next event or read deadline
// (readAt, when a read waits) and steps the event when the clock is there
// already; it says false when the run is over. A library goroutine may wake
// on the way, by its own timer, and say so (a write, the end of a call, a
// read deadline it sets or waits on: signal), which ends the sleep early;
// advance then returns for settle to wait for it and take what it did.
//
// A command's arrival at its node is no reason to wake (sim.Host's
// NextEvent skips it, StepArrivals steps it): it
// changes only its node, which no library sees before the reply, and adds
// no event. The sleep goes past such arrivals, and those due by the instant
// it ends are stepped then, at their own times, before settle: the same
// order as waking for each, since no library did anything the engine
// must see in between, or the sleep would have ended there. Where a
// library's timer fires at the very nanosecond of an arrival, what it does
// is taken after the arrival; a read deadline at that instant is taken
// first, as before.
func (b *bubble) advance(readAt sim.Time, reading bool) bool {
	r := b.h
	next := r.NextEvent(!wakeAtArrivals)
	if reading && readAt < next {
		next = readAt // libDeadlines times the read out then
	}
	if !b.sleepUntil(next) {
		return r.Step()
	}
	woke := sim.Time(time.Since(b.base))
	if !wakeAtArrivals && !r.StepArrivals(woke, reading && readAt == woke) {
		return false
	}
	r.SetNow(woke)
	return true
}

// wakeAtArrivals makes every arrival a reason to wake, for the test that
// compares.
var wakeAtArrivals = false

// firstReadDeadline is the true time of the earliest deadline after now of
// a read that waits: the engine wakes then to time it out, where each read
// would otherwise need a timer of its own to wake it. A deadline that has
// come is timed out already, or kept back by its process's pause, whose end
// wakes the engine.
func (b *bubble) firstReadDeadline(now sim.Time) (at sim.Time, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, l := range b.ports {
		if l.dead {
			continue // its connections are closed: no read waits
		}
		for _, c := range l.conns {
			if c.reading && !c.expired && !c.rdl.IsZero() {
				if t := sim.Time(c.rdl.Sub(b.base)); t > now && (!ok || t < at) {
					at, ok = t, true
				}
			}
		}
	}
	return at, ok
}

// sleepUntil moves the bubble's clock towards true time t; it says whether
// it slept, woken early or not (false: the clock is at t already).
func (b *bubble) sleepUntil(t sim.Time) bool {
	d := b.base.Add(time.Duration(t)).Sub(time.Now())
	if d <= 0 {
		return false
	}
	if !b.dirty {
		// Every goroutine of the bubble has been blocked since settle's
		// last Wait and the engine has woken none: a token left in wake
		// is for a write or an ended call that settle has taken already,
		// and would only make the sleep end at once for nothing.
		select {
		case <-b.wake:
		default:
		}
	}
	if b.timer == nil {
		b.timer = time.NewTimer(d)
	} else {
		b.timer.Reset(d) // no stale tick since Go 1.23: Reset drains it
	}
	select {
	case <-b.wake:
		b.timer.Stop()
	case <-b.timer.C:
	}
	b.dirty = true // timers of the libraries may have fired
	return true
}

// settle lets the libraries run until every goroutine of the bubble is
// blocked, then takes their effects in a fixed order: calls that ended
// resume their coroutines, replies kept back by a pause are handed over,
// requests are sent. It repeats until nothing moves.
func (b *bubble) settle() {
	r := b.h
	for moved := true; moved; {
		if b.dirty {
			b.wait()
			b.dirty = false
		}
		moved = false
		for i := 0; i < len(b.ports); i++ { // a resumed coroutine may add ports
			l := b.ports[i]
			if l.dead {
				continue
			}
			h := l.home
			if r.Incarnation(h) != l.inc || !r.Live(h) {
				l.close() // the incarnation crashed or ended
				continue
			}
			if until := r.PausedUntil(h); until > r.Now() {
				if l.wakeAt != until {
					l.wakeAt = until
					r.WakeAt(until)
				}
				if l.pauseKeepsBack() {
					r.PauseDeferred(h)
				}
				continue
			}
			if b.libDeadlines(l) || b.libCalls(l) || b.libReplies(l) || b.libSends(l) {
				moved = true
			}
		}
	}
}

// pauseKeepsBack says whether the library has something its process's
// pause keeps back: a call that ended, a reply, a command written, a read
// whose deadline has come (a timer of the library's that fired). A pause
// that keeps any back acted (FaultUse).
func (l *Library) pauseKeepsBack() bool {
	b := l.b
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range l.calls {
		if c.done && b.h.Live(c.co) {
			return true
		}
	}
	now := time.Now()
	for _, c := range l.conns {
		if len(c.paused) > 0 || len(c.out) > 0 && !c.closed || c.reading && !c.expired && !c.rdl.IsZero() && !now.Before(c.rdl) {
			return true
		}
	}
	return false
}

// libDeadlines times out the reads whose deadline has come. The engine
// does it, after every goroutine has run at this instant, not the reader's
// own timer: a library that sets its read deadline to its context's (as
// go-redis does) would otherwise see the timeout before or after the
// context's cancellation as the Go scheduler happens to run them. One
// read at a time, in node order, each left to run before the next: reads
// timed out at one instant on several connections (redsync's pools) are
// then seen by the library in that order, not the scheduler's.
func (b *bubble) libDeadlines(l *Library) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	for _, c := range l.conns {
		if c.reading && !c.expired && !c.rdl.IsZero() && !now.Before(c.rdl) {
			c.expired = true
			c.notify()
			b.dirty = true
			return true
		}
	}
	return false
}

// libCalls resumes the coroutines whose calls ended, in the order the calls
// started.
func (b *bubble) libCalls(l *Library) bool {
	r := b.h
	for k, c := range l.calls {
		b.mu.Lock()
		done := c.done
		b.mu.Unlock()
		if done && !r.Live(c.co) {
			// An abandoned call (its watchdog was stopped) has ended: no
			// coroutine waits for it.
			l.calls = slices.Delete(l.calls, k, k+1)
			return true
		}
		if done && r.Live(c.co) && r.Waiting(c.co) {
			// No Wait needed for its goroutine: a clean bubble has run
			// nothing since settle's last Wait, so it has ended, and a
			// dirty one gets a Wait anyway. What the coroutine does next
			// that wakes the library (a Call, a close) marks it dirty.
			l.calls = slices.Delete(l.calls, k, k+1)
			r.Resume(c.co)
			return true // the coroutine may have started calls: look again
		}
	}
	return false
}

// libReplies hands over the replies kept back while the process was paused.
func (b *bubble) libReplies(l *Library) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	moved := false
	for _, c := range l.conns {
		if len(c.paused) > 0 && !c.closed {
			for _, rep := range c.paused {
				c.rbuf = resp.AppendReply(c.rbuf, rep)
			}
			c.paused = c.paused[:0]
			c.notify()
			b.dirty, moved = true, true
		}
	}
	return moved
}

// libSends sends what the library wrote, connection by connection in node
// order, each connection's commands in the order written. A pause
// that a send fires keeps the rest for its end.
func (b *bubble) libSends(l *Library) bool {
	r := b.h
	b.mu.Lock()
	if b.pending == 0 {
		b.mu.Unlock()
		return false
	}
	// A copy: a crash that a send fires wakes the library, which may dial.
	b.sendConns = append(b.sendConns[:0], l.conns...)
	conns := b.sendConns
	b.mu.Unlock()
	sent := false
	for _, c := range conns {
		for {
			b.mu.Lock()
			if len(c.out) == 0 || c.closed {
				b.mu.Unlock()
				break
			}
			args := c.out[0]
			// Shifted, not resliced: the slice keeps its start for the
			// next commands.
			c.out = c.out[:copy(c.out, c.out[1:])]
			c.out[:cap(c.out)][len(c.out)] = nil
			b.pending--
			b.mu.Unlock()
			h := l.home
			r.Trigger(sim.PointSend, h, args[0])
			if r.Incarnation(h) != l.inc || !r.Live(h) {
				return true // crashed at its send
			}
			if r.PausedUntil(h) > r.Now() {
				b.mu.Lock()
				c.out = append([][]string{args}, c.out...)
				b.pending++
				b.mu.Unlock()
				// The pause keeps the library's command back; settle
				// schedules the pause's end.
				r.PauseDeferred(h)
				return true
			}
			r.Send(h, c.node, args, c)
			sent = true
		}
	}
	return sent
}

// Lost closes the connection: a failover lost its node (sim.LibConn).
func (c *libConn) Lost() {
	b := c.l.b
	b.mu.Lock()
	c.closeLocked()
	b.dirty = true
	b.mu.Unlock()
}

// Closed says whether the connection is closed (sim.LibConn).
func (c *libConn) Closed() bool {
	b := c.l.b
	b.mu.Lock()
	defer b.mu.Unlock()
	return c.closed
}

// Reply hands a command's reply to the connection (sim.LibConn), or keeps
// it while its process is paused.
func (c *libConn) Reply(rep sim.Reply) {
	b := c.l.b
	r := b.h
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.closed {
		return
	}
	if paused := r.PausedUntil(c.l.home) > r.Now(); paused || len(c.paused) > 0 {
		if paused {
			r.PauseDeferred(c.l.home) // the pause keeps the library's reply back
		}
		c.paused = append(c.paused, rep)
		return
	}
	c.rbuf = resp.AppendReply(c.rbuf, rep)
	c.notify()
	b.dirty = true
}

// libConn is a simulated connection: what the library writes is parsed
// into commands for the engine; replies are RESP2 bytes for it to read.
type libConn struct {
	l     *Library
	node  int
	ready chan struct{} // a token when rbuf grew or the connection closed

	// Under the bubble's mu.
	in     []byte      // written, not yet a whole command
	out    [][]string  // whole commands, not yet sent
	rbuf   []byte      // replies not yet read
	paused []sim.Reply // replies that came while its process was paused
	closed bool
	broken error // a malformed write: the connection is unusable
	rdl    time.Time
	// reading: a Read waits; expired: the engine says its deadline came
	// (libDeadlines), waking at it (firstReadDeadline).
	reading, expired bool
}

func (c *libConn) notify() {
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

func (c *libConn) closeLocked() {
	if !c.closed {
		c.closed = true
		c.l.b.pending -= len(c.out) // never sent
		c.out = nil
		c.notify()
	}
}

func (c *libConn) Read(p []byte) (int, error) {
	b := c.l.b
	b.mu.Lock()
	defer func() {
		c.reading = false
		b.mu.Unlock()
	}()
	for {
		switch {
		case len(c.rbuf) > 0:
			n := copy(p, c.rbuf)
			c.rbuf = c.rbuf[n:]
			return n, nil
		case c.closed:
			return 0, io.EOF
		case c.expired:
			c.expired = false
			return 0, os.ErrDeadlineExceeded
		}
		c.reading = true
		timed := !c.rdl.IsZero()
		b.mu.Unlock()
		if timed {
			b.signal() // a read that waits with a deadline: see advance
		}
		<-c.ready
		b.mu.Lock()
	}
}

func (c *libConn) Write(p []byte) (int, error) {
	b := c.l.b
	b.mu.Lock()
	if c.closed {
		b.mu.Unlock()
		return 0, net.ErrClosed
	}
	if c.broken != nil {
		b.mu.Unlock()
		return 0, c.broken
	}
	c.in = append(c.in, p...)
	wrote := false
	parsed := 0
	for {
		args, n, err := resp.ParseCommand(c.in[parsed:])
		if err != nil {
			c.broken = err
			b.mu.Unlock()
			return 0, err
		}
		if n == 0 {
			break
		}
		parsed += n
		if len(args) > 0 {
			c.out = append(c.out, args)
			b.pending++
			wrote = true
		}
	}
	// What is not a whole command yet moves to the front: the buffer is
	// reused, not grown again for every command.
	c.in = c.in[:copy(c.in, c.in[parsed:])]
	b.mu.Unlock()
	if wrote {
		b.signal()
	}
	return len(p), nil
}

func (c *libConn) Close() error {
	b := c.l.b
	b.mu.Lock()
	c.closeLocked()
	b.mu.Unlock()
	return nil
}

func (c *libConn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

func (c *libConn) SetReadDeadline(t time.Time) error {
	b := c.l.b
	b.mu.Lock()
	c.rdl, c.expired = t, false
	b.mu.Unlock()
	c.notify() // a Read waiting on the old deadline looks again
	if !t.IsZero() {
		b.signal() // a new deadline for the engine to wake at: see advance
	}
	return nil
}

// SetWriteDeadline: a write never blocks.
func (c *libConn) SetWriteDeadline(time.Time) error { return nil }

func (c *libConn) LocalAddr() net.Addr  { return libAddr("client") }
func (c *libConn) RemoteAddr() net.Addr { return libAddr("node" + strconv.Itoa(c.node)) }

type libAddr string

func (a libAddr) Network() string { return "locksim" }
func (a libAddr) String() string  { return string(a) }
