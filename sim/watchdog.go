package sim

import (
	"fmt"
	"iter"
	"time"

	"github.com/locksim/locksim/internal/text"
)

// The watchdog: a lease kept alive while its holder works, as redsync's
// users and Redisson's lockWatchdog do. It is a second coroutine of the
// holder's process (iter.Pull, like the main one), scheduled by the same
// queue, so its order against everything else is the run's, not the Go
// runtime's. It shares the process's clock, random source, network stream,
// pause and life: a pause stops it (its resumes wait for pausedUntil, see
// resume and begin), a crash ends it (kill), and the holder stops it before
// it releases.

// startWatchdog starts extending lease every period, the first time one
// period from now. It runs inside the main coroutine.
func (p *process) startWatchdog(x Extender, lease Lease, every time.Duration) {
	if p.crashPending || p.dog != nil {
		return
	}
	p.dogGen++
	d := &process{r: p.r, id: p.id, spec: p.spec, owner: p, rng: p.rng, net: p.net, inc: p.dogGen}
	body := func(yield func(struct{}) bool) {
		d.yield = yield
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(crashSignal); !ok {
					// The algorithm's Extend panicked: the holder cannot know
					// it still holds the lock.
					p.r.record(Event{Kind: KindExtendReturn, Proc: p.id, Node: -1, Token: lease.Token,
						Err: "panic: " + text.FirstLine(fmt.Sprint(v))})
					p.lost = true
				}
			}
		}()
		d.watch(x, lease, every)
	}
	d.next, d.stop = iter.Pull(iter.Seq[struct{}](body))
	d.live = true
	p.dog = d
	p.r.q.push(d.ev(p.r.now+Time(every), evResume))
}

// stopWatchdog cancels the watchdog. A renewal it has in flight still
// reaches its node (the command was sent); only its reply is dropped.
func (p *process) stopWatchdog() {
	if p.dog != nil {
		p.dog.stopped = true
		p.dog.kill()
		p.dog = nil
	}
}

// watch is the watchdog's loop: extend, and on success wait one period.
// The first failure ends it and tells the holder, unless the lock's renewal
// fails silently (SilentRenewal): then the holder goes on as if it held.
func (d *process) watch(x Extender, lease Lease, every time.Duration) {
	r, own := d.r, d.owner
	silent := false
	if s, ok := x.(SilentRenewal); ok {
		silent = s.RenewalFailsSilently()
	}
	for {
		r.record(Event{Kind: KindExtendInvoke, Proc: d.id, Node: -1, Token: lease.Token, Fence: lease.Fence})
		ok, err := x.Extend(d, lease)
		ev := Event{Kind: KindExtendReturn, Proc: d.id, Node: -1, Held: ok && err == nil, Token: lease.Token, Fence: lease.Fence}
		if err != nil {
			ev.Err = err.Error()
		}
		ev.Silent = silent && !ev.Held
		r.record(ev)
		if !ev.Held {
			own.lost = !silent
			return
		}
		d.Sleep(every)
	}
}
