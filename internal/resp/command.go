package resp

import (
	"fmt"
	"strconv"
)

// ParseCommand reads one command, a RESP array of bulk strings as a client
// sends it, from the front of buf: the command and the bytes it took, or
// n == 0 when it is not whole yet. The arguments share one string, the
// command's bytes: two allocations a command, not one an argument.
func ParseCommand(buf []byte) (args []string, n int, err error) {
	line, rest, ok := cutLine(buf)
	if !ok {
		return nil, 0, nil
	}
	if len(line) == 0 || line[0] != '*' {
		return nil, 0, fmt.Errorf("locksim connection: a command is a RESP array, got %q", line)
	}
	count, err := strconv.Atoi(string(line[1:]))
	if err != nil || count < 0 || count > 1<<20 {
		return nil, 0, fmt.Errorf("locksim connection: bad array length %q", line)
	}
	// First the bounds of each argument in buf, then one string for all.
	var small [8][2]int
	bounds := small[:0]
	for range count {
		var hdr []byte
		if hdr, rest, ok = cutLine(rest); !ok {
			return nil, 0, nil
		}
		if len(hdr) == 0 || hdr[0] != '$' {
			return nil, 0, fmt.Errorf("locksim connection: an argument is a bulk string, got %q", hdr)
		}
		size, err := strconv.Atoi(string(hdr[1:]))
		if err != nil || size < 0 || size > maxBulk {
			return nil, 0, fmt.Errorf("locksim connection: bad bulk length %q", hdr)
		}
		if len(rest) < size+2 {
			return nil, 0, nil
		}
		at := len(buf) - len(rest)
		bounds = append(bounds, [2]int{at, at + size})
		rest = rest[size+2:]
	}
	n = len(buf) - len(rest)
	all := string(buf[:n])
	args = make([]string, count)
	for i, b := range bounds {
		args[i] = all[b[0]:b[1]]
	}
	return args, n, nil
}
