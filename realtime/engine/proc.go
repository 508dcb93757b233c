package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// proc is one incarnation of a real-time client: a goroutine running the
// workload, with its own connections.
type proc struct {
	r       *runner
	s       *slot
	inc     int
	rng     *rand.Rand
	conns   []Conn // dialled on first use
	dead    chan struct{}
	crashed bool // (mu)

	// Leases (mu): the watchdog beside the holder, and whether it lost
	// the lock. A watchdog is an proc too, with owner set.
	owner   *proc
	dog     *proc
	dogStop chan struct{} // closed to stop dog
	dogGen  uint64
	lost    bool
}

func (p *proc) run() {
	defer func() {
		p.StopWatchdog() // a watchdog never outlives its holder's workload
		for _, c := range p.conns {
			if c != nil {
				c.Close()
			}
		}
		if v := recover(); v != nil {
			if _, ok := v.(crashSignal); !ok {
				p.lock()
				p.r.recordLocked(sim.Event{Kind: sim.KindProcEnd, Proc: p.s.id, Node: -1,
					Err: "panic: " + text.FirstLine(fmt.Sprint(v))}, p.inc)
				p.r.mu.Unlock()
			} else {
				return // crashed: the fault retired it or will restart it
			}
		}
		p.lock()
		if !p.crashed {
			p.crashed = true // finished: a later crash fault finds nobody
			p.s.cur = nil
			p.r.retire()
		}
		p.r.mu.Unlock()
	}()
	sim.Workload(p, p.r.cfg.NewLocker(p.s.id))
}

func (p *proc) lock() { p.r.mu.Lock() }

// alive unwinds the goroutine if the process crashed or the run ended.
func (p *proc) alive() {
	select {
	case <-p.dead:
		panic(crashSignal{})
	case <-p.r.done:
		panic(crashSignal{})
	default:
	}
}

// wait sleeps until t, unwinding on a crash or the end of the run.
func (p *proc) wait(t sim.Time) {
	if !p.r.sleepUntil(t, p.dead) {
		panic(crashSignal{})
	}
}

// unpaused returns once no pause holds the process (a pause may grow while
// it waits), as sim.Run's resume and begin do before every effect.
func (p *proc) unpaused() {
	for {
		p.alive()
		p.lock()
		until := p.s.pausedUntil
		p.r.mu.Unlock()
		if until <= p.r.now() {
			return
		}
		p.wait(until)
	}
}

func (p *proc) Name() string     { return p.s.spec.Name }
func (p *proc) Rand() *rand.Rand { return p.rng }
func (p *proc) Nodes() int       { return len(p.r.cfg.Nodes) }
func (p *proc) Now() time.Time {
	return p.s.spec.Clock.At(p.r.now(), time.Duration(p.s.jumped.Load())).Std()
}

func (p *proc) Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	p.unpaused()
	p.wait(p.r.now() + sim.Time(d))
	p.unpaused()
}

func (p *proc) ID() int             { return p.s.id }
func (p *proc) Spec() *sim.ProcSpec { return p.s.spec }
func (p *proc) Record(e sim.Event) {
	p.lock()
	p.r.recordLocked(e, p.inc)
	p.r.mu.Unlock()
	p.alive()
}

func (p *proc) Trigger(point sim.Point) { p.triggerCmd(point, "") }

func (p *proc) triggerCmd(point sim.Point, cmd string) {
	p.lock()
	io := p.r.trigger(point, p.s, cmd)
	p.r.mu.Unlock()
	p.r.afterFire(io...)
	p.alive()
}

func (p *proc) Count(acquired bool) {
	p.lock()
	p.r.book.Count(acquired)
	p.r.mu.Unlock()
}

func (p *proc) ReadResource() int64 {
	p.unpaused()
	p.lock()
	v := p.r.book.Resource()
	p.r.recordLocked(sim.Event{Kind: sim.KindResourceRead, Proc: p.s.id, Node: -1, Value: v}, p.inc)
	p.r.mu.Unlock()
	p.unpaused()
	return v
}

func (p *proc) WriteResource(v, fence int64) {
	p.unpaused()
	p.lock()
	accepted := p.r.book.Write(v, fence)
	p.r.recordLocked(sim.Event{Kind: sim.KindResourceWrite, Proc: p.s.id, Node: -1, Value: v, Fence: fence, Accepted: accepted}, p.inc)
	p.r.mu.Unlock()
	p.unpaused()
}

// crashSignal unwinds a process's goroutine when it crashed or the run
// ended, through the algorithm's code, to its run.
type crashSignal struct{}

// errConnClosed is what a connection reports once the run closed it.
var errConnClosed = errors.New("connection closed")

// Do is sim.Run's send, arrive and deliver in one blocking call: the same
// network draws in the same order, the same events, the same timeout
// reasons.
func (p *proc) Do(n int, args ...string) (sim.Reply, error) {
	if n < 0 || n >= len(p.r.cfg.Nodes) {
		return sim.Reply{}, fmt.Errorf("no node %d: the run has %d", n, len(p.r.cfg.Nodes))
	}
	if len(args) == 0 {
		return sim.Reply{}, fmt.Errorf("empty command")
	}
	args = append([]string(nil), args...) // the history keeps them
	p.unpaused()
	p.triggerCmd(sim.PointSend, args[0])
	p.unpaused()

	r, nw := p.r, &p.r.cfg.Network
	r.mu.Lock()
	r.reqID++
	id, sent := r.reqID, r.now()
	lostReq := nw.LossRequest > 0 && p.s.net.Float64() < nw.LossRequest
	lostReply := nw.LossReply > 0 && p.s.net.Float64() < nw.LossReply
	reqLat, repLat := nw.Request.Draw(p.s.net), nw.Reply.Draw(p.s.net)
	lose := p.s.lose // a chosen loss (lose-request, lose-reply), after the draws as in send
	p.s.lose = lossPlan{}
	r.mu.Unlock()
	var deadline sim.Time
	if nw.Timeout > 0 {
		deadline = sent + sim.Time(nw.Timeout)
	}
	if lose.kind != 0 {
		lostReq = lostReq || lose.kind == fault.LoseRequest
		lostReply = lostReply || lose.kind == fault.LoseReply
		if lose.timeout > 0 {
			deadline = sent + sim.Time(lose.timeout)
		}
	}
	res := sim.Event{Kind: sim.KindCommandResult, Proc: p.s.id, Node: n, Req: id, Args: args, Sent: sent}
	timeout := func(why string) (sim.Reply, error) {
		if deadline == 0 {
			p.wait(sim.Time(1<<62 - 1)) // no timeout: the client waits for ever
		}
		p.wait(deadline)
		res.Err = why
		p.Record(res)
		p.unpaused()
		return sim.Reply{}, sim.ErrTimeout
	}
	if lostReq {
		return timeout("timeout: request lost")
	}
	p.wait(sent + sim.Time(reqLat))
	r.mu.Lock()
	down := r.now() < r.downUntil[n]
	r.mu.Unlock()
	if down {
		return timeout("timeout: node down")
	}
	reply, key, err := p.exec(n, args)
	if err != nil {
		p.alive()
		return timeout("timeout: " + err.Error())
	}
	r.mu.Lock()
	r.book.CountCommand()
	r.recordLocked(sim.Event{Kind: sim.KindCommand, Proc: p.s.id, Node: n, Incarnation: p.inc, Req: id, Args: args,
		Reply: reply, Sent: sent, Key: key}, p.inc)
	r.mu.Unlock()
	p.alive()
	if lostReply {
		return timeout("timeout: reply lost")
	}
	if replyAt := r.now() + sim.Time(repLat); deadline > 0 && replyAt > deadline {
		return timeout("timeout: reply too slow")
	}
	p.wait(r.now() + sim.Time(repLat))
	var rerr error
	if reply.Kind == node.Error {
		rerr = &sim.RedisError{Msg: reply.Str}
	}
	res.Reply = reply
	p.Record(res)
	p.triggerCmd(sim.PointReply, args[0])
	p.unpaused()
	return reply, rerr
}

// exec sends args on this incarnation's connection to node, dialling it
// first if needed.
func (p *proc) exec(node int, args []string) (sim.Reply, sim.KeyState, error) {
	c := p.conns[node]
	if st, ok := c.(StaleConn); ok && st.Stale() {
		// Its server died since (a restart, a failover): a client library's
		// pool finds the socket closed before it sends, and dials afresh.
		c.Close()
		c, p.conns[node] = nil, nil
	}
	if c == nil {
		var err error
		if c, err = p.r.wire.Dial(node); err != nil {
			return sim.Reply{}, sim.KeyState{}, err
		}
		p.lock()
		if p.r.ended {
			p.r.mu.Unlock()
			c.Close()
			return sim.Reply{}, sim.KeyState{}, errConnClosed
		}
		p.r.conns = append(p.r.conns, c)
		p.r.mu.Unlock()
		p.conns[node] = c
	}
	reply, key, err := c.Exec(args, p.r.cfg.WatchKey)
	if err != nil {
		// A broken connection (the server went away, the run closed it)
		// stays broken: the next command dials afresh, as a client
		// library's pool would.
		c.Close()
		p.conns[node] = nil
	}
	return reply, key, err
}

// The real-time watchdog: a goroutine beside the holder, renewing its lease
// in wall-clock time, as a client library's timer thread does (redsync's
// users, Redisson's lockWatchdog). As in simulation (watchdog.go) it shares
// the holder's clock, network draws and pause (a pause stops it: its Do and
// Sleep wait out pausedUntil) and its life (a crash ends it); it has its
// own connections, as a library's timer takes one from the pool, and its
// own random source (two goroutines cannot share one).

// startWatchdog starts renewing lease every period, the first time one
// period from now.
func (p *proc) StartWatchdog(x sim.Extender, lease sim.Lease, every time.Duration) {
	p.lock()
	defer p.r.mu.Unlock()
	if p.dog != nil || p.crashed || p.r.ended {
		return
	}
	p.dogGen++
	d := &proc{r: p.r, s: p.s, inc: p.inc, owner: p, dead: make(chan struct{}),
		conns: make([]Conn, len(p.r.cfg.Nodes)),
		rng:   rand.New(rand.NewPCG(mix(p.r.cfg.Seed^0x646f67, uint64(p.s.id)+1), uint64(p.inc)<<32|p.dogGen))}
	stop := make(chan struct{})
	p.dog, p.dogStop = d, stop
	r := p.r
	// The watchdog dies with its holder, when stopped, or with the run.
	r.goWait(func() {
		select {
		case <-p.dead:
		case <-stop:
		case <-r.done:
		}
		close(d.dead)
	})
	r.goWait(func() {
		defer func() {
			for _, c := range d.conns {
				if c != nil {
					c.Close()
				}
			}
			if v := recover(); v != nil {
				if _, ok := v.(crashSignal); !ok {
					// The algorithm's Extend panicked: the holder cannot know
					// it still holds the lock.
					p.lock()
					r.recordLocked(sim.Event{Kind: sim.KindExtendReturn, Proc: p.s.id, Node: -1, Token: lease.Token,
						Err: "panic: " + text.FirstLine(fmt.Sprint(v))}, p.inc)
					p.lost = true
					r.mu.Unlock()
				}
			}
		}()
		d.Sleep(every)
		d.watch(x, lease, every)
	})
}

// watch is the watchdog's loop, as in simulation: extend, and on success
// wait one period; the first failure ends it and tells the holder.
func (d *proc) watch(x sim.Extender, lease sim.Lease, every time.Duration) {
	for {
		d.Record(sim.Event{Kind: sim.KindExtendInvoke, Proc: d.s.id, Node: -1, Token: lease.Token, Fence: lease.Fence})
		ok, err := x.Extend(d, lease)
		ev := sim.Event{Kind: sim.KindExtendReturn, Proc: d.s.id, Node: -1, Held: ok && err == nil, Token: lease.Token, Fence: lease.Fence}
		if err != nil {
			ev.Err = err.Error()
		}
		d.Record(ev)
		if !ev.Held {
			d.lock()
			d.owner.lost = true
			d.r.mu.Unlock()
			return
		}
		d.Sleep(every)
	}
}

// stopWatchdog stops the watchdog. A renewal it has in flight still
// reaches its node (the command was written); only its reply is dropped.
func (p *proc) StopWatchdog() {
	p.lock()
	defer p.r.mu.Unlock()
	if p.dog != nil {
		close(p.dogStop)
		p.dog, p.dogStop = nil, nil
	}
}

func (p *proc) LostLease() bool {
	p.lock()
	defer p.r.mu.Unlock()
	return p.lost
}

func (p *proc) SetLost(lost bool) {
	p.lock()
	p.lost = lost
	p.r.mu.Unlock()
}
