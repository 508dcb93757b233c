package model

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// genLives draws random lock histories: each process acquires (held or not),
// then releases, crashes (and maybe restarts) or is cut off by the end of the
// run. Steps of 0–3 ns make ties common, which is where half-open holds and
// porcupine's closed intervals could part. With strays, a process sometimes
// releases without holding or acquires while holding.
func genLives(rt *rapid.T, strays bool) sim.History {
	procs := rapid.IntRange(1, 4).Draw(rt, "procs")
	names := []string{"c1", "c2", "c3", "c4"}[:procs]
	streams := make([][]sim.Event, procs)
	step := func(t *sim.Time) sim.Time {
		*t += sim.Time(rapid.IntRange(0, 3).Draw(rt, "step"))
		return *t
	}
	for p := range procs {
		var out []sim.Event
		ev := func(at sim.Time, k sim.Kind) *sim.Event {
			out = append(out, sim.Event{At: at, Kind: k, Proc: p, Node: -1})
			return &out[len(out)-1]
		}
		t := sim.Time(rapid.IntRange(0, 6).Draw(rt, "start"))
		holding := false
		for range rapid.IntRange(1, 5).Draw(rt, "rounds") {
			if holding {
				switch rapid.IntRange(0, 3).Draw(rt, "end") {
				case 0, 1:
					ev(step(&t), sim.KindReleaseInvoke)
					if rapid.IntRange(0, 5).Draw(rt, "release returns") > 0 {
						ev(step(&t), sim.KindReleaseReturn)
					} else {
						ev(step(&t), sim.KindFault).Fault = fault.Crash
					}
				case 2:
					ev(step(&t), sim.KindFault).Fault = fault.Crash
					if rapid.Bool().Draw(rt, "restart") {
						ev(step(&t), sim.KindFault).Fault = fault.Respawn
					}
				case 3:
					if !strays {
						goto done // held to the end of the run
					}
					holding = false // and acquire again while holding
				}
				if holding = false; out[len(out)-1].Fault == fault.Crash && rapid.IntRange(0, 2).Draw(rt, "stays down") == 0 {
					goto done
				}
			}
			if strays && rapid.IntRange(0, 5).Draw(rt, "stray release") == 0 {
				ev(step(&t), sim.KindReleaseInvoke)
				ev(step(&t), sim.KindReleaseReturn)
			}
			ev(step(&t), sim.KindLockInvoke)
			switch rapid.IntRange(0, 5).Draw(rt, "acquire") {
			case 0:
				ev(step(&t), sim.KindFault).Fault = fault.Crash
				goto done
			case 1, 2:
				ev(step(&t), sim.KindLockReturn)
			default:
				ev(step(&t), sim.KindLockReturn).Held = true
				holding = true
			}
		}
	done:
		streams[p] = out
	}
	// Interleave: always the earliest next event; ties in a drawn order, each
	// process's own events kept in theirs.
	h := sim.History{Procs: names, Nodes: 1, WatchKey: "lock"}
	next := make([]int, procs)
	for {
		var ready []int
		best := forever
		for p := range procs {
			if next[p] < len(streams[p]) {
				switch at := streams[p][next[p]].At; {
				case at < best:
					best, ready = at, []int{p}
				case at == best:
					ready = append(ready, p)
				}
			}
		}
		if len(ready) == 0 {
			return h
		}
		p := ready[rapid.IntRange(0, len(ready)-1).Draw(rt, "tie")]
		h.Events = append(h.Events, streams[p][next[p]])
		next[p]++
	}
}

func porcupineSays(rt *rapid.T, t *trace) bool {
	switch porcupine.CheckOperationsTimeout(mutexModel(t), mutexOps(t), 10*time.Second) {
	case porcupine.Ok:
		return true
	case porcupine.Illegal:
		return false
	}
	rt.Skip("porcupine timed out")
	return false
}

// On well-formed process lives (what the engine writes), the overlap
// detector and porcupine's mutex agree exactly.
func TestOverlapAgreesWithPorcupine(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := genLives(rt, false)
		tr := extract(&h)
		if len(tr.strays) > 0 {
			rt.Fatalf("generator made strays: %+v", tr.strays)
		}
		overlap := len(overlaps(tr.holds)) > 0
		if lin := porcupineSays(rt, tr); overlap == lin {
			rt.Fatalf("overlap=%v but porcupine linearizable=%v\nholds %+v\nops %+v", overlap, lin, tr.holds, tr.lockOps)
		}
	})
}

// The one place they differ: a process's own calls out of order (a stray),
// which the overlap detector cannot see. A certain stray (trace.certain)
// makes porcupine reject. A stray tied in time with its process's other
// calls may be reordered by porcupine, even so as to end a hold early, and
// then an overlap need not be rejected. Porcupine rejects only with an
// overlap or some stray.
func TestOverlapOrStrayAgreesWithPorcupine(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := genLives(rt, true)
		tr := extract(&h)
		overlap := len(overlaps(tr.holds)) > 0
		certain, uncertain := false, false
		for k := range tr.strays {
			c := tr.certain(k)
			certain, uncertain = certain || c, uncertain || !c
		}
		lin := porcupineSays(rt, tr)
		if lin && (certain || overlap && !uncertain) {
			rt.Fatalf("overlap=%v certain stray=%v but porcupine linearizable\nstrays %+v\nholds %+v\nops %+v", overlap, certain, tr.strays, tr.holds, tr.lockOps)
		}
		if !lin && !overlap && len(tr.strays) == 0 {
			rt.Fatalf("porcupine rejects with no overlap and no stray\nholds %+v\nops %+v", tr.holds, tr.lockOps)
		}
	})
}
