package locks

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// vanishedKeyDies are the algorithms whose document's code throws when a
// release DELs the key between a waiter's SETNX and GET, which plain
// contention does: python-setnx's int(None) in every seed we tried (its
// waiters poll every millisecond), java-getset's Long.parseLong(null) in
// about a third. A process that dies so has ended as the original program
// would, short of its iterations.
var vanishedKeyDies = map[string]bool{"python-setnx": true, "java-getset": true}

// Per algorithm, on the real engine with no faults and 3 contending
// processes: never two holders, every iteration completes, every process
// ends.
func TestNoFaultsThreeProcesses(t *testing.T) {
	const procs, iterations = 3, 5
	for _, a := range All() {
		t.Run(a.Name, func(t *testing.T) {
			p := a.With(Params{})
			specs := make([]sim.ProcSpec, procs)
			for i := range specs {
				specs[i] = sim.ProcSpec{Name: fmt.Sprintf("c%d", i+1), Iterations: iterations,
					Work: 20 * time.Millisecond, Think: 10 * time.Millisecond, Start: time.Duration(i) * time.Millisecond}
			}
			res, err := sim.Run(sim.Config{
				Seed:     1,
				Duration: time.Hour,
				Nodes:    make([]sim.NodeSpec, a.NodesNeeded(p)),
				Procs:    specs,
				Network: sim.Network{
					Request: sim.Latency{Min: 200 * time.Microsecond, Max: time.Millisecond},
					Reply:   sim.Latency{Min: 200 * time.Microsecond, Max: time.Millisecond},
					Timeout: 100 * time.Millisecond,
				},
				NewLocker: func(int) sim.Locker { return a.New(p) },
				WatchKey:  p.Key,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Cut != "" {
				t.Fatalf("run cut: %s", res.Cut)
			}
			holder, since := -1, sim.Time(0)
			returns := make([]int, procs)
			ended, died := make([]bool, procs), make([]bool, procs)
			for _, e := range res.History.Events {
				switch e.Kind {
				case sim.KindLockReturn:
					returns[e.Proc]++
					if e.Err != "" {
						if !vanishedKeyDies[a.Name] || !strings.Contains(e.Err, "key vanished") {
							t.Fatalf("%s: client error at %s: %s", specs[e.Proc].Name, e.At, e.Err)
						}
						died[e.Proc] = true
						continue
					}
					if !e.Held {
						continue
					}
					if holder >= 0 {
						t.Fatalf("two holders at %s: %s (since %s) and %s", e.At, specs[holder].Name, since, specs[e.Proc].Name)
					}
					holder, since = e.Proc, e.At
				case sim.KindReleaseInvoke:
					if holder == e.Proc {
						holder = -1
					}
				case sim.KindProcEnd:
					if e.Err != "" && !died[e.Proc] {
						t.Fatalf("%s ended on an error: %s", specs[e.Proc].Name, e.Err)
					}
					ended[e.Proc] = true
				}
			}
			for i := range procs {
				if (returns[i] != iterations && !died[i]) || !ended[i] {
					t.Errorf("%s: %d of %d acquires returned, ended %v", specs[i].Name, returns[i], iterations, ended[i])
				}
			}
			if res.Stats.Acquired == 0 {
				t.Error("nobody ever held the lock")
			}
			t.Logf("acquired %d, failed %d, commands %d, %s of true time",
				res.Stats.Acquired, res.Stats.Failed, res.Stats.Commands, time.Duration(res.End))
		})
	}
}
