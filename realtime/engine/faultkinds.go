package engine

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

// realKind is a fault kind as the real-time backend knows it: how it fires
// (apply), or why it cannot (refusal). It is this backend's column of the
// fault package's table (which keeps the kinds and their facts); fault's
// TestEveryKindComplete fails when a planned kind has neither.
type realKind struct {
	// refusal, when set, is why Run cannot apply the kind (CheckWith says it).
	refusal string
	// apply fires the kind under mu, after its event is recorded (a process
	// target is live); it returns the I/O to do after unlocking (a server
	// to restart), or nil.
	apply func(r *runner, f *sim.Fault) faultIO
}

var realKinds = map[fault.Kind]realKind{
	fault.Pause: {apply: func(r *runner, f *sim.Fault) faultIO {
		s := r.slots[f.Proc]
		s.pausedUntil = max(s.pausedUntil, r.now()+sim.Time(f.Dur))
		return nil
	}},
	fault.Crash: {apply: func(r *runner, f *sim.Fault) faultIO {
		// The process is abandoned: it unwinds at its next effect, or at
		// once if it is waiting; a command in flight still runs.
		s := r.slots[f.Proc]
		p := s.cur
		p.crashed = true
		close(p.dead)
		s.cur, s.pausedUntil = nil, 0
		s.inc++
		if f.Dur > 0 {
			r.spawn(s, time.Duration(r.now())+f.Dur)
		} else {
			r.retire()
		}
		return nil
	}},
	fault.ClientJump: {apply: func(r *runner, f *sim.Fault) faultIO {
		r.slots[f.Proc].jumped.Add(int64(f.Dur))
		return nil
	}},
	// Only a wire whose servers' clocks it steps takes it (CheckWith).
	fault.NodeJump: {apply: func(r *runner, f *sim.Fault) faultIO {
		n, by := f.Node, f.Dur
		return func() error {
			sw, ok := r.wire.(ServerWire) // CheckWith: it is one with Clocks
			if !ok {
				return fmt.Errorf("node %d: clock jump: the wire cannot step a clock", n)
			}
			if err := sw.JumpClock(n, by); err != nil {
				return fmt.Errorf("node %d: clock jump: %w", n, err)
			}
			return nil
		}
	}},
	fault.NodeRestart: {apply: func(r *runner, f *sim.Fault) faultIO {
		n, rec := f.Node, r.lastFault
		if rec == nil {
			return nil // fire recorded it: the run is live
		}
		// A restart while the node is still down keeps the later end, as in
		// simulation; the event's Dur includes the node's restart delay.
		r.downUntil[n] = max(r.downUntil[n], r.now()+sim.Time(rec.Dur))
		return func() error {
			if err := r.wire.Restart(n); err != nil {
				return fmt.Errorf("node %d: restart: %w", n, err)
			}
			if err := r.reloaded(rec, n); err != nil {
				return fmt.Errorf("node %d: after its restart: %w", n, err)
			}
			return nil
		}
	}},
	// The node answers nothing for Dur, as in simulation; with replicas
	// (CheckWith: on servers locksim started) its primary is killed and
	// Sentinel promotes a replica, which clients find through it.
	fault.Failover: {apply: func(r *runner, f *sim.Fault) faultIO {
		r.downUntil[f.Node] = max(r.downUntil[f.Node], r.now()+sim.Time(f.Dur))
		if r.cfg.Nodes[f.Node].Replicas == 0 {
			return nil // nothing to promote: only unreachable for Dur
		}
		n, rec := f.Node, r.lastFault
		return func() error {
			if err := r.failedOver(rec, n); err != nil {
				return fmt.Errorf("node %d: failover: %w", n, err)
			}
			return nil
		}
	}},
	// The client side of the connection loses it (proc.Do).
	fault.LoseRequest: {apply: func(r *runner, f *sim.Fault) faultIO {
		r.slots[f.Proc].lose = lossPlan{kind: fault.LoseRequest, timeout: f.Dur}
		return nil
	}},
	fault.LoseReply: {apply: func(r *runner, f *sim.Fault) faultIO {
		r.slots[f.Proc].lose = lossPlan{kind: fault.LoseReply, timeout: f.Dur}
		return nil
	}},
	fault.WatchdogPause: {refusal: "a real-time run cannot hold back its watchdog goroutine alone"},
}

// Applies reports whether this backend's table fires kind k, and if not
// why not; neither for a kind the table leaves out.
func Applies(k fault.Kind) (ok bool, refusal string) {
	rk := realKinds[k]
	return rk.apply != nil, rk.refusal
}

// realKindOf is kind's entry; a planned kind this backend does not know is
// refused, never silently skipped.
func realKindOf(k fault.Kind) realKind {
	if rk, ok := realKinds[k]; ok {
		return rk
	}
	if k.Planned() {
		return realKind{refusal: fmt.Sprintf("a %s fault runs only in simulation", k)}
	}
	return realKind{}
}
