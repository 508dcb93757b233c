package foreign

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/resp"
	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
)

// run is a run's workers (sim.Host.SetBackend): all of them are retired
// when the run ends (killed, or told to reset for another run), and an
// incarnation's is killed when its process starts again.
type run struct {
	workers []*locker
}

func (r *run) end() {
	for _, l := range r.workers {
		if l.w != nil {
			retire(l.w)
		}
	}
}

// locker is one process incarnation's lock: its worker, started at its
// first call. The engine makes one per incarnation (sim.Locker).
type locker struct {
	prog  *Program
	start Starter
	p     locks.Params

	h     *sim.Host
	w     *worker
	fns   []string
	conns []*conn // by the worker's id - 1
	id    int     // the process's index
	inc   int
	// caller is the coroutine whose call the worker runs; next the one
	// that waits for it to end (a process has two: its main coroutine
	// and its watchdog).
	caller, next sim.Proc
	// failed is the error that ended the worker (a finding, a broken
	// protocol): every later call returns it.
	failed error
	// unfinished: the worker is inside a call whose coroutine unwound (a
	// watchdog stopped during its extend); open is its wait not yet
	// answered, if any.
	unfinished bool
	open       *openWait
}

// extending is a locker whose program defines extend.
type extending struct{ *locker }

func (x extending) Extend(p sim.Proc, l sim.Lease) (bool, error) {
	held, _, err := x.call(p, "extend")
	return held, err
}

func newLocker(prog *Program, start Starter, p locks.Params) sim.Locker {
	l := &locker{prog: prog, start: start, p: p}
	if prog.Meta.extends {
		return extending{l}
	}
	return l
}

func (l *locker) Acquire(p sim.Proc) (sim.Lease, error) {
	held, token, err := l.call(p, "acquire")
	return sim.Lease{Held: held, Token: token}, err
}

func (l *locker) Release(p sim.Proc, _ sim.Lease) error {
	_, _, err := l.call(p, "release")
	return err
}

// conn is one of the worker's connections to a node (sim.LibConn).
type conn struct {
	l      *locker
	id     int
	node   int
	out    []byte // written, not yet a whole command
	in     []byte // replies not yet handed to the worker
	closed bool   // by the worker
	lost   bool   // by the run: a failover lost its node
	eofSet bool   // the worker has been told
}

func (c *conn) Lost() {
	c.lost = true
	c.l.wake(c.id)
}

func (c *conn) Reply(r sim.Reply) {
	if c.closed {
		return
	}
	c.in = resp.AppendReply(c.in, r)
	c.l.wake(c.id)
}

func (c *conn) Closed() bool { return c.closed || c.lost }

// wake wakes the coroutine waiting for connection id, if one does.
func (l *locker) wake(id int) {
	if l.caller != nil && l.open != nil && slices.Contains(l.open.conns, id) {
		l.h.Wake(l.caller)
	}
}

// boot starts the worker for p's incarnation and loads the program.
func (l *locker) boot(p sim.Proc) error {
	h, ok := sim.HostOf(p)
	if !ok {
		return fmt.Errorf("a lock program runs in the simulated engine only, not in %T", p)
	}
	l.h, l.id, l.inc = h, h.ID(p), h.Incarnation(p)
	rs, _ := h.Backend().(*run)
	if rs == nil {
		rs = &run{}
		h.SetBackend(rs, rs.end)
	}
	for _, o := range rs.workers {
		if o.id == l.id && o.inc < l.inc && o.w != nil {
			o.w.kill() // a crashed incarnation's worker
		}
	}
	rs.workers = append(rs.workers, l)
	w, err := l.start.start(l.prog)
	if err != nil {
		return l.fail(err) // each later call says the same, and starts nothing
	}
	l.w = w
	init := &message{Op: "init", Name: p.Name(), Seed: strconv.FormatUint(p.Rand().Uint64(), 10),
		Nodes: l.addrs(), Program: l.prog.Path, Params: &initParams{
			Key: l.p.Key, TTLms: l.p.TTL.Milliseconds(), Retries: l.p.Retries,
			RetrySleepms: l.p.RetrySleep.Milliseconds(), Resolutionms: l.p.Resolution.Milliseconds(), Nodes: l.p.Nodes,
		}}
	l.clocks(p, init)
	if err := w.send(init); err != nil {
		return l.broken(err)
	}
	m, err := w.read()
	switch {
	case err != nil:
		return l.broken(err)
	case m.Op == "raise":
		return l.fail(fmt.Errorf("loading %s: %s", l.prog.Path, text.FirstLine(m.Error)))
	case m.Op == "finding":
		return l.fail(fmt.Errorf("finding: %s", text.FirstLine(m.Msg)))
	case m.Op != "ready":
		return l.broken(fmt.Errorf("sent %q after init, want ready", m.Op))
	}
	l.fns = m.Fns
	return nil
}

// NodeAddr is node i's address as a program dials it.
func NodeAddr(i int) string { return "127.0.0.1:" + strconv.Itoa(7001+i) }

// nodeOf is the node at addr, -1 for none.
func (l *locker) nodeOf(addr string) int {
	for i := range l.h.Nodes() {
		if NodeAddr(i) == addr {
			return i
		}
	}
	return -1
}

// clocks sets m's clocks to p's.
func (l *locker) clocks(p sim.Proc, m *message) {
	m.Wall = nanos(p.Now().UnixNano())
	m.Mono = nanos(int64(l.h.Monotonic(p)))
}

func (l *locker) fail(err error) error {
	l.failed = err
	if l.w != nil {
		l.w.kill()
	}
	return err
}

// broken is a worker that broke the protocol or died.
func (l *locker) broken(err error) error {
	lang := l.prog.Lang
	return l.fail(fmt.Errorf("%s worker: %v", lang, err))
}

// call runs the program's fn in the worker, serving its messages until it
// returns or raises.
func (l *locker) call(p sim.Proc, fn string) (held bool, token string, err error) {
	if l.failed != nil {
		return false, "", l.failed
	}
	if l.w == nil {
		if err := l.boot(p); err != nil {
			return false, "", err
		}
	}
	if !slices.Contains(l.fns, fn) {
		return false, "", fmt.Errorf("%s defines no %s", l.prog.Path, fn)
	}
	h := l.h
	// One call at a time: a watchdog's extend that is still running
	// holds back its holder's release, as a single-threaded client's
	// would (docs/foreign.md).
	for l.caller != nil {
		l.next = p
		h.Await(p, -1) // woken when the call ends
	}
	l.caller = p
	served := false
	defer func() {
		l.caller = nil
		if l.next != nil {
			h.Wake(l.next)
			l.next = nil
		}
		// Unwound mid-call (a stopped watchdog's extend): the worker is
		// still inside it, and the next call serves it to its end first.
		l.unfinished = !served
	}()
	if l.unfinished {
		// The worker is still in a call its coroutine abandoned: its
		// open wait is answered and its messages served, in this
		// coroutine's time, to its end; what it returns goes to no one.
		if l.open != nil {
			if err := l.answer(p); err != nil {
				return false, "", l.fail(err)
			}
		}
		if _, _, err := l.serve(p); err != nil && l.failed != nil {
			return false, "", err
		}
	}
	m := &message{Op: "call", Fn: fn}
	l.clocks(p, m)
	if err := l.w.send(m); err != nil {
		return false, "", l.broken(err)
	}
	held, token, err = l.serve(p)
	served = true
	return held, token, err
}

// serve serves the worker's messages until its call returns or raises.
func (l *locker) serve(p sim.Proc) (held bool, token string, err error) {
	for {
		m, err := l.w.read()
		if err != nil {
			return false, "", l.broken(err)
		}
		switch m.Op {
		case "return":
			if m.Token != nil {
				token = *m.Token
			}
			return m.Held, token, nil
		case "raise":
			return false, "", errors.New(text.FirstLine(m.Error))
		case "finding":
			return false, "", l.fail(fmt.Errorf("finding: %s", text.FirstLine(m.Msg)))
		case "log":
		case "connect":
			if err := l.connect(m); err != nil {
				return false, "", l.fail(err)
			}
		case "send":
			if err := l.send(p, m); err != nil {
				return false, "", l.fail(err)
			}
		case "close":
			if c := l.conn(m.Conn); c != nil {
				c.closed = true
			}
		case "wait":
			if err := l.wait(p, m); err != nil {
				return false, "", l.fail(err)
			}
		default:
			return false, "", l.broken(fmt.Errorf("unknown message %q", m.Op))
		}
	}
}

func (l *locker) conn(id int) *conn {
	if id < 1 || id > len(l.conns) {
		return nil
	}
	return l.conns[id-1]
}

func (l *locker) connect(m message) error {
	if m.Conn != len(l.conns)+1 {
		return fmt.Errorf("%s worker: connection %d, want %d (ids count from 1)", l.prog.Lang, m.Conn, len(l.conns)+1)
	}
	n := l.nodeOf(m.Addr)
	if n < 0 {
		return fmt.Errorf("finding: dials %s, which is not a node of the run (%s)", m.Addr, strings.Join(l.addrs(), ", "))
	}
	l.conns = append(l.conns, &conn{l: l, id: m.Conn, node: n})
	return nil
}

// addrs are the run's nodes as a program dials them, node 0 first.
func (l *locker) addrs() []string {
	a := make([]string, l.h.Nodes())
	for i := range a {
		a[i] = NodeAddr(i)
	}
	return a
}

// send sends the whole commands the worker wrote on a connection through
// the run's network, each after its send trigger (a crash or pause may
// fire there: a pause holds the rest back until it ends).
func (l *locker) send(p sim.Proc, m message) error {
	c := l.conn(m.Conn)
	if c == nil {
		return fmt.Errorf("%s worker: send on connection %d, which it never opened", l.prog.Lang, m.Conn)
	}
	if c.closed || c.lost {
		return nil // written on a dead socket: a real one would fail the write
	}
	c.out = append(c.out, m.Data...)
	h := l.h
	for {
		args, n, err := resp.ParseCommand(c.out)
		if err != nil {
			return fmt.Errorf("%s worker: connection %d: %v", l.prog.Lang, c.id, err)
		}
		if n == 0 {
			return nil
		}
		c.out = c.out[n:]
		if len(args) == 0 {
			continue
		}
		h.Trigger(sim.PointSend, p, args[0])
		for h.Crashing(p) || h.PausedUntil(p) > h.Now() {
			h.Await(p, h.Now()) // unwinds on a crash; goes on at a pause's end
		}
		h.Send(p, c.node, args, c)
	}
}

// wait takes a wait message and answers it (answer).
func (l *locker) wait(p sim.Proc, m message) error {
	h := l.h
	deadline := sim.Time(-1)
	if m.Timeout != nil {
		ns, err := strconv.ParseInt(*m.Timeout, 10, 64)
		if err != nil || ns < 0 {
			return fmt.Errorf("%s worker: wait timeout %q: want nanoseconds", l.prog.Lang, *m.Timeout)
		}
		deadline = h.Now() + trueTime(min(ns, int64(24*time.Hour)), h.Spec(p).Clock.DriftPPM)
	}
	for _, id := range m.Conns {
		if l.conn(id) == nil {
			return fmt.Errorf("%s worker: wait on connection %d, which it never opened", l.prog.Lang, id)
		}
	}
	l.open = &openWait{conns: m.Conns, deadline: deadline}
	return l.answer(p)
}

// openWait is a wait the worker sent and has not had answered.
type openWait struct {
	conns    []int
	deadline sim.Time // -1: none
}

// answer answers the open wait: with bytes or an EOF of a connection it
// names, at once if there are some, else when some come or its deadline
// passes.
func (l *locker) answer(p sim.Proc) error {
	h, m, deadline := l.h, l.open, l.open.deadline
	for {
		ev := &message{Op: "event"}
		for _, id := range m.conns {
			c := l.conn(id)
			if len(c.in) > 0 {
				ev.Ev, ev.Conn, ev.Data = "data", id, c.in
				c.in = nil
				break
			}
			if c.lost && !c.eofSet {
				ev.Ev, ev.Conn = "eof", id
				c.eofSet = true
				break
			}
		}
		if ev.Ev == "" && deadline >= 0 && h.Now() >= deadline {
			ev.Ev = "timeout"
		}
		if ev.Ev != "" {
			h.Observe(p, ev.Ev+string(ev.Data))
			l.clocks(p, ev)
			l.open = nil
			if err := l.w.send(ev); err != nil {
				return fmt.Errorf("%s worker: %v", l.prog.Lang, err)
			}
			return nil
		}
		h.Await(p, deadline)
	}
}

// trueTime is how much true time a wait of ns on a worker's monotonic
// clock, which runs at its drift, lasts: rounded up, so that the clock has
// read at least ns more when it ends.
func trueTime(ns, driftPPM int64) sim.Time {
	if driftPPM == 0 {
		return sim.Time(ns)
	}
	rate := 1_000_000 + driftPPM
	return sim.Time((ns*1_000_000 + rate - 1) / rate)
}
