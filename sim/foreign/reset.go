package foreign

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// resetWorkers are Node workers told to reset at the end of a run, by
// interpreter and environment (worker.key), oldest first: each puts its
// process back as before its first init and says hello again
// (docs/foreign.md, "Workers: fresh, forked and reset"). A reset costs
// about a quarter of a fresh start. A worker that cannot reset exits, and
// the next start is a fresh one.
var resetWorkers struct {
	sync.Mutex
	by map[string][]*worker
}

// maxResetWorkers bounds the idle workers kept per key, each a Node
// process of some 50 MB: enough for the runs a search has under way at once
// (one per core, each with a worker per client).
func maxResetWorkers() int { return max(8, 3*runtime.GOMAXPROCS(0)) }

// retire ends a run's worker that is still alive: a resettable Node
// worker is told to reset and kept, any other is killed.
func retire(w *worker) {
	if w.dead {
		return
	}
	if !w.resettable || w.send(&message{Op: "reset"}) != nil {
		w.kill()
		return
	}
	resetWorkers.Lock()
	idle := resetWorkers.by[w.key]
	if len(idle) >= maxResetWorkers() {
		resetWorkers.Unlock()
		w.kill()
		return
	}
	if resetWorkers.by == nil {
		resetWorkers.by = map[string][]*worker{}
	}
	resetWorkers.by[w.key] = append(idle, w)
	resetWorkers.Unlock()
}

// takeReset is a reset worker of key that has said hello again, or nil.
// Messages it sent before it read the reset (the end of a call the run
// did not wait for) come first and are dropped.
func takeReset(key string) *worker {
	for {
		resetWorkers.Lock()
		idle := resetWorkers.by[key]
		if len(idle) == 0 {
			resetWorkers.Unlock()
			return nil
		}
		w := idle[0]
		resetWorkers.by[key] = idle[1:]
		resetWorkers.Unlock()
		if w.helloAfterReset() {
			reused.Add(1)
			return w
		}
		w.kill()
	}
}

// reused counts workers served from resetWorkers (for tests).
var reused atomic.Int64

func (w *worker) helloAfterReset() bool {
	for range maxStaleMessages {
		m, err := w.read()
		if err != nil {
			return false
		}
		switch m.Op {
		case "hello":
			return m.PID == w.pid
		case "refuse":
			refusals.Store(w.program, m.Msg)
			return false
		}
	}
	return false
}

// refusals are the programs whose worker refused a reset (by SHA-256, with
// the worker's reason): it left the process where the shim cannot put it
// back (redlock 4's bluebird defines Error.__BluebirdErrorTypes__, a
// property no one can delete). Their workers start fresh from then on,
// without the shim's snapshot.
var refusals sync.Map

func refused(prog *Program) bool {
	_, ok := refusals.Load(prog.SHA256)
	return ok
}

// maxStaleMessages bounds what a reset worker may send before its hello.
const maxStaleMessages = 1000
