package realredis

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/resp"
)

// Replicas and failover. A node with replicas is a primary, each replica a
// redis-server started with --replicaof through its lagLink; a node a
// failover is planned on also gets a redis-sentinel (quorum 1) monitoring
// the primary as "node<i>", its down-after-milliseconds the failover's
// detection delay. Clients then find the primary as real clients do: they
// ask Sentinel (SENTINEL GET-MASTER-ADDR-BY-NAME) at every connection. A
// failover kills the primary (SIGKILL) and cuts its links; Sentinel notices,
// promotes a replica (REPLICAOF NO ONE) and answers with it from then on.

// syncWait bounds how long a replica may take to sync, and Sentinel to see
// the replicas.
const syncWait = 10 * time.Second

// masterName is node i's name in Sentinel.
func masterName(i int) string { return "node" + strconv.Itoa(i) }

// startReplicas starts node i's replicas and its Sentinel, and waits until
// every replica has synced and Sentinel knows them.
func (s *Servers) startReplicas(bin string, i int) error {
	sp := s.specs[i]
	primary := "127.0.0.1:" + strconv.Itoa(s.ports[i])
	for k := range sp.Replicas {
		// The link listens first, so the replica's free port is not its.
		link, err := newLagLink(primary, sp.Lag, uint64(i)<<8|uint64(k)+1)
		if err != nil {
			return err
		}
		r := &replicaProc{link: link}
		s.reps[i] = append(s.reps[i], r)
		wd := filepath.Join(s.dir, fmt.Sprintf("%d-replica%d", i, k))
		port, err := onFreePort(func(port int) error {
			args := append(serverArgs(port, wd, sp.Persistence), "--replicaof", "127.0.0.1", strconv.Itoa(link.port()))
			var err error
			r.cmd, err = startProc(bin, args, nil, wd, port)
			return err
		})
		r.port = port
		if err != nil {
			return err
		}
		// The handshake's few round trips and the first sync pass the
		// link too, each a lag late: a 30 s lock's lag is seconds.
		if err := waitSynced(port, syncWait+10*sp.Lag.Max); err != nil {
			return fmt.Errorf("start: node %d's replica %d: %w (see %s)", i, k, err, filepath.Join(wd, "log"))
		}
	}
	if !sp.Sentinel {
		return nil
	}
	sbin, err := exec.LookPath("redis-sentinel")
	if err != nil {
		return errors.New("start: a failover needs redis-sentinel, which is not on PATH " +
			"(Debian's package redis-sentinel; scripts/redis-server.sh installs it)")
	}
	wd := filepath.Join(s.dir, fmt.Sprintf("%d-sentinel", i))
	if err := os.MkdirAll(wd, 0o755); err != nil {
		return err
	}
	name := masterName(i)
	conf := filepath.Join(wd, "sentinel.conf")
	s.sentinelPort[i], err = onFreePort(func(port int) error {
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nlogfile %s\n"+
			"sentinel monitor %s 127.0.0.1 %d 1\n"+
			"sentinel down-after-milliseconds %s %d\n"+
			"sentinel failover-timeout %s 10000\n",
			port, wd, filepath.Join(wd, "log"), name, s.ports[i], name, sp.DownAfter.Milliseconds(), name)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			return err
		}
		var err error
		s.sentinel[i], err = startProc(sbin, []string{conf}, nil, wd, port)
		return err
	})
	if err != nil {
		return err
	}
	if err := s.waitSentinelSees(i); err != nil {
		return fmt.Errorf("start: node %d's Sentinel: %w (see %s)", i, err, filepath.Join(wd, "log"))
	}
	return nil
}

// waitSynced waits, at most wait, until the replica on port has its link to
// the primary up (INFO replication: master_link_status:up).
func waitSynced(port int, wait time.Duration) error {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if info, err := ask(addr, "INFO", "replication"); err == nil && strings.Contains(info, "master_link_status:up") {
			return nil
		}
	}
	return fmt.Errorf("not in sync with its primary within %s", wait)
}

// waitSentinelSees waits until node i's Sentinel lists every replica.
func (s *Servers) waitSentinelSees(i int) error {
	addr := "127.0.0.1:" + strconv.Itoa(s.sentinelPort[i])
	for deadline := time.Now().Add(syncWait); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		out, err := ask(addr, "SENTINEL", "REPLICAS", masterName(i))
		if err != nil {
			continue
		}
		seen := 0
		for _, r := range s.reps[i] {
			if strings.Contains(out, strconv.Itoa(r.port)) {
				seen++
			}
		}
		if seen == len(s.reps[i]) {
			return nil
		}
	}
	return fmt.Errorf("it did not see the %d replicas within %s", len(s.reps[i]), syncWait)
}

// ask sends one command to addr on a fresh connection and returns the raw
// reply as text.
func ask(addr string, args ...string) (string, error) {
	c, err := resp.Dial(addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	raw, err := c.Do(args...)
	return string(raw), err
}

// primaryAddr is where node i's primary is now: Sentinel's answer when a
// Sentinel watches it, else the server locksim started.
func (s *Servers) primaryAddr(i int) (string, error) {
	s.mu.Lock()
	port := s.sentinelPort[i]
	s.mu.Unlock()
	if port == 0 {
		return "127.0.0.1:" + strconv.Itoa(s.ports[i]), nil
	}
	c, err := resp.Dial("127.0.0.1:"+strconv.Itoa(port), dialTimeout)
	if err != nil {
		return "", fmt.Errorf("Sentinel: %w", err)
	}
	defer c.Close()
	raw, err := c.Do("SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName(i))
	if err != nil {
		return "", fmt.Errorf("Sentinel: %w", err)
	}
	// *2\r\n$9\r\n127.0.0.1\r\n$5\r\n12345\r\n
	parts := strings.Split(string(raw), "\r\n")
	if len(parts) < 5 || parts[0] != "*2" {
		return "", fmt.Errorf("Sentinel: GET-MASTER-ADDR-BY-NAME %s: %q", masterName(i), raw)
	}
	return parts[2] + ":" + parts[4], nil
}

// replicaAddr is node i's replica k.
func (s *Servers) replicaAddr(i, k int) string {
	return "127.0.0.1:" + strconv.Itoa(s.reps[i][k].port)
}

// failover kills node i's primary and cuts its replicas' links (what they
// had not received is lost with it); Sentinel does the rest.
func (s *Servers) failover(i int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return errors.New("the servers were stopped")
	}
	if s.sentinel[i] == nil {
		return fmt.Errorf("node %d has no Sentinel", i)
	}
	for _, r := range s.reps[i] {
		r.link.cutLink()
	}
	s.kill(i)
	return nil
}
