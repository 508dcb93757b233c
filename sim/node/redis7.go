package node

import (
	"math"
	"strings"

	"github.com/alicebob/miniredis/v2/server"
)

// Where miniredis answers a lock's commands differently from Redis 7, the
// node answers as Redis does. Each case below was found by the differential
// suite against redis-server (differential_test.go); the README lists the
// differences left as they are.
//
// These checks run outside MULTI only: inside a transaction miniredis checks
// arguments when it queues a command, Redis when it runs it, and no lock
// uses MULTI.

// redis7 answers args itself when miniredis would answer them unlike Redis
// 7; ok is false when miniredis's answer is right. name is upper case.
func (n *Node) redis7(p *server.Peer, name string, args []string) (r Reply, ok bool) {
	switch name {
	case "SET":
		msg, canonical := checkSet(args, n.now.UnixMilli())
		switch {
		case msg != "":
			return errorReply(msg), true
		case canonical != nil:
			return n.dispatch(p, canonical), true
		}
	case "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT":
		if msg := n.checkExpire(name, args); msg != "" {
			return errorReply(msg), true
		}
	case "TTL":
		// Redis rounds the remaining time to the nearest second
		// ((ms+500)/1000); miniredis truncates it.
		if len(args) != 2 {
			return Reply{}, false
		}
		r := n.dispatch(p, []string{"PTTL", args[1]})
		if r.Kind == Int && r.Int >= 0 {
			r.Int = (r.Int + 500) / 1000
		}
		return r, true
	}
	return Reply{}, false
}

// checkSet returns Redis 7's error for SET options it refuses and miniredis
// accepts or words differently (parseExtendedStringArgumentsOrReply and
// getExpireMillisecondsOrReply in Redis's t_string.c). Redis takes an option
// twice (the last expiry wins), miniredis calls that a syntax error: then
// canonical is the command with each option once, for miniredis to run.
func checkSet(args []string, nowMs int64) (msg string, canonical []string) {
	if len(args) < 3 {
		return "", nil // miniredis's arity error is Redis's
	}
	const syntax = "ERR syntax error"
	var nx, xx, get, keepTTL, repeated bool
	expiry, expiryArg := "", ""
	for i := 3; i < len(args); i++ {
		switch opt := strings.ToUpper(args[i]); opt {
		case "NX":
			if xx {
				return syntax, nil
			}
			repeated = repeated || nx
			nx = true
		case "XX":
			if nx {
				return syntax, nil
			}
			repeated = repeated || xx
			xx = true
		case "GET":
			repeated = repeated || get
			get = true
		case "KEEPTTL":
			if expiry != "" {
				return syntax, nil
			}
			repeated = repeated || keepTTL
			keepTTL = true
		case "EX", "PX", "EXAT", "PXAT":
			if keepTTL || (expiry != "" && expiry != opt) || i+1 == len(args) {
				return syntax, nil
			}
			repeated = repeated || expiry != ""
			expiry, expiryArg = opt, args[i+1]
			i++
		default:
			return syntax, nil
		}
	}
	if expiry != "" {
		v, ok := redisInt(expiryArg)
		if !ok {
			return "ERR value is not an integer or out of range", nil
		}
		seconds := expiry == "EX" || expiry == "EXAT"
		if v <= 0 || (seconds && v > math.MaxInt64/1000) {
			return expireTimeErr("set"), nil
		}
		// Redis adds the current time to EX and PX and refuses a sum that
		// overflows.
		if seconds {
			v *= 1000
		}
		if (expiry == "EX" || expiry == "PX") && v > math.MaxInt64-nowMs {
			return expireTimeErr("set"), nil
		}
	}
	if !repeated {
		return "", nil
	}
	canonical = append(canonical, args[:3]...)
	for _, o := range []struct {
		set  bool
		name string
	}{{nx, "NX"}, {xx, "XX"}, {get, "GET"}, {keepTTL, "KEEPTTL"}} {
		if o.set {
			canonical = append(canonical, o.name)
		}
	}
	if expiry != "" {
		canonical = append(canonical, expiry, expiryArg)
	}
	return "", canonical
}

// checkExpire returns Redis 7's error for an EXPIRE family command whose time
// overflows, which miniredis accepts (expireGenericCommand in Redis's
// expire.c). Option errors come first, as in Redis; miniredis words those
// like Redis, so they are left to it.
func (n *Node) checkExpire(name string, args []string) string {
	if len(args) < 3 {
		return ""
	}
	var nx, xx, gt, lt bool
	for _, o := range args[3:] {
		switch strings.ToUpper(o) {
		case "NX":
			nx = true
		case "XX":
			xx = true
		case "GT":
			gt = true
		case "LT":
			lt = true
		default:
			return ""
		}
	}
	if (nx && (xx || gt || lt)) || (gt && lt) {
		return ""
	}
	v, ok := redisInt(args[2])
	if !ok {
		return ""
	}
	if name == "EXPIRE" || name == "EXPIREAT" {
		if v > math.MaxInt64/1000 || v < math.MinInt64/1000 {
			return expireTimeErr(strings.ToLower(name))
		}
		v *= 1000
	}
	if (name == "EXPIRE" || name == "PEXPIRE") && v > math.MaxInt64-n.now.UnixMilli() {
		return expireTimeErr(strings.ToLower(name))
	}
	return ""
}

func expireTimeErr(cmd string) string {
	return "ERR invalid expire time in '" + cmd + "' command"
}

// redisInt parses s as Redis's string2ll does: an optional minus sign and
// decimal digits, no leading zeros, spaces or plus sign, within int64.
func redisInt(s string) (int64, bool) {
	if s == "0" {
		return 0, true
	}
	neg := strings.HasPrefix(s, "-")
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || digits[0] < '1' || digits[0] > '9' || len(digits) > 19 {
		return 0, false
	}
	var u uint64
	for i := 0; i < len(digits); i++ {
		d := digits[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		u = u*10 + uint64(d-'0')
	}
	// 19 digits fit in a uint64, so u has not wrapped.
	switch {
	case neg && u <= 1<<63:
		return -int64(u-1) - 1, true
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	}
	return 0, false
}
