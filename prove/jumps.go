package prove

import (
	"crypto/sha256"
	"slices"
	"strconv"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// Jumps says which schedules whose last choice is a client's clock jump
// are run (--jumps).
type Jumps uint8

const (
	// JumpsRun runs every schedule.
	JumpsRun Jumps = iota
	// JumpsUnread takes a schedule whose last choice is a clock jump of a
	// client that, in its parent's run, never reads its clock from the
	// jump's point on, at its parent's verdict without running it
	// (unreadJump).
	JumpsUnread
)

var jumpsNames = [...]string{JumpsRun: "run", JumpsUnread: "unread"}

func (j Jumps) String() string { return jumpsNames[j] }

// ParseJumps reads a --jumps word.
func ParseJumps(s string) (Jumps, error) { return parseWord[Jumps](jumpsNames[:], s) }

// unreadJump says whether n's child by choice c at n's point i is a clock
// jump that nothing reads: its run is n's run with one event more, and its
// verdict n's. Why:
//
//   - The child's run is n's up to point i (the same faults, triggered on
//     the same events), where the jump fires (sim.runner.trigger: at once,
//     after OnPoint, before anything else runs).
//   - The jump sets the client's clock offset and records a fault event,
//     nothing else (sim's faultApplies). The offset is read by Proc.Now
//     alone (sleeps, timeouts and the network run on true time; the state
//     keys read it but change nothing), and in n's run the client (its
//     watchdog too) never called Now after its point i
//     (sim.Result.LastClockRead). So every later step of the child is n's:
//     its history is n's with the jump's event inserted at point i, as
//     long as one event more meets no cap (sim.Result.Room; a cut run,
//     incomplete, is never taken).
//   - The checkers read a fault event by its kind's facts alone (it
//     pauses, ends a life, loses data, promotes: model/trace.go, lease.go,
//     versions.go, outage.go), none of which a clock jump has, and its time
//     lies within the run (the client is live then, so some event of it
//     comes at or after it). So the verdict is n's.
//
// A jump on a client that has crashed or finished fires nothing at all:
// taken too. The child's side of the assumptions is its own (its faults),
// decided before any run, so only the verdict is taken. The child is taken
// only where it is judged; a child that is extended is run (its points and
// state keys are its own).
func (p *Prover) unreadJump(n *node, i int, c *choice) bool {
	if p.opts.Jumps != JumpsUnread || c.class != ClassClientJump || !n.source() {
		return false
	}
	pt := &n.points[i]
	return n.reads[pt.proc] < pt.own
}

// reads is what a judged schedule's run says of its clock reads: its
// verdict and each client's last read (sim.Result.LastClockRead).
type reads struct {
	verdict string
	last    []int
}

// noteReads keeps what unreadJump and withoutJump need of n's run: its
// clock reads, when the run can stand for a run with jumps more (it was
// not cut, and K events more had room: each jump adds one).
func (p *Prover) noteReads(n *node, res *sim.Result) {
	if p.opts.Jumps == JumpsUnread && res.Cut == "" && res.Room(max(p.opts.MaxFaults, 1)) {
		n.reads = res.LastClockRead
	}
}

// source says whether n's run can stand for its children's with a clock
// jump nothing reads: noteReads kept its reads, and it is not incomplete.
func (n *node) source() bool { return n.reads != nil && n.verdict != model.VerdictIncomplete }

// keepReads files judged n's reads by its steps, for the next pass
// (withoutJump): from its run, or from the run it was taken from, which
// is its own but for the jump's event.
func (w *walker) keepReads(n *node) {
	if w.judged == nil || !n.source() {
		return
	}
	w.judged[stepsKey(n.steps, -1)] = reads{verdict: n.verdict, last: n.reads}
}

// withoutJump takes n, judged in this pass, at the verdict of the
// schedule without its last clock jump, judged in the last pass, when that
// one's run never read the jumping client's clock from the jump's point
// on; it returns the jump's step (-1: not taken). The argument of
// unreadJump, with the schedule without the jump for the parent: its run
// is n's up to the jump's point (the same choices before it), and after
// it n's is its own with the jump's event, since nothing reads the clock
// the jump moved; so the later choices fire on the same events. Only the
// last jump of n is tried (the one before it was tried when the schedule
// without the last was judged, and that one may itself be taken).
func (w *walker) withoutJump(n *node) int {
	j := -1
	for i := len(n.steps) - 2; i >= 0; i-- { // the last step is unreadJump's
		if c := w.p.choiceNamed(n.steps[i].Choice); c != nil && c.class == ClassClientJump {
			j = i
			break
		}
	}
	if j < 0 || w.last == nil {
		return -1
	}
	r, ok := w.last[stepsKey(n.steps, j)]
	proc := slices.Index(w.p.names, n.steps[j].Client)
	if !ok || proc < 0 || r.last[proc] >= n.ords[j] {
		return -1
	}
	n.inherit, n.reads = r.verdict, r.last
	return j
}

// stepsKey is a schedule's key by its steps, but step skip (-1: none).
// Each step is "client\0point\0n\0choice\0", written into a buffer on
// the stack: the walk takes one or two keys for every schedule it judges.
func stepsKey(steps []Step, skip int) [16]byte {
	var buf [512]byte
	b := buf[:0]
	for i, st := range steps {
		if i == skip {
			continue
		}
		b = append(append(b, st.Client...), 0)
		b = append(append(b, st.Point...), 0)
		b = append(strconv.AppendInt(b, int64(st.N), 10), 0)
		b = append(append(b, st.Choice...), 0)
	}
	sum := sha256.Sum256(b)
	return [16]byte(sum[:16])
}

// lastIsJump says whether the schedule's last choice is a client's clock jump.
func (p *Prover) lastIsJump(n *node) bool {
	if len(n.steps) == 0 {
		return false
	}
	c := p.choiceNamed(n.steps[len(n.steps)-1].Choice)
	return c != nil && c.class == ClassClientJump
}
