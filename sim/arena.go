package sim

import "sync"

// A run makes a request and a copy of the arguments for every command, and
// two or more history events. All live as long as the run (the history keeps
// the arguments), so requests and argument lists are cut from chunks, and
// the history starts in one buffer sized for the run: per-command allocations
// were a sixth of a standard run's.
//
// A search judges a run and keeps nothing of it, so it gives the run's
// memory back (Result.Release) and the next run reuses it: no allocation,
// clearing or collection for what the last run already paid for. A chunk or
// buffer is reused only after that release, so nothing handed out in a run
// is overwritten while its result is in use.

const arenaChunk = 64

// memory is what one run allocates in proportion to its length.
type memory struct {
	events []Event // the history's first buffer, empty when taken
	queue  []event // the scheduler's heap, empty when taken (Run keeps what it grew to)
	reqs   chunks[request]
	strs   chunks[string]
}

// Bounds on what a released run may leave for the next: a run longer than
// this gives its memory to the collector instead, so that one huge run does
// not pin its history for the rest of a search. They are set above the
// runs a search meets often: a stuck run's waiters poll until the run's end,
// up to 110,000 events a run in php-set-get's crash cell of the matrix, and
// one such run dropped made every later one allocate its history in chunks
// and join them again (a quarter of that cell's CPU under Go's default
// collector). 2^17 events are 29 MB.
const (
	maxKeptEvents = 1 << 17
	maxKeptChunks = 1 << 12
)

var memoryPool sync.Pool

// takeMemory returns a released run's memory, or new memory, with room for
// at least events history events.
func takeMemory(events int) *memory {
	m, ok := memoryPool.Get().(*memory)
	if !ok || freshNodes {
		m = &memory{}
	}
	if cap(m.events) < events {
		m.events = make([]Event, 0, events)
	}
	m.reqs.reuse()
	m.strs.reuse()
	return m
}

// release keeps m for a later run if it is small enough; history is the
// run's whole history, which may have outgrown m.events.
func (m *memory) release(history []Event) {
	if cap(history) > cap(m.events) {
		m.events = history
	}
	if cap(m.events) > maxKeptEvents || cap(m.queue) > maxKeptEvents || len(m.reqs.all)+len(m.strs.all) > maxKeptChunks {
		return
	}
	m.events = m.events[:0]
	memoryPool.Put(m)
}

// chunks hands out short slices cut from chunks of arenaChunk elements; the
// chunks stay with it for the next run.
type chunks[T any] struct {
	all  [][]T // every chunk made so far
	used int   // all[:used] are cut from in this run
	cur  []T   // what is left of all[used-1]
}

// reuse starts cutting from the first chunk again.
func (c *chunks[T]) reuse() { c.used, c.cur = 0, nil }

// take returns n elements (n <= arenaChunk), as left by their last use,
// with capacity n: an append to them cannot reach the next ones.
func (c *chunks[T]) take(n int) []T {
	if n > len(c.cur) {
		if c.used == len(c.all) {
			c.all = append(c.all, make([]T, arenaChunk))
		}
		c.cur = c.all[c.used]
		c.used++
	}
	out := c.cur[:n:n]
	c.cur = c.cur[n:]
	return out
}

// reqRef names a request of the run's memory (memory.request) for the
// scheduler's queue: one more than its index; 0 is none.
type reqRef int32

// request returns a request to set whole (it holds what its last use left;
// a request is 208 bytes, set where it lies, not copied), and its ref.
func (m *memory) request() (*request, reqRef) {
	q := &m.reqs.take(1)[0]
	// take cut q from chunk used-1, just before what is left of it.
	return q, reqRef((m.reqs.used-1)*arenaChunk + arenaChunk - len(m.reqs.cur))
}

// req is the request ref names.
func (m *memory) req(ref reqRef) *request {
	i := int(ref) - 1
	return &m.reqs.all[i/arenaChunk][i%arenaChunk]
}

// keep returns a copy of args whose capacity ends at its length.
func (m *memory) keep(args []string) []string {
	var out []string
	if len(args) > arenaChunk/4 {
		out = make([]string, len(args)) // append would round the capacity up
	} else {
		out = m.strs.take(len(args))
	}
	copy(out, args)
	return out
}
