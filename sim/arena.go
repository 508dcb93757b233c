package sim

// A run makes a request and a copy of the arguments for every command. Both
// live as long as the run (the history keeps the arguments), so they are cut
// from chunks: two allocations per command were a sixth of a standard run's.
// A chunk is never reused, so nothing handed out is ever overwritten.

const arenaChunk = 64

// arena hands out requests and argument lists for one run.
type arena struct {
	reqs []request
	strs []string
}

// request returns a zeroed request.
func (a *arena) request() *request {
	if len(a.reqs) == 0 {
		a.reqs = make([]request, arenaChunk)
	}
	q := &a.reqs[0]
	a.reqs = a.reqs[1:]
	return q
}

// keep returns a copy of args whose capacity ends at its length, so that an
// append to it cannot reach the next list.
func (a *arena) keep(args []string) []string {
	n := len(args)
	if n > len(a.strs) {
		if n > arenaChunk/4 {
			return append([]string(nil), args...)
		}
		a.strs = make([]string, arenaChunk)
	}
	out := a.strs[:n:n]
	a.strs = a.strs[n:]
	copy(out, args)
	return out
}
