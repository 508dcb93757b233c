package realredis_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/redistest"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/realtime"
	"github.com/locksim/locksim/realtime/engine"
	"github.com/locksim/locksim/realtime/realredis"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// longEnv runs the built-ins that take more than longCut of wall time too.
const longEnv = "LOCKSIM_REDIS_LONG"

// longCut is how much simulated time a built-in may take to be in the
// default agreement run: the runs go side by side, so the test takes about
// the longest one (crash-deadlock's 20 s).
const longCut = 25 * time.Second

// databases is how many databases a redis-server has by default: the runs
// of one wave share the server, each on its own databases.
const databases = 16

type agreeRow struct {
	name, sim, real, simKinds, realKinds, note, err string
	seconds                                         float64
}

// attempts bounds how often a scenario runs on the server when it disagrees.
const attempts = 3

type job struct {
	s     *scenarios.Scenario
	p     *scenarios.Prepared
	db    int
	row   *agreeRow
	nodes int
	// start: the scenario needs servers locksim starts (persistence, node
	// clocks), not databases of the shared one.
	start bool
}

// startParts is what servers locksim starts can carry out.
var startParts = engine.Parts{Processes: true, Clocks: true, Replicas: true}

// runWaves runs jobs side by side, as many at once as the databases hold,
// and fills in their rows.
func runWaves(addr string, jobs []*job) {
	for len(jobs) > 0 {
		var wave, rest []*job
		used := 0
		for _, j := range jobs {
			if j.start {
				wave = append(wave, j)
			} else if used+j.nodes <= databases {
				j.db = used
				used += j.nodes
				wave = append(wave, j)
			} else {
				rest = append(rest, j)
			}
		}
		jobs = rest
		var wg sync.WaitGroup
		for _, j := range wave {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j.row.real, j.row.realKinds, j.row.err = "", "", ""
				var w *realredis.Wire
				var err error
				if j.start {
					var srv *realredis.Servers
					if srv, err = realredis.StartSpecs(realredis.SpecsFor(&j.p.Config)); err == nil {
						defer srv.Stop()
						if w, err = realredis.OpenServers(srv); err == nil {
							srv.AlignToSecond()
						}
					}
				} else {
					w, err = realredis.Open(fmt.Sprintf("%s/%d", addr, j.db), j.nodes)
				}
				if err != nil {
					j.row.err = err.Error()
					return
				}
				defer w.Close()
				o, err := realtime.Judge(j.s, j.p, w, w.Name(), model.Options{})
				if err != nil {
					j.row.err = err.Error()
					return
				}
				j.row.real, j.row.realKinds = o.Verdict.Verdict, kinds(o)
			}()
		}
		wg.Wait()
	}
}

// TestAgreement runs every built-in scenario on both backends and requires
// the same verdict. A scenario the real server cannot take is listed with
// why; one longer than longCut only with LOCKSIM_REDIS_LONG=1. The table it
// logs (go test -v) is the README's.
func TestAgreement(t *testing.T) {
	addr := redistest.Addr(t)
	long := os.Getenv(longEnv) == "1"
	var rows []*agreeRow
	var jobs []*job
	for _, s := range scenarios.Builtins() {
		row := &agreeRow{name: s.Name}
		rows = append(rows, row)
		so, err := judge.Run(s, "", model.Options{})
		if err != nil {
			t.Fatalf("%s: sim: %v", s.Name, err)
		}
		row.sim, row.simKinds = so.Verdict.Verdict, kinds(so)
		row.seconds = time.Duration(so.Result.End).Seconds()
		p, err := s.Prepare("")
		if err != nil {
			t.Fatal(err)
		}
		start := false
		if err := engine.Check(&p.Config); err != nil {
			if err := engine.CheckWith(&p.Config, startParts); err != nil {
				row.note = "cannot run: " + err.Error()
				continue
			}
			if why := startMissing(&p.Config); why != "" {
				row.note = "skipped here: " + why
				t.Logf("%s: %s", s.Name, row.note)
				continue
			}
			start = true // on servers locksim starts
			row.note = startedNote(&p.Config)
		}
		if time.Duration(so.Result.End) > longCut && !long {
			row.note = fmt.Sprintf("long (%.0f s): run with %s=1", row.seconds, longEnv)
			continue
		}
		if time.Duration(so.Result.End) > longCut {
			row.note = strings.TrimPrefix(row.note+fmt.Sprintf("; long: %.0f s", row.seconds), "; ")
		}
		jobs = append(jobs, &job{s: s, p: p, row: row, nodes: len(p.Config.Nodes), start: start})
	}
	// Real time is not deterministic: a scripted interleaving with a 10 ms
	// margin can miss when the machine stalls a process for longer (seen
	// on a loaded 2-core machine). A disagreeing scenario is run again, up
	// to attempts times in all, and the note says so.
	for attempt := 1; attempt <= attempts && len(jobs) > 0; attempt++ {
		runWaves(addr, jobs)
		var again []*job
		for _, j := range jobs {
			switch {
			case j.row.err != "":
			case j.row.real != j.row.sim && attempt < attempts:
				again = append(again, j)
			case attempt > 1:
				j.row.note = strings.TrimPrefix(j.row.note+fmt.Sprintf("; attempt %d of %d", attempt, attempts), "; ")
			}
		}
		jobs = again
	}
	var b strings.Builder
	b.WriteString("| scenario | simulation | redis-server | violation kinds | how |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		real, kinds := r.real, r.simKinds
		if real == "" {
			real, kinds = "—", "—"
		} else if r.realKinds != r.simKinds {
			kinds = "sim: " + r.simKinds + "; real: " + r.realKinds
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.name, r.sim, real, kinds, orDash(r.note))
	}
	t.Logf("agreement (%s):\n%s", addr, b.String())
	for _, r := range rows {
		if r.err != "" {
			t.Errorf("%s: %s", r.name, r.err)
		} else if r.real != "" && r.real != r.sim {
			t.Errorf("%s: simulation says %s, redis-server says %s", r.name, r.sim, r.real)
		}
	}
}

// TestDelRaceReal: del-race against redis-server is UNSAFE with the same
// witness kinds as in simulation.
func TestDelRaceReal(t *testing.T) {
	addr := redistest.Addr(t)
	s, err := scenarios.Lookup("del-race")
	if err != nil {
		t.Fatal(err)
	}
	so, err := judge.Run(s, "", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Prepare("")
	if err != nil {
		t.Fatal(err)
	}
	w, err := realredis.Open(addr, len(p.Config.Nodes))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Up to attempts runs: a stall of the machine longer than the
	// scenario's 10 ms margin can miss the race (see TestAgreement).
	var o *judge.Outcome
	for i := 1; i <= attempts; i++ {
		if o, err = realtime.Judge(s, p, w, w.Name(), model.Options{}); err != nil {
			t.Fatal(err)
		}
		if o.Verdict.Verdict == model.VerdictUnsafe {
			break
		}
		t.Logf("attempt %d: %s", i, o.Verdict.Verdict)
	}
	if o.Verdict.Verdict != model.VerdictUnsafe {
		t.Fatalf("del-race on %s: verdict %s in %d attempts, want unsafe", addr, o.Verdict.Verdict, attempts)
	}
	if got, want := kinds(o), kinds(so); got != want {
		t.Errorf("del-race witness kinds: real %s, sim %s", got, want)
	}
	if o.Digest == so.Digest {
		t.Errorf("real and simulated runs have the same digest %s: the real run did not happen", o.Digest)
	}
	if o.BackendName() != "redis "+addr {
		t.Errorf("backend %q", o.BackendName())
	}
}

// startMissing says what this machine lacks to start cfg's servers ("" when
// nothing): the row is then skipped, saying so, as tests without a server are.
func startMissing(cfg *sim.Config) string {
	for _, sp := range realredis.SpecsFor(cfg) {
		if _, err := exec.LookPath("redis-sentinel"); sp.Sentinel && err != nil {
			return "redis-sentinel is not on PATH (scripts/redis-server.sh installs it)"
		}
		if err := realredis.Faketime(); sp.Clock && err != nil {
			return err.Error()
		}
	}
	return ""
}

// startedNote says what a row needs locksim to start.
func startedNote(cfg *sim.Config) string {
	var parts []string
	add := func(p string) {
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	for _, sp := range realredis.SpecsFor(cfg) {
		switch {
		case sp.Persistence != sim.PersistNone:
			add("AOF " + strings.TrimPrefix(sp.Persistence.String(), "aof-"))
		case sp.Clock:
			add("libfaketime")
		case sp.Sentinel:
			add("replica + Sentinel")
		}
	}
	return "started: " + strings.Join(parts, ", ")
}

// kinds is the sorted set of violation kinds, comma-separated.
func kinds(o *judge.Outcome) string {
	var ks []string
	for _, v := range o.Verdict.Violations {
		if !slices.Contains(ks, v.Kind) {
			ks = append(ks, v.Kind)
		}
	}
	slices.Sort(ks)
	return orDash(strings.Join(ks, ", "))
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
