package sim

// evKind is what a scheduled event does when it fires.
type evKind uint8

const (
	evStart     evKind = iota + 1 // a process (or a fresh incarnation) starts
	evBegin                       // a process's pending effect begins (after any pause)
	evResume                      // a process continues (sleep over, reply delivered)
	evArrive                      // a request reaches its node
	evReply                       // the client gets its reply, or its timeout
	evFault                       // a timed fault fires
	evReplicate                   // a replica applies its next stream entry (proc: node, fault: lane, inc: epoch)
	evUnblock                     // a parked blocking pop's own timeout passes (blocking.go)
	evLibrary                     // a paused process's client library may go on (libhost.go)
	evAwait                       // a coroutine parked by Host.Await may go on (fault: its await's number)
)

// event is one entry of the scheduler's queue. Ties on at are broken by seq,
// the order of scheduling, so the order never depends on anything but the run.
// It holds no pointer (its request is a reference into the run's memory):
// the heap moves its entries with no write barrier, and the collector has
// nothing in it to scan.
type event struct {
	at    Time
	seq   uint64
	kind  evKind
	sub   bool // the event is the process's watchdog's, not its main coroutine's
	proc  int32
	inc   int32 // incarnation the event belongs to; stale ones are dropped
	fault int32
	req   reqRef
}

func (e *event) before(o *event) bool {
	return e.at < o.at || (e.at == o.at && e.seq < o.seq)
}

// queue is a binary min-heap of events, by value: no interface boxing and no
// allocation per event once the slice has grown.
type queue struct {
	items []event
	seq   uint64
}

// push and pop move elements into a hole rather than swapping them: the
// same heap as swaps leave, with half the copies.
func (q *queue) push(e event) {
	q.seq++
	e.seq = q.seq
	q.items = append(q.items, event{})
	i := len(q.items) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !e.before(&q.items[parent]) {
			break
		}
		q.items[i] = q.items[parent]
		i = parent
	}
	q.items[i] = e
}

func (q *queue) len() int { return len(q.items) }

// peek returns the earliest event; the queue must not be empty.
func (q *queue) peek() *event { return &q.items[0] }

func (q *queue) pop() event {
	top := q.items[0]
	last := len(q.items) - 1
	e := q.items[last]
	q.items = q.items[:last] // nothing to clear: an event holds no pointer
	if last == 0 {
		return top
	}
	// e sinks from the root: each step lifts the earlier child into the
	// hole while it comes before e (at and seq order events totally).
	i := 0
	for {
		c := 2*i + 1
		if c >= last {
			break
		}
		if r := c + 1; r < last && q.items[r].before(&q.items[c]) {
			c = r
		}
		if !q.items[c].before(&e) {
			break
		}
		q.items[i] = q.items[c]
		i = c
	}
	q.items[i] = e
	return top
}
