package node

import (
	"errors"
	"strconv"
	"strings"
)

// ReplyKind is the RESP type of a reply.
type ReplyKind uint8

const (
	Nil ReplyKind = iota
	Status
	Error
	Int
	Bulk
	Array
)

// Reply is one Redis reply.
type Reply struct {
	Kind  ReplyKind
	Str   string // Status, Error, Bulk
	Int   int64  // Int
	Elems []Reply
}

// String renders the reply the way redis-cli shows it, on one line.
func (r Reply) String() string {
	var b strings.Builder
	r.write(&b)
	return b.String()
}

func (r Reply) write(b *strings.Builder) {
	switch r.Kind {
	case Nil:
		b.WriteString("(nil)")
	case Status:
		b.WriteString(r.Str)
	case Error:
		b.WriteString("(error) ")
		b.WriteString(r.Str)
	case Int:
		b.WriteString("(integer) ")
		b.WriteString(strconv.FormatInt(r.Int, 10))
	case Bulk:
		b.WriteString(strconv.Quote(r.Str))
	case Array:
		b.WriteByte('[')
		for i, e := range r.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteByte(']')
	}
}

var errProtocol = errors.New("node: malformed reply")

// parseReply reads one RESP2/RESP3 reply from b and returns the rest.
func parseReply(b []byte) (Reply, []byte, error) { return parseReplyKnown(b, nil) }

// parseReplyKnown is parseReply where a top-level bulk string equal to one
// of known is returned as that string, without a copy.
func parseReplyKnown(b []byte, known []string) (Reply, []byte, error) {
	line, rest, ok := cutLine(b)
	if !ok || len(line) == 0 {
		return Reply{}, nil, errProtocol
	}
	// The body is made a string only where the reply keeps it: a command's
	// reply costs one allocation at most (its bulk value), none for the
	// usual OK, QUEUED or integer.
	body := line[1:]
	switch line[0] {
	case '+':
		return Reply{Kind: Status, Str: statusText(body)}, rest, nil
	case '-':
		return Reply{Kind: Error, Str: string(body)}, rest, nil
	case ':':
		n, err := strconv.ParseInt(string(body), 10, 64)
		if err != nil {
			return Reply{}, nil, errProtocol
		}
		return Reply{Kind: Int, Int: n}, rest, nil
	case '_':
		return Reply{Kind: Nil}, rest, nil
	case ',':
		return Reply{Kind: Bulk, Str: string(body)}, rest, nil
	case '$':
		n, err := strconv.Atoi(string(body))
		if err != nil {
			return Reply{}, nil, errProtocol
		}
		if n < 0 {
			return Reply{Kind: Nil}, rest, nil
		}
		if len(rest)-2 < n { // not n+2: that overflows
			return Reply{}, nil, errProtocol
		}
		for _, k := range known {
			if string(rest[:n]) == k { // compared without a copy
				return Reply{Kind: Bulk, Str: k}, rest[n+2:], nil
			}
		}
		return Reply{Kind: Bulk, Str: string(rest[:n])}, rest[n+2:], nil
	case '*', '~', '>', '%':
		n, err := strconv.Atoi(string(body))
		if err != nil {
			return Reply{}, nil, errProtocol
		}
		if n < 0 {
			return Reply{Kind: Nil}, rest, nil
		}
		// Every element takes at least 3 bytes ("_\r\n"): a larger count is
		// malformed, and must not size the allocation.
		if line[0] == '%' && n <= len(rest) {
			n *= 2
		}
		if n > len(rest)/3 {
			return Reply{}, nil, errProtocol
		}
		elems := make([]Reply, n)
		for i := range elems {
			elems[i], rest, err = parseReply(rest)
			if err != nil {
				return Reply{}, nil, err
			}
		}
		return Reply{Kind: Array, Elems: elems}, rest, nil
	}
	return Reply{}, nil, errProtocol
}

// statusText returns the common status replies without allocating.
func statusText(b []byte) string {
	switch string(b) { // compared in place: no conversion
	case "OK":
		return "OK"
	case "QUEUED":
		return "QUEUED"
	case "PONG":
		return "PONG"
	}
	return string(b)
}

func cutLine(b []byte) (line, rest []byte, ok bool) {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\r' && b[i+1] == '\n' {
			return b[:i], b[i+2:], true
		}
	}
	return nil, nil, false
}

// ParseReply reads one RESP2 or RESP3 reply, as a real server sends it, from
// the start of b and returns the rest of b. RESP3 doubles become Bulk, maps
// and sets Array, null Nil.
func ParseReply(b []byte) (Reply, []byte, error) { return parseReply(b) }
