package sim

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"time"

	"github.com/locksim/locksim/internal/text"
)

// effectKind is what a process asked the scheduler for when it yielded.
type effectKind uint8

const (
	effNone effectKind = iota
	effCommand
	effSleep
	effRead
	effWrite
	effLibrary // waits for a call into its client library (libhost.go)
)

// crashSignal unwinds a process's goroutine when it crashes or the run ends.
// It never leaves this package: the coroutine body recovers it.
type crashSignal struct{}

// process is one simulated client. Its algorithm code runs as a coroutine
// (iter.Pull): only the scheduler or this process runs at any instant, and
// every effect is a yield back to the scheduler.
type process struct {
	r     *runner
	id    int
	spec  *ProcSpec
	clock clock
	rng   *rand.Rand // the algorithm's: tokens, jitter
	// rngSrc is rng's source, whose state the state key reads; obs sums
	// what the coroutine has observed (statehash.go).
	rngSrc *rand.PCG
	obs    stateSum
	// obsStart is when the incarnation began; readClock says it has read
	// its clock since (statehash.go).
	obsStart  Time
	readClock bool
	net       *rand.Rand // the network's draws for this process's commands
	// netSrc is net's source, kept here: one allocation less per process.
	netSrc rand.PCG
	inc    int // incarnation

	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool

	live         bool // has a coroutine that has not finished
	running      bool // the coroutine is executing right now
	crashPending bool // crash at the next yield
	pausedUntil  Time
	pauses       []int    // the plan's pauses that have fired and not yet deferred anything (faultuse.go)
	dogPauses    []int    // the same for its watchdog-pauses
	lose         lossPlan // a planned lost request or reply for the next command (faultapply.go)
	ended        bool     // the workload returned: the process has finished for good
	clockReads   uint64   // calls of Now, by the process and its watchdog (faultuse.go)
	// points counts the process's own trigger points (its watchdog's
	// too); readAt is 1 + points when the process or its watchdog last
	// called Now, 0: never (Result.LastClockRead).
	points, readAt int

	// The watchdog (watchdog.go). A main coroutine's dog is its running
	// watchdog, if any; a watchdog's owner is its process's main coroutine,
	// whose clock, pause and life it shares. A watchdog's inc is its
	// generation, so that a stopped watchdog's pending events are dropped.
	owner  *process
	dog    *process
	dogGen int
	lost   bool // the watchdog failed to extend the current lease
	// stopped: a watchdog its holder stopped (stopWatchdog), not one
	// ended by a crash or the run's end; a library call it waits in
	// ends alone (Library.Call).
	stopped bool

	// dogPausedUntil holds back the watchdog alone (fault.WatchdogPause): a main
	// coroutine's field, as pausedUntil, which holds back both.
	dogPausedUntil Time

	// begun: the coroutine began its pending effect itself before it
	// yielded (suspend), so resume leaves it be; woken: resume found the
	// coroutine running the events itself (runOwn), which then goes on.
	begun, woken bool

	// awaitNo numbers the coroutine's Awaits (processhost.go), so that a
	// wake meant for an earlier one is dropped.
	awaitNo uint32

	// The pending effect, set before yielding.
	want    effectKind
	args    []string
	argSum  argsSum // args summed for the state keys (setArgs)
	node    int
	sleep   time.Duration
	value   int64
	fence   int64
	reply   Reply
	err     error
	readVal int64
}

func (p *process) Name() string     { return p.spec.Name }
func (p *process) Rand() *rand.Rand { return p.rng }
func (p *process) Nodes() int       { return len(p.r.nodes) }

// Now counts the read: a clock jump acts only on a process that reads its
// clock after it (faultuse.go).
func (p *process) Now() time.Time {
	h := p.home()
	h.clockReads++
	h.readAt = h.points + 1
	t := h.clock.at(p.r.now)
	if p.r.cfg.OnState != nil {
		h.readClock = true
		p.obs = p.obs.num(int64(t - h.obsStart))
	}
	return t.Std()
}

// home is the process's main coroutine: itself, or a watchdog's owner.
func (p *process) home() *process {
	if p.owner != nil {
		return p.owner
	}
	return p
}

// stoppedUntil is when this coroutine may run again: the end of its
// process's pause, and for a watchdog of its own too. (A stopped process is
// paused; "held" is kept for the lock.)
func (p *process) stoppedUntil() Time {
	h := p.home()
	if p.owner != nil {
		return max(h.pausedUntil, h.dogPausedUntil)
	}
	return h.pausedUntil
}

// ev is a scheduler event for this coroutine.
func (p *process) ev(at Time, kind evKind) event {
	return event{at: at, kind: kind, proc: int32(p.id), inc: int32(p.inc), sub: p.owner != nil}
}

func (p *process) Do(node int, args ...string) (Reply, error) { return p.do(node, args) }

// do is Do, args left as they are: the history keeps a copy.
func (p *process) do(node int, args []string) (Reply, error) {
	if node < 0 || node >= len(p.r.nodes) {
		return Reply{}, fmt.Errorf("no node %d: the run has %d", node, len(p.r.nodes))
	}
	if len(args) == 0 {
		return Reply{}, fmt.Errorf("empty command")
	}
	p.want, p.node = effCommand, node
	p.setArgs(p.r.mem.keep(args)) // the history keeps them
	p.suspend()
	return p.reply, p.err
}

// setArgs sets the pending command, whose sum for the state keys is then
// to be taken again (argsSum).
func (p *process) setArgs(args []string) { p.args, p.argSum = args, argsSum{} }

// Sleep with d <= 0 returns at once without yielding, like sleep(0).
func (p *process) Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	p.want, p.sleep = effSleep, d
	p.suspend()
}

// A resource operation takes no time: unless the process is stopped, it
// runs here, in the coroutine, as the scheduler would run it on the yield
// before resuming the process at once.
func (p *process) readResource() int64 {
	p.want = effRead
	if p.unstopped() {
		p.r.read(p)
	} else {
		p.suspend()
	}
	return p.readVal
}

func (p *process) writeResource(v, fence int64) {
	p.want, p.value, p.fence = effWrite, v, fence
	if p.unstopped() {
		p.r.write(p)
	} else {
		p.suspend()
	}
}

// unstopped says whether the running coroutine's next effect may begin now:
// no pause stops it and no crash is due at its yield.
func (p *process) unstopped() bool {
	return !p.crashPending && p.stoppedUntil() <= p.r.now
}

// suspend hands control to the scheduler until it resumes this process.
// Where it may (inlines), the coroutine first does the scheduler's work
// itself: it begins its effect and runs the events up to its own resumption
// (runOwn), and yields only if another coroutine's event comes first.
func (p *process) suspend() {
	if p.crashPending {
		panic(crashSignal{})
	}
	if r := p.r; r.inlines(p) {
		if p.want == effCommand {
			p.points++ // the PointSend that fires nothing here (Result.LastClockRead)
		}
		r.begin(p) // what resume does on the yield: PointSend has nothing to fire
		if r.runOwn(p) {
			if p.crashPending {
				panic(crashSignal{})
			}
			return
		}
		p.begun = true
	}
	// resume keeps p.running: true exactly while the scheduler is inside
	// p.next.
	ok := p.yield(struct{}{})
	if !ok || p.crashPending {
		panic(crashSignal{})
	}
}

// start makes a fresh coroutine running the workload with a new Locker.
func (p *process) start() {
	locker := p.r.cfg.NewLocker(p.id)
	body := func(yield func(struct{}) bool) {
		p.yield = yield
		growStack(0)
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(crashSignal); !ok {
					// The algorithm's own code panicked: that is a client
					// error of the algorithm, not of the engine.
					p.r.record(Event{Kind: KindProcEnd, Proc: p.id, Node: -1,
						Err: "panic: " + text.FirstLine(fmt.Sprint(v))})
				}
			}
		}()
		workload(p, locker)
	}
	p.next, p.stop = iter.Pull(iter.Seq[struct{}](body))
	p.live, p.crashPending, p.want = true, false, effNone
	if p.woken {
		p.r.waking-- // a crash stopped the last one before it went on
	}
	p.begun, p.woken = false, false // a crash may have stopped the last one mid-yield
}

// kill ends the coroutine if it is suspended; a running one is ended at its
// next yield.
func (p *process) kill() {
	if p.dog != nil {
		p.dog.kill() // the watchdog shares its process's fate
		p.dog = nil
	}
	if !p.live {
		return
	}
	p.crashPending = true
	if p.running {
		return
	}
	p.stop()
	p.live = false
	if p.owner == nil {
		p.inc++
	}
}

// growStack grows a new coroutine's stack at once, while it holds only a
// few frames: the coroutine runs node commands itself (runOwn), miniredis's
// and Lua's calls run deep, and growing the stack step by step later copies
// and rewalks every frame of that depth each time (a tenth of a run).
//
//go:noinline
func growStack(i int) byte {
	var pad [stackPad]byte
	pad[i] = 1 // i is not known at compile time: pad stays
	return pad[i/2]
}

// stackPad takes a new stack from 8 KB to 16 KB, which the deepest node
// command of a standard run or an explore search fits in: 16 KB grew it to
// 32 KB, zeroed and copied at every process start for nothing (4 KB and
// 6 KB leave it to grow later, deep in a command).
const stackPad = 12 << 10
