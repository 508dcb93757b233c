package sim

import (
	"time"

	"github.com/locksim/locksim/fault"
)

// faultApply is how Run applies one fault kind. What a kind is (its
// target, its facts, its words) is the fault package's table; this is the
// simulator's column of it. fault's TestEveryKindComplete fails when a kind
// a plan may hold has no apply here.
type faultApply struct {
	// before, when set, runs in Run before the event is recorded and
	// completes it (a node restart: what the node kept, the delay; a
	// failover: the lane it promotes and the key there).
	before func(r *runner, f *Fault, ev *Event)
	// apply fires a planned fault in Run, after the event is recorded;
	// a client target is live.
	apply func(r *runner, f *Fault)
}

// faultApplies is the simulator's table: every kind a plan may hold. A
// respawn is only recorded (a crash's Dur starts it), so it has no entry.
var faultApplies = [...]faultApply{
	fault.Pause: {apply: func(r *runner, f *Fault) {
		p := r.procs[f.Proc]
		p.pausedUntil = max(p.pausedUntil, r.now+Time(f.Dur))
	}},
	fault.Crash:      {apply: func(r *runner, f *Fault) { r.crash(r.procs[f.Proc], f.Dur) }},
	fault.ClientJump: {apply: func(r *runner, f *Fault) { r.procs[f.Proc].clock.jumped += f.Dur }},
	fault.NodeJump:   {apply: func(r *runner, f *Fault) { r.nodes[f.Node].clock.jumped += f.Dur }},
	fault.NodeRestart: {before: restartNode, apply: func(r *runner, f *Fault) {
		// A restart while the node is still down keeps the later end:
		// the model counts the union of both outages.
		r.nodes[f.Node].downUntil = max(r.nodes[f.Node].downUntil, r.now+Time(r.cfg.downFor(f)))
	}},
	// A failover (replication.go) is down for Dur and loses what no replica
	// has.
	fault.Failover: {before: failoverEvent, apply: func(r *runner, f *Fault) { r.failover(f.Node, f.Dur) }},
	// A lost request or reply (network.go: send) is what the network's
	// random loss does, but chosen: the client's next command (the one it
	// is sending, at a send point) never reaches its node, or runs and its
	// reply never comes back. The client times out after Dur, or the
	// network's timeout when Dur is 0 (neither: it waits for ever, as for a
	// random loss). The network's draws for that command are made as
	// always, so no later latency changes.
	fault.LoseRequest: {apply: func(r *runner, f *Fault) { r.procs[f.Proc].lose = lossPlan{fault.LoseRequest, f.Dur, r.firing} }},
	fault.LoseReply:   {apply: func(r *runner, f *Fault) { r.procs[f.Proc].lose = lossPlan{fault.LoseReply, f.Dur, r.firing} }},
	// The watchdog alone stops (a renewal thread starved or blocked while
	// the holder's own thread runs on): its renewals wait for the pause's
	// end, its holder does not. A watchdog started during the pause waits
	// too.
	fault.WatchdogPause: {apply: func(r *runner, f *Fault) {
		p := r.procs[f.Proc]
		p.dogPausedUntil = max(p.dogPausedUntil, r.now+Time(f.Dur))
	}},
}

// applyOf is kind k's entry; the zero entry (no apply) for a kind Run
// cannot apply.
func applyOf(k fault.Kind) faultApply {
	if int(k) < len(faultApplies) {
		return faultApplies[k]
	}
	return faultApply{}
}

// Applies reports whether Run can apply a planned fault of kind k.
func Applies(k fault.Kind) bool { return applyOf(k).apply != nil }

// lossPlan is a planned loss waiting for its client's next command: kind
// fault.LoseRequest or fault.LoseReply (0: none), the client's wait, and
// the fault of the plan that made it (FaultUse).
type lossPlan struct {
	kind    fault.Kind
	timeout time.Duration
	fault   int
}
