package sim

import (
	"iter"
	"testing"
	"time"

	"github.com/locksim/locksim/sim/node"
)

// commandMix is what a lock does: acquire, look, release by script, delete.
var commandMix = [][]string{
	{"SET", "lock", "tok", "NX", "PX", "1000"},
	{"GET", "lock"},
	{"EVAL", releaseScript, "1", "lock", "tok"},
	{"DEL", "lock"},
}

// BenchmarkRawDispatch is the command mix straight into a node: miniredis
// Dispatch (scripts through the node's own Lua VM), no simulation.
func BenchmarkRawDispatch(b *testing.B) {
	n := node.New(1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		n.Exec(0, Time(i).Std(), commandMix[i%len(commandMix)])
	}
}

// BenchmarkSimCommand is the same mix issued by a simulated process through
// Do: a coroutine switch each way, the event queue, network draws, history,
// the watched key. Runs of 1,000 commands each, so the per-run setup (see
// BenchmarkRunSetup) and history growth are counted as a real run pays them.
func BenchmarkSimCommand(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i += mixPerRun {
		simulateMix(b)
	}
}

// mixPerRun is how many commands of commandMix simulateMix's run sends.
const mixPerRun = 1000

// simulateMix is one run of a process that sends mixPerRun commands of
// commandMix, its memory released as a search releases it.
func simulateMix(b *testing.B) {
	res, err := oneProc(func(p Proc) (Lease, error) {
		for i := 0; i < mixPerRun; i++ {
			p.Do(0, commandMix[i%len(commandMix)]...)
		}
		return Lease{}, nil
	}, func(c *Config) { c.WatchKey = "lock" })
	if err != nil {
		b.Fatal(err)
	}
	res.Release()
}

// BenchmarkSimOverRaw is BenchmarkSimCommand over BenchmarkRawDispatch
// measured in alternating batches of 1,000 commands each, so that both
// halves of the ratio see the same machine: on a shared machine the two
// benchmarks run one after the other differ by more than the ratio does.
func BenchmarkSimOverRaw(b *testing.B) {
	n := node.New(1)
	var raw, simulated time.Duration
	at := 0
	for b.Loop() {
		start := time.Now()
		for i := 0; i < mixPerRun; i++ {
			n.Exec(0, Time(at).Std(), commandMix[i%len(commandMix)])
			at++
		}
		mid := time.Now()
		simulateMix(b)
		raw, simulated = raw+mid.Sub(start), simulated+time.Since(mid)
	}
	b.ReportMetric(float64(raw.Nanoseconds())/float64(b.N*mixPerRun), "raw-ns/cmd")
	b.ReportMetric(float64(simulated.Nanoseconds())/float64(b.N*mixPerRun), "sim-ns/cmd")
	b.ReportMetric(float64(simulated)/float64(raw), "sim/raw")
}

// BenchmarkRunSetup is what every run pays before its first command: a
// pooled node Reset (its Lua state kept), a process coroutine, the run's
// memory (not released here), and the first script's compile lookup.
func BenchmarkRunSetup(b *testing.B) {
	b.ReportAllocs()
	body := func(p Proc) (Lease, error) {
		p.Do(0, "EVAL", releaseScript, "1", "lock", "tok")
		return Lease{}, nil
	}
	for b.Loop() {
		if _, err := oneProc(body, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunStandard is one whole run: 3 processes × 20 rounds of a SET NX
// PX lock with a Lua release, no faults.
func BenchmarkRunStandard(b *testing.B) {
	b.ReportAllocs()
	cfg := standardConfig(1)
	for i := 0; b.Loop(); i++ {
		cfg.Seed = uint64(i)
		res, err := Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		res.Release()
	}
}

// BenchmarkRunStandardRaw is the floor under BenchmarkRunStandard: the
// commands one standard run sends (193 of them), at the node times they ran,
// straight into a node Reset as a run's is. What RunStandard costs above it
// is the engine's: scheduling, network, history, the watched key, the
// processes' own code.
func BenchmarkRunStandardRaw(b *testing.B) {
	cmds := standardCommands(b)
	n := node.New(1)
	b.ReportAllocs()
	for b.Loop() {
		cmds.replay(n)
	}
	b.ReportMetric(float64(len(cmds)), "commands/run")
}

// recordedCommand is one command of a run as its node ran it.
type recordedCommand struct {
	conn int
	at   time.Time
	args []string
}

type recordedCommands []recordedCommand

// standardCommands are the commands a standard run (seed 1) sends. The run
// is not released: the commands keep its argument lists.
func standardCommands(b *testing.B) recordedCommands {
	res, err := Run(standardConfig(1))
	if err != nil {
		b.Fatal(err)
	}
	var cmds recordedCommands
	for _, e := range eventsOf(res.History, KindCommand) {
		cmds = append(cmds, recordedCommand{e.Proc, e.At.Std(), e.Args})
	}
	return cmds
}

// replay runs the commands straight into n, Reset as a run's node is.
func (cmds recordedCommands) replay(n *node.Node) {
	n.Reset(1)
	for _, c := range cmds {
		n.Exec(c.conn, c.at, c.args)
	}
}

// BenchmarkRunStandardOverRaw is BenchmarkRunStandard and
// BenchmarkRunStandardRaw in alternating runs, so that the engine's share of
// a run (what a run costs above its commands alone) comes from one machine
// state: the two benchmarks run one after the other differ by more than the
// share does on a shared machine.
func BenchmarkRunStandardOverRaw(b *testing.B) {
	cmds := standardCommands(b)
	cfg := standardConfig(1)
	n := node.New(1)
	var raw, whole time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		cmds.replay(n)
		mid := time.Now()
		cfg.Seed = uint64(i)
		r, err := Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		r.Release()
		raw, whole = raw+mid.Sub(start), whole+time.Since(mid)
	}
	b.ReportMetric(float64(whole.Nanoseconds())/float64(b.N), "run-ns")
	b.ReportMetric(float64(raw.Nanoseconds())/float64(b.N), "commands-ns")
	b.ReportMetric(100*float64(whole-raw)/float64(whole), "engine-%")
}

// BenchmarkSwitchPull and BenchmarkSwitchChan compare the two ways to hand
// control between the scheduler and a process: one round trip per op.
func BenchmarkSwitchPull(b *testing.B) {
	next, stop := iter.Pull(func(yield func(int) bool) {
		for i := 0; yield(i); i++ {
		}
	})
	defer stop()
	for b.Loop() {
		next()
	}
}

func BenchmarkSwitchChan(b *testing.B) {
	req, resp := make(chan struct{}), make(chan int)
	go func() {
		for i := 0; ; i++ {
			if _, ok := <-req; !ok {
				return
			}
			resp <- i
		}
	}()
	defer close(req)
	for b.Loop() {
		req <- struct{}{}
		<-resp
	}
}

// BenchmarkDigest is the digest of one faulty standard run's history, the
// work prove does for every run it extends.
func BenchmarkDigest(b *testing.B) {
	res, err := Run(faultyConfig(1))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = res.History.Digest()
	}
	b.ReportMetric(float64(len(res.History.Events)), "events")
}
