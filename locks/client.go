package locks

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// ClientError is the algorithm's own code failing where the original
// program would throw: Python's int(None), Java's Long.parseLong(null), a
// network error the client library raises. The process ends, as the
// original program would.
type ClientError struct {
	Algorithm string
	Step      string // the document's expression or command that failed
	Err       error
}

func (e *ClientError) Error() string {
	return e.Algorithm + ": " + e.Step + ": " + e.Err.Error()
}

func (e *ClientError) Unwrap() error { return e.Err }

func clientErr(algo, step string, format string, args ...any) error {
	return &ClientError{Algorithm: algo, Step: step, Err: fmt.Errorf(format, args...)}
}

// call runs one command for a document's algorithm. A timeout or an error
// reply is what the document's client library raises: it becomes a
// ClientError naming the step.
func call(p sim.Proc, algo, step string, n int, args ...string) (sim.Reply, error) {
	r, err := sim.Do(p, n, args...)
	if err != nil {
		return r, &ClientError{Algorithm: algo, Step: step, Err: err}
	}
	return r, nil
}

// integer reads an integer reply (SETNX, DEL, EVAL returning a number).
func integer(algo, step string, r sim.Reply) (int64, error) {
	if r.Kind != node.Int {
		return 0, clientErr(algo, step, "want an integer reply, got %s", r)
	}
	return r.Int, nil
}

// bulk reads a bulk-or-nil reply (GET, GETSET, SET … GET): ok is false for
// nil.
func bulk(algo, step string, r sim.Reply) (s string, ok bool, err error) {
	switch r.Kind {
	case node.Nil:
		return "", false, nil
	case node.Bulk:
		return r.Str, true, nil
	}
	return "", false, clientErr(algo, step, "want a string or nil reply, got %s", r)
}

// Stamp is the local clock as an integer count of res since the Unix epoch,
// truncated as the documents truncate: int(time.time()) and PHP's time() for
// time.Second, System.currentTimeMillis() for time.Millisecond.
func Stamp(t time.Time, res time.Duration) int64 {
	if res <= 0 {
		res = time.Second // Validate rejects it; never divide by zero
	}
	ns, r := t.UnixNano(), int64(res)
	q := ns / r
	if ns%r < 0 {
		q-- // floor, as int() and currentTimeMillis() do before 1970 too
	}
	return q
}

// Units is d counted in res, rounded up: LOCK_TIMEOUT = 3 s in seconds is 3.
func Units(d, res time.Duration) int64 {
	if res <= 0 {
		res = time.Second
	}
	return int64((d + res - 1) / res)
}

// seconds and millis are a TTL as EXPIRE and PX take it, rounded up and at
// least 1 (EXPIRE 0 would delete the key at once).
func seconds(d time.Duration) string { return strconv.FormatInt(max(Units(d, time.Second), 1), 10) }
func millis(d time.Duration) string  { return strconv.FormatInt(max(Units(d, time.Millisecond), 1), 10) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// LastTry reports whether try (1-based) is the last one Retries allows.
func LastTry(try, retries int) bool { return retries != Forever && try >= retries }

// RandomToken is a random lock value from the process's own source: 20 bytes in
// hex, as redis.io's distlock page suggests.
func RandomToken(p sim.Proc) string {
	r := p.Rand()
	// fmt.Sprintf("%016x%016x%08x", ...) without fmt: a token per acquire
	// attempt made fmt a sixth of explore's time.
	var b [40]byte
	putHex(b[0:16], r.Uint64())
	putHex(b[16:32], r.Uint64())
	putHex(b[32:40], uint64(r.Uint32()))
	return string(b[:])
}

// putHex writes v into dst as len(dst) lower-case hex digits, zero-padded.
func putHex(dst []byte, v uint64) {
	const digits = "0123456789abcdef"
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = digits[v&0xf]
		v >>= 4
	}
}

// Jitter is a random delay with mean d, uniform in [d/2, 3d/2): "retry after
// a random delay in order to try to desynchronize multiple clients".
func Jitter(p sim.Proc, d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d/2 + time.Duration(p.Rand().Int64N(int64(d)))
}

// held is the lease for an attempt that got the lock or not.
func held(ok bool, tok string) sim.Lease {
	if !ok {
		return sim.Lease{}
	}
	return sim.Lease{Held: true, Token: tok}
}

// phpInt is PHP's (int) cast of a reply: true is 1, null and false are 0, a
// string counts its leading integer ("12abc" is 12, "abc" is 0).
func phpInt(r sim.Reply) int64 {
	switch r.Kind {
	case node.Int:
		return r.Int
	case node.Bulk, node.Status:
		s := strings.TrimLeft(r.Str, " \t\n\r\v\f")
		end := 0
		if end < len(s) && (s[end] == '+' || s[end] == '-') {
			end++
		}
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
		}
		n, _ := strconv.ParseInt(s[:end], 10, 64) // 0 when no digits; clamped when too long, as PHP does
		return n
	}
	return 0
}
