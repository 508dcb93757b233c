package realredis

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/realtime/engine"
	"github.com/locksim/locksim/sim"
)

// Servers are throwaway redis-servers locksim started itself (--redis
// start), one per node, each in its own directory under one temporary
// directory, on free loopback ports. A node restart then kills the server
// (SIGKILL) and starts it again on the same directory and port: with AOF it
// replays its log, as a real restart does. A server whose clock a scenario
// moves runs under libfaketime, its offset in a control file locksim
// rewrites.
type Servers struct {
	mu    sync.Mutex
	dir   string
	specs []ServerSpec
	ports []int
	cmds  []*exec.Cmd
	// offset is each server's clock offset (faketime), synced the AOF as
	// the last emulated fsync left it (aof-everysec).
	offset  []time.Duration
	synced  []aofMark
	done    chan struct{} // closed by Stop: the samplers end
	wg      sync.WaitGroup
	stopped bool
	// reps are each node's replicas; sentinel, sentinelPort its Sentinel.
	reps         [][]*replicaProc
	sentinel     []*exec.Cmd
	sentinelPort []int
}

// ServerSpec is how one node's server runs.
type ServerSpec struct {
	// Persistence: none (--appendonly no), aof-everysec or aof-always
	// (--appendonly yes --appendfsync everysec|always).
	Persistence sim.Persistence
	// Clock: the server runs under libfaketime, its clock Offset from the
	// host's and stepped by JumpClock.
	Clock  bool
	Offset time.Duration
	// Replicas follow the server through lagLinks (Lag each way down).
	Replicas int
	Lag      sim.Latency
	// Sentinel: a redis-sentinel watches the server and promotes a
	// replica when it has not answered for DownAfter (a failover).
	Sentinel  bool
	DownAfter time.Duration
}

// replicaProc is one replica's server and its link to the primary.
type replicaProc struct {
	port int
	cmd  *exec.Cmd
	link *lagLink
}

// aofMark is the AOF's incremental file and its length at an emulated fsync.
type aofMark struct {
	path string
	size int64
}

// startWait bounds how long a server may take to answer PING.
const startWait = 10 * time.Second

// Start starts n redis-servers, persistence off.
func Start(n int) (*Servers, error) { return StartSpecs(make([]ServerSpec, n)) }

// SpecsFor is the servers cfg's nodes need.
func SpecsFor(cfg *sim.Config) []ServerSpec {
	specs := make([]ServerSpec, len(cfg.Nodes))
	clocks := map[int]bool{}
	for _, f := range cfg.Faults {
		if f.Kind == fault.NodeJump {
			clocks[f.Node] = true
		}
	}
	for i, n := range cfg.Nodes {
		specs[i] = ServerSpec{Persistence: n.Persistence, Clock: clocks[i] || n.Clock.Offset != 0, Offset: n.Clock.Offset,
			Replicas: n.Replicas, Lag: n.ReplicationLag}
	}
	for _, f := range cfg.Faults {
		if f.Kind != fault.Failover || f.Node < 0 || f.Node >= len(specs) {
			continue
		}
		if sp := &specs[f.Node]; sp.Replicas > 0 && !sp.Sentinel {
			// Sentinel's detection delay is the failover's: the first one
			// planned on the node sets it (down-after-milliseconds).
			sp.Sentinel, sp.DownAfter = true, max(f.Dur, minDownAfter)
		}
	}
	return specs
}

// minDownAfter is the shortest detection delay Sentinel is given: it pings
// at most every second, or every down-after period when shorter.
const minDownAfter = 100 * time.Millisecond

// StartSpecs starts one redis-server per spec (redis-server must be on PATH;
// libfaketime too for a spec with Clock). On any failure every server
// already started is stopped and the directory removed.
func StartSpecs(specs []ServerSpec) (*Servers, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, errors.New("start: redis-server is not on PATH (scripts/redis-server.sh installs it)")
	}
	dir, err := os.MkdirTemp("", "locksim-servers-")
	if err != nil {
		return nil, err
	}
	n := len(specs)
	s := &Servers{dir: dir, specs: specs, ports: make([]int, n), cmds: make([]*exec.Cmd, n),
		offset: make([]time.Duration, n), synced: make([]aofMark, n), done: make(chan struct{}),
		reps: make([][]*replicaProc, n), sentinel: make([]*exec.Cmd, n), sentinelPort: make([]int, n)}
	for i, sp := range specs {
		s.offset[i] = sp.Offset
		if sp.Clock {
			if _, err := faketimeEnv(""); err != nil {
				s.Stop()
				return nil, err
			}
		}
		_, err := onFreePort(func(port int) error {
			s.ports[i] = port
			return s.launch(bin, i)
		})
		if err != nil {
			s.Stop()
			return nil, err
		}
		if sp.Persistence == sim.PersistEverysec {
			s.mark(i)
			s.wg.Add(1)
			go s.sample(i)
		}
		if err := s.startReplicas(bin, i); err != nil {
			s.Stop()
			return nil, err
		}
	}
	return s, nil
}

// Parts is what these servers can do: restart with their AOF, step the
// clocks of those under libfaketime, fail over those Sentinel watches.
func (s *Servers) Parts() engine.Parts {
	p := engine.Parts{Processes: true}
	for _, sp := range s.specs {
		p.Clocks = p.Clocks || sp.Clock
		p.Replicas = p.Replicas || sp.Replicas > 0
	}
	return p
}

// Dir is the directory the servers run in (removed by Stop).
func (s *Servers) Dir() string { return s.dir }

// Addrs is the --redis value that reaches the servers, node by node.
func (s *Servers) Addrs() string {
	out := make([]string, len(s.ports))
	for i, p := range s.ports {
		out[i] = "127.0.0.1:" + strconv.Itoa(p)
	}
	return strings.Join(out, ",")
}

// Stop ends every server and removes their directory. It may be called
// more than once, and from a signal handler's goroutine.
func (s *Servers) Stop() {
	s.mu.Lock()
	if !s.stopped {
		s.stopped = true
		close(s.done)
	}
	for i := range s.cmds {
		killCmd(&s.sentinel[i])
		for _, r := range s.reps[i] {
			if r.link != nil {
				r.link.cutLink()
			}
			killCmd(&r.cmd)
		}
		s.kill(i)
	}
	reps := s.reps
	s.mu.Unlock()
	for _, rs := range reps {
		for _, r := range rs {
			if r.link != nil {
				r.link.close()
			}
		}
	}
	s.wg.Wait()
	os.RemoveAll(s.dir)
}

// AlignToSecond waits until just past the next whole second of the host's
// clock when a server fsyncs every second, so that a run's true time 0 is a
// whole second of its servers' clocks, as a simulated node's clock starts
// at one: the everysec window (what a crash loses) then falls in the run as
// it does in simulation. margin leaves the sampler time to mark the second.
func (s *Servers) AlignToSecond() {
	for _, sp := range s.specs {
		if sp.Persistence == sim.PersistEverysec {
			const margin = 20 * time.Millisecond
			now := time.Now()
			time.Sleep(now.Truncate(time.Second).Add(time.Second + margin).Sub(now))
			return
		}
	}
}

// restart kills node i's server and starts it again on the same directory
// and port. Without persistence every key, script and connection is gone;
// with aof-always the server replays its whole AOF (every reply it sent was
// fsynced first); with aof-everysec the AOF is first cut back to the last
// emulated fsync (see sample).
func (s *Servers) restart(i int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return errors.New("the servers were stopped")
	}
	s.kill(i)
	if s.specs[i].Persistence == sim.PersistEverysec {
		if m := s.synced[i]; m.path != "" {
			if err := os.Truncate(m.path, m.size); err != nil {
				return fmt.Errorf("aof-everysec: cutting the AOF back to its last fsync: %w", err)
			}
		}
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return err
	}
	return s.launch(bin, i)
}

// The everysec crash. A SIGKILL alone loses nothing under appendfsync
// everysec: Redis write()s every command to the AOF before it replies, and
// the kernel keeps what was written; only what was not yet fsynced, and
// only in a crash of the machine (a power loss), is lost. One machine
// cannot crash itself, so the harness emulates that crash: it notes the
// AOF's length at each whole second of the server's clock (Redis's
// everysec fsyncs at the first event-loop turn of each new second), and a
// restart cuts the AOF back to the last note before starting the server
// again. That is the simulation's rule (sim/node/persist.go): the writes
// since the node clock's last whole second are lost.

// sample marks node i's AOF at each whole second of its server's clock
// until Stop.
func (s *Servers) sample(i int) {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		off := s.offset[i]
		s.mu.Unlock()
		now := time.Now().Add(off)
		t := time.NewTimer(now.Truncate(time.Second).Add(time.Second).Sub(now))
		select {
		case <-s.done:
			t.Stop()
			return
		case <-t.C:
		}
		s.mu.Lock()
		if !s.stopped {
			s.mark(i)
		}
		s.mu.Unlock()
	}
}

// mark notes node i's AOF as fsynced now (under mu, or before sampling
// starts): the incremental file the manifest names last, and its length.
func (s *Servers) mark(i int) {
	d := filepath.Join(s.dir, strconv.Itoa(i), "appendonlydir")
	f, err := os.Open(filepath.Join(d, "appendonly.aof.manifest"))
	if err != nil {
		return // not written yet: nothing to keep or cut
	}
	defer f.Close()
	var incr string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// file appendonly.aof.1.incr.aof seq 1 type i
		fs := strings.Fields(sc.Text())
		if len(fs) >= 6 && fs[0] == "file" && fs[len(fs)-1] == "i" {
			incr = fs[1]
		}
	}
	if incr == "" {
		return
	}
	p := filepath.Join(d, incr)
	st, err := os.Stat(p)
	if err != nil {
		return
	}
	s.synced[i] = aofMark{path: p, size: st.Size()}
}

// jumpClock steps node i's server clock by by: its control file gets the
// new offset, which libfaketime reads at every clock call.
func (s *Servers) jumpClock(i int, by time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.specs[i].Clock {
		return fmt.Errorf("node %d's server does not run under libfaketime", i)
	}
	s.offset[i] += by
	return s.writeOffset(i)
}

func (s *Servers) controlFile(i int) string {
	return filepath.Join(s.dir, strconv.Itoa(i), "faketime")
}

// writeOffset writes node i's offset to its control file atomically (a
// rename), so the server never reads half a line.
func (s *Servers) writeOffset(i int) error {
	p := s.controlFile(i)
	tmp := p + ".new"
	line := fmt.Sprintf("%+.6f\n", s.offset[i].Seconds())
	if err := os.WriteFile(tmp, []byte(line), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

func (s *Servers) kill(i int) { killCmd(&s.cmds[i]) }

// killCmd kills *c (SIGKILL), reaps it and clears it.
func killCmd(c **exec.Cmd) {
	if *c != nil && (*c).Process != nil {
		(*c).Process.Kill()
		(*c).Wait()
	}
	*c = nil
}

// serverArgs are the flags of a server on port in wd with persistence p.
func serverArgs(port int, wd string, p sim.Persistence) []string {
	// A replica's first sync starts at once (Redis waits 5 s by default
	// for more replicas to share a diskless transfer).
	args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--protected-mode", "yes",
		"--save", "", "--dir", wd, "--logfile", filepath.Join(wd, "log"), "--repl-diskless-sync-delay", "0"}
	switch p {
	case sim.PersistEverysec:
		return append(args, "--appendonly", "yes", "--appendfsync", "everysec")
	case sim.PersistAlways:
		return append(args, "--appendonly", "yes", "--appendfsync", "always")
	}
	return append(args, "--appendonly", "no")
}

// launch starts node i's server and waits for its PING.
func (s *Servers) launch(bin string, i int) error {
	wd := filepath.Join(s.dir, strconv.Itoa(i))
	var env []string
	if s.specs[i].Clock {
		if err := os.MkdirAll(wd, 0o755); err != nil {
			return err
		}
		if err := s.writeOffset(i); err != nil {
			return err
		}
		var err error
		if env, err = faketimeEnv(s.controlFile(i)); err != nil {
			return err
		}
	}
	cmd, err := startProc(bin, serverArgs(s.ports[i], wd, s.specs[i].Persistence), env, wd, s.ports[i])
	s.cmds[i] = cmd
	return err
}

// startProc starts bin with args (and env added) in wd and waits until it
// answers PING on port. The process is returned even when it does not answer,
// for the caller to kill. When another process answers there (it took the
// port first, so bin could not bind it), bin is killed and the error is
// errPortTaken.
func startProc(bin string, args, env []string, wd string, port int) (*exec.Cmd, error) {
	if err := os.MkdirAll(wd, 0o755); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	dieWithParent(cmd.SysProcAttr)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start: %s: %w", filepath.Base(bin), err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	// A PONG alone could come from anyone on the port, a lag link's
	// listener included; INFO names the process that answered. INFO is
	// answered while an AOF loads, PING only after (-LOADING before).
	ours := "\r\nprocess_id:" + strconv.Itoa(cmd.Process.Pid) + "\r\n"
	identified := false
	for deadline := time.Now().Add(startWait); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if !identified {
			info, err := ask(addr, "INFO", "server")
			if err != nil || !strings.HasPrefix(info, "$") {
				continue
			}
			if !strings.Contains(info, ours) {
				killCmd(&cmd)
				return nil, fmt.Errorf("start: %s: port %d %w", filepath.Base(bin), port, errPortTaken)
			}
			identified = true
		}
		if pong, err := ask(addr, "PING"); err == nil && pong == "+PONG\r\n" {
			return cmd, nil
		}
	}
	return cmd, fmt.Errorf("start: %s on %s did not answer within %s (see %s)", filepath.Base(bin), addr, startWait, filepath.Join(wd, "log"))
}

// errPortTaken is startProc's error when another process answers on the
// port it started a server on.
var errPortTaken = errors.New("is another process's (it took the port first)")

// freePort asks the kernel for a free loopback port. Another process may
// take it before the server binds: onFreePort then tries another.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// onFreePort calls start with a free port, and again with another one, up
// to three tries, while start finds its port taken (errPortTaken). It
// returns the port of the last try.
func onFreePort(start func(port int) error) (port int, err error) {
	for range 3 {
		if port, err = freePort(); err != nil {
			return 0, err
		}
		if err = start(port); !errors.Is(err, errPortTaken) {
			break
		}
	}
	return port, err
}

// OpenServers is Open for servers locksim started: a node restart restarts
// the node's server process, and node clocks can be stepped.
func OpenServers(s *Servers) (*Wire, error) {
	w, err := Open(s.Addrs(), len(s.ports))
	if err != nil {
		return nil, err
	}
	w.servers = s
	w.gens = make([]atomic.Int64, len(s.ports))
	w.spec = "started by locksim: " + w.spec
	return w, nil
}
