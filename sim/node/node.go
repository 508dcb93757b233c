// Package node is one simulated Redis server: a miniredis instance driven in
// process through its server's Dispatch, with no sockets and no goroutine per
// command. The caller sets the node's clock before every command, so TTL
// expiry and TIME follow simulated node time.
package node

import (
	"bufio"
	"bytes"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
)

// Node is one Redis server.
type Node struct {
	m     *miniredis.Miniredis
	srv   *server.Server
	out   bytes.Buffer
	w     *bufio.Writer
	peers []*server.Peer // one connection per client, made on first use
}

// New makes a node whose random commands are seeded with seed.
func New(seed int64) *Node {
	m := miniredis.NewMiniRedis()
	// Dial is the only exported way to register miniredis's commands without a
	// listener. The pipe is closed at once and Server.Close waits for its
	// goroutines, so nothing outlives this call.
	if c, err := m.Dial(); err == nil {
		c.Close()
	}
	srv := m.Server()
	srv.Close()
	m.Seed(int(seed))
	m.SetTime(time.Unix(0, 0))
	m.ClockTTL(true)
	n := &Node{m: m, srv: srv}
	n.w = bufio.NewWriter(&n.out)
	return n
}

// Exec runs one command from client conn at node time now.
func (n *Node) Exec(conn int, now time.Time, args []string) Reply {
	n.m.SetTime(now)
	if len(args) == 0 {
		return Reply{Kind: Error, Str: "ERR empty command"}
	}
	n.srv.Dispatch(n.peer(conn), args)
	n.w.Flush()
	r, _, err := parseReply(n.out.Bytes())
	n.out.Reset()
	if err != nil {
		return Reply{Kind: Error, Str: "ERR locksim: " + err.Error()}
	}
	return r
}

func (n *Node) peer(conn int) *server.Peer {
	for len(n.peers) <= conn {
		n.peers = append(n.peers, nil)
	}
	if n.peers[conn] == nil {
		n.peers[conn] = server.NewPeer(n.w)
	}
	return n.peers[conn]
}

// Key reports key at node time now: whether it exists, its string value and
// its TTL (-1 when it has none).
func (n *Node) Key(now time.Time, key string) (exists bool, value string, ttl time.Duration) {
	n.m.SetTime(now)
	if !n.m.Exists(key) {
		return false, "", -1
	}
	value, _ = n.m.Get(key)
	ttl = n.m.TTL(key)
	if ttl == 0 {
		ttl = -1
	}
	return true, value, ttl
}

// Flush loses every key and script: what a restart without persistence does.
func (n *Node) Flush() {
	n.m.FlushAll()
	n.peers = nil
}

// Supported reports whether the node knows the command name.
func (n *Node) Supported(cmd string) bool {
	return n.srv.IsRegisteredCommand(cmd)
}
