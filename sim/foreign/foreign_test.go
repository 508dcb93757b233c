package foreign_test

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	_ "github.com/locksim/locksim/internal/golden"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks/resolve"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	. "github.com/locksim/locksim/sim/foreign"
)

func needs(t testing.TB, lang Lang) {
	t.Helper()
	if err := Available(lang); err != nil {
		t.Skip(err)
	}
}

// run runs scenario name with the program at path, workers started so.
func run(t testing.TB, path, name string, start Starter) *judge.Outcome {
	t.Helper()
	prog, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := resolve.Lock{Algorithm: prog.Algorithm(start)}.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	o, err := judge.Prepared(s, p, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestSameDigestEveryWay: one scenario and seed give one digest whichever
// way the workers start and at any GOMAXPROCS, crash runs included (a
// crash kills a worker mid-run and the respawn starts another).
func TestSameDigestEveryWay(t *testing.T) {
	needs(t, Python)
	for _, name := range []string{"del-race", "python-none-crash", "token-pause", "lost-setnx-reply"} {
		t.Run(name, func(t *testing.T) {
			var first string
			for _, procs := range []int{1, 2} {
				old := runtime.GOMAXPROCS(procs)
				for _, mode := range []Mode{Fresh, Forked, Forked} {
					o := run(t, "../../examples/foreign/python/002-setnx.py", name, Starter{Mode: mode})
					if first == "" {
						first = o.Digest
					} else if o.Digest != first {
						t.Errorf("GOMAXPROCS %d, %s workers: digest %.12s, want %.12s", procs, mode, o.Digest, first)
					}
				}
				runtime.GOMAXPROCS(old)
			}
		})
	}
}

// TestSameDigestNode: a Node program's digest is the same run after run
// and at GOMAXPROCS 1 and 2 (Node workers start fresh only), crash runs
// included.
func TestSameDigestNode(t *testing.T) {
	needs(t, Node)
	for _, c := range []struct{ program, scenario string }{
		{"setnx-px.js", "lost-setnx-reply"}, {"setnx-px.js", "crash-deadlock"}, {"redlock-v5.js", "redlock-node-restart"}, {"redlock-v4.js", "token-pause"},
	} {
		t.Run(c.program+"/"+c.scenario, func(t *testing.T) {
			var first string
			for _, procs := range []int{1, 2, 2} {
				old := runtime.GOMAXPROCS(procs)
				o := run(t, "../../examples/foreign/node/"+c.program, c.scenario, Starter{})
				runtime.GOMAXPROCS(old)
				if first == "" {
					first = o.Digest
				} else if o.Digest != first {
					t.Errorf("GOMAXPROCS %d: digest %.12s, want %.12s", procs, o.Digest, first)
				}
			}
		})
	}
}

// TestCrashKillsItsWorker: a crashed incarnation's worker is killed, and
// none outlives the run.
func TestCrashKillsItsWorker(t *testing.T) {
	needs(t, Python)
	o := run(t, "../../examples/foreign/python/002-setnx.py", "del-race", Starter{Mode: Fresh}) // c3 crashes holding
	if o.Verdict.Verdict != "safe" {
		t.Fatalf("del-race with 002's code: %s, want safe (its GETSET takeover)", o.Verdict)
	}
	out, _ := exec.Command("pgrep", "-f", "locksim_worker.py$").Output()
	time.Sleep(100 * time.Millisecond) // SIGKILL is asynchronous
	out, _ = exec.Command("pgrep", "-f", "locksim_worker.py$").Output()
	if len(strings.Fields(string(out))) > 0 {
		t.Errorf("fresh workers left after the run: pids %s", strings.Fields(string(out)))
	}
}

// TestFindings: what a program does that the simulation cannot see is a
// one-line error naming it, never a hang or a silent pass.
func TestFindings(t *testing.T) {
	needs(t, Python)
	old := *HostTimeout
	*HostTimeout = 3 * time.Second
	defer func() { *HostTimeout = old }()
	for _, c := range []struct{ file, want string }{
		{"spins.py", "finding: spins: read its clock 1000000 times without waiting"},
		{"thread.py", "finding: starts a thread"},
		{"dials.py", "finding: dials localhost:6379, which is not a node of the run (127.0.0.1:7001)"},
		{"cpuclock.py", "finding: reads CPU time (time.process_time)"},
		{"blocks.py", "sent nothing for 3s of host time: it spins or blocks outside the shim"},
		{"raises.py", "TypeError: int() argument must be a string"},
		{"broken.py", "loading "},
		{"node/dials.js", "finding: dials 10.0.0.1:6379"},
		{"node/spins.js", "finding: spins: a million clock reads without a wait"},
		{"node/thread.js", "finding: starts a thread (worker_threads.Worker)"},
		{"node/never.js", "acquire() never settles"},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := "testdata/" + c.file
			if strings.HasPrefix(c.file, "node/") {
				needs(t, Node)
				path = "../../examples/foreign/node/test/programs/" + strings.TrimPrefix(c.file, "node/")
			}
			o := run(t, path, "token-pause", Starter{})
			var errs []string
			for _, e := range o.Result.History.Events {
				if e.Err != "" {
					errs = append(errs, e.Err)
				}
			}
			if o.Verdict.Verdict != "client-error" || !strings.Contains(strings.Join(errs, "\n"), c.want) {
				t.Errorf("%s: verdict %s, errors %q; want a client error with %q", c.file, o.Verdict, errs, c.want)
			}
			for _, e := range errs {
				if strings.Contains(e, "\n") {
					t.Errorf("a finding of more than one line: %q", e)
				}
			}
		})
	}
}

func TestMain(m *testing.M) {
	os.Exit(m.Run())
}
