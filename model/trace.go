package model

import (
	"fmt"

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
type hold struct {
	proc     int
	from, to sim.Time
	fromIdx  int // event index of the held LockReturn
	toIdx    int // event index of what ended it; -1 while open
	end      endKind
	token    string
	fence    int64
}

// lockOp is one operation of the mutex model, spanning call → return.
type lockOp struct {
	proc      int
	acquire   bool
	call, ret sim.Time
	fence     int64
	note      string // a synthesized release says why: "crashed", "stopped"
	err       string // Release returned an error
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
	err       string
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
	proc  int
	idx   int
	at    sim.Time
	token string
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
	failed    []attempt
	wants     [][]span // per process: when it kept trying to acquire
	paused    [][]span // per process: when a pause fault had it stopped
	sections  []section
	releases  []releaseOK
	clientErr []int // event indexes of ProcEnd with Err
	renewals  []renewal
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
	relHeld   bool
	relToken  string
	wanting   bool
	wantFrom  sim.Time
	wantTo    sim.Time // the last failed return: the want ends here unless retried
	reading   bool
	read      section
	extending int // index in renewals of an extend with no return yet; -1
}

func extract(h *sim.History) *trace {
	t := &trace{h: h, names: h.Procs, nodes: h.Nodes}
	procs := len(h.Procs)
	var kinds [sim.KindProcEnd + 1]int
	held := 0 // held LockReturns: failed attempts make no hold and no lock operation
	for i := range h.Events {
		e := &h.Events[i] // events are large: do not copy them
		procs = max(procs, e.Proc+1)
		t.nodes = max(t.nodes, e.Node+1)
		if e.Kind <= sim.KindProcEnd {
			kinds[e.Kind]++
		}
		if e.Kind == sim.KindLockReturn && e.Held && e.Err == "" {
			held++
		}
	}
	// Sized up front: appends that grow are most of the walk's cost. Crashes
	// and stops add a synthesized release each, which may still grow lockOps.
	t.holds = make([]hold, 0, held)
	t.lockOps = make([]lockOp, 0, held+kinds[sim.KindReleaseInvoke])
	t.failed = make([]attempt, 0, kinds[sim.KindLockReturn]-held)
	t.sections = make([]section, 0, kinds[sim.KindResourceWrite])
	t.releases = make([]releaseOK, 0, kinds[sim.KindReleaseReturn])
	ps := make([]procState, procs)
	for p := range ps {
		ps[p].holding, ps[p].releasing, ps[p].extending = -1, -1, -1
	}
	t.wants = make([][]span, procs)
	t.paused = make([][]span, procs)
	for i := range h.Events {
		e := &h.Events[i]
		t.end = max(t.end, e.At)
		if e.Proc < 0 {
			continue
		}
		t.step(&ps[e.Proc], i, e)
	}
	for p := range ps {
		t.finish(&ps[p], p)
	}
	return t
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
			t.failed = append(t.failed, attempt{p, call, e.At, e.Err})
			return
		}
		t.endWant(s, p, e.At)
		t.lockOps = append(t.lockOps, lockOp{proc: p, acquire: true, call: call, ret: e.At, fence: e.Fence})
		if s.holding >= 0 {
			t.strays = append(t.strays, stray{p, i, len(t.lockOps) - 1, "acquired the lock while already holding it"})
			return
		}
		s.holding = len(t.holds)
		t.holds = append(t.holds, hold{proc: p, from: e.At, to: forever, fromIdx: i, toIdx: -1, end: endOpen, token: e.Token, fence: e.Fence})
	case sim.KindReleaseInvoke:
		// The hold ends when Release is called, whatever Release returns: from
		// then on the process does no protected work.
		s.relHeld, s.relToken = s.holding >= 0, e.Token
		if s.relHeld {
			if s.relToken == "" {
				s.relToken = t.holds[s.holding].token
			}
			t.holds[s.holding].to, t.holds[s.holding].toIdx, t.holds[s.holding].end = e.At, i, endReleased
			s.holding = -1
		} else {
			t.strays = append(t.strays, stray{p, i, len(t.lockOps), "released the lock without holding it"})
		}
		s.releasing = len(t.lockOps)
		t.lockOps = append(t.lockOps, lockOp{proc: p, call: e.At, ret: e.At})
	case sim.KindReleaseReturn:
		if s.releasing < 0 {
			return
		}
		t.lockOps[s.releasing].ret, t.lockOps[s.releasing].err = e.At, e.Err
		if e.Err == "" && s.relHeld {
			t.releases = append(t.releases, releaseOK{p, i, e.At, s.relToken})
		}
		s.releasing = -1
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

func (t *trace) endWant(s *procState, p int, at sim.Time) {
	if s.wanting {
		t.wants[p] = append(t.wants[p], span{s.wantFrom, at})
		s.wanting = false
	}
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
	if s.holding >= 0 {
		t.holds[s.holding].to, t.holds[s.holding].toIdx, t.holds[s.holding].end = at, i, how
		t.lockOps = append(t.lockOps, lockOp{proc: p, call: at, ret: at, note: how.String()})
		s.holding = -1
	}
	if s.releasing >= 0 {
		t.lockOps[s.releasing].ret = at
		s.releasing = -1
	}
	s.reading = false
	s.extending = -1
}

// finish closes what is still open when the run ends: a hold stays open
// (to = forever) and gets no release.
func (t *trace) finish(s *procState, p int) {
	if s.acquiring {
		s.wantTo = t.end
	}
	t.endWant(s, p, s.wantTo)
	if s.releasing >= 0 {
		t.lockOps[s.releasing].ret = t.end
	}
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
