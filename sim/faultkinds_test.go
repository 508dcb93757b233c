package sim

import "testing"

// TestFaultKindsComplete fails when a fault kind lacks a part the engine
// needs: a name, a target, and for a planned kind a way to apply it in Run
// (realtime/engine's test checks its own column).
func TestFaultKindsComplete(t *testing.T) {
	kinds := FaultKinds()
	if len(kinds) < 6 {
		t.Fatalf("FaultKinds() = %v: want at least the first six (pause, crash, a process coming back, the two clock jumps, a node restart)", kinds)
	}
	names := map[string]FaultKind{}
	for _, k := range kinds {
		s := k.spec()
		if prev, ok := names[s.name]; ok {
			t.Errorf("kinds %d and %d are both named %q", prev, k, s.name)
		}
		names[s.name] = k
		if s.target != TargetProc && s.target != TargetNode {
			t.Errorf("%s: no target", k)
		}
		if !s.planned {
			if s.apply != nil {
				t.Errorf("%s: recorded only, yet it has an apply", k)
			}
			continue
		}
		if s.apply == nil {
			t.Errorf("%s: planned, but Run cannot apply it", k)
		}
	}
	// The numbers are hashed into digests.
	want := map[FaultKind]string{1: "pause", 2: "crash", 3: "restart", 4: "proc-clock-jump",
		5: "node-clock-jump", 6: "node-restart", 7: "failover", 8: "lose-request", 9: "lose-reply", 10: "watchdog-pause"}
	for k, n := range want {
		if k.String() != n {
			t.Errorf("kind %d is %q, want %q: a renumbered kind changes every digest", k, k, n)
		}
	}
	if FaultKind(0).String() != "unknown" || FaultKind(200).Target() != 0 || FaultKind(200).Planned() {
		t.Error("an unknown kind must be unknown, target nothing and not be planned")
	}
}

// TestFaultFactsAgree fails when the facts the reports draw by contradict
// what the engine does with the kind: a crash ends a life, a promotion
// happens on a node that goes down, a clock shift may go backwards, a lost
// command is a process's, and every kind draws something.
func TestFaultFactsAgree(t *testing.T) {
	for _, k := range FaultKinds() {
		s := k.spec()
		if s.crashes && !s.endsLife {
			t.Errorf("%s: crashes but does not end a life", k)
		}
		if s.promotes && (!s.losesData || s.target != TargetNode) {
			t.Errorf("%s: promotes a replica but is not a node going down", k)
		}
		if s.shiftsClock && !s.signed {
			t.Errorf("%s: shifts a clock, which may go backwards, but its Dur is unsigned", k)
		}
		if s.losesCommand && s.target != TargetProc {
			t.Errorf("%s: loses a command but targets no process", k)
		}
		if s.mark == "" && !s.pauses {
			t.Errorf("%s: no mark and no pause bar: the reports would not draw it", k)
		}
	}
	if FaultKind(200).Mark() != "" || FaultKind(200).Promotes() {
		t.Error("an unknown kind has facts")
	}
}
