package sim

import (
	"iter"
	"sync"
)

// A coroutine runs process bodies (a process's workload, a watchdog's loop)
// one after another on one goroutine, kept between runs: making a coroutine
// (iter.Pull) for every process of every run, and growing the new
// goroutine's stack at its first event, were 5% of the instructions of a
// short run (BenchmarkExploreTokenAllFaults). Only the scheduler or the body
// it resumed runs at any instant, as with a coroutine of its own.
type coroutine struct {
	next  func() (bool, bool) // runs the body to its next yield; false: it returned
	stop  func()
	yield func(bool) bool
	body  func()
	begun bool // the body has been resumed: ending it means unwinding it
}

// idle holds the coroutines between bodies, parked, at most maxIdle of
// them: more are stopped (TestNoGoroutineOutlivesARun).
var idle struct {
	sync.Mutex
	list []*coroutine
}

const maxIdle = 64

// takeCoroutine returns a parked coroutine, or a new one, that will run body
// when first resumed. body must return (a crash unwinds it by panicking
// through it, which it recovers).
func takeCoroutine(body func()) *coroutine {
	idle.Lock()
	var c *coroutine
	if n := len(idle.list); n > 0 {
		c, idle.list[n-1] = idle.list[n-1], nil
		idle.list = idle.list[:n-1]
	}
	idle.Unlock()
	if c == nil {
		c = &coroutine{}
		c.next, c.stop = iter.Pull(func(yield func(bool) bool) {
			c.yield = yield
			for {
				c.body()
				if !yield(false) {
					return
				}
			}
		})
	}
	c.body = body
	return c
}

// resume runs the body until it yields (true) or returns (false).
func (c *coroutine) resume() bool {
	c.begun = true
	more, _ := c.next()
	return more
}

// release parks c for another body once its body has returned, or never
// began: a body that never began is dropped without running a line.
func (c *coroutine) release() {
	c.body, c.begun = nil, false
	idle.Lock()
	if len(idle.list) < maxIdle {
		idle.list = append(idle.list, c)
		idle.Unlock()
		return
	}
	idle.Unlock()
	c.stop() // the parked loop's yield returns false: the goroutine ends
}
