package golock

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/locksim/locksim/sim/bubble"
)

// Env is what one process incarnation's lock is made with: the run's
// nodes as connections (Dial, and the dialer functions in the shapes Go
// Redis clients take), the key, the TTL and a seeded random source.
//
// A client library is given connections, not addresses: any Go Redis
// client whose options take a dialer runs here. Node i's address is
// Addr(i) ("127.0.0.1:6379" for node 0, "127.0.0.2:6379" for node 1 ...),
// an IP literal so that no client resolves a name from inside the bubble
// (which forbids DNS look-ups); a dialer function given an address that is
// no node's fails the run with a line naming it. The modules beside this
// one make ready clients: golock/goredisenv (go-redis v9),
// golock/goredisv8env (go-redis v8), golock/redigoenv (redigo),
// golock/rueidisenv (rueidis).
type Env struct {
	Key string
	TTL time.Duration
	// Nodes is the run's count of nodes: 1 unless the Nodes option (or
	// the scenario) gives more. A quorum lock takes a client for each.
	Nodes int
	// Rand is the process's deterministic random source. A library that
	// draws from crypto/rand or the unseeded math/rand (redsync's tokens
	// and retry delays, bsm/redislock's tokens) makes runs that do not
	// replay: give it Token and Rand where it takes a function.
	Rand *rand.Rand

	lib   *bubble.Library
	guard *guard
}

// Token is a 22-character random token from Rand, the shape of redsync's
// and bsm/redislock's own (16 random bytes, base64), for their options
// that take a token or a token function.
func (e *Env) Token() (string, error) {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := make([]byte, 22)
	for i := range b {
		b[i] = chars[e.Rand.IntN(len(chars))]
	}
	return string(b), nil
}

// Dial opens a connection to node n of the run: the seam every client
// adapter uses. It fails for a node the run does not have.
func (e *Env) Dial(n int) (net.Conn, error) { return e.lib.Dial(n) }

// Addr is node n's address, for a client's address option: the dialer
// functions below map it back to the node.
func (e *Env) Addr(n int) string { return "127.0.0." + strconv.Itoa(n+1) + ":6379" }

// DialContext dials the node whose address is addr: go-redis's
// Options.Dialer.
func (e *Env) DialContext(_ context.Context, _, addr string) (net.Conn, error) {
	return e.dialAddr(addr)
}

// NetDial dials the node whose address is addr: redigo's
// redis.DialNetDial.
func (e *Env) NetDial(_, addr string) (net.Conn, error) { return e.dialAddr(addr) }

// DialFn dials the node whose address is addr: rueidis's
// ClientOption.DialFn (the *net.Dialer and TLS configuration are not used:
// a simulated connection has neither).
func (e *Env) DialFn(addr string, _ *net.Dialer, _ *tls.Config) (net.Conn, error) {
	return e.dialAddr(addr)
}

// DialCtxFn is DialFn with a context: rueidis's ClientOption.DialCtxFn.
func (e *Env) DialCtxFn(_ context.Context, addr string, _ *net.Dialer, _ *tls.Config) (net.Conn, error) {
	return e.dialAddr(addr)
}

// dialAddr dials the node whose address is addr, or, for any other
// address, notes that the lock dialed outside the simulation (the run
// then fails with it) and returns that error.
func (e *Env) dialAddr(addr string) (net.Conn, error) {
	for n := range e.Nodes {
		if addr == e.Addr(n) {
			return e.Dial(n)
		}
	}
	err := fmt.Errorf("%w: the lock dialed %q, which is no node of the run (node addresses: %s): give the client env.Addr(i) or env.Dial(i)",
		ErrDialOutside, addr, e.addrs())
	e.guard.note(err)
	return nil, err
}

func (e *Env) addrs() string {
	var a []string
	for n := range e.Nodes {
		a = append(a, e.Addr(n))
	}
	return strings.Join(a, ", ")
}

// ErrDialOutside is a dial, through one of Env's dialer functions, of an
// address that is no node of the run: Check, Run and Compare fail with it
// whatever the verdict, since nothing a run found is about the lock when
// its client talked to something else.
var ErrDialOutside = errors.New("golock: a dial outside the simulation")

// guard holds the first dial outside the simulation of one Check, Run or
// Compare; the library's goroutines dial it.
type guard struct {
	mu  sync.Mutex
	err error
}

func (g *guard) note(err error) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err == nil {
		g.err = err
	}
}

// first is the first dial outside, or nil.
func (g *guard) first() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// realDial says whether err is a dial of the real network (a refused
// connection, a real address that answered nothing): a client that
// escaped the simulation by dialing an address itself, not through Env.
func realDial(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "dial tcp") || strings.Contains(s, "connection refused")
}
