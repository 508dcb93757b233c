package node

import (
	"bufio"
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"

	"github.com/locksim/locksim/internal/resp"
)

// t0 is a node time with microseconds, so that TIME shows both parts.
var t0 = time.Date(2026, 1, 1, 0, 0, 4, 123456000, time.UTC)

// stock is a plain miniredis driven the same way as a Node but with none of
// the node's interception: its EVAL is miniredis's own.
type stock struct {
	m   *miniredis.Miniredis
	srv *server.Server
	out bytes.Buffer
	w   *bufio.Writer
	p   *server.Peer
}

func newStock(tb testing.TB, seed int64) *stock {
	tb.Helper()
	m := miniredis.NewMiniRedis()
	c, err := m.Dial()
	if err != nil {
		tb.Fatalf("miniredis dial: %v", err)
	}
	c.Close()
	srv := m.Server()
	srv.Close()
	m.Seed(int(seed))
	m.ClockTTL(true)
	s := &stock{m: m, srv: srv}
	s.w = bufio.NewWriter(&s.out)
	s.p = server.NewPeer(s.w)
	return s
}

func (s *stock) exec(tb testing.TB, now time.Time, args []string) Reply {
	tb.Helper()
	s.m.SetTime(now)
	s.srv.Dispatch(s.p, args)
	s.w.Flush()
	r, _, err := resp.ParseReply(s.out.Bytes())
	s.out.Reset()
	if err != nil {
		tb.Fatalf("stock %q: %v", args, err)
	}
	return r
}

func eval(script string, keys []string, args ...string) []string {
	cmd := []string{"EVAL", script, strconv.Itoa(len(keys))}
	cmd = append(cmd, keys...)
	return append(cmd, args...)
}

func cmd(args ...string) []string { return args }

func bulk(s string) Reply   { return Reply{Kind: Bulk, Str: s} }
func status(s string) Reply { return Reply{Kind: Status, Str: s} }
func integer(i int64) Reply { return Reply{Kind: Int, Int: i} }
func errr(s string) Reply   { return Reply{Kind: Error, Str: s} }
func array(e ...Reply) Reply {
	return Reply{Kind: Array, Elems: e}
}

var nilReply = Reply{Kind: Nil}

// mustExec runs one command on n and checks its reply.
func mustExec(t *testing.T, n *Node, now time.Time, args []string, want Reply) {
	t.Helper()
	if got := n.Exec(0, now, args); !got.Equal(want) {
		t.Errorf("%q\n got %s\nwant %s", args, got, want)
	}
}

// mustExecOn runs one command on n from client conn and stops the test at a
// wrong reply: the commands after it depend on it.
func mustExecOn(t *testing.T, n *Node, conn int, now time.Time, args []string, want Reply) {
	t.Helper()
	if got := n.Exec(conn, now, args); !got.Equal(want) {
		t.Fatalf("connection %d %q: got %v, want %v", conn, args, got, want)
	}
}
