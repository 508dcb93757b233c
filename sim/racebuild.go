package sim

import "github.com/locksim/locksim/internal/racedetect"

// inlineOff turns the coroutines' in-place running of their own events
// (runner.inlines) off in a binary built with -race. Under the race
// detector a goroutine keeps a history of its memory accesses, and a
// coroutine that runs node commands in place fills its own: the race test
// binaries of explore and matrix grew from 1.3 GB to 3-4 GB with it. The
// path is still raced: sim's own TestCoroutinesRunTheirOwnEventsAsTheSchedulerWould
// turns it back on (a variable for that test alone) and compares it with
// the scheduler's path, which every other race run takes.
var inlineOff = racedetect.Enabled
