package model

import "github.com/locksim/locksim/sim"

// Hold is one process's hold of the lock exactly as the checkers judge it:
// from its held Acquire return to its Release call, its crash or restart,
// its process's end, or still open when the run ended. Reports draw these
// rather than work holds out again.
type Hold struct {
	Proc      int
	From, To  sim.Time // To is the end of the run (the last event) when open
	FromEvent int      // index in History.Events of the held LockReturn
	ToEvent   int      // index of the event that ended it; -1 when open
	End       string   // released, crashed, stopped, lost (a failed extend) or open
	Token     string
	Fence     int64
	_         struct{}
}

// Holds are the holds of a history, in the order they began.
func Holds(h *sim.History) []Hold {
	t := extract(h)
	out := make([]Hold, len(t.holds))
	for k, x := range t.holds {
		to := x.to
		if x.end == endOpen {
			to = t.end
		}
		out[k] = Hold{Proc: x.proc, From: x.from, To: to, FromEvent: x.fromIdx, ToEvent: x.toIdx, End: x.end.String(),
			Token: t.token(&x), Fence: x.fence}
	}
	return out
}
