package model

import (
	"fmt"
	"slices"
	"sync"

	"github.com/locksim/locksim/sim"
)

// endKind says how a hold ended.
type endKind uint8

const (
	endReleased endKind = iota // the holder called Release
	endCrashed                 // the holder crashed: the hold ends at the crash
	endStopped                 // the holder's process stopped (client error)
	endOpen                    // still held when the run ended
	endLost                    // an extend failed: the holder learned it had lost the lock (renewal.go)
)

var endNames = [...]string{"released", "crashed", "stopped", "open", "lost"}

func (k endKind) String() string { return endNames[k] }

// hold is one process's belief that it holds the lock: [from, to), from the
// held Acquire return to the Release call, its crash or stop, or forever.
//
// It holds no pointers, nor do the other lists a trace keeps per operation:
// a long history fills them with tens of thousands of entries, and the
// collector neither scans nor write-barriers pointer-free memory. Strings
// are read from the events they came from (the token from fromIdx's event).
type hold struct {
	proc     int
	from, to sim.Time
	fromIdx  int // event index of the held LockReturn
	toIdx    int // event index of what ended it; -1 while open
	end      endKind
	fence    int64
}

// token is the hold's lease token, as its Acquire returned it.
func (t *trace) token(h *hold) string { return t.h.Events[h.fromIdx].Token }

// lockOp is one operation of the mutex model, spanning call → return.
type lockOp struct {
	proc      int
	call, ret sim.Time
	fence     int64
	errIdx    int32 // the event index of the ReleaseReturn, whose Err may say why it failed; -1: none
	acquire   bool
	note      endKind // a synthesized release says why (crashed, stopped, lost); endReleased: not synthesized
}

// noteText is what DescribeOperation says of a synthesized release, "" for
// a real one.
func (o *lockOp) noteText() string {
	if o.note == endReleased {
		return ""
	}
	return o.note.String()
}

// errText is the error Release returned, if any.
func (t *trace) errText(o *lockOp) string {
	if o.errIdx < 0 {
		return ""
	}
	return t.h.Events[o.errIdx].Err
}

// stray is a process's own lock calls out of order: a release while not
// holding, or a held acquire while already holding. The engine never writes
// one; a hand-made or broken history might.
type stray struct {
	proc int
	idx  int // its event
	op   int // its index in lockOps
	what string
}

// attempt is an Acquire that returned without the lock.
type attempt struct {
	proc      int
	call, ret sim.Time
	idx       int // its LockReturn event, whose Err may say why
}

// section is one critical section: a read, then a write the resource
// accepted or refused.
type section struct {
	proc              int
	readIdx, writeIdx int
	readAt, writeAt   sim.Time
	read, wrote       int64
	fence             int64
	accepted          bool
}

// releaseOK is a Release of a real hold that returned without error.
type releaseOK struct {
	proc int
	idx  int
	at   sim.Time
	hold int // index in holds of the hold it released
}

// trace is the history cut, in one pass, into what the checkers read.
type trace struct {
	h         *sim.History
	names     []string
	nodes     int
	end       sim.Time // the last event's time
	holds     []hold
	lockOps   []lockOp
	strays    []stray
	failed    []attempt // only when asked for (visualize.go): no check reads them
	wants     [][]span  // per process: when it kept trying to acquire
	netWaits  [][]span  // per process: waiting the network caused (netWait)
	paused    [][]span  // per process: when a pause fault had it stopped
	sections  []section
	releases  []releaseOK
	clientErr []int // event indexes of ProcEnd with Err
	renewals  []renewal
	faults    []int // event indexes of KindFault, in order
	refused   []int // event indexes of resource writes the resource refused, in order
	// leftovers is, for each successful release, each node where the
	// releaser's last command before the release returned left the key
	// there: what the stale check must explain once it has kept only the
	// versions the releaser wrote (ownLeftovers). In release order, then
	// node order.
	leftovers  []keyLeft
	ps         []procState // the walk's state per process
	keepFailed bool
	// keepOps: lockOps are only for porcupine and for judging strays
	// (certain): Check without porcupine walks without them, and walks
	// again with them only when it met a stray. Without them the walk
	// writes a release's return into noOp.
	keepOps bool
	noOp    lockOp

	// Scratch the checkers reuse from one check to the next (see traces);
	// nothing a verdict holds points into them.
	spanA, spanB, spanC []span
	ints                []int
	ran                 ranRequests // by request id: its command has run by now
	vw                  versionWalk
}

// keyLeft is a key a release may have left behind.
type keyLeft struct {
	rel  int // index in releases
	node int
	cmd  int  // event index of the releaser's last command on node
	lost bool // a command of the release on node got no reply
}

func (t *trace) name(p int) string {
	if p >= 0 && p < len(t.names) && t.names[p] != "" {
		return t.names[p]
	}
	return fmt.Sprintf("p%d", p)
}

// procState is what the walk remembers about one process's current life.
type procState struct {
	holding   int // index in holds; -1 when not holding
	acquiring bool
	acqCall   sim.Time
	releasing int // index in lockOps of a release with no return yet; -1
	relHold   int // index in holds of the hold the release in flight ends; -1: none
	wanting   bool
	wantFrom  sim.Time
	wantTo    sim.Time // the last failed return: the want ends here unless retried
	netWait   bool     // a command of the want never reached its node (netWait)
	netFrom   sim.Time // when that command was sent
	netUntil  sim.Time // when the process gave up on the last such command
	reading   bool
	read      section
	extending int   // index in renewals of an extend with no return yet; -1
	lastCmd   []int // per node: the event index of its last command there, or -1
	relLost   []int // nodes where a command of the release in flight got no reply
}

// extract walks the history once. The events are large (a long history is
// megabytes of them), so each walk costs about as much as all the work done
// on what it finds: what a later check would walk the events again for
// (fault events, refused resource writes, each release's leftover keys) is
// picked up here.
func extract(h *sim.History) *trace { return new(trace).extract(h, true, true) }

// traces keeps the buffers of finished checks: a search checks thousands of
// similar histories one after another, and growing a trace's lists afresh
// for each was most of the walk's cost. Nothing a check returns points into
// a trace (witnesses and names are copies), so Check hands its trace back.
var traces = sync.Pool{New: func() any { return new(trace) }}

// extract fills t, reusing its lists' memory, from h; the failed attempts
// only with keepFailed, the lock operations only with keepOps.
func (t *trace) extract(h *sim.History, keepFailed, keepOps bool) *trace {
	*t = trace{h: h, names: h.Procs, nodes: h.Nodes, keepFailed: keepFailed, keepOps: keepOps,
		spanA: t.spanA[:0], spanB: t.spanB[:0], spanC: t.spanC[:0], ints: t.ints[:0],
		holds: t.holds[:0], lockOps: t.lockOps[:0], strays: t.strays[:0], failed: t.failed[:0],
		wants: t.wants[:0], netWaits: t.netWaits[:0], paused: t.paused[:0], sections: t.sections[:0], releases: t.releases[:0],
		clientErr: t.clientErr[:0], renewals: t.renewals[:0], faults: t.faults[:0], refused: t.refused[:0], leftovers: t.leftovers[:0],
		ps: t.ps[:0], ran: t.ran, vw: t.vw}
	t.ran.reset(h)
	t.growProcs(len(h.Procs))
	for i := range h.Events {
		e := &h.Events[i] // events are large: do not copy them
		t.end = max(t.end, e.At)
		if e.Kind != sim.KindReplicate { // a replica's lane is not a node clients address
			t.nodes = max(t.nodes, e.Node+1)
		}
		switch {
		case e.Kind == sim.KindFault:
			t.faults = append(t.faults, i)
		case e.Kind == sim.KindResourceWrite && !e.Accepted:
			t.refused = append(t.refused, i)
		}
		if e.Proc < 0 {
			continue
		}
		if e.Proc >= len(t.ps) {
			t.growProcs(e.Proc + 1)
		}
		t.step(&t.ps[e.Proc], i, e)
	}
	for p := range t.ps {
		t.finish(&t.ps[p], p)
	}
	return t
}

// growProcs makes room for processes up to n (hand-made histories may name
// processes History.Procs does not), reusing what a pooled trace had.
func (t *trace) growProcs(n int) {
	for len(t.ps) < n {
		k := len(t.ps)
		if k < cap(t.ps) && k < cap(t.wants) && k < cap(t.netWaits) && k < cap(t.paused) {
			t.ps, t.wants, t.netWaits, t.paused = t.ps[:k+1], t.wants[:k+1], t.netWaits[:k+1], t.paused[:k+1]
			t.ps[k] = procState{lastCmd: t.ps[k].lastCmd[:0], relLost: t.ps[k].relLost[:0]}
			t.wants[k], t.netWaits[k], t.paused[k] = t.wants[k][:0], t.netWaits[k][:0], t.paused[k][:0]
		} else {
			t.ps = append(t.ps, procState{})
			t.wants = append(t.wants, nil)
			t.netWaits = append(t.netWaits, nil)
			t.paused = append(t.paused, nil)
		}
		t.ps[k].holding, t.ps[k].releasing, t.ps[k].extending, t.ps[k].relHold = -1, -1, -1, -1
	}
}

func (t *trace) step(s *procState, i int, e *sim.Event) {
	p := e.Proc
	switch e.Kind {
	case sim.KindLockInvoke:
		s.acquiring, s.acqCall = true, e.At
		if !s.wanting {
			s.wanting, s.wantFrom = true, e.At
		}
	case sim.KindLockReturn:
		call := e.At
		if s.acquiring {
			call = s.acqCall
		}
		s.acquiring = false
		if !e.Held || e.Err != "" {
			s.wantTo = e.At
			if t.keepFailed {
				t.failed = append(t.failed, attempt{p, call, e.At, i})
			}
			return
		}
		t.endWant(s, p, e.At)
		op := t.addOp(lockOp{proc: p, acquire: true, call: call, ret: e.At, fence: e.Fence, errIdx: -1})
		if s.holding >= 0 {
			t.strays = append(t.strays, stray{p, i, op, "acquired the lock while already holding it"})
			return
		}
		s.holding = len(t.holds)
		t.holds = append(t.holds, hold{proc: p, from: e.At, to: forever, fromIdx: i, toIdx: -1, end: endOpen, fence: e.Fence})
	case sim.KindReleaseInvoke:
		// The hold ends when Release is called, whatever Release returns: from
		// then on the process does no protected work.
		s.relHold, s.relLost = s.holding, s.relLost[:0]
		if s.relHold >= 0 {
			t.holds[s.holding].to, t.holds[s.holding].toIdx, t.holds[s.holding].end = e.At, i, endReleased
			s.holding = -1
		} else {
			t.strays = append(t.strays, stray{p, i, len(t.lockOps), "released the lock without holding it"})
		}
		s.releasing = t.addOp(lockOp{proc: p, call: e.At, ret: e.At, errIdx: -1})
	case sim.KindReleaseReturn:
		if s.releasing < 0 {
			return
		}
		o := t.op(s.releasing)
		o.ret, o.errIdx = e.At, int32(i)
		if e.Err == "" && s.relHold >= 0 {
			t.releases = append(t.releases, releaseOK{p, i, e.At, s.relHold})
			t.leftoversOf(s, len(t.releases)-1)
		}
		s.releasing = -1
	case sim.KindCommand:
		t.ran.mark(e.Req, e.Proc)
		t.endNetWait(s, p, e.Sent)
		if e.Node >= 0 {
			for len(s.lastCmd) <= e.Node {
				s.lastCmd = append(s.lastCmd, -1)
			}
			s.lastCmd[e.Node] = i
		}
	case sim.KindCommandResult:
		// A result with an error is a timeout: the request or the reply was
		// lost, or too slow.
		if s.releasing >= 0 && e.Err != "" {
			s.relLost = append(s.relLost, e.Node)
		}
		if e.Err != "" && s.wanting && !t.ran.ran(e.Req) {
			if !s.netWait {
				s.netWait, s.netFrom = true, e.Sent
			}
			s.netUntil = e.At
		}
	case sim.KindResourceRead:
		s.reading = true
		s.read = section{proc: p, readIdx: i, readAt: e.At, read: e.Value}
	case sim.KindResourceWrite:
		if !s.reading {
			return
		}
		c := s.read
		c.writeIdx, c.writeAt, c.wrote, c.fence, c.accepted = i, e.At, e.Value, e.Fence, e.Accepted
		t.sections = append(t.sections, c)
		s.reading = false
	case sim.KindFault:
		if e.Fault.Pauses() {
			t.paused[p] = append(t.paused[p], span{e.At, e.At + sim.Time(e.Dur)})
		}
		// A restart with no crash before it still means the old life is over.
		if e.Fault.EndsLife() {
			t.stop(s, p, i, e.At, endCrashed)
		}
	case sim.KindExtendInvoke, sim.KindExtendReturn:
		t.extend(s, p, i, e)
	case sim.KindProcEnd:
		t.stop(s, p, i, e.At, endStopped)
		if e.Err != "" {
			t.clientErr = append(t.clientErr, i)
		}
	}
}

// leftoversOf records where release r's process last left the key, as its
// own last command on each node saw it. Whose version that is, the stale
// check asks only when there is one (ownLeftovers): the walk that knows
// reads every command's key, which most runs never need.
func (t *trace) leftoversOf(s *procState, r int) {
	for n, c := range s.lastCmd {
		if c >= 0 && t.h.Events[c].Key.Exists {
			t.leftovers = append(t.leftovers, keyLeft{r, n, c, slices.Contains(s.relLost, n)})
		}
	}
}

// ownLeftovers keeps, of the leftovers, the keys in a version their
// releaser wrote (versions.go) for the hold it released: the lease is the
// version the releaser wrote, whatever its value holds. A version another
// process wrote is not the release's leftover, even one holding the same
// value (two whole-second timestamps collide); nor is one the releaser
// wrote before the Acquire call of that hold (an earlier hold's, whose
// release got no reply there: a note of its own), nor one a failed try of
// that call left when its clean-up there got no reply (triedClean). It
// walks the history's versions up to the last leftover's command.
func (t *trace) ownLeftovers() {
	if len(t.leftovers) == 0 {
		return
	}
	cmds := t.ints[:0] // the leftovers' commands, in history order
	for _, l := range t.leftovers {
		cmds = append(cmds, l.cmd)
	}
	slices.Sort(cmds)
	cmds = slices.Compact(cmds)
	t.ints = cmds
	type version struct {
		writer int32
		from   int
	}
	at := make([]version, len(cmds))
	t.vw.reset(t.h)
	for i, k := 0, 0; k < len(cmds); i++ {
		if lane, _, ok := t.vw.step(i, &t.h.Events[i]); ok && i == cmds[k] {
			at[k] = version{t.vw.lanes[lane].writer, t.vw.lanes[lane].from}
			k++
		}
	}
	kept := t.leftovers[:0]
	for _, l := range t.leftovers {
		k, _ := slices.BinarySearch(cmds, l.cmd)
		r, v := t.releases[l.rel], at[k]
		if v.writer == int32(r.proc) && v.from >= t.acquireCall(r.hold) && !t.triedClean(r.proc, l.node, v.from) {
			kept = append(kept, l)
		}
	}
	t.leftovers = kept
}

// acquireCall is the event index of the Acquire call that took hold h: the
// last Acquire invoke of its process before the held return.
func (t *trace) acquireCall(h int) int {
	x := &t.holds[h]
	for i := x.fromIdx; i >= 0; i-- {
		if e := &t.h.Events[i]; e.Proc == x.proc && e.Kind == sim.KindLockInvoke {
			return i
		}
	}
	return 0
}

// triedClean says whether write b, a command of process p on node n, was
// made inside an Acquire call that then sent node n another command and got
// no reply to it before the call returned: the clean-up of a failed try
// that may not have run. What that try left there is the network's doing
// (lease.go forgives the waiting on it), not the release's: Redlock's try
// that got a minority leaves its token on a node whose clean-up was lost,
// and the release of a later try's token rightly leaves it there.
func (t *trace) triedClean(p, n, b int) bool {
	e := &t.h.Events[b]
	if e.Kind != sim.KindCommand || e.Proc != p {
		return false
	}
	for i := b + 1; i < len(t.h.Events); i++ {
		x := &t.h.Events[i]
		if x.Proc != p {
			continue
		}
		switch x.Kind {
		case sim.KindCommandResult:
			if x.Node == n && x.Err != "" && x.Req != e.Req {
				return true
			}
		case sim.KindCommand, sim.KindResourceRead, sim.KindResourceWrite:
		case sim.KindFault:
			if x.Fault.EndsLife() {
				return false
			}
		default:
			return false // the call returned, or p's life or a call of another kind went on
		}
	}
	return false
}

func (t *trace) endWant(s *procState, p int, at sim.Time) {
	if s.wanting {
		t.wants[p] = append(t.wants[p], span{s.wantFrom, at})
		s.wanting = false
	}
	t.endNetWait(s, p, min(at, s.netUntil))
}

// netWait: a process trying to acquire sent a command that had not reached
// its node when the process gave up on it (its request was lost, or a down
// node dropped it, or it was still on its way): the network, not the lock,
// failed that try. The process's waiting from that send until it sends its
// next command that runs is the network's, and the stuck check counts none
// of it (stuck.go). When no such command follows before it stops wanting,
// only the wait for the lost replies is: a client that never tries again
// after a loss is stuck on itself. A lost try that was still on its way and
// runs later counts as the next command that runs: it ends the wait at its
// own send, so when it is the try that began the wait, none of the wait is
// forgiven (the stricter reading: more waiting counted, never less).
//
// endNetWait closes the process's network wait, if one is open, at end:
// the send of the command that ran, or, when the want ended first, the last
// lost reply.
func (t *trace) endNetWait(s *procState, p int, end sim.Time) {
	if !s.netWait {
		return
	}
	if end > s.netFrom {
		t.netWaits[p] = append(t.netWaits[p], span{s.netFrom, end})
	}
	s.netWait = false
}

// stop ends a process's life at at, event i: a crash or its end. Its hold ends here
// (a release is synthesized so the mutex model sees the lock freed); an
// acquire in flight is dropped (it returned nothing, so it has no place in
// the mutex history); a release in flight may have taken effect any time
// until now; a critical section without its write is dropped (see
// resourceOps).
func (t *trace) stop(s *procState, p, i int, at sim.Time, how endKind) {
	if s.acquiring {
		s.wantTo = at
	}
	t.endWant(s, p, s.wantTo)
	s.acquiring = false
	t.endHold(s, p, i, at, how)
	if s.releasing >= 0 {
		t.op(s.releasing).ret = at
		s.releasing = -1
	}
	s.extending = -1
}

// endHold ends p's hold, if any, at at, event i, without a Release call (a
// crash, a stop, a failed extend): a release is synthesized so the mutex
// model sees the lock freed, and a critical section without its write is
// dropped (see resourceOps).
func (t *trace) endHold(s *procState, p, i int, at sim.Time, how endKind) {
	if s.holding >= 0 {
		t.holds[s.holding].to, t.holds[s.holding].toIdx, t.holds[s.holding].end = at, i, how
		t.addOp(lockOp{proc: p, call: at, ret: at, errIdx: -1, note: how})
		s.holding = -1
	}
	s.reading = false
}

// finish closes what is still open when the run ends: a hold stays open
// (to = forever) and gets no release.
func (t *trace) finish(s *procState, p int) {
	if s.acquiring {
		s.wantTo = t.end
	}
	t.endWant(s, p, s.wantTo)
	if s.releasing >= 0 {
		t.op(s.releasing).ret = t.end
	}
}

// addOp appends o to lockOps, if kept, and returns its index (0 if not).
func (t *trace) addOp(o lockOp) int {
	if !t.keepOps {
		return 0
	}
	t.lockOps = append(t.lockOps, o)
	return len(t.lockOps) - 1
}

// op is lock operation i, or noOp when lockOps are not kept.
func (t *trace) op(i int) *lockOp {
	if !t.keepOps {
		return &t.noOp
	}
	return &t.lockOps[i]
}

// certain says whether porcupine must reject stray k. It must when the stray
// is its process's first and is separated in time from that process's
// operations before and after it: then every order puts them on the same
// sides, and a mutex lets no process release more often than it acquired, or
// acquire twice without releasing. At a tie porcupine, which orders
// operations only by time, may reorder a process's own calls and accept.
func (t *trace) certain(k int) bool {
	s := t.strays[k]
	for _, o := range t.strays[:k] {
		if o.proc == s.proc {
			return false
		}
	}
	op := t.lockOps[s.op]
	for i := s.op - 1; i >= 0; i-- {
		if t.lockOps[i].proc == s.proc {
			if t.lockOps[i].ret >= op.call {
				return false
			}
			break
		}
	}
	for _, o := range t.lockOps[s.op+1:] {
		if o.proc == s.proc {
			return op.ret < o.call
		}
	}
	return true
}
