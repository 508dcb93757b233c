package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// This file is over 400 lines on purpose: the picture is one walk of the
// history (process lanes, node lanes and key versions, the points where
// anything changes) whose parts must agree with each other, and both
// timelines read it.

// The picture is a history read for drawing: one lane per process, one per
// node, the violation windows. The terminal and the SVG timelines both draw
// it, so they always agree. It only reads the history: which states to draw
// where, never what the run should have done.

// procState is what a process lane shows. When several fall in one terminal
// column, the highest wins.
type procState uint8

const (
	stAbsent  procState = iota // not started yet, or finished
	stIdle                     // alive, outside lock calls, not holding
	stCrashed                  // crashed and not (yet) restarted
	stCalling                  // inside Acquire or Release
	stHolding                  // Acquire returned held; Release not yet called
)

var stateNames = [...]string{"absent", "idle", "crashed", "in a lock call", "holding"}

func (s procState) String() string { return stateNames[s] }

// markKind is a fault drawn at one instant.
type markKind uint8

const (
	markCrash markKind = iota + 1
	markRestart
	markJumpFwd
	markJumpBack
	markNodeRestart
	markLost  // a planned lost request or reply
	markOther // a kind with words and no fact the drawing shows (a watchdog's pause)
)

type stateSpan struct {
	from, to sim.Time
	st       procState
	what     string // for hover text: "in Acquire", "holding (token …)"
}

type mark struct {
	at     sim.Time
	kind   markKind
	detail string
}

type pause struct {
	from, to sim.Time
	detail   string
}

type procLane struct {
	name   string
	spans  []stateSpan
	pauses []pause
	marks  []mark
}

// keySpan is the watched key on one node: present with version v, or the
// node down (v < 0).
type keySpan struct {
	from, to sim.Time
	v        int
	down     bool
}

type nodeLane struct {
	name  string
	spans []keySpan
	marks []mark
}

// keyVersion is one content of the key as one process wrote it: the
// checker's versions (model.KeyVersions), each on one lane, drawn as one
// letter when they share writer, type and content, so a redlock token on
// three nodes is one letter and two clients writing the same timestamp are
// two.
type keyVersion struct {
	label string
	key   sim.KeyState  // the content and type, as the first of them began
	ttl   time.Duration // as the setting command left it; -1: none
	by    string
	cmd   string
	at    sim.Time
	nodes []int
}

// holdRow is one process's hold, for "who held when".
type holdRow struct {
	proc     int
	name     string
	from, to sim.Time
	end      string // released, crashed, stopped, or open
	token    string
	fence    int64
	refused  []sim.Time // writes the fenced resource refused during the hold
}

type window struct {
	kind     string
	from, to sim.Time
	procs    []string
	detail   string
}

type picture struct {
	end      sim.Time
	key      string
	procs    []procLane
	nodes    []nodeLane
	versions []keyVersion
	holds    []holdRow
	windows  []window
	faults   []sim.Event
	points   []sim.Time // every instant at which something on the picture changes
	// letterAt is, per event, the index in versions of the key's version the
	// event leaves on its lane; -1 when it carries no key or leaves it absent.
	letterAt []int
	begins   []bool      // per event: it began a version on its lane
	ev       eventWriter // renders commands and events
}

// versionLabels skips x and X, which draw crashes and down nodes.
const versionLabels = "ABCDEFGHIJKLMNOPQRSTUVWYZabcdefghijklmnopqrstuvwyz"

func newPicture(o *judge.Outcome) *picture {
	h := &o.Result.History
	p := &picture{end: o.Result.End, key: h.WatchKey, ev: eventWriter{h: h, scripts: o.Prepared.Algorithm.Scripts}}
	procs, nodes := len(h.Procs), h.Nodes+len(h.Replicas)
	for i := range h.Events {
		e := &h.Events[i]
		p.end = max(p.end, e.At)
		procs, nodes = max(procs, e.Proc+1), max(nodes, e.Node+1)
	}
	holds := model.Holds(h) // the checker's, so the picture draws what it judged
	for i := range procs {
		p.procs = append(p.procs, p.procLane(h, i, holds))
	}
	p.versionIndex(h)
	for n := range nodes {
		p.nodes = append(p.nodes, p.nodeLane(h, n))
	}
	p.drawPromoted(h)
	for _, v := range o.Verdict.Violations {
		p.windows = append(p.windows, window{v.Kind, v.From, v.To, v.Processes, v.Detail})
	}
	slices.SortStableFunc(p.holds, func(a, b holdRow) int { return cmp.Compare(a.from, b.from) })
	for i := range h.Events {
		if h.Events[i].Kind == sim.KindFault {
			p.faults = append(p.faults, h.Events[i])
		}
	}
	p.collectPoints(h)
	return p
}

func procName(h *sim.History, i int) string {
	if i >= 0 && i < len(h.Procs) && h.Procs[i] != "" {
		return h.Procs[i]
	}
	return fmt.Sprintf("p%d", i)
}

func nodeName(n int) string { return fmt.Sprintf("node%d", n) }

// laneName names node lane n: a node, or a replica (History.Replicas) as
// its node and its number among that node's replicas, from 1.
func laneName(h *sim.History, n int) string {
	k := n - h.Nodes
	if k < 0 || k >= len(h.Replicas) {
		return nodeName(n)
	}
	num := 1
	for j := range k {
		if h.Replicas[j] == h.Replicas[k] {
			num++
		}
	}
	return fmt.Sprintf("node%d.r%d", h.Replicas[k], num)
}

// keyed says whether e leaves the watched key's state on a node lane as a
// command or a replica's entry does (faults are drawn by their own rules).
func keyed(e *sim.Event) bool { return e.Kind == sim.KindCommand || e.Kind == sim.KindReplicate }

// procLane walks one process's events. Its holds are the checker's
// (model.Holds): each begins and ends at the events the checker names.
func (p *picture) procLane(h *sim.History, i int, holds []model.Hold) procLane {
	l := procLane{name: procName(h, i)}
	var alive, calling, crashed bool
	hold := -1 // index in p.holds
	cur, from := stAbsent, sim.Time(0)
	callWhat, what := "", ""
	set := func(at sim.Time) {
		st := stIdle
		switch {
		case crashed:
			st = stCrashed
		case !alive:
			st = stAbsent
		case hold >= 0:
			st = stHolding
		case calling:
			st = stCalling
		}
		if st == cur {
			return
		}
		if at > from || cur == stHolding || cur == stCalling {
			// A hold or call that began and ended at one instant still shows.
			l.spans = append(l.spans, stateSpan{from, at, cur, what})
		}
		cur, from = st, at
		switch st {
		case stCalling:
			what = callWhat
		case stHolding:
			what = "holding" + holdLease(p.holds[hold])
		default:
			what = st.String()
		}
	}
	var mine []model.Hold
	for _, x := range holds {
		if x.Proc == i {
			mine = append(mine, x)
		}
	}
	next := 0 // mine[next] is the next hold to begin; mine[next-1] the current one
	for idx, e := range h.Events {
		if e.Proc != i {
			continue
		}
		if hold >= 0 && mine[next-1].ToEvent == idx {
			p.holds[hold].to, p.holds[hold].end = e.At, mine[next-1].End
			hold = -1
		}
		if next < len(mine) && mine[next].FromEvent == idx {
			x := mine[next]
			hold = len(p.holds)
			p.holds = append(p.holds, holdRow{proc: i, name: l.name, from: x.From, to: x.From, end: "open",
				token: x.Token, fence: x.Fence})
			next++
		}
		switch e.Kind {
		case sim.KindProcStart:
			alive, crashed, calling = true, false, false
		case sim.KindLockInvoke:
			calling, callWhat = true, "in Acquire"
		case sim.KindLockReturn:
			calling = false
		case sim.KindReleaseInvoke:
			calling, callWhat = true, "in Release"
		case sim.KindReleaseReturn:
			calling = false
		case sim.KindResourceWrite:
			if !e.Accepted && hold >= 0 {
				p.holds[hold].refused = append(p.holds[hold].refused, e.At)
			}
		case sim.KindProcEnd:
			alive, calling = false, false
		case sim.KindFault:
			switch faultLife(e) {
			case lifeCrashed:
				alive, calling, crashed = false, false, true
			case lifeOver:
				alive, calling, crashed = false, false, false
			}
			if m, ok := faultMark(e); ok {
				l.marks = append(l.marks, m)
			}
			if e.Fault.Pauses() {
				l.pauses = append(l.pauses, pause{e.At, e.At + sim.Time(e.Dur), fmt.Sprintf("paused %v", e.Dur)})
			}
		}
		set(e.At)
	}
	if hold >= 0 {
		p.holds[hold].to = p.end
	}
	if cur != stAbsent {
		l.spans = append(l.spans, stateSpan{from, p.end, cur, what})
	}
	// A pause ends early when its process crashes or the run ends.
	for k := range l.pauses {
		ps := &l.pauses[k]
		ps.to = min(ps.to, p.end)
		for _, m := range l.marks {
			if m.kind == markCrash && m.at >= ps.from && m.at < ps.to {
				ps.to = m.at
			}
		}
	}
	return l
}

// versionKey is what one letter stands for: a writer (-1: unknown) and the
// content it wrote.
type versionKey struct {
	writer int
	typ    sim.KeyType
	value  string
}

// versionIndex walks the key's versions as the checkers do
// (model.KeyVersions) and gives each writer's content a letter, in the order
// they first appear.
func (p *picture) versionIndex(h *sim.History) {
	walk, at := model.KeyVersions(h)
	letters := make([]int, len(walk))
	idx := map[versionKey]int{} // looked up only: the order comes from the walk
	for k, wv := range walk {
		e := &h.Events[wv.Event]
		vk := versionKey{wv.Writer, e.Key.Type, e.Key.Value}
		v, ok := idx[vk]
		if !ok {
			v = len(p.versions)
			idx[vk] = v
			label := "+"
			if v < len(versionLabels) {
				label = versionLabels[v : v+1]
			}
			cmd, by := "", procName(h, wv.Writer)
			switch {
			case len(e.Args) > 0:
				cmd = strings.ToUpper(e.Args[0])
			case e.Kind == sim.KindFault:
				cmd = e.Fault.String()
			}
			if wv.Writer < 0 {
				by = "no known writer:"
			}
			p.versions = append(p.versions, keyVersion{label: label, key: e.Key, ttl: e.Key.TTL,
				by: by, cmd: cmd, at: e.At})
		}
		letters[k] = v
		// Where it was written: a command's node, or a node's reload; a
		// replica's entry and a promotion wrote nothing there.
		written := e.Kind == sim.KindCommand || e.Kind == sim.KindFault && !e.Fault.Promotes()
		if written && !slices.Contains(p.versions[v].nodes, wv.Lane) {
			p.versions[v].nodes = append(p.versions[v].nodes, wv.Lane)
		}
	}
	p.letterAt, p.begins = at, make([]bool, len(at))
	for i, k := range at {
		if k >= 0 {
			p.letterAt[i] = letters[k]
		}
	}
	for _, wv := range walk {
		p.begins[wv.Event] = true
	}
}

// nodeLane follows the key on node lane n (a node or a replica). It is
// gone when a later command finds it absent or in another version, when its
// TTL runs out (in true time, counting the node's clock jumps), or when the
// node restarts or fails over without it (a failover with no replica loses
// nothing: the key shows again when the node answers).
func (p *picture) nodeLane(h *sim.History, n int) nodeLane {
	l := nodeLane{name: laneName(h, n)}
	present, v, from := false, 0, sim.Time(0)
	expires := sim.Time(-1) // -1: no TTL
	closeAt := func(at sim.Time) {
		if present {
			l.spans = append(l.spans, keySpan{from: from, to: at, v: v})
			present = false
		}
	}
	expireBefore := func(at sim.Time) {
		if present && expires >= 0 && expires <= at {
			closeAt(expires)
		}
	}
	// showAgain draws key k, as the node had it at seen, again from back,
	// when the node serves again, until its TTL runs out (if it has not by
	// then): after a restart that persisted it, or a failover that promoted
	// a replica holding it.
	showAgain := func(k sim.KeyState, seen, back sim.Time) {
		expires = -1
		if k.TTL > 0 {
			expires = seen + sim.Time(k.TTL)
		}
		if expires < 0 || expires > back {
			present, from = true, back
		}
	}
	promoted := false
	for i, e := range h.Events {
		if promoted {
			break
		}
		if e.Node != n && !(e.Kind == sim.KindFault && e.Fault.Promotes()) {
			continue
		}
		if e.Node != n && e.Value != int64(n) {
			continue
		}
		expireBefore(e.At)
		switch {
		case keyed(&e):
			if p.letterAt[i] < 0 {
				closeAt(e.At)
				continue
			}
			if p.begins[i] {
				closeAt(e.At)
			}
			v = p.letterAt[i]
			if !present {
				// New, or the same version seen again after its TTL seemed
				// to run out (node clock drift): draw it from here.
				present, from = true, e.At
			}
			expires = -1
			if e.Key.TTL > 0 {
				expires = e.At + sim.Time(e.Key.TTL)
			}
		case e.Kind == sim.KindFault && e.Fault.Promotes() && e.Value == int64(n) && n > 0:
			// This replica is the node's primary from now on: its copy of
			// the key shows on the node's lane once the node answers, and
			// on this one until then (drawPromoted draws the rest).
			back := min(e.At+sim.Time(e.Dur), p.end)
			expireBefore(back)
			closeAt(back)
			promoted = true
		case e.Kind == sim.KindFault:
			if e.Fault.LosesData() {
				// A failover with no replica to promote is an outage only:
				// the node keeps its key, which ages while it is down.
				kept := present && e.Fault.Promotes() && e.Value == 0
				closeAt(e.At)
				back := min(e.At+sim.Time(e.Dur), p.end)
				l.spans = append(l.spans, keySpan{from: e.At, to: back, v: -1, down: true})
				switch {
				case kept:
					if expires < 0 || expires > back {
						present, from = true, back
					}
				case e.Fault.Promotes() && e.Value > 0:
					// The promoted replica's copy is the node's key once the
					// node answers again.
					if k, ok := p.lastReplicated(h, int(e.Value), e.At); ok && p.letterAt[k] >= 0 {
						v = p.letterAt[k]
						showAgain(h.Events[k].Key, h.Events[k].At, back)
					}
				case p.letterAt[i] >= 0:
					// A restart that persisted the key (the event's Key;
					// without persistence it is zero): the version last
					// seen, or an older one the reload brought back
					// (aof-everysec lost a newer write), whose writer the
					// checker does not know.
					v = p.letterAt[i]
					showAgain(e.Key, e.At, back)
				}
			}
			if e.Fault.ShiftsClock() && present && expires >= 0 {
				// Node time running ahead makes the TTL run out sooner in true time.
				expires -= sim.Time(e.Dur)
			}
			if m, ok := faultMark(e); ok {
				l.marks = append(l.marks, m)
			}
		}
	}
	expireBefore(p.end)
	closeAt(p.end)
	slices.SortStableFunc(l.spans, func(a, b keySpan) int { return cmp.Compare(a.from, b.from) })
	return l
}

// drawPromoted continues each promoted replica's lane with its node's: from
// its promotion the replica is the server the node's commands run on, so
// its row shows the key the node's row shows, until the node fails over
// again. Left blank, the row would read as a replica that never had the key.
func (p *picture) drawPromoted(h *sim.History) {
	for i, e := range h.Events {
		if e.Kind != sim.KindFault || !e.Fault.Promotes() || e.Value <= 0 ||
			int(e.Value) >= len(p.nodes) || e.Node < 0 || e.Node >= len(p.nodes) {
			continue
		}
		lane := &p.nodes[e.Value]
		until := p.end
		for _, f := range h.Events[i+1:] {
			if f.Kind == sim.KindFault && f.Fault.Promotes() && f.Node == e.Node {
				until = f.At
				break
			}
		}
		for _, s := range p.nodes[e.Node].spans {
			from, to := max(s.from, e.At), min(s.to, until)
			if s.down || from > to || from == to && s.from != s.to {
				continue
			}
			if k := len(lane.spans) - 1; k >= 0 && lane.spans[k].to == from && lane.spans[k].v == s.v && !lane.spans[k].down {
				lane.spans[k].to = to // the copy it kept while the node was down, still the same version
				continue
			}
			lane.spans = append(lane.spans, keySpan{from: from, to: to, v: s.v})
		}
		slices.SortStableFunc(lane.spans, func(a, b keySpan) int { return cmp.Compare(a.from, b.from) })
	}
}

func (p *picture) collectPoints(h *sim.History) {
	pts := []sim.Time{0, p.end}
	for i := range h.Events {
		pts = append(pts, h.Events[i].At)
	}
	for _, l := range p.procs {
		for _, s := range l.pauses {
			pts = append(pts, s.from, s.to)
		}
	}
	for _, l := range p.nodes {
		for _, s := range l.spans {
			pts = append(pts, s.from, s.to)
		}
	}
	for _, w := range p.windows {
		pts = append(pts, w.from, w.to)
	}
	kept := pts[:0]
	for _, t := range pts {
		if t >= 0 && t <= p.end {
			kept = append(kept, t)
		}
	}
	slices.Sort(kept)
	p.points = slices.Compact(kept)
}

// keep is the violation windows, which the scale never folds.
func (p *picture) keep() [][2]sim.Time {
	var out [][2]sim.Time
	for _, w := range p.windows {
		out = append(out, [2]sim.Time{w.from, w.to})
	}
	return out
}

// inOverlap says whether process name is one of an overlap's holders
// somewhere in [from, to].
func (p *picture) inOverlap(name string, from, to sim.Time) bool {
	for _, w := range p.windows {
		if w.kind == model.KindOverlap && slices.Contains(w.procs, name) && from <= w.to && w.from <= to {
			return true
		}
	}
	return false
}

// lastReplicated is the index of the last entry replica lane applied
// before at.
func (p *picture) lastReplicated(h *sim.History, lane int, at sim.Time) (int, bool) {
	last, found := 0, false
	for i := range h.Events {
		e := &h.Events[i]
		if e.At > at {
			break
		}
		if e.Kind == sim.KindReplicate && e.Node == lane {
			last, found = i, true
		}
	}
	return last, found
}
