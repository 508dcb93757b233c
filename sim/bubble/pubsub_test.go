package bubble

import (
	"bufio"
	"fmt"
	"github.com/locksim/locksim/fault"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/locksim/locksim/sim"
)

// readFrame reads one RESP2 reply from br as text: arrays in brackets,
// bulk strings bare, nil as nil.
func readFrame(br *bufio.Reader) (string, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch line[0] {
	case '*':
		n, _ := strconv.Atoi(line[1:])
		var parts []string
		for k := 0; k < n; k++ {
			p, err := readFrame(br)
			if err != nil {
				return "", err
			}
			parts = append(parts, p)
		}
		return "[" + strings.Join(parts, " ") + "]", nil
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "nil", nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", err
		}
		return string(b[:n]), nil
	}
	return line, nil
}

// command is args as RESP.
func command(args ...string) string {
	s := fmt.Sprintf("*%d\r\n", len(args))
	for _, a := range args {
		s += fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)
	}
	return s
}

// pubsubRun runs a library process c1 that runs sub on a connection to
// node 0, and a plain process c2 that runs pub; 1 ms each way.
func pubsubRun(t *testing.T, sub func(c net.Conn, br *bufio.Reader), pub func(p sim.Proc), faults []sim.Fault) *sim.Result {
	t.Helper()
	l := libraryLock(func(lib *Library) sim.Lease {
		c, err := lib.Dial(0)
		if err != nil {
			t.Error(err)
			return sim.Lease{}
		}
		sub(c, bufio.NewReader(c))
		return sim.Lease{}
	})
	ms := sim.Latency{Min: time.Millisecond, Max: time.Millisecond}
	cfg := sim.Config{Seed: 1, Duration: time.Minute, Nodes: []sim.NodeSpec{{}},
		Procs:   []sim.ProcSpec{{Name: "c1", Iterations: 1}, {Name: "c2", Iterations: 1}},
		Network: sim.Network{Request: ms, Reply: ms, Timeout: time.Second},
		NewLocker: func(i int) sim.Locker {
			if i == 0 {
				return l
			}
			return scriptLock{acquire: func(p sim.Proc) (sim.Lease, error) { pub(p); return sim.Lease{}, nil }}
		},
		Faults: faults,
	}
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A library's connection subscribes (a frame per channel), gets a
// client's PUBLISH and a script's one reply latency after they ran, a
// pattern's as pmessage; subscribed, PING answers a pong frame and other
// commands an error; UNSUBSCRIBE with no channel drops them all.
func TestLibraryPubSub(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var frames []string
		var at []time.Duration
		var published []int64
		pubsubRun(t, func(c net.Conn, br *bufio.Reader) {
			read := func(cmd string, n int) {
				if cmd != "" {
					io.WriteString(c, cmd)
				}
				for k := 0; k < n; k++ {
					f, err := readFrame(br)
					if err != nil {
						frames = append(frames, err.Error())
						return
					}
					frames = append(frames, f)
					at = append(at, time.Since(sim.Epoch))
				}
			}
			read(command("SUBSCRIBE", "ch", "other"), 2)
			read(command("PSUBSCRIBE", "l*"), 1)
			read("", 2) // the two messages
			read(command("PING"), 1)
			read(command("GET", "k"), 1)
			read(command("UNSUBSCRIBE"), 2)
			read(command("PUNSUBSCRIBE", "l*"), 1)
			read(command("GET", "k"), 1)
		}, func(p sim.Proc) {
			p.Sleep(time.Second)
			r, _ := p.Do(0, "PUBLISH", "ch", "hi")
			published = append(published, r.Int)
			r, _ = p.Do(0, "EVAL", `return redis.call("publish", KEYS[1], "0")`, "1", "lock")
			published = append(published, r.Int)
			r, _ = p.Do(0, "PUBLISH", "nobody", "x")
			published = append(published, r.Int)
		}, nil)
		want := "[subscribe ch :1]|[subscribe other :2]|[psubscribe l* :3]|[message ch hi]|[pmessage l* lock 0]|" +
			"[pong ]|-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context|" +
			"[unsubscribe ch :2]|[unsubscribe other :1]|[punsubscribe l* :0]|nil"
		if got := strings.Join(frames, "|"); got != want {
			t.Errorf("frames\n%s\nwant\n%s", got, want)
		}
		if fmt.Sprint(published) != "[1 1 0]" {
			t.Errorf("PUBLISH reached %v, want [1 1 0]", published)
		}
		// The PUBLISH runs at 1.001 s, the script's at 1.003 s; each
		// message takes 1 ms to come.
		if len(at) > 4 && (at[3] != 1002*time.Millisecond || at[4] != 1004*time.Millisecond) {
			t.Errorf("messages at %v and %v, want 1.002s and 1.004s", at[3], at[4])
		}
	})
}

// A node restart loses the subscription: the next PUBLISH there reaches no
// one and closes the subscriber's connection.
func TestLibraryPubSubLostOnRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got []string
		var published int64 = -1
		res := pubsubRun(t, func(c net.Conn, br *bufio.Reader) {
			io.WriteString(c, command("SUBSCRIBE", "ch"))
			for k := 0; k < 2; k++ {
				f, err := readFrame(br)
				if err != nil {
					f = err.Error()
				}
				got = append(got, f)
			}
		}, func(p sim.Proc) {
			p.Sleep(time.Second)
			r, _ := p.Do(0, "PUBLISH", "ch", "hi")
			published = r.Int
		}, []sim.Fault{{Kind: fault.NodeRestart, Node: 0, At: 500 * time.Millisecond, Dur: 10 * time.Millisecond}})
		if strings.Join(got, "|") != "[subscribe ch :1]|EOF" || published != 0 {
			t.Errorf("after a restart: %q, PUBLISH %d; want the subscription's frame, EOF, 0", got, published)
		}
		if res.Cut != "" {
			t.Errorf("cut: %s", res.Cut)
		}
	})
}
