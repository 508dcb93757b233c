package prove

import (
	"sync"
	"sync/atomic"
)

// The walk's workers. The walk hands schedules to them in canonical order
// and goes on choosing the next ones (children, pruning by state) while
// they run: that choosing is the walk's alone, since pruning's decisions
// follow canonical order, and at three clients it was 5 s of a 64 s pass
// during which one core waited. The schedules the pass judges are not
// waited for where they are handed over: what the walk owes the answer
// (their verdicts, the counts of the schedules it pruned) is queued in
// canonical order and paid in that order (settle), so every count, verdict
// and first schedule is the one a walk that waited would give.
//
// Only what the walk decides from a verdict waits for it: extending an
// outside schedule while the outside answer may still settle (extends),
// and a pass's end. An inside unsafe schedule ends the search when it is
// paid; what the walk chose after it is dropped unpaid.

// group is schedules handed to the workers together: done is closed once
// every one of them that runs has run.
type group struct {
	nodes []*node // all of them, in canonical order, judged or not
	last  bool    // nothing will extend them in this pass (Prover.run)
	left  atomic.Int32
	done  chan struct{}
}

type job struct {
	n *node
	g *group
}

// owed is one entry of what the walk owes the answer: a judged group's
// verdicts, or a count of pruned schedules.
type owed struct {
	g      *group
	pruned int64
}

const (
	chunk = 256 // schedules handed over at once
	// maxOwed bounds the judged schedules handed over and not yet paid,
	// so that the walk runs no further ahead than this.
	maxOwed = 8 * chunk
)

// pool is the workers and what the walk owes.
type pool struct {
	jobs    chan job
	wg      sync.WaitGroup
	stop    atomic.Bool // the search ended: the jobs left are not run
	mu      sync.Mutex
	err     error // the first run's error
	owed    []owed
	owedLen int // judged schedules in owed
}

// startPool starts the walker's workers; stopPool ends them.
func (w *walker) startPool() {
	w.pool.jobs = make(chan job, maxOwed+chunk+1) // handing over never blocks
	for range w.workers {
		w.pool.wg.Add(1)
		go func() {
			defer w.pool.wg.Done()
			for j := range w.pool.jobs {
				if !w.pool.stop.Load() && w.ctx.Err() == nil && w.failed() == nil {
					if err := w.p.run(j.n, j.g.last); err != nil {
						w.pool.mu.Lock()
						if w.pool.err == nil {
							w.pool.err = err
						}
						w.pool.mu.Unlock()
					}
				}
				if j.g.left.Add(-1) == 0 {
					close(j.g.done)
				}
			}
		}()
	}
}

func (w *walker) stopPool() {
	w.pool.stop.Store(true)
	close(w.pool.jobs)
	w.pool.wg.Wait()
}

func (w *walker) failed() error {
	w.pool.mu.Lock()
	defer w.pool.mu.Unlock()
	return w.pool.err
}

// handOver gives the workers the schedules of nodes that must run; last:
// nothing will extend them in this pass, so no choice points or key are
// recorded. Not run: outside schedules after the outside answer, which are
// judged skipped or not extended (judge, extends; one handed over before
// the answer is paid runs for nothing, and judge and extends still
// decide), and, with JumpsUnread, a judged schedule with a clock jump
// nobody read, which takes the verdict of the schedule without it
// (takenUnrun).
func (w *walker) handOver(nodes []*node, last bool) *group {
	g := &group{nodes: nodes, last: last, done: make(chan struct{})}
	unread := last && w.p.opts.Jumps == JumpsUnread
	var run []*node
	for _, n := range nodes {
		switch {
		case w.sides.settled && n.outside != "": // judged skipped or not extended
		case unread && w.takenUnrun(n): // the verdict of the schedule without the jump
		default:
			run = append(run, n)
		}
	}
	if len(run) == 0 {
		close(g.done)
		return g
	}
	g.left.Store(int32(len(run)))
	for _, n := range run {
		w.pool.jobs <- job{n: n, g: g}
	}
	return g
}

// takenUnrun gives n, a judged schedule, the verdict of the schedule
// without its unread clock jump (jumps.go) and says so, or says it must
// run.
func (w *walker) takenUnrun(n *node) bool {
	n.jump = len(n.steps) - 1 // the parent's
	if n.inherit == "" {
		if n.jump = w.withoutJump(n); n.jump < 0 {
			return false
		}
	}
	n.verdict, n.unrun = n.inherit, true
	return true
}

// runNow runs the schedules and waits for them, paying what is owed
// meanwhile; it returns an inside unsafe schedule met among those paid.
func (w *walker) runNow(nodes []*node, last bool) (*node, error) {
	g := w.handOver(nodes, last)
	if f, err := w.settle(0); f != nil || err != nil {
		return f, err
	}
	<-g.done
	return nil, w.failed()
}

// judgeLater hands judged schedules over, paid in turn by settle.
func (w *walker) judgeLater(nodes []*node) (*node, error) {
	for lo := 0; lo < len(nodes); lo += chunk {
		if f, err := w.settle(maxOwed - chunk); f != nil || err != nil {
			return f, err
		}
		batch := nodes[lo:min(lo+chunk, len(nodes))]
		w.pool.owed = append(w.pool.owed, owed{g: w.handOver(batch, true)})
		w.pool.owedLen += len(batch)
		if w.p.waitEach {
			if f, err := w.settle(0); f != nil || err != nil {
				return f, err
			}
		}
	}
	return nil, nil
}

// owePruned counts pruned schedules in their place in canonical order.
func (w *walker) owePruned(n int) {
	if n > 0 {
		w.pool.owed = append(w.pool.owed, owed{pruned: int64(n)})
	}
}

// settle pays what is owed, in order, until at most upTo judged schedules
// are left unpaid; it returns the inside unsafe schedule that ends the
// search, if one is paid (what is owed after it is dropped). An
// interrupted search pays nothing more.
func (w *walker) settle(upTo int) (*node, error) {
	po := &w.pool
	for len(po.owed) > 0 && (po.owedLen > upTo || po.owed[0].g == nil) {
		o := po.owed[0]
		po.owed = po.owed[1:]
		if o.g == nil {
			w.pruned.Add(o.pruned)
			continue
		}
		po.owedLen -= len(o.g.nodes)
		<-o.g.done
		if err := w.failed(); err != nil {
			return nil, err
		}
		if w.ctx.Err() != nil {
			po.owed, po.owedLen = nil, 0
			return nil, nil
		}
		for _, n := range o.g.nodes {
			if f := w.judge(n); f != nil {
				po.owed, po.owedLen = nil, 0
				return f, nil
			}
		}
	}
	return nil, nil
}
