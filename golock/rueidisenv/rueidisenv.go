// Package rueidisenv makes rueidis clients for golock: Client(env, i) is a
// rueidis.Client whose connections are the run's to node i, for a lock
// library that takes a rueidis client (redsync's rueidis pool, through
// rueidiscompat.NewAdapter). It is a module of its own so that rueidis
// enters the graph of only the users who ask for it.
//
// locksim's nodes speak RESP2 and refuse HELLO. rueidis's RESP3 needs
// HELLO 3 and its client-side cache needs RESP3, so the client is made
// with AlwaysRESP2 and DisableCache, rueidis's own options for a server
// without RESP3; and the one HELLO 2 rueidis then sends first on each
// connection is answered by the connection itself, as a Redis without
// HELLO (before 6.0) answers it, "ERR unknown command 'HELLO'", which
// rueidis takes as RESP2. That handshake never reaches the node, so it is
// not in the run's history: it carries nothing of the lock.
package rueidisenv

import (
	"bytes"
	"context"
	"crypto/tls"
	"net"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/locksim/locksim/golock"
)

// Client is a rueidis client of node i. Besides AlwaysRESP2 and
// DisableCache (see the package's doc): ForceSingleClient, so that it does
// not probe the node with CLUSTER commands first; no CLIENT SETINFO, as
// golock/goredisenv's clients send no identity; one connection for
// pipelining (PipelineMultiplex -1: its default depends on GOMAXPROCS,
// which no run may); buffers of 512 bytes and a ring of 16 commands, not
// 0.5 MiB each and 1024, since a run makes fresh clients for every
// process; and a retry at once, since its default delay draws from an
// unseeded random source and runs with it would not replay. Every other
// option is rueidis's default. It must be made inside the lock's code
// (NewLock or Acquire): rueidis dials when the client is made. edit, when
// not nil, changes the options before the client is made.
func Client(env *golock.Env, i int) (rueidis.Client, error) { return NewClient(env, i, nil) }

// NewClient is Client with the caller's changes to the options.
func NewClient(env *golock.Env, i int, edit func(*rueidis.ClientOption)) (rueidis.Client, error) {
	o := rueidis.ClientOption{
		InitAddress:         []string{env.Addr(i)},
		DialCtxFn:           dialer(env),
		AlwaysRESP2:         true,
		DisableCache:        true,
		ForceSingleClient:   true,
		ClientSetInfo:       rueidis.DisableClientSetInfo,
		PipelineMultiplex:   -1,
		ReadBufferEachConn:  512,
		WriteBufferEachConn: 512,
		RingScaleEachConn:   4,
		RetryDelay:          func(int, rueidis.Completed, error) time.Duration { return 0 },
	}
	if edit != nil {
		edit(&o)
	}
	return rueidis.NewClient(o)
}

func dialer(env *golock.Env) func(context.Context, string, *net.Dialer, *tls.Config) (net.Conn, error) {
	return func(ctx context.Context, addr string, d *net.Dialer, c *tls.Config) (net.Conn, error) {
		conn, err := env.DialCtxFn(ctx, addr, d, c)
		if err != nil {
			return nil, err
		}
		return &helloConn{Conn: conn}, nil
	}
}

// hello2 is HELLO 2 as rueidis writes it, the first command of a RESP2
// connection.
var hello2 = []byte("*2\r\n$5\r\nHELLO\r\n$1\r\n2\r\n")

// noHello is what a Redis without HELLO answers it.
const noHello = "-ERR unknown command 'HELLO'\r\n"

// helloConn answers the HELLO 2 that starts the connection and passes
// everything else through.
type helloConn struct {
	net.Conn
	mu      sync.Mutex
	started bool   // the first write was seen
	reply   []byte // the answer to HELLO not yet read
}

func (c *helloConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	first := !c.started
	c.started = true
	if first && bytes.HasPrefix(p, hello2) {
		c.reply = append(c.reply, noHello...)
		c.mu.Unlock()
		rest := p[len(hello2):]
		if len(rest) == 0 {
			return len(p), nil
		}
		n, err := c.Conn.Write(rest)
		return n + len(hello2), err
	}
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *helloConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if len(c.reply) > 0 {
		n := copy(p, c.reply)
		c.reply = c.reply[n:]
		c.mu.Unlock()
		return n, nil
	}
	c.mu.Unlock()
	return c.Conn.Read(p)
}
