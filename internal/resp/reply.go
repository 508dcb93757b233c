package resp

import (
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

// Reply is one Redis reply, parsed: what a simulated node answers (package
// sim/node names it node.Reply) and what a real server's bytes become.
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

// ParseReply reads one RESP2 or RESP3 reply, as a real server sends it, from
// the start of b and returns the rest of b. RESP3 doubles become Bulk, maps
// and sets Array, null Nil. Bytes that are not a whole reply are
// ErrProtocol.
func ParseReply(b []byte) (Reply, []byte, error) { return ParseReplyKnown(b, nil) }

// ParseReplyKnown is ParseReply where a top-level bulk string equal to one
// of known is returned as that string, without a copy.
func ParseReplyKnown(b []byte, known []string) (Reply, []byte, error) {
	line, rest, ok := cutLine(b)
	if !ok || len(line) == 0 {
		return Reply{}, nil, ErrProtocol
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
			return Reply{}, nil, ErrProtocol
		}
		return Reply{Kind: Int, Int: n}, rest, nil
	case '_':
		return Reply{Kind: Nil}, rest, nil
	case ',':
		return Reply{Kind: Bulk, Str: string(body)}, rest, nil
	case '$':
		n, err := strconv.Atoi(string(body))
		if err != nil {
			return Reply{}, nil, ErrProtocol
		}
		if n < 0 {
			return Reply{Kind: Nil}, rest, nil
		}
		if len(rest)-2 < n { // not n+2: that overflows
			return Reply{}, nil, ErrProtocol
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
			return Reply{}, nil, ErrProtocol
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
			return Reply{}, nil, ErrProtocol
		}
		elems := make([]Reply, n)
		for i := range elems {
			elems[i], rest, err = ParseReply(rest)
			if err != nil {
				return Reply{}, nil, err
			}
		}
		return Reply{Kind: Array, Elems: elems}, rest, nil
	}
	return Reply{}, nil, ErrProtocol
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

// AppendReply appends r encoded as RESP2, as a server sends it.
func AppendReply(b []byte, r Reply) []byte {
	switch r.Kind {
	case Nil:
		return append(b, "$-1\r\n"...)
	case Status:
		return append(append(append(b, '+'), r.Str...), "\r\n"...)
	case Error:
		return append(append(append(b, '-'), r.Str...), "\r\n"...)
	case Int:
		return append(strconv.AppendInt(append(b, ':'), r.Int, 10), "\r\n"...)
	case Bulk:
		b = append(strconv.AppendInt(append(b, '$'), int64(len(r.Str)), 10), "\r\n"...)
		return append(append(b, r.Str...), "\r\n"...)
	case Array:
		b = append(strconv.AppendInt(append(b, '*'), int64(len(r.Elems)), 10), "\r\n"...)
		for _, e := range r.Elems {
			b = AppendReply(b, e)
		}
		return b
	}
	return append(b, "-ERR locksim: unknown reply kind\r\n"...)
}

// cutLine splits b after its first CRLF: the line without it and the rest;
// ok is false when b holds no whole line yet.
func cutLine(b []byte) (line, rest []byte, ok bool) {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\r' && b[i+1] == '\n' {
			return b[:i], b[i+2:], true
		}
	}
	return nil, b, false
}

// Equal says two replies are the same, element by element, a nil and an
// empty element list alike.
func (r Reply) Equal(o Reply) bool {
	if r.Kind != o.Kind || r.Str != o.Str || r.Int != o.Int || len(r.Elems) != len(o.Elems) {
		return false
	}
	for i := range r.Elems {
		if !r.Elems[i].Equal(o.Elems[i]) {
			return false
		}
	}
	return true
}
