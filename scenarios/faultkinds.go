package scenarios

import (
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// Fault kinds as written in files.
const (
	FaultPause       = "pause"
	FaultCrash       = "crash"
	FaultClockJump   = "clock-jump"
	FaultNodeRestart = "node-restart"
	FaultFailover    = "failover"
	FaultLoseRequest = "lose-request"
	FaultLoseReply   = "lose-reply"
	FaultDogPause    = "watchdog-pause"
)

// fileFault is the scenarios' part of a fault kind (sim/faultkinds.go says
// what the engine does with it, explore/gen/faultkinds.go how the random
// generator draws it): the kind as written in a file, which fields it
// takes, the sim.Fault it builds, and what it does to the TTL's
// assumptions. Validation, Prepare and InsideTTL read this table and name
// no kind themselves.
type fileFault struct {
	name   string
	target fileTarget
	// The length fields it takes; validation refuses the others.
	hasFor, hasRestartAfter, hasBy bool
	// lost: a lost request or reply, which needs on: (the command it
	// loses is the client's next one) and a timeout to end the client's
	// wait: for:, or the network's.
	lost bool
	// build is the engine's kind and Dur for f (f.Node set when it names one).
	build func(f *Fault) (sim.FaultKind, time.Duration)
	// outsideTTL, when set, says why f breaks a TTL lock's assumptions
	// ("" if it does not). A kind that pauses (sim.FaultKind.Pauses)
	// counts its Dur against the TTL instead.
	outsideTTL func(f *Fault) string
}

// fileTarget is what a file's fault names.
type fileTarget uint8

const (
	targetClient fileTarget = iota + 1
	targetNode
	targetEither // a node when the fault names one, else a client
)

// fileFaults lists the kinds in the order validation names them; a new
// kind goes last.
var fileFaults = []fileFault{
	{name: FaultPause, target: targetClient, hasFor: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultPause, f.For.D() },
	},
	{name: FaultCrash, target: targetClient, hasRestartAfter: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultCrash, f.RestartAfter.D() },
	},
	{name: FaultClockJump, target: targetEither, hasBy: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) {
			if f.Node != nil {
				return sim.FaultNodeJump, f.By.D()
			}
			return sim.FaultProcJump, f.By.D()
		},
		outsideTTL: func(f *Fault) string {
			if f.Node != nil {
				return "a node's clock jump moves the lock's expiry"
			}
			return ""
		},
	},
	{name: FaultNodeRestart, target: targetNode, hasFor: true,
		build:      func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultNodeRestart, f.For.D() },
		outsideTTL: func(*Fault) string { return "a node restart loses the lock" },
	},
	// For is the detection delay: the node answers nothing until a replica
	// is promoted.
	{name: FaultFailover, target: targetNode, hasFor: true,
		build:      func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultFailover, f.For.D() },
		outsideTTL: func(*Fault) string { return "a failover loses what the replica had not received" },
	},
	// For is how long the client waits for the lost command's reply before
	// it times out (0: network.timeout). What a timeout does to a lock is
	// the lock's own business, as for the network's random losses: no
	// assumption of the TTL is broken.
	{name: FaultLoseRequest, target: targetClient, hasFor: true, lost: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultLoseRequest, f.For.D() },
	},
	{name: FaultLoseReply, target: targetClient, hasFor: true, lost: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultLoseReply, f.For.D() },
	},
	// The client's watchdog alone stops for For; the holder works on. A
	// lock without a watchdog is not touched: no assumption of the TTL is
	// broken.
	{name: FaultDogPause, target: targetClient, hasFor: true,
		build: func(f *Fault) (sim.FaultKind, time.Duration) { return sim.FaultDogPause, f.For.D() },
	},
}

// fileFaultOf is the kind named name, or nil.
func fileFaultOf(name string) *fileFault {
	for i := range fileFaults {
		if fileFaults[i].name == name {
			return &fileFaults[i]
		}
	}
	return nil
}

// onNode reports whether f names a node as its target.
func (k *fileFault) onNode(f *Fault) bool {
	return k.target == targetNode || (k.target == targetEither && f.Node != nil)
}

// FaultKinds lists the kinds a file may write, in order: validation names
// them, and explore/gen checks that it draws each one.
func FaultKinds() []string {
	out := make([]string, len(fileFaults))
	for i, k := range fileFaults {
		out[i] = k.name
	}
	return out
}

// OutsideTTL reports whether a fault of this kind, aimed at a node or at a
// client, always breaks a TTL lock's assumptions (InsideTTL refuses it):
// the generator never draws it when it keeps inside the TTL.
func OutsideTTL(kind string, onNode bool) bool {
	k := fileFaultOf(kind)
	if k == nil || k.outsideTTL == nil {
		return false
	}
	f := Fault{Kind: kind}
	if onNode {
		f.Node = new(int)
	}
	return k.outsideTTL(&f) != ""
}

// takersOf names the kinds that take a field, for "only a … has …".
func takersOf(has func(k *fileFault) bool) string {
	var out []string
	for i := range fileFaults {
		if has(&fileFaults[i]) {
			out = append(out, fileFaults[i].name)
		}
	}
	return strings.Join(out, " or a ")
}
