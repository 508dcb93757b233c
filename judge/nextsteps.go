package judge

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// NextStep is what a run's counterexample means for the lock it ran, and
// what to try. Each is derived from the history (how the earlier holder's
// key ended, which faults acted, who wrote the key nobody could take),
// never from the lock's name, so a user's own lock gets the same reading as
// a built-in.
type NextStep struct {
	// Rule names the finding, stably: lease-lapsed-in-pause,
	// lease-lapsed-in-work, deleted-other-holder, took-over-live-lock,
	// extended-other-holder, key-lost-by-fault, key-without-ttl,
	// waiter-rewrites-key, release-left-key, client-error, outside,
	// compare-previous.
	Rule  string   `json:"rule"`
	Means string   `json:"means"`
	Try   []string `json:"try"`
}

// Try lines the rules share.
const (
	tryFencing = "fencing: give each lease a number that grows (INCR) and let the protected resource refuse a write " +
		"with a number lower than one it has seen; it is the one defence against a holder that outlives its lease"
	tryLongerTTL = "a TTL longer than the longest work plus pause you expect, or shorter work under the lock"
	tryRenewal   = "renewal: extend the lease while the work goes on (a watchdog; renew_every in a scenario), " +
		"with an extend that checks the key still holds your token"
	tryOwnRelease = "an ownership check in release: delete the key only if it still holds your token, in one script " +
		"(if GET == token then DEL), never GET then DEL from the client"
	tryOwnExtend = "an ownership check in extend: PEXPIRE only if the key still holds your token, in one script"
	tryServerTTL = "let the server expire the key (SET key token NX PX ttl) instead of comparing timestamps from the " +
		"clients' clocks"
	tryTakeOver = "take an expired lock over in one atomic step (GETSET, or a key the server expires with SET NX PX), " +
		"never DEL then SETNX"
	tryPersist = "persistence that keeps every acknowledged write (appendfsync always), or keep a restarted node " +
		"out for one TTL (restart_delay)"
	tryQuorum     = "a quorum of independent nodes (Redlock) instead of one node and its copies"
	tryWait       = "wait for a replica to acknowledge the write (WAIT 1 timeout) and treat 0 as not acquired"
	tryOneCommand = "set the value and its TTL in one command (SET key token NX PX ttl), so that no crash or lost " +
		"reply can leave a key nothing frees"
)

// NextSteps reads the run's verdict and history for what its
// counterexample means and what to try; none for a safe or incomplete run.
func (o *Outcome) NextSteps() []NextStep {
	v := o.Verdict
	if v.Verdict == model.VerdictSafe || v.Verdict == model.VerdictIncomplete {
		return nil
	}
	r := newReading(o)
	var out []NextStep
	if err := o.Assumptions(); err != nil {
		out = append(out, NextStep{Rule: "outside",
			Means: "the scenario is outside the lock's assumptions (see above): a TTL lock promises nothing " +
				"here, so this run shows where the lock stops being safe rather than a bug in its code",
			Try: []string{"check the lock inside its assumptions too (work, pauses, round trips and drift under " +
				"the TTL): a violation there is a bug"}})
	}
	seen := map[string]bool{} // looked up only: out keeps the violations' order
	add := func(s NextStep, ok bool) {
		if !ok || seen[s.Rule+s.Means] {
			return
		}
		seen[s.Rule+s.Means] = true
		var try []string // each thing to try is said once, at its first step
		for _, t := range s.Try {
			if !seen[t] {
				seen[t] = true
				try = append(try, t)
			}
		}
		s.Try = try
		out = append(out, s)
	}
	for _, x := range v.Violations {
		switch x.Kind {
		case model.KindOverlap:
			add(r.overlap(x))
		case model.KindStuck:
			add(r.stuck(x))
		case model.KindStale:
			add(NextStep{Rule: "release-left-key",
				Means: "a release left its key behind (" + x.Detail + "), so others waited for a lock nobody held",
				Try: []string{"a release that deletes the key it wrote while it still holds it: check what the " +
					"release compares (its token, not an expiry)"}}, true)
		case model.KindClientError:
			add(NextStep{Rule: "client-error",
				Means: fmt.Sprintf("the lock's own code failed in %s: %s", strings.Join(x.Processes, ", "), x.Detail),
				Try: []string{"handle every reply the command can give at that step (a nil once another client " +
					"deleted the key, an error, a timeout) instead of assuming the one the happy path gets"}}, true)
		}
	}
	if len(r.extendedOther) > 0 && slices.ContainsFunc(v.Violations, func(x model.Violation) bool { return x.Kind == model.KindOverlap }) {
		k := r.extendedOther[0]
		e := &r.h.Events[k[0]]
		add(NextStep{Rule: "extended-other-holder",
			Means: fmt.Sprintf("%s's extend at %s renewed %s's key and counted it as its own renewal, so %s "+
				"worked on while %s held the lock", r.name(e.Proc), at(e.At), r.name(r.lives[k[1]].kv.Writer),
				r.name(e.Proc), r.name(r.lives[k[1]].kv.Writer)),
			Try: []string{tryOwnExtend}}, true)
	}
	if _, err := locks.Lookup(o.Prepared.Algorithm.Name); err != nil {
		// A lock of the user's own: the question a team asks of a change.
		out = append(out, NextStep{Rule: "compare-previous",
			Means: "if this lock is a change to an earlier version, the same scenario and seed replay the same " +
				"schedule on it",
			Try: []string{fmt.Sprintf("simrun run %s --algo-file PREVIOUS.yaml: if the earlier version is safe "+
				"there, the change broke it", o.Scenario.Name)}})
	}
	return out
}

// versionEnd is how one version of the key ended.
type versionEnd uint8

const (
	endOpen        versionEnd = iota // still there when the run ended
	endExpired                       // its TTL ran out
	endDeleted                       // a command left the key absent
	endOverwritten                   // a command wrote another version over it
	endLost                          // a fault lost it (a restart, a failover)
)

// life is one version of the key: its writer, its TTL, how it ended.
type life struct {
	kv      model.KeyVersion
	begin   sim.Time
	expires sim.Time // -1: no TTL
	end     versionEnd
	at      sim.Time // when it ended
	by      int      // the process whose command ended it; -1 for none
	cmd     string   // that command's name, or the fault's
	call    string   // what that process was in: "release", "extend", "acquire" or ""
	jumped  sim.Time // when a node's clock jump moved its expiry sooner; 0: never
}

// reading is a history read for the rules: each key version's life, the
// holds, the pauses.
type reading struct {
	o      *Outcome
	h      *sim.History
	lives  []life
	holds  []model.Hold
	pauses [][][2]sim.Time // by process: each pause, [from, to)
	// extendedOther is each command of an extend that moved the expiry of
	// a version another process wrote (event index, version).
	extendedOther [][2]int
}

func newReading(o *Outcome) *reading {
	h := &o.Result.History
	r := &reading{o: o, h: h, holds: model.Holds(h), pauses: make([][][2]sim.Time, len(h.Procs))}
	vs, at := model.KeyVersions(h)
	r.lives = make([]life, len(vs))
	for k, kv := range vs {
		r.lives[k] = life{kv: kv, begin: h.Events[kv.Event].At, expires: -1, by: -1}
	}
	cur := map[int]int{} // lane → its current version; looked up only
	call := make([]string, len(h.Procs))
	closeAt := func(l *life, how versionEnd, t sim.Time, e *sim.Event) {
		l.end, l.at = how, t
		if e == nil {
			return
		}
		if e.Kind == sim.KindFault {
			l.cmd = e.Fault.String()
			return
		}
		l.by = e.Proc
		if len(e.Args) > 0 {
			l.cmd = strings.ToUpper(e.Args[0])
		}
		if e.Proc >= 0 && e.Proc < len(call) {
			l.call = call[e.Proc]
		}
	}
	for i := range h.Events {
		e := &h.Events[i]
		if e.Proc >= 0 && e.Proc < len(call) {
			switch e.Kind {
			case sim.KindLockInvoke:
				call[e.Proc] = "acquire"
			case sim.KindReleaseInvoke:
				call[e.Proc] = "release"
			case sim.KindExtendInvoke:
				call[e.Proc] = "extend"
			case sim.KindLockReturn, sim.KindReleaseReturn, sim.KindExtendReturn:
				call[e.Proc] = ""
			case sim.KindFault:
				if e.Fault.Pauses() {
					r.pauses[e.Proc] = append(r.pauses[e.Proc], [2]sim.Time{e.At, e.At + sim.Time(e.Dur)})
				}
			}
		}
		if e.Kind == sim.KindFault && e.Fault.ShiftsClock() && e.Node >= 0 {
			// Node time running ahead makes the TTL run out sooner in true time.
			if k, ok := cur[e.Node]; ok && k >= 0 && r.lives[k].end == endOpen && r.lives[k].expires >= 0 {
				// A jump past the expiry expires the key at the jump.
				r.lives[k].expires = max(r.lives[k].expires-sim.Time(e.Dur), e.At)
				r.lives[k].jumped = e.At
			}
		}
		keyed := e.Kind == sim.KindCommand || e.Kind == sim.KindReplicate || e.Kind == sim.KindFault && e.Fault.LosesData()
		if !keyed || e.Node < 0 {
			continue
		}
		prev, had := cur[e.Node]
		now := at[i]
		if had && prev >= 0 && r.lives[prev].end == endOpen {
			l := &r.lives[prev]
			switch {
			case l.expires >= 0 && l.expires <= e.At:
				closeAt(l, endExpired, l.expires, nil)
			case now == prev:
			case e.Kind == sim.KindFault:
				closeAt(l, endLost, e.At, e)
			case now < 0:
				closeAt(l, endDeleted, e.At, e)
			default:
				closeAt(l, endOverwritten, e.At, e)
				if l.call == "extend" && l.kv.Writer >= 0 && l.kv.Writer != e.Proc {
					// The checkers credit a renewed key to the renewer: the
					// extend began a version over another holder's.
					r.extendedOther = append(r.extendedOther, [2]int{i, prev})
				}
			}
		}
		cur[e.Node] = now
		if now >= 0 {
			l := &r.lives[now]
			if had && prev == now && e.Kind == sim.KindCommand && e.Proc >= 0 && e.Proc < len(call) &&
				call[e.Proc] == "extend" && l.kv.Writer >= 0 && l.kv.Writer != e.Proc && e.Key.TTL > 0 &&
				(l.expires < 0 || e.At+sim.Time(e.Key.TTL) > l.expires) {
				r.extendedOther = append(r.extendedOther, [2]int{i, now})
			}
			if e.Key.TTL > 0 {
				l.expires = e.At + sim.Time(e.Key.TTL)
			} else if e.Kind == sim.KindCommand {
				l.expires = -1
			}
		}
	}
	for k := range r.lives {
		if l := &r.lives[k]; l.end == endOpen && l.expires >= 0 && l.expires <= o.Result.End {
			closeAt(l, endExpired, l.expires, nil)
		}
	}
	return r
}

func (r *reading) name(p int) string {
	if p >= 0 && p < len(r.h.Procs) {
		return r.h.Procs[p]
	}
	return fmt.Sprintf("p%d", p)
}

func (r *reading) proc(name string) int { return slices.Index(r.h.Procs, name) }

// holdAt is p's hold that covers t.
func (r *reading) holdAt(p int, t sim.Time) (model.Hold, bool) {
	for _, x := range r.holds {
		if x.Proc == p && x.From <= t && t <= x.To {
			return x, true
		}
	}
	return model.Hold{}, false
}

// leaseOf is the versions p wrote in the Acquire that began hold x: on the
// nodes, not a replica's copy, however soon they ended.
func (r *reading) leaseOf(x model.Hold) []*life {
	call := 0
	for i := x.FromEvent; i >= 0; i-- {
		if e := &r.h.Events[i]; e.Proc == x.Proc && e.Kind == sim.KindLockInvoke {
			call = i
			break
		}
	}
	var out []*life
	for k := range r.lives {
		l := &r.lives[k]
		if l.kv.Writer == x.Proc && l.kv.Lane < r.h.Nodes && call <= l.kv.Event && l.kv.Event <= x.FromEvent {
			out = append(out, l)
		}
	}
	return out
}

// overlap reads an overlap: how the earlier holder's key ended before the
// later one took the lock.
func (r *reading) overlap(x model.Violation) (NextStep, bool) {
	if len(x.Processes) < 2 {
		return NextStep{}, false
	}
	a, b := r.proc(x.Processes[0]), r.proc(x.Processes[1])
	ha, oka := r.holdAt(a, x.From)
	hb, okb := r.holdAt(b, x.From)
	if !oka || !okb {
		return NextStep{}, false
	}
	if hb.From < ha.From {
		a, b, ha, hb = b, a, hb, ha
	}
	early, late := r.name(a), r.name(b)
	var gone []*life
	for _, l := range r.leaseOf(ha) {
		if l.end != endOpen && l.at <= hb.From {
			gone = append(gone, l)
		}
	}
	pick := func(how versionEnd, other bool) *life {
		for _, l := range gone {
			if l.end == how && (!other || l.by != a) {
				return l
			}
		}
		return nil
	}
	took := fmt.Sprintf("%s took the lock at %s while %s still held it", late, at(hb.From), early)
	lifetime := r.o.Prepared.Lifetime()
	if l := pick(endDeleted, true); l != nil {
		in, try := "", []string{tryOwnRelease}
		if l.call != "" {
			in = " in its " + l.call
		}
		if l.call == "acquire" {
			try = []string{tryTakeOver}
		}
		return NextStep{Rule: "deleted-other-holder",
			Means: fmt.Sprintf("%s's %s at %s%s deleted %s's key, a lock it did not hold; %s",
				r.name(l.by), l.cmd, at(l.at), in, early, took),
			Try: try}, true
	}
	if l := pick(endOverwritten, true); l != nil && (lifetime <= 0 || l.at-l.begin < sim.Time(lifetime)) {
		// Taken over before the lock's own lifetime ran out: the taker
		// judged a live lock expired.
		means := fmt.Sprintf("%s's %s at %s wrote over %s's key %s after %s took it, within the lock's %s "+
			"lifetime: %s judged a live lock expired", r.name(l.by), l.cmd, at(l.at), early, at(l.at-l.begin),
			early, lifetime, r.name(l.by))
		if off := r.clockOffset(l.by); off != "" {
			means += " by its clock, which " + off
		}
		return NextStep{Rule: "took-over-live-lock", Means: means + "; " + took, Try: []string{tryServerTTL}}, true
	}
	if l := pick(endLost, false); l != nil {
		try := []string{tryPersist, tryQuorum}
		if strings.Contains(l.cmd, "failover") {
			try = []string{tryWait, tryQuorum}
		}
		return NextStep{Rule: "key-lost-by-fault",
			Means: fmt.Sprintf("a %s at %s lost %s's key on node%d; %s", l.cmd, at(l.at), early, l.kv.Lane, took),
			Try:   try}, true
	}
	var lapse *life
	var lapsedAt sim.Time
	for _, l := range gone {
		switch {
		case l.end == endExpired:
			lapse, lapsedAt = l, l.at
		case l.end == endOverwritten && lifetime > 0:
			lapse, lapsedAt = l, l.begin+sim.Time(lifetime) // its timestamp ran out, then a taker wrote over it
		default:
			continue
		}
		break
	}
	if lapse == nil {
		return NextStep{}, false
	}
	if lapse.jumped > 0 && lapse.end == endExpired {
		return NextStep{Rule: "key-lost-by-fault",
			Means: fmt.Sprintf("node%d's clock jumped at %s and %s's key expired there early, at %s; %s",
				lapse.kv.Lane, at(lapse.jumped), early, at(lapsedAt), took),
			Try: []string{"keep the nodes' clocks from jumping (slew them, never step them)", tryFencing}}, true
	}
	for _, p := range r.pauses[a] {
		if p[0] <= lapsedAt && lapsedAt < p[1] {
			return NextStep{Rule: "lease-lapsed-in-pause",
				Means: fmt.Sprintf("%s's lease ran out at %s, during %s's %s pause from %s; %s",
					early, at(lapsedAt), early, at(p[1]-p[0]), at(p[0]), took),
				Try: []string{tryFencing, tryLongerTTL + " (a renewal pauses with its process: it cannot help here)"}}, true
		}
	}
	return NextStep{Rule: "lease-lapsed-in-work",
		Means: fmt.Sprintf("%s's lease ran out at %s while %s was still working (it held the lock until %s); %s",
			early, at(lapsedAt), early, at(ha.To), took),
		Try: []string{tryRenewal, tryLongerTTL, tryFencing}}, true
}

// clockOffset says how process p's clock differs from true time, as the run
// set it up: "runs 61s ahead", or "".
func (r *reading) clockOffset(p int) string {
	procs := r.o.Prepared.Config.Procs
	if p < 0 || p >= len(procs) {
		return ""
	}
	c := procs[p].Clock
	switch {
	case c.Offset > 0:
		return "runs " + time.Duration(c.Offset).String() + " ahead"
	case c.Offset < 0:
		return "runs " + time.Duration(-c.Offset).String() + " behind"
	case c.DriftPPM != 0:
		return fmt.Sprintf("drifts %d ppm", c.DriftPPM)
	}
	return ""
}

// stuck reads a stuck window: who wrote the key nobody could take, and why
// nothing freed it.
func (r *reading) stuck(x model.Violation) (NextStep, bool) {
	var key *life
	for k := range r.lives {
		l := &r.lives[k]
		if l.kv.Lane < r.h.Nodes && l.begin <= x.To && (l.end == endOpen || l.at > x.To) {
			key = l
		}
	}
	if key == nil || key.kv.Writer < 0 {
		return NextStep{}, false
	}
	w := key.kv.Writer
	who := r.name(w)
	held, fate := r.fate(w, key.kv.Event)
	ttl := "no TTL"
	if key.expires >= 0 {
		ttl = "a TTL to " + at(key.expires)
	}
	if !held && fate == "" {
		return NextStep{Rule: "waiter-rewrites-key",
			Means: fmt.Sprintf("the key nobody could take was written at %s by %s in a try that failed: a fresh "+
				"lock that nobody holds (%s)", at(key.begin), who, ttl),
			Try: []string{"a try that fails must leave the key as it found it: write only when the write takes " +
				"the lock (SET NX, or one script that checks and writes)", tryOneCommand}}, true
	}
	if key.expires >= 0 {
		return NextStep{}, false
	}
	return NextStep{Rule: "key-without-ttl",
		Means: fmt.Sprintf("the key %s wrote at %s has no TTL, and %s: nothing frees a key its writer leaves behind",
			who, at(key.begin), fate),
		Try: []string{tryOneCommand}}, true
}

// fate is what became of process w after its write at event k: whether
// the Acquire that wrote it took the lock, and how w then left it ("" for a
// try that failed).
func (r *reading) fate(w, k int) (held bool, fate string) {
	who := r.name(w)
	for _, e := range r.h.Events[k:] {
		if e.Proc != w {
			continue
		}
		if e.Kind == sim.KindFault && e.Fault.EndsLife() {
			return false, who + " crashed before its Acquire returned"
		}
		if e.Kind != sim.KindLockReturn {
			continue
		}
		switch {
		case e.Err != "":
			return false, who + "'s Acquire failed (" + e.Err + ") after the write ran, so " + who + " never knew it held the lock"
		case !e.Held:
			return false, ""
		}
		for _, h := range r.holds {
			if h.Proc == w && h.From >= e.At {
				return true, who + " " + map[string]string{"crashed": "crashed holding it", "stopped": "stopped holding it",
					"released": "released it", "open": "held it to the end", "lost": "lost it"}[h.End]
			}
		}
		return true, who + " held it"
	}
	return false, "" // still trying when the run ended: the write was a try's, not a hold's
}

// at is a true time as the reports round it: to the millisecond.
func at(t sim.Time) string {
	d := time.Duration(t)
	if d >= time.Millisecond {
		d = d.Round(time.Millisecond)
	}
	return d.String()
}
