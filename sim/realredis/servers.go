package realredis

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/locksim/locksim/internal/resp"
)

// Servers are throwaway redis-servers locksim started itself (--redis
// start), one per node: a node restart then restarts the process, as a
// real restart without persistence does, instead of flushing a database.
type Servers struct {
	mu    sync.Mutex
	dir   string
	ports []int
	cmds  []*exec.Cmd
}

// startWait bounds how long a server may take to answer PING.
const startWait = 10 * time.Second

// Start starts n redis-servers (redis-server must be on PATH) on free
// loopback ports, persistence off, each in its own working directory.
func Start(n int) (*Servers, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, errors.New("start: redis-server is not on PATH (scripts/redis-server.sh installs it)")
	}
	dir, err := os.MkdirTemp("", "locksim-servers-")
	if err != nil {
		return nil, err
	}
	s := &Servers{dir: dir, ports: make([]int, n), cmds: make([]*exec.Cmd, n)}
	for i := range n {
		port, err := freePort()
		if err == nil {
			s.ports[i] = port
			err = s.launch(bin, i)
		}
		if err != nil {
			s.Stop()
			return nil, err
		}
	}
	return s, nil
}

// Addrs is the --redis value that reaches the servers, node by node.
func (s *Servers) Addrs() string {
	out := make([]string, len(s.ports))
	for i, p := range s.ports {
		out[i] = "127.0.0.1:" + strconv.Itoa(p)
	}
	return strings.Join(out, ",")
}

// Stop ends every server and removes their directory.
func (s *Servers) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.cmds {
		s.kill(i)
	}
	os.RemoveAll(s.dir)
}

// restart kills node i's server and starts it again on the same port: every
// key, script and connection is gone.
func (s *Servers) restart(i int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kill(i)
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return err
	}
	return s.launch(bin, i)
}

func (s *Servers) kill(i int) {
	if c := s.cmds[i]; c != nil && c.Process != nil {
		c.Process.Kill()
		c.Wait()
		s.cmds[i] = nil
	}
}

// launch starts node i's server and waits for its PING.
func (s *Servers) launch(bin string, i int) error {
	wd := fmt.Sprintf("%s/%d", s.dir, i)
	if err := os.MkdirAll(wd, 0o755); err != nil {
		return err
	}
	port := strconv.Itoa(s.ports[i])
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--protected-mode", "yes",
		"--save", "", "--appendonly", "no", "--dir", wd, "--logfile", wd+"/log")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start: redis-server: %w", err)
	}
	s.cmds[i] = cmd
	addr := "127.0.0.1:" + port
	for deadline := time.Now().Add(startWait); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		c, err := resp.Dial(addr, time.Second)
		if err != nil {
			continue
		}
		raw, err := c.Do("PING")
		c.Close()
		if err == nil && string(raw) == "+PONG\r\n" {
			return nil
		}
	}
	return fmt.Errorf("start: redis-server on %s did not answer PING within %s (see %s/log)", addr, startWait, wd)
}

// freePort asks the kernel for a free loopback port. Another process may
// take it before the server binds; launch then fails with the log's reason.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// OpenServers is Open for servers locksim started: a node restart restarts
// the node's server process.
func OpenServers(s *Servers) (*Wire, error) {
	w, err := Open(s.Addrs(), len(s.ports))
	if err != nil {
		return nil, err
	}
	w.servers = s
	w.spec = "started by locksim: " + w.spec
	return w, nil
}
