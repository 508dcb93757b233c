// Package resp is locksim's one RESP codec, used by the simulated node, the
// bubble's connections and the wire to real servers:
//
//   - Reply, the parsed reply (node.Reply is this type), with ParseReply
//     and ParseReplyKnown to read one from a server's bytes, RESP2 or RESP3,
//     and AppendReply to encode one as a RESP2 server sends it;
//   - AppendCommand and ParseCommand: a command as a client sends it, a RESP
//     array of bulk strings;
//   - Conn, a minimal RESP2 client for a real redis-server: it sends
//     commands and hands back each reply as the exact bytes the server sent
//     (ReadRaw), so callers can compare replies byte for byte or parse them
//     with ParseReply.
//
// For example:
//
//	c, err := resp.Dial("127.0.0.1:6379", time.Second)
//	raw, err := c.Do("SET", "k", "v", "NX") // raw == []byte("+OK\r\n")
//
// A Conn is not safe for concurrent use. It speaks RESP2 only (no HELLO);
// ReadRaw nevertheless accepts RESP3's reply types, for servers that send
// them.
package resp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// Conn is one connection to a Redis server.
type Conn struct {
	c       net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
	Timeout time.Duration // per Do: write and read; zero means none
}

// Dial connects to addr (host:port) within timeout, which also becomes the
// connection's per-command Timeout.
func Dial(addr string, timeout time.Duration) (*Conn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &Conn{c: c, r: bufio.NewReader(c), w: bufio.NewWriter(c), Timeout: timeout}, nil
}

// NoTimeout turns the per-command timeout off and clears any deadline an
// earlier command set: the caller decides when to give up (by closing).
func (c *Conn) NoTimeout() {
	c.Timeout = 0
	c.c.SetDeadline(time.Time{})
}

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

// Do sends one command and returns its reply's raw bytes. An error reply
// from the server is a reply, not an error: err is only for I/O and
// protocol failures, after which the connection should be closed.
func (c *Conn) Do(args ...string) ([]byte, error) {
	if err := c.Send(args...); err != nil {
		return nil, err
	}
	return c.Receive()
}

// Send writes one command without waiting for its reply (pipelining).
func (c *Conn) Send(args ...string) error {
	if c.Timeout > 0 {
		c.c.SetDeadline(time.Now().Add(c.Timeout))
	}
	c.w.Write(AppendCommand(nil, args...))
	return c.w.Flush()
}

// SendRaw writes already encoded commands (AppendCommand) in one write:
// a pipeline, such as MULTI … EXEC, whose replies Receive then reads.
func (c *Conn) SendRaw(b []byte) error {
	if c.Timeout > 0 {
		c.c.SetDeadline(time.Now().Add(c.Timeout))
	}
	c.w.Write(b)
	return c.w.Flush()
}

// Receive reads the next reply's raw bytes.
func (c *Conn) Receive() ([]byte, error) {
	if c.Timeout > 0 {
		c.c.SetDeadline(time.Now().Add(c.Timeout))
	}
	return ReadRaw(c.r)
}

// AppendCommand appends args encoded as a RESP array of bulk strings.
func AppendCommand(b []byte, args ...string) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

// ErrProtocol is returned for bytes that are not a RESP reply (ReadRaw,
// ParseReply).
var ErrProtocol = errors.New("resp: malformed reply")

// maxBulk bounds one bulk string, as Redis's proto-max-bulk-len does.
const maxBulk = 512 << 20

// ReadRaw reads exactly one reply (nested aggregates included) from r and
// returns its bytes unchanged.
func ReadRaw(r *bufio.Reader) ([]byte, error) {
	return readRaw(r, nil, 0)
}

func readRaw(r *bufio.Reader, out []byte, depth int) ([]byte, error) {
	if depth > 1000 {
		return nil, fmt.Errorf("%w: nested too deep", ErrProtocol)
	}
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: %q", ErrProtocol, line)
	}
	out = append(out, line...)
	kind, body := line[0], string(line[1:len(line)-2])
	switch kind {
	case '+', '-', ':', '_', ',', '#', '(':
		return out, nil
	case '$', '!', '=':
		n, err := strconv.Atoi(body)
		if err != nil || n > maxBulk {
			return nil, fmt.Errorf("%w: bulk length %q", ErrProtocol, body)
		}
		if n < 0 {
			return out, nil
		}
		start := len(out)
		out = append(out, make([]byte, n+2)...)
		if _, err := io.ReadFull(r, out[start:]); err != nil {
			return nil, err
		}
		if out[len(out)-2] != '\r' || out[len(out)-1] != '\n' {
			return nil, fmt.Errorf("%w: bulk string not ended by CRLF", ErrProtocol)
		}
		return out, nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, fmt.Errorf("%w: aggregate length %q", ErrProtocol, body)
		}
		if kind == '%' || kind == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if out, err = readRaw(r, out, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: type byte %q", ErrProtocol, kind)
}
