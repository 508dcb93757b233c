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
	evLibrary                     // a paused process's client library may go on (bubble.go)
)

// event is one entry of the scheduler's queue. Ties on at are broken by seq,
// the order of scheduling, so the order never depends on anything but the run.
type event struct {
	at    Time
	seq   uint64
	kind  evKind
	sub   bool // the event is the process's watchdog's, not its main coroutine's
	proc  int32
	inc   int32 // incarnation the event belongs to; stale ones are dropped
	fault int32
	req   *request
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

func (q *queue) push(e event) {
	q.seq++
	e.seq = q.seq
	q.items = append(q.items, e)
	i := len(q.items) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !q.items[i].before(&q.items[parent]) {
			break
		}
		q.items[i], q.items[parent] = q.items[parent], q.items[i]
		i = parent
	}
}

func (q *queue) len() int { return len(q.items) }

// peek returns the earliest event; the queue must not be empty.
func (q *queue) peek() *event { return &q.items[0] }

func (q *queue) pop() event {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items[last] = event{}
	q.items = q.items[:last]
	i := 0
	for {
		l, r, small := 2*i+1, 2*i+2, i
		if l < last && q.items[l].before(&q.items[small]) {
			small = l
		}
		if r < last && q.items[r].before(&q.items[small]) {
			small = r
		}
		if small == i {
			return top
		}
		q.items[i], q.items[small] = q.items[small], q.items[i]
		i = small
	}
}
