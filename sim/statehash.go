package sim

import (
	"math/bits"
	"slices"
	"time"

	"github.com/locksim/locksim/fault"
)

// The state key: at a trigger point, a hash of everything the rest of the
// run depends on, so that two runs with equal keys at a point go on alike
// (event for event, shifted by the difference of their nows) whatever
// happened before. prove prunes with it (Config.OnState). Every time in it
// is relative to now. What it reads:
//
//   - the queue of future events, in their order, with their requests in
//     flight;
//   - every node: its keys (KeyState: type, value, TTL), scripts, MULTI
//     state, the watched key's tracker, its clock and whether it is down;
//   - every process: alive, ended, crashing, its incarnation, pause, clock,
//     the pending effect, its random sources, and what its coroutine has
//     observed since its incarnation began (replies, clock readings,
//     counter reads): a coroutine's locals cannot be read, but its code is
//     deterministic, so they are a function of what it observed;
//   - the protected counter, the replayed commands a cap counts, and the
//     faults not yet fired.
//
// It does not read the history: a caller that judges whole histories must
// add what its checkers need of the past, and StateKeys offers two pasts:
// History, every event so far (exact), and Summary, the lock's story so far
// (who is trying since when, who holds since when, when the last hold
// ended, the writes accepted and refused, client errors, and when each
// process last sent, timed out and met a fault, and each node its last
// fault), which forgets the rest: commands before a process's last, faults
// before its last, and whatever the state holds already. Where the state
// cannot be read (a Go library's goroutines, replicas, parked blocking pops,
// a node with persistence, a drawn random source or connection state) the
// key is Unknown, equal to none.

// StateKey is a run's state key at a point; Unknown when it could not be
// read.
type StateKey [2]uint64

// StateKeys are what Config.OnState is told at a point: the state key and
// the two keys of the past (above). State and Summary hold times relative
// to now, so a run shifted in time has the same keys; what ends a run at an
// absolute bound (the duration cap, the event and history-size caps) is
// what OnPoint is told beside them: the time and the history's length.
type StateKeys struct {
	State, History, Summary StateKey
}

// past is what the run keeps of its history for StateKeys, when asked.
type past struct {
	history           stateSum
	trying, holding   []Time // since when (+1; 0: not), by process
	errored           []bool
	lastHoldEnd       Time
	accepted, refused int
	// The starts of the spans a checker may still be inside (+1; 0:
	// none): a process's last send, last timeout and last fault (a pause's
	// start, which the stuck check cuts out of waiting), a node's last
	// fault (an outage's start).
	sent, timedOut, faulted []Time
	nodeFault               []Time
}

// note adds an event to the past: of request q, if not nil, whose
// argument list it sums once (a command's and its result's are the same).
func (r *runner) note(e *Event, q *request) {
	pa := &r.past
	if pa.trying == nil {
		n := len(r.procs)
		pa.trying, pa.holding, pa.errored = make([]Time, n), make([]Time, n), make([]bool, n)
		pa.sent, pa.timedOut, pa.faulted = make([]Time, n), make([]Time, n), make([]Time, n)
		pa.nodeFault = make([]Time, len(r.nodes))
	}
	h := pa.history.num(int64(e.At)).num(int64(e.Kind)<<3 | bit(e.Held)<<2 | bit(e.Silent)<<1 | bit(e.Accepted)).num(int64(e.Fault))
	h = h.num(int64(e.Proc)).num(int64(e.Node)).num(int64(e.Incarnation)).num(int64(e.Req))
	if q != nil {
		h = h.sum(q.argSum.of(q.args))
	} else {
		h = h.args(e.Args)
	}
	h = h.reply(e.Reply).str(e.Err).num(int64(e.Sent)).str(e.Token).num(e.Fence).num(e.Value).num(int64(e.Dur))
	k := e.Key
	pa.history = h.num(int64(k.Type)<<2 | bit(k.Exists)<<1 | bit(k.Fresh)).str(k.Value).num(int64(k.TTL))
	endHold := func(p int) {
		if pa.holding[p] != 0 {
			pa.holding[p], pa.lastHoldEnd = 0, e.At+1
		}
	}
	switch e.Kind {
	case KindLockInvoke:
		pa.trying[e.Proc] = e.At + 1
	case KindLockReturn:
		pa.trying[e.Proc] = 0
		if e.Held {
			pa.holding[e.Proc] = e.At + 1
		}
		if e.Err != "" {
			pa.errored[e.Proc] = true
		}
	case KindReleaseReturn:
		endHold(e.Proc)
	case KindProcEnd:
		pa.trying[e.Proc] = 0
		endHold(e.Proc)
		if e.Err != "" {
			pa.errored[e.Proc] = true
		}
	case KindCommand:
		pa.sent[e.Proc] = e.Sent + 1
	case KindCommandResult:
		pa.sent[e.Proc] = e.Sent + 1 // a lost request has no KindCommand
		if e.Err != "" {
			pa.timedOut[e.Proc] = e.At + 1
		}
	case KindFault:
		if e.Proc >= 0 {
			pa.faulted[e.Proc] = e.At + 1
			if e.Fault == fault.Crash {
				pa.trying[e.Proc] = 0
				endHold(e.Proc)
			}
		} else if e.Node >= 0 && e.Node < len(pa.nodeFault) {
			pa.nodeFault[e.Node] = e.At + 1
		}
	case KindResourceWrite:
		if e.Accepted {
			pa.accepted++
		} else {
			pa.refused++
		}
	}
}

// historyKey is Result.HistoryKey: the past's history sum with what
// Digest reads of h besides its events.
func (r *runner) historyKey(h *History) StateKey {
	s := r.past.history.num(int64(len(h.Procs)))
	for _, p := range h.Procs {
		s = s.str(p)
	}
	s = s.num(int64(h.Nodes)).str(h.WatchKey).num(int64(len(h.Replicas)))
	for _, n := range h.Replicas {
		s = s.num(int64(n))
	}
	return s.num(int64(len(h.Events))).key()
}

// summary is the Summary key of the past, its times relative to now.
func (pa *past) summary(now Time) StateKey {
	s := stateSum{}.num(int64(rel(pa.lastHoldEnd, now))).num(int64(pa.accepted)).num(int64(pa.refused))
	for i := range pa.trying {
		s = s.num(int64(rel(pa.trying[i], now))).num(int64(rel(pa.holding[i], now))).flag(pa.errored[i])
		s = s.num(int64(rel(pa.sent[i], now))).num(int64(rel(pa.timedOut[i], now))).num(int64(rel(pa.faulted[i], now)))
	}
	for _, t := range pa.nodeFault {
		s = s.num(int64(rel(t, now)))
	}
	return StateKey(s)
}

// Unknown is the key of a state that could not be read: the caller must
// treat it as new.
var Unknown = StateKey{}

// stateSum is an order-sensitive running hash of two 64-bit lanes.
type stateSum StateKey

// num folds x into each lane with one 64×64→128-bit multiply, its halves
// xored (wyhash's mum, each lane its own constants): prove pays it at every
// event and choice point, where splitmix64 per lane was a sixth of its CPU.
func (s stateSum) num(x int64) stateSum {
	hi, lo := bits.Mul64(s[0]^uint64(x)^0xa0761d6478bd642f, 0xe7037ed1a0b428db)
	s[0] = hi ^ lo
	hi, lo = bits.Mul64(s[1]^uint64(x)^0x8ebc6af09c88c6e3, 0x589965cc75374cc3)
	s[1] = hi ^ lo
	return s
}

func (s stateSum) str(v string) stateSum { return sumBytes(s, v) }

// args adds an argument list, its length first.
func (s stateSum) args(args []string) stateSum {
	s = s.num(int64(len(args)))
	for _, a := range args {
		s = s.str(a)
	}
	return s
}

// sum folds another sum in, as two numbers.
func (s stateSum) sum(o stateSum) stateSum { return s.num(int64(o[0])).num(int64(o[1])) }

// key is s as a state key, never Unknown by chance.
func (s stateSum) key() StateKey {
	if s == stateSum(Unknown) {
		s[0] = 1
	}
	return StateKey(s)
}

// argsSum is an argument list summed on its own (stateSum{}.args), taken
// once: a request's events, the state keys taken while it is in flight and
// its sender's pending effect fold the list in as two numbers (sum). Its
// holder resets it whenever the list changes (process.setArgs); a request
// takes its sender's.
type argsSum struct {
	s  stateSum
	ok bool
}

func (a *argsSum) of(args []string) stateSum {
	if !a.ok {
		a.s, a.ok = stateSum{}.args(args), true
	}
	return a.s
}

// sumBytes is str for a string or bytes (a random source's state, read
// into a buffer of the caller's without a copy).
func sumBytes[T string | []byte](s stateSum, v T) stateSum {
	s = s.num(int64(len(v)))
	for len(v) >= 8 {
		s = s.num(int64(uint64(v[0]) | uint64(v[1])<<8 | uint64(v[2])<<16 | uint64(v[3])<<24 |
			uint64(v[4])<<32 | uint64(v[5])<<40 | uint64(v[6])<<48 | uint64(v[7])<<56))
		v = v[8:]
	}
	var last uint64
	for i := 0; i < len(v); i++ {
		last |= uint64(v[i]) << (8 * i)
	}
	return s.num(int64(last))
}

// bit is b as 1 or 0: flags are packed into one number of the sum with
// the small number beside them, each at its own bit.
func bit(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (s stateSum) flag(b bool) stateSum {
	if b {
		return s.num(1)
	}
	return s.num(0)
}

func (s stateSum) reply(r Reply) stateSum {
	s = s.num(int64(r.Kind)).str(r.Str).num(r.Int).num(int64(len(r.Elems)))
	for _, e := range r.Elems {
		s = s.reply(e)
	}
	return s
}

// observeReply adds the reply (or timeout) the process is about to get.
func (p *process) observeReply() {
	if p.r.cfg.OnState == nil {
		return
	}
	p.obs = p.obs.reply(p.reply)
	if p.err != nil {
		p.obs = p.obs.str(p.err.Error())
	}
}

// stateKey is the run's state key now.
func (r *runner) stateKey() StateKey {
	if r.bub != nil {
		return Unknown
	}
	s := stateSum{}
	if r.drifts() {
		// A drifting clock reads now's rounding too: two runs shifted in
		// time may read their clocks a nanosecond apart.
		s = s.num(int64(r.now))
	}
	for i := range r.nodes {
		n := &r.nodes[i]
		if n.g != nil || len(n.parked) > 0 {
			return Unknown
		}
		s = s.num(int64(n.clock.at(r.now) - r.now)).num(int64(max(n.downUntil-r.now, 0)))
		ok := n.n.State(n.clock.at(r.now).Std(), func(v string) { s = s.str(v) }, func(x int64) { s = s.num(x) })
		if !ok {
			return Unknown
		}
	}
	// The queue in the order it will pop: a heap's layout is not.
	evs := slices.Clone(r.q.items)
	slices.SortFunc(evs, func(a, b event) int {
		if a.before(&b) {
			return -1
		}
		if b.before(&a) {
			return 1
		}
		return 0
	})
	s = s.num(int64(len(evs)))
	for i := range evs {
		e := &evs[i]
		s = s.num(int64(e.at - r.now)).num(int64(e.kind)<<1 | bit(e.sub)).num(int64(e.proc)).num(int64(e.inc)).num(int64(e.fault))
		if e.req != 0 {
			s = r.requestSum(s, r.mem.req(e.req))
		}
	}
	for _, p := range r.procs {
		s = p.stateSum(s)
		if p.dog != nil {
			s = p.dog.stateSum(s.num(int64(p.dogGen)))
		}
		s = s.num(-1)
	}
	s = s.num(r.resource.value).num(r.resource.maxFence)
	// Not the stats nor the counts fault notes read: no verdict reads them.
	s = s.num(int64(r.live)).num(int64(r.replayed))
	// Faults still to fire: what they are and how far their trigger is.
	for i := range r.cfg.Faults {
		if r.fired[i] {
			continue
		}
		f := &r.cfg.Faults[i]
		s = s.num(int64(f.Kind)).num(int64(f.Proc)).num(int64(f.Node)).num(int64(f.Dur))
		if f.On.Point == PointAt {
			s = s.num(int64(f.At - time.Duration(r.now)))
		}
		s = s.num(int64(f.On.Point)).num(int64(f.On.Proc)).str(f.On.Cmd).num(int64(f.On.N - r.counts[i]))
	}
	return s.key()
}

// drifts says some clock of the run drifts.
func (r *runner) drifts() bool {
	for i := range r.nodes {
		if r.nodes[i].clock.spec.DriftPPM != 0 {
			return true
		}
	}
	for _, p := range r.procs {
		if p.clock.spec.DriftPPM != 0 {
			return true
		}
	}
	return false
}

func (r *runner) requestSum(s stateSum, q *request) stateSum {
	s = s.num(int64(q.proc)).num(int64(q.inc)).num(int64(q.node)).sum(q.argSum.of(q.args))
	s = s.num(int64(q.sent - r.now)).num(int64(rel(q.deadline, r.now))).num(int64(rel(q.arrived, r.now)))
	s = s.num(bit(q.dropped)<<3 | bit(q.ran)<<2 | bit(q.waiting)<<1 | bit(q.answered)).num(int64(q.gen)).num(int64(q.block))
	s = s.str(q.why).reply(q.reply).num(int64(q.replyLat))
	return s
}

// stateSum adds a coroutine's state (a main one's or its watchdog's).
func (p *process) stateSum(s stateSum) stateSum {
	s = s.num(bit(p.live)<<3 | bit(p.ended)<<2 | bit(p.crashPending)<<1 | bit(p.running)).num(int64(p.inc))
	s = s.num(int64(p.clock.at(p.r.now) - p.r.now)).num(p.clock.spec.DriftPPM)
	if !p.live {
		// Nothing of a dead coroutine lives on: a restart starts afresh
		// (startProc), so what it observed is forgotten.
		return s
	}
	s = s.num(int64(max(p.pausedUntil-p.r.now, 0))).num(int64(max(p.dogPausedUntil-p.r.now, 0)))
	s = s.num(int64(len(p.pauses))).num(int64(len(p.dogPauses)))
	s = s.num(int64(p.lose.kind)<<2 | bit(p.lose.kind != 0 && p.lose.fault >= 0)<<1 | bit(p.lost)).num(int64(p.lose.timeout))
	s = s.num(int64(p.want)<<1 | bit(p.err != nil)).num(int64(p.node)).num(int64(p.sleep)).num(p.value).num(p.fence)
	s = s.sum(p.argSum.of(p.args)).reply(p.reply).num(p.readVal)
	if p.owner == nil && p.rngSrc != nil {
		var buf [32]byte
		b, _ := p.rngSrc.AppendBinary(buf[:0])
		s = sumBytes(s, b)
		b, _ = p.netSrc.AppendBinary(buf[:0])
		s = sumBytes(s, b)
	}
	if p.readClock {
		// The readings are summed relative to the incarnation's start:
		// where now is from there says what they were.
		s = s.num(int64(p.r.now - p.obsStart))
	}
	return s.sum(p.obs)
}

// rel is a deadline relative to now; 0 stays 0 (none).
func rel(t, now Time) Time {
	if t == 0 {
		return 0
	}
	return t - now
}
