package sim

import "time"

// A fault kind is one entry of faultSpecs: its name, what it acts on, the
// facts the checkers and the reports read (FaultKind's methods), and how
// Run applies it. The layers above keep their part of the kind in a table
// keyed by FaultKind (scenarios/faultkinds.go: file field, validation;
// explore/gen/faultkinds.go: generation; model/faultkinds.go: wording;
// realtime/engine/faultkinds.go: how it fires in wall-clock time), and each layer's TestFaultKindsComplete fails when a kind has
// no entry there. The reports keep no table: they draw by the facts
// (reports/faultkinds.go). The docs/development.md's "Adding a fault kind"
// lists the steps.

// FaultKind names a fault. The numbers are hashed into digests: a new kind
// takes the next number, and no number is ever reused or renumbered.
type FaultKind uint8

const (
	FaultPause       FaultKind = 1 // process stops for Dur
	FaultCrash       FaultKind = 2 // process dies at its next yield
	FaultRestart     FaultKind = 3 // a crashed process starts again, fresh (history only)
	FaultProcJump    FaultKind = 4 // process clock jumps by Dur
	FaultNodeJump    FaultKind = 5 // node clock jumps by Dur
	FaultNodeRestart FaultKind = 6 // node loses all data; down for Dur
	FaultFailover    FaultKind = 7 // node's primary lost, a replica promoted after Dur
	FaultLoseRequest FaultKind = 8 // the process's next request is lost; it times out after Dur
	FaultLoseReply   FaultKind = 9 // the process's next reply is lost; it times out after Dur
)

// FaultDogPause stops the process's watchdog for Dur; the holder works on.
const FaultDogPause FaultKind = 10

// FaultTarget is what a fault acts on.
type FaultTarget uint8

const (
	TargetProc FaultTarget = iota + 1 // Fault.Proc, Event.Proc
	TargetNode                        // Fault.Node, Event.Node
)

// faultSpec is one fault kind as the engine knows it.
type faultSpec struct {
	name   string
	target FaultTarget
	// planned: a Config may plan it; a kind that is not planned is only
	// recorded by the engine (a restart follows a crash's Dur).
	planned bool
	// signed: Dur may be negative (a clock jumps backwards).
	signed bool
	// Facts the checkers read instead of naming kinds.
	endsLife  bool // the process's life is over at the event
	pauses    bool // the process is stopped for Dur
	losesData bool // the node forgets its keys (persist.go) and is down for Dur
	// Facts the reports draw by, so that they name no kind.
	crashes      bool   // the process is dead until a restart (endsLife too)
	shiftsClock  bool   // the target's clock moves by Dur
	promotes     bool   // a replica may be promoted: the event's Value is its lane, 0 for none
	losesCommand bool   // the process's next request or reply is lost
	mark         string // what a lane's mark at the event says first; "" for no mark
	// before, when set, runs in Run before the event is recorded and
	// completes it (a node restart: what the node kept, the delay; a
	// failover: the lane it promotes and the key there).
	before func(r *runner, f *Fault, ev *Event)
	// apply fires a planned fault in Run, after the event is recorded;
	// a process target is live.
	apply func(r *runner, f *Fault)
}

var faultSpecs = [...]faultSpec{
	FaultPause: {name: "pause", target: TargetProc, planned: true, pauses: true,
		apply: func(r *runner, f *Fault) {
			p := r.procs[f.Proc]
			p.pausedUntil = max(p.pausedUntil, r.now+Time(f.Dur))
		}},
	FaultCrash: {name: "crash", target: TargetProc, planned: true, endsLife: true, crashes: true, mark: "crash",
		apply: func(r *runner, f *Fault) { r.crash(r.procs[f.Proc], f.Dur) }},
	FaultRestart: {name: "restart", target: TargetProc, endsLife: true, mark: "restart as a fresh process"},
	FaultProcJump: {name: "proc-clock-jump", target: TargetProc, planned: true, signed: true,
		shiftsClock: true, mark: "clock jumps",
		apply: func(r *runner, f *Fault) { r.procs[f.Proc].clock.jumped += f.Dur }},
	FaultNodeJump: {name: "node-clock-jump", target: TargetNode, planned: true, signed: true,
		shiftsClock: true, mark: "clock jumps",
		apply: func(r *runner, f *Fault) { r.nodes[f.Node].clock.jumped += f.Dur }},
	FaultNodeRestart: {name: "node-restart", target: TargetNode, planned: true, losesData: true,
		mark:   "restart",
		before: restartNode,
		apply: func(r *runner, f *Fault) {
			// A restart while the node is still down keeps the later end:
			// the model counts the union of both outages.
			r.nodes[f.Node].downUntil = max(r.nodes[f.Node].downUntil, r.now+Time(r.cfg.downFor(f)))
		}},
	// A failover (replication.go) is down for Dur and loses what no replica
	// has: the checkers count it as losing data, which makes its next write
	// of the key a new version and its Dur an outage.
	FaultFailover: {name: "failover", target: TargetNode, planned: true, losesData: true,
		promotes: true, mark: "failover",
		before: failoverEvent,
		apply:  func(r *runner, f *Fault) { r.failover(f.Node, f.Dur) }},
	// A lost request or reply (network.go: send) is what the network's
	// random loss does, but chosen: the process's next command (the one it
	// is sending, at a send point) never reaches its node, or runs and its
	// reply never comes back. The client times out after Dur, or the
	// network's timeout when Dur is 0 (neither: it waits for ever, as for a
	// random loss). The network's draws for that command are made as
	// always, so no later latency changes.
	FaultLoseRequest: {name: "lose-request", target: TargetProc, planned: true,
		losesCommand: true, mark: "its next request is lost",
		apply: func(r *runner, f *Fault) { r.procs[f.Proc].lose = lossPlan{FaultLoseRequest, f.Dur, r.firing} }},
	FaultLoseReply: {name: "lose-reply", target: TargetProc, planned: true,
		losesCommand: true, mark: "its next reply is lost",
		apply: func(r *runner, f *Fault) { r.procs[f.Proc].lose = lossPlan{FaultLoseReply, f.Dur, r.firing} }},
	// The watchdog alone stops (a renewal thread starved or blocked while
	// the holder's own thread runs on): its renewals wait for the pause's
	// end, its holder does not. A watchdog started during the pause waits
	// too. Not Pauses: the process itself is not stopped.
	FaultDogPause: {name: "watchdog-pause", target: TargetProc, planned: true, mark: "its watchdog stops",
		apply: func(r *runner, f *Fault) {
			p := r.procs[f.Proc]
			p.dogPausedUntil = max(p.dogPausedUntil, r.now+Time(f.Dur))
		}},
}

// lossPlan is a planned loss waiting for its process's next command: kind
// FaultLoseRequest or FaultLoseReply (0: none), the client's wait, and the
// fault of the plan that made it (FaultUse).
type lossPlan struct {
	kind    FaultKind
	timeout time.Duration
	fault   int
}

// FaultKinds lists every fault kind in number order.
func FaultKinds() []FaultKind {
	var out []FaultKind
	for k := range faultSpecs {
		if faultSpecs[k].name != "" {
			out = append(out, FaultKind(k))
		}
	}
	return out
}

func (f FaultKind) spec() *faultSpec {
	if int(f) < len(faultSpecs) {
		return &faultSpecs[f]
	}
	return &faultSpec{}
}

func (f FaultKind) String() string {
	if s := f.spec(); s.name != "" {
		return s.name
	}
	return "unknown"
}

// Target is what the fault acts on; 0 for an unknown kind.
func (f FaultKind) Target() FaultTarget { return f.spec().target }

// Planned reports whether a Config may plan the fault (a restart is only
// recorded, after a crash).
func (f FaultKind) Planned() bool { return f.spec().planned }

// EndsLife reports whether the process's life is over at the fault.
func (f FaultKind) EndsLife() bool { return f.spec().endsLife }

// Pauses reports whether the process is stopped for the event's Dur.
func (f FaultKind) Pauses() bool { return f.spec().pauses }

// LosesData reports whether the node forgets its keys and is down for the
// event's Dur: every key, unless the node persists them (persist.go), when
// the event's Key is the watched key as the restart left it.
func (f FaultKind) LosesData() bool { return f.spec().losesData }

// Crashes reports whether the process is dead from the event until a
// restart starts it again (a restart ends a life too, but starts the next).
func (f FaultKind) Crashes() bool { return f.spec().crashes }

// ShiftsClock reports whether the target's clock moves by the event's Dur
// (negative: backwards).
func (f FaultKind) ShiftsClock() bool { return f.spec().shiftsClock }

// Promotes reports whether the fault may promote one of the node's
// replicas: the event's Value is the promoted replica's lane, 0 when the
// node had none (an outage only, the key stays).
func (f FaultKind) Promotes() bool { return f.spec().promotes }

// LosesCommand reports whether the process's next request or reply is
// lost; the client waits the event's Dur (0: the network's timeout).
func (f FaultKind) LosesCommand() bool { return f.spec().losesCommand }

// Mark is the words a drawing of the event starts with ("crash", "clock
// jumps"), which the reports complete from the event; "" when the kind
// draws no mark (a pause draws a bar instead).
func (f FaultKind) Mark() string { return f.spec().mark }
