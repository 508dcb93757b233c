package sim

import (
	"unsafe"

	"github.com/locksim/locksim/sim/node"
)

// MaxHistoryBytes bounds what a run's history holds, counted, not measured:
// each event's fixed size plus the bytes of the strings it carries (command
// arguments, replies, tokens, errors, the watched key's value). The event cap
// alone cannot bound memory: one GET of a 64 MiB value records 64 MiB, and a
// million of them would not fit any machine. A run that reaches the bound
// stops there, cut, like one that reaches the event cap. 512 MiB holds the
// largest history the event cap allows when events are ordinary (a million
// events of a SET NX PX lock count about 250 MB), so ordinary runs never meet it.
const MaxHistoryBytes = 512 << 20

// eventSize is what each event counts besides its strings: 240 bytes, the
// size Event had when the bound was set. It is a constant, not the struct's
// size, so that where a run is cut does not move when Event's layout does.
const eventSize = 240

// eventBytes is what recording e counts against MaxHistoryBytes.
func eventBytes(e *Event) int { return fixedBytes(e) + argsBytes(e.Args) }

// fixedBytes is what e counts besides its arguments: a command's two events
// share one argument list, whose count its request keeps (argsBytes).
func fixedBytes(e *Event) int {
	n := eventSize + len(e.Err) + len(e.Token) + len(e.Key.Value) + len(e.Reply.Str)
	if len(e.Reply.Elems) > 0 {
		n += replyBytes(e.Reply) - len(e.Reply.Str)
	}
	return n
}

// argsBytes is what an event's argument list counts. A script's text
// (EVAL's first argument) is left out: it is one string of the algorithm's,
// shared by every event that sends it, not a copy per event.
func argsBytes(args []string) int {
	n := 0
	for _, a := range args {
		n += len(a) + 16
	}
	if len(args) > 1 && (node.IsName(args[0], "EVAL") || node.IsName(args[0], "EVAL_RO")) {
		n -= len(args[1]) + 16
	}
	return n
}

func replyBytes(r Reply) int {
	n := len(r.Str)
	for _, e := range r.Elems {
		n += int(unsafe.Sizeof(e)) + replyBytes(e)
	}
	return n
}
