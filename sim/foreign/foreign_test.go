package foreign_test

import (
	"cmp"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/locksim/locksim/internal/golden"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks/resolve"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	. "github.com/locksim/locksim/sim/foreign"
)

func needs(t testing.TB, lang Lang) {
	t.Helper()
	if err := Available(lang); err != nil {
		t.Skip(err)
	}
}

// needsProgram skips t when the program at path cannot run here: a Node
// program's packages (npm ci) besides its interpreter.
func needsProgram(t testing.TB, path string) {
	t.Helper()
	if err := Runnable(path); err != nil {
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

// TestSameDigestNode: a Node program's digest is the same run after run,
// whether its workers start fresh or are reset workers of earlier runs, and
// at GOMAXPROCS 1 and 2, crash runs included.
func TestSameDigestNode(t *testing.T) {
	needs(t, Node)
	for _, c := range []struct{ program, scenario string }{
		{"setnx-px.js", "lost-setnx-reply"}, {"setnx-px.js", "crash-deadlock"}, {"redlock-v5.js", "redlock-node-restart"}, {"redlock-v4.js", "token-pause"},
	} {
		t.Run(c.program+"/"+c.scenario, func(t *testing.T) {
			needsProgram(t, "../../examples/foreign/node/"+c.program)
			var first string
			before := Reused()
			for _, procs := range []int{1, 2} {
				old := runtime.GOMAXPROCS(procs)
				for _, mode := range []Mode{Fresh, Forked, Forked} {
					o := run(t, "../../examples/foreign/node/"+c.program, c.scenario, Starter{Mode: mode})
					if first == "" {
						first = o.Digest
					} else if o.Digest != first {
						t.Errorf("GOMAXPROCS %d, %s workers: digest %.12s, want %.12s", procs, mode, o.Digest, first)
					}
				}
				runtime.GOMAXPROCS(old)
			}
			if Reused() == before {
				t.Errorf("no worker was reset and reused in four runs with Forked")
			}
		})
	}
}

// nodeModules points the Node shim at examples/foreign/node's packages, for
// the programs in testdata.
func nodeModules(t *testing.T) {
	t.Helper()
	dir, err := filepath.Abs("../../examples/foreign/node")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("LOCKSIM_NODE_MODULES", dir)
	needsProgram(t, "../../examples/foreign/node/setnx-px.js")
}

// TestResetWorkerIsPristine: a program that leaves marks in its process (a
// global, process.env, a builtin module's export, prototype and setting,
// Math, a process listener, a cached module, the working folder) finds none
// of them when its worker is a reset one.
func TestResetWorkerIsPristine(t *testing.T) {
	needs(t, Node)
	nodeModules(t)
	before := Reused()
	var first string
	for i := range 4 {
		o := run(t, "testdata/marks.js", "crash-deadlock", Starter{})
		for _, e := range o.Result.History.Events {
			if strings.Contains(e.Err, "earlier incarnation") {
				t.Fatalf("run %d, %s: %s", i, o.Result.History.Procs[e.Proc], e.Err)
			}
		}
		if first == "" {
			first = o.Digest
		} else if o.Digest != first {
			t.Errorf("run %d: digest %.12s, want %.12s", i, o.Digest, first)
		}
	}
	if Reused() == before {
		t.Fatal("no worker was reset and reused in four runs")
	}
	// fresh workers, which see no marks, give the same digest
	o := run(t, "testdata/marks.js", "crash-deadlock", Starter{Mode: Fresh})
	if o.Digest != first {
		t.Errorf("fresh workers: digest %.12s, want %.12s", o.Digest, first)
	}
}

// TestResetRefusedFreshStart: a program that freezes a builtin module
// leaves its process where a reset cannot put it back; its worker refuses
// the reset, saying why, and the program's next workers start fresh, with
// the same digest.
func TestResetRefusedFreshStart(t *testing.T) {
	needs(t, Node)
	nodeModules(t)
	DropResetWorkers()
	var first string
	before := Reused()
	for i := range 3 {
		o := run(t, "testdata/freezes.js", "crash-deadlock", Starter{})
		if first == "" {
			first = o.Digest
		} else if o.Digest != first {
			t.Errorf("run %d: digest %.12s, want %.12s", i, o.Digest, first)
		}
	}
	if n := Reused() - before; n != 0 {
		t.Errorf("%d workers reused after freezing os, want none", n)
	}
	prog, err := Load("testdata/freezes.js")
	if err != nil {
		t.Fatal(err)
	}
	if why := Refusal(prog.SHA256); !strings.Contains(why, "froze or sealed require('os')") {
		t.Errorf("the refusal says %q, want that the program froze a builtin", why)
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
	time.Sleep(100 * time.Millisecond) // SIGKILL is asynchronous
	// Fresh workers are this process's children (another test binary's
	// are not).
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(os.Getpid()), "-f", "locksim_worker.py$").Output()
	if len(strings.Fields(string(out))) > 0 {
		t.Errorf("fresh workers left after the run: pids %s", strings.Fields(string(out)))
	}
}

// TestFindings: what a program does that the simulation cannot see is a
// one-line error naming it, never a hang or a silent pass.
func TestFindings(t *testing.T) {
	needs(t, Python)
	findings(t, []finding{
		{"spins.py", "finding: spins: read its clock 1000000 times without waiting"},
		{"thread.py", "finding: starts a thread"},
		{"dials.py", "finding: dials localhost:6379, which is not a node of the run (127.0.0.1:7001)"},
		{"resolves.py", "finding: resolves example.com, which is no node's host (127.0.0.1:7001)"},
		{"cpuclock.py", "finding: reads CPU time (time.process_time)"},
		{"blocks.py", "sent nothing for 1s of host time: it spins or blocks outside the shim"},
		{"raises.py", "TypeError: int() argument must be a string"},
		{"broken.py", "loading "},
		{"node/dials.js", "finding: dials 10.0.0.1:6379"},
		{"node/spins.js", "finding: spins: a million clock reads without a wait"},
		{"node/thread.js", "finding: starts a thread (worker_threads.Worker)"},
		{"node/never.js", "acquire() never settles"},
	})
}

// TestPHPFindings: the same for the PHP shim, and a fatal error (which no
// catch sees) is the call's error too.
func TestPHPFindings(t *testing.T) {
	needs(t, PHP)
	findings(t, []finding{
		{"spins.php", "finding: spins: read its clock 1000000 times without waiting"},
		{"dials.php", "finding: dials tcp://127.0.0.1:6379, which is not a node of the run (127.0.0.1:7001)"},
		{"forks.php", "finding: starts a process (pcntl_fork)"},
		{"hostclock.php", "finding: reads the host clock through date_create()"},
		{"raises.php", "DivisionByZeroError: Division by zero"},
		{"fatal.php", "PHP Fatal error: Cannot redeclare release()"},
		{"loadwaits.php", "RuntimeException: locksim: the program waits (a reply, a sleep) while it loads"},
		{"broken.php", "loading "},
	})
}

type finding struct{ file, want string }

// blockingHostTimeout is the wait for a worker's next message given to
// programs that block (each client waits it out once); every other program
// gets 3 s, which it is far inside.
var blockingHostTimeout = map[string]time.Duration{"blocks.py": time.Second}

func findings(t *testing.T, cases []finding) {
	old := *HostTimeout
	defer func() { *HostTimeout = old }()
	for _, c := range cases {
		*HostTimeout = cmp.Or(blockingHostTimeout[c.file], 3*time.Second)
		t.Run(c.file, func(t *testing.T) {
			path := "testdata/" + c.file
			if strings.HasPrefix(c.file, "node/") {
				path = "../../examples/foreign/node/test/programs/" + strings.TrimPrefix(c.file, "node/")
				needsProgram(t, path)
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

// TestPHPConnectsWhileLoading: a connection made while the program loads
// (predis's connect() at the top level) is the first call's: the program
// takes the lock over it, without a client error.
func TestPHPConnectsWhileLoading(t *testing.T) {
	needs(t, PHP)
	o := run(t, "testdata/loadconnects.php", "token-pause", Starter{})
	held := 0
	for _, e := range o.Result.History.Events {
		if e.Err != "" {
			t.Errorf("%s: %s", o.Result.History.Procs[e.Proc], e.Err)
		}
		if e.Kind == sim.KindLockReturn && e.Held {
			held++
		}
	}
	if held == 0 {
		t.Errorf("verdict %s: no client held the lock", o.Verdict)
	}
}

// TestPHPSameDigest: a PHP program's run gives one digest every time, at
// GOMAXPROCS 1 and 2, whether its workers start fresh or are forked from
// the zygote, a crash's respawn and a 20 s wait for a lost reply among
// them.
func TestPHPSameDigest(t *testing.T) {
	needs(t, PHP)
	for _, name := range []string{"set-get-pause", "crash-deadlock", "lost-setnx-reply"} {
		t.Run(name, func(t *testing.T) {
			var first string
			for _, procs := range []int{1, 2} {
				old := runtime.GOMAXPROCS(procs)
				for _, mode := range []Mode{Fresh, Forked, Forked} {
					o := run(t, "../../examples/foreign/php/004-set-get.php", name, Starter{Mode: mode})
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

// TestMain is also the scripted worker of protocol_test.go, when the
// controller starts this binary as an interpreter on the shim's entry.
func TestMain(m *testing.M) {
	if len(os.Args) == 2 && strings.HasSuffix(os.Args[1], "locksim_worker.py") {
		scriptedWorker()
	}
	os.Exit(m.Run())
}

// TestPHPClocks: the PHP shim's clocks and random sources are the run's:
// hrtime and microtime advance by a usleep's length exactly, time() is
// the simulated epoch's, and each client's random numbers are its seed's,
// the same in every run, fresh or forked (nothing drawn in the zygote
// carries over), and another client's differ.
func TestPHPClocks(t *testing.T) {
	needs(t, PHP)
	tokens := func(mode Mode) map[string]string {
		o := run(t, "testdata/clocks.php", "token-pause", Starter{Mode: mode})
		out := map[string]string{}
		for _, e := range o.Result.History.Events {
			if e.Kind == sim.KindLockReturn && e.Token != "" {
				out[o.Result.History.Procs[e.Proc]] = e.Token
			}
		}
		return out
	}
	a, b := tokens(Fresh), tokens(Forked)
	if len(a) < 2 || !maps.Equal(a, b) {
		t.Fatalf("tokens %q fresh, then %q forked: want one per client, at least two, the same in both runs", a, b)
	}
	seen := map[string]string{}
	for proc, tok := range a {
		f := strings.Fields(tok)
		if len(f) != 9 {
			t.Fatalf("%s: token %q: want 9 fields", proc, tok)
		}
		if sec, err := strconv.ParseInt(f[0], 10, 64); err != nil || sec < sim.Epoch.Unix() || sec > sim.Epoch.Unix()+60 {
			t.Errorf("%s: time() %s, want the simulated epoch's second (%d) or a few after", proc, f[0], sim.Epoch.Unix())
		}
		if f[1] != "250000000" || f[2] != "250" {
			t.Errorf("%s: usleep(250000) moved hrtime by %s ns and microtime by %s ms, want 250000000 and 250", proc, f[1], f[2])
		}
		for i, want := range map[int]string{3: "hrtime-same", 7: "uniqid-unique", 8: "date-now"} {
			if f[i] != want {
				t.Errorf("%s: %s, want %s", proc, f[i], want)
			}
		}
		random := strings.Join(f[4:7], " ")
		if other, ok := seen[random]; ok {
			t.Errorf("%s and %s drew the same random numbers %s: each client's seed is its own", proc, other, random)
		}
		seen[random] = proc
	}
}
