package node

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/redistest"
	"github.com/locksim/locksim/internal/resp"
)

// The differential suite sends the same command sequences to a Node and to a
// real redis-server (LOCKSIM_REDIS, see internal/redistest; skipped without
// one) and compares the replies byte for byte as RESP2: the node's Reply is
// encoded the way a server would send it, the server's bytes are kept as
// read. Every difference must be listed in knownDiffs with the reason it
// cannot matter for a lock, so any new one fails the test, and so does a
// listed one that no longer occurs.
//
// Time. The node runs at node time: each case starts at diffT0 and a step's
// wait moves the node clock by exactly that much. The real server runs in
// real time: a wait sleeps. Placeholders {now_ms+N} and {now_s+N} in a
// command are filled from each side's own clock (node time on the node, the
// host clock on the server). Replies that depend on elapsed real time (PTTL,
// TIME) are compared with a tolerance or by shape, never exactly; the exact
// expiry boundary is TestDifferentialExpiryBoundary's.

// diffT0 is the node time every case starts at: a whole millisecond, as
// Redis's clock is, with microseconds of zero so TIME's shape is the same.
var diffT0 = time.Date(2026, 1, 1, 0, 0, 4, 0, time.UTC)

// compareKind says how one step's replies are compared.
type compareKind uint8

const (
	exact     compareKind = iota
	nearMs                // both integers within diffTolerance (PTTL, TTL in ms)
	timeShape             // both a TIME reply: two bulk strings of digits, micros < 1e6
)

// diffTolerance bounds how far a real-time integer (a PTTL) may be from the
// node's: the real time spent between commands on a loaded machine.
const diffTolerance = 150

type diffStep struct {
	wait time.Duration // before the step: node time advances, the real side sleeps
	args []string
	cmp  compareKind
}

type diffCase struct {
	name  string
	steps []diffStep
}

// c is a step compared exactly, right after the previous one.
func c(args ...string) diffStep { return diffStep{args: args} }

// after is a step that runs d after the previous one.
func after(d time.Duration, s diffStep) diffStep { s.wait = d; return s }

func near(s diffStep) diffStep  { s.cmp = nearMs; return s }
func shape(s diffStep) diffStep { s.cmp = timeShape; return s }

// ev is an EVAL step with its keys.
func ev(script string, keys []string, args ...string) diffStep {
	return diffStep{args: eval(script, keys, args...)}
}

// knownDiff is one difference between the node and Redis 7 that is allowed,
// with why it cannot matter for a lock. It matches a step by case and
// command (arguments joined by spaces) and both replies, exactly as RESP.
type knownDiff struct {
	caseName, command string
	node, redis       string
	why               string
}

var knownDiffs = []knownDiff{
	// INCR's parse of a stored value.
	{"incr", "INCR s", ":2\r\n", "-ERR value is not an integer or out of range\r\n",
		"miniredis reads \"01\" as 1; Redis accepts only canonical integers. A lock INCRs a counter " +
			"that INCR itself wrote (fenced-token), always canonical."},
	// HINCRBY: no built-in lock uses hashes; an algorithm file could (a
	// reentrancy count).
	{"hash", "HINCRBY h s 1", "-ERR value is not an integer or out of range\r\n", "-ERR hash value is not an integer\r\n",
		"error text only: both refuse; no lock matches error text (an error reply is a client error or what errors: says)."},
	{"hash", "HINCRBY h max 1", ":-9223372036854775808\r\n", "-ERR increment or decrement would overflow\r\n",
		"miniredis wraps at 2^63 where Redis refuses; a count of holders or re-entries never gets near 2^63."},
	// Lua's own error messages: gopher-lua is not Lua 5.1. A script that
	// fails fails on both; only the text differs.
	{"script errors", "EVAL error(12) 0",
		"-ERR 12 script: 531d78cb0a3022f46aa8fcca247caa61d303b321, on @user_script:1.\r\n",
		"-ERR user_script:1: 12 script: 531d78cb0a3022f46aa8fcca247caa61d303b321, on @user_script:1.\r\n",
		"error text only: Lua 5.1 adds the position to a number raised with error(), gopher-lua only to strings."},
	{"script errors", "EVAL error() 0",
		"-ERR user_script:1: bad argument #1 to error (value expected) script: aca90d914519fdb9825352bdc0befb59f7c8510f, on @user_script:1.\r\n",
		"-ERR nil script: aca90d914519fdb9825352bdc0befb59f7c8510f, on @user_script:1.\r\n",
		"error text only: gopher-lua's error() wants an argument, Lua 5.1's raises nil; the script fails on both."},
	{"script errors", "EVAL return nil + 1 0",
		"-ERR user_script:1: cannot perform add operation between nil and number script: d13bc48d895ba57f297c4db70c1d256548a54e2d, on @user_script:1.\r\n",
		"-ERR user_script:1: attempt to perform arithmetic on a nil value script: d13bc48d895ba57f297c4db70c1d256548a54e2d, on @user_script:1.\r\n",
		"error text only: gopher-lua words Lua's runtime errors its own way."},
	{"script errors", "EVAL return 'a' .. nil 0",
		"-ERR user_script:1: cannot perform concat operation between string and nil script: a954e0524e4e64a9f26274ffcefea47159ca7c15, on @user_script:1.\r\n",
		"-ERR user_script:1: attempt to concatenate a nil value script: a954e0524e4e64a9f26274ffcefea47159ca7c15, on @user_script:1.\r\n",
		"error text only: gopher-lua words Lua's runtime errors its own way."},
	{"script errors", "EVAL return ( 0",
		"-ERR Error compiling script (new function): user_script:1: syntax error near <eof>\r\n",
		"-ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'\r\n",
		"error text only: both refuse the script; algorithm files compile their scripts at load, so such a file never runs."},
	{"script errors", "EVAL retur 1 0",
		"-ERR Error compiling script (new function): user_script:1: parse error near '1'\r\n",
		"-ERR Error compiling script (new function): user_script:1: '=' expected near '1'\r\n",
		"error text only: both refuse the script; algorithm files compile their scripts at load, so such a file never runs."},
	{"script cache", "SCRIPT LOAD retur 1",
		"-ERR Error compiling script (new function): user_script:1: parse error near '1'\r\n",
		"-ERR Error compiling script (new function): user_script:1: '=' expected near '1'\r\n",
		"error text only: both refuse the script."},
	{"script pcall", "EVAL local ok, e = pcall(error, 'x') return {tostring(ok), e} 0",
		"*2\r\n$5\r\nfalse\r\n$16\r\nuser_script:1: x\r\n", "*2\r\n$5\r\nfalse\r\n$1\r\nx\r\n",
		"Lua 5.1 adds no position when error is called straight from pcall; gopher-lua does. Only a script that " +
			"reads the text of its own caught error could tell; no lock does."},
}

func diffCases() []diffCase {
	k := []string{"k"}
	return []diffCase{
		{"setnx", []diffStep{
			c("SETNX", "k", "v1"), c("SETNX", "k", "v2"), c("GET", "k"),
			c("SETNX", "k"), c("HSET", "h", "f", "1"), c("SETNX", "h", "v"),
		}},
		{"set options", []diffStep{
			c("SET", "k", "v1", "NX", "PX", "5000"), c("SET", "k", "v2", "NX", "PX", "5000"), c("GET", "k"),
			near(c("PTTL", "k")), c("SET", "k", "v3", "XX"), c("PTTL", "k"),
			c("SET", "missing", "v", "XX"), c("EXISTS", "missing"),
			c("SET", "k", "v4", "XX", "GET"), c("SET", "k", "v5", "NX", "GET"), c("SET", "new", "v", "NX", "GET"),
			c("GET", "new"), c("SET", "k", "v6", "GET"), c("SET", "absent", "v", "XX", "GET"),
			c("SET", "k", "v", "NX", "XX"), c("SET", "k", "v", "EX", "10", "PX", "10000"),
			c("SET", "k", "v", "PX", "0"), c("SET", "k", "v", "PX", "-1"), c("SET", "k", "v", "EX", "0"),
			c("SET", "k", "v", "EX", "-5"), c("SET", "k", "v", "PX", "abc"), c("SET", "k", "v", "PX"),
			c("SET", "k", "v", "PX", "9223372036854775807"), c("SET", "k", "v", "EX", "9223372036854775"),
			c("SET", "k", "v", "FOO"), c("SET", "k"), c("GET", "k"),
			c("SET", "k", "v7", "PX", "100", "PX", "20000"), near(c("PTTL", "k")), c("SET", "k", "v8", "NX", "NX"),
			c("SET", "k", "v9", "GET", "GET"), c("SET", "k2", "v", "XX", "XX", "GET", "EX", "1", "EX", "100"),
			c("SET", "k", "v10", "EX", "10", "EX", "100"), c("TTL", "k"), c("SET", "k", "v", "KEEPTTL", "KEEPTTL"), c("TTL", "k"),
			c("SET", "k", "v", "PX", "01"), c("SET", "k", "v", "px", "1000", "nx"), c("SET", "k", "v", "get", "xx"),
		}},
		{"set keepttl", []diffStep{
			c("SET", "k", "v1", "PX", "5000"), c("SET", "k", "v2", "KEEPTTL"), near(c("PTTL", "k")), c("GET", "k"),
			c("SET", "k", "v3", "KEEPTTL", "PX", "100"), c("SET", "k", "v4", "KEEPTTL", "GET"), near(c("PTTL", "k")),
			c("SET", "k", "v5"), c("PTTL", "k"),
			c("SET", "k", "v6", "EX", "100", "XX", "GET"), c("TTL", "k"),
		}},
		{"set absolute expiry", []diffStep{
			c("SET", "k", "v", "PXAT", "{now_ms+5000}"), near(c("PTTL", "k")),
			c("SET", "k", "v", "EXAT", "{now_s+100}"), c("GET", "k"),
			c("SET", "k", "v", "PXAT", "{now_ms-1000}"), c("GET", "k"), c("EXISTS", "k"),
			c("SET", "k", "v", "PXAT", "0"), c("SET", "k", "v", "NX", "PXAT", "{now_ms+5000}", "GET"),
			c("SET", "k", "v", "PXAT", "{now_ms+5000}", "KEEPTTL"),
			c("SET", "far", "v", "PXAT", "9223372036854775807"), c("GET", "far"), c("EXISTS", "far"),
			c("SET", "far2", "v"), c("PEXPIREAT", "far2", "9223372036854775807"), c("EXISTS", "far2"),
			c("PEXPIREAT", "far2", "{now_ms+5000}"), near(c("PTTL", "far2")), c("EXPIREAT", "far2", "{now_s-10}"), c("EXISTS", "far2"),
		}},
		{"set wrong type", []diffStep{
			c("HSET", "h", "f", "1"), c("SET", "h", "v", "GET"), c("SET", "h", "v", "NX", "GET"),
			c("SET", "h", "v", "NX"), c("GET", "h"), c("SET", "h", "v"), c("GET", "h"),
		}},
		{"getset", []diffStep{
			c("GETSET", "k", "v1"), c("GETSET", "k", "v2"), c("GET", "k"),
			c("SET", "t", "v", "PX", "5000"), c("GETSET", "t", "w"), c("PTTL", "t"),
			c("HSET", "h", "f", "1"), c("GETSET", "h", "v"), c("GETSET", "k"),
		}},
		{"get missing and expired", []diffStep{
			c("GET", "missing"), c("SET", "k", "v", "PX", "50"), c("GET", "k"),
			after(300*time.Millisecond, c("GET", "k")), c("EXISTS", "k"), c("PTTL", "k"), c("TTL", "k"),
			c("SET", "s", "v", "EX", "1"), after(1300*time.Millisecond, c("GET", "s")),
			c("HSET", "h", "f", "1"), c("GET", "h"), c("GET"),
		}},
		{"del", []diffStep{
			c("DEL", "k"), c("SET", "k", "v"), c("DEL", "k"), c("GET", "k"),
			c("SET", "a", "1"), c("SET", "b", "2"), c("DEL", "a", "b", "c", "a"), c("DEL"),
			c("HSET", "h", "f", "1"), c("DEL", "h"),
		}},
		{"expire options", []diffStep{
			c("EXPIRE", "missing", "10"), c("SET", "k", "v"),
			c("EXPIRE", "k", "10", "XX"), c("EXPIRE", "k", "10", "GT"), c("EXPIRE", "k", "100", "LT"),
			c("TTL", "k"), c("PERSIST", "k"),
			c("EXPIRE", "k", "10", "NX"), c("EXPIRE", "k", "20", "NX"), c("TTL", "k"),
			c("EXPIRE", "k", "20", "XX"), c("TTL", "k"),
			c("EXPIRE", "k", "5", "GT"), c("EXPIRE", "k", "30", "GT"), c("TTL", "k"),
			c("EXPIRE", "k", "50", "LT"), c("EXPIRE", "k", "5", "LT"), c("TTL", "k"),
			c("EXPIRE", "k", "10", "NX", "XX"), c("EXPIRE", "k", "10", "GT", "LT"), c("EXPIRE", "k", "10", "NX", "GT"),
			c("EXPIRE", "k", "10", "XX", "GT"), c("TTL", "k"),
			c("EXPIRE", "k", "10", "FOO"), c("EXPIRE", "k", "abc"), c("EXPIRE", "k"),
			c("EXPIRE", "k", "9223372036854775807"), c("EXPIRE", "k", "-9223372036854775808"),
			c("EXPIRE", "k", "9223372036854775807", "NX", "XX"), c("EXPIRE", "k", "9223372036854775807", "FOO"), c("TTL", "k"),
			c("EXPIRE", "k", "0"), c("EXISTS", "k"),
			c("SET", "k", "v"), c("EXPIRE", "k", "-5"), c("EXISTS", "k"),
			c("SET", "k", "v"), c("EXPIRE", "k", "-5", "NX"), c("EXISTS", "k"),
			c("SET", "k", "v"), c("EXPIRE", "k", "0", "XX"), c("EXISTS", "k"),
		}},
		{"pexpire options", []diffStep{
			c("PEXPIRE", "missing", "1000"), c("SET", "k", "v"),
			c("PEXPIRE", "k", "5000", "NX"), near(c("PTTL", "k")), c("PEXPIRE", "k", "9000", "NX"),
			c("PEXPIRE", "k", "4000", "GT"), c("PEXPIRE", "k", "8000", "GT"), near(c("PTTL", "k")),
			c("PEXPIRE", "k", "9000", "LT"), c("PEXPIRE", "k", "3000", "LT"), near(c("PTTL", "k")),
			c("PEXPIRE", "k", "3000", "XX"), c("PERSIST", "k"), c("PEXPIRE", "k", "3000", "XX"),
			c("PEXPIRE", "k", "3000", "GT"), c("PTTL", "k"), c("PEXPIRE", "k", "3000", "LT"), near(c("PTTL", "k")),
			c("PEXPIRE", "k", "0"), c("EXISTS", "k"),
			c("SET", "k", "v"), c("PEXPIRE", "k", "-1"), c("EXISTS", "k"),
			c("SET", "k", "v"), c("PEXPIRE", "k", "1.5"), c("PEXPIRE", "k", "9223372036854775807"),
			c("PEXPIRE", "k", "-9223372036854775808"), c("EXISTS", "k"),
		}},
		{"ttl and pttl", []diffStep{
			c("TTL", "missing"), c("PTTL", "missing"), c("SET", "k", "v"), c("TTL", "k"), c("PTTL", "k"),
			c("SET", "k", "v", "EX", "100"), c("TTL", "k"), near(c("PTTL", "k")),
			c("SET", "k", "v", "PX", "2600"), c("TTL", "k"),
			c("SET", "k", "v", "PX", "2400"), c("TTL", "k"),
			c("SET", "k", "v", "PX", "300"), c("TTL", "k"),
			c("TTL"), c("PTTL", "k", "x"),
		}},
		{"incr", []diffStep{
			c("INCR", "n"), c("INCR", "n"), c("GET", "n"), c("INCRBY", "n", "10"), c("DECR", "n"),
			c("SET", "s", "abc"), c("INCR", "s"), c("SET", "s", "1.5"), c("INCR", "s"),
			c("SET", "s", " 1"), c("INCR", "s"), c("SET", "s", "01"), c("INCR", "s"),
			c("SET", "s", ""), c("INCR", "s"),
			c("SET", "max", "9223372036854775807"), c("INCR", "max"), c("GET", "max"),
			c("SET", "min", "-9223372036854775808"), c("DECR", "min"), c("INCRBY", "min", "-1"),
			c("SET", "big", "9223372036854775808"), c("INCR", "big"),
			c("INCRBY", "n", "abc"), c("HSET", "h", "f", "1"), c("INCR", "h"), c("INCR"),
			c("SET", "t", "5", "PX", "5000"), c("INCR", "t"), near(c("PTTL", "t")),
		}},
		{"hash", []diffStep{
			c("HSET", "h", "f", "1"), c("HSET", "h", "f", "2", "g", "3"), c("HGET", "h", "f"),
			c("HINCRBY", "h", "f", "5"), c("HINCRBY", "h", "new", "1"), c("HINCRBY", "h", "f", "-100"),
			c("HINCRBY", "h", "f", "abc"), c("HSET", "h", "s", "str"), c("HINCRBY", "h", "s", "1"),
			c("HSET", "h", "max", "9223372036854775807"), c("HINCRBY", "h", "max", "1"),
			c("HEXISTS", "h", "f"), c("HEXISTS", "h", "nope"), c("HEXISTS", "missing", "f"),
			c("HDEL", "h", "f", "nope"), c("HDEL", "h", "f"), c("HDEL", "missing", "f"),
			c("HSET", "h", "odd"), c("HSET", "h"), c("SET", "str", "v"), c("HSET", "str", "f", "1"),
			c("HINCRBY", "str", "f", "1"), c("HEXISTS", "str", "f"), c("HDEL", "str", "f"),
			c("HINCRBY", "fresh", "n", "7"), c("HGET", "fresh", "n"),
			c("HDEL", "h", "g", "new", "s", "max"), c("EXISTS", "h"),
		}},
		{"time", []diffStep{
			shape(c("TIME")), shape(ev("return redis.call('TIME')", nil)), c("TIME", "x"),
		}},
		{"script returns", []diffStep{
			ev("return nil", nil), ev("return", nil), ev("return false", nil), ev("return true", nil),
			ev("return 42", nil), ev("return -7", nil), ev("return 0", nil),
			ev("return 3.99", nil), ev("return -3.99", nil), ev("return 1e10", nil), ev("return 0.5", nil),
			ev("return 'str'", nil), ev("return ''", nil), ev("return 'héllo'", nil),
			ev("return {}", nil), ev("return {1, 'a', true, false, 2.5}", nil),
			ev("return {1, {2, {3, {4}}}, 'x'}", nil), ev("return {1, 2, nil, 3}", nil),
			ev("return {nil, 1}", nil), ev("local t = {} t[1] = 'a' t[3] = 'c' return t", nil),
			ev("return {a = 1, b = 2}", nil), ev("return {1, 2, a = 3}", nil),
			ev("return {ok = 'fine'}", nil), ev("return {err = 'bad thing'}", nil),
			ev("return {err = 'MYCODE bad thing'}", nil), ev("return {ok = 'a', err = 'b'}", nil),
			ev("return {1, {err = 'inner'}, {ok = 'fine'}}", nil),
			ev("return redis.status_reply('QUEUED')", nil), ev("return redis.error_reply('My Err')", nil),
			ev("return redis.error_reply('-WRONGTYPE no')", nil), ev("return redis.error_reply('bad')", nil),
			ev("return {KEYS[1], ARGV[1], #KEYS, #ARGV}", k, "a1", "a2"),
			ev("return tonumber(ARGV[1]) + 1", nil, "41"),
			ev("return 9007199254740993", nil), ev("return -0.0", nil),
		}},
		{"script errors", []diffStep{
			// error({}) and any table without a string err field crash
			// redis-server 7.0.15 (a segfault in its error handler), so
			// they are not sent; the node replies with an error.
			ev("error('boom')", nil), ev("error({err = 'MY boom'})", nil), ev("error(true)", nil), ev("error(12)", nil),
			ev("error()", nil), ev("error('boom', 0)", nil),
			ev("return redis.call('NOPE')", nil), ev("return redis.call()", nil),
			ev("return redis.call('GET')", nil),
			c("SET", "s", "str"), ev("return redis.call('INCR', KEYS[1])", []string{"s"}),
			ev("return redis.call('LPUSH', KEYS[1], 'x')", []string{"s"}),
			ev("return redis.call('HSET', KEYS[1], 'f', 'v')", []string{"s"}),
			ev("return redis.call('GET', {})", nil), ev("return redis.call('GET', nil)", nil),
			ev("return x", nil), ev("x = 1", nil), ev("return nil + 1", nil), ev("return 'a' .. nil", nil),
			ev("local a = 1\nlocal b = 2\nreturn redis.call('NOPE')", nil),
			ev("local function f()\n  error('deep')\nend\n\nf()", nil),
			ev("local function f()\n  return redis.call('INCR', KEYS[1])\nend\nreturn f()", []string{"s"}),
			ev("return (", nil), ev("retur 1", nil),
			c("EVAL", "return 1"), c("EVAL", "return 1", "x"), c("EVAL", "return 1", "-1"),
			c("EVAL", "return 1", "3", "a"), c("EVAL"),
		}},
		{"script pcall", []diffStep{
			c("SET", "s", "str"),
			ev("return redis.pcall('INCR', KEYS[1])", []string{"s"}),
			ev("local r = redis.pcall('INCR', KEYS[1]) return r.err", []string{"s"}),
			ev("return type(redis.pcall('INCR', KEYS[1]))", []string{"s"}),
			ev("return redis.pcall('LPUSH', KEYS[1], 'x')", []string{"s"}),
			ev("return redis.pcall('NOPE')", nil), ev("return redis.pcall('GET')", nil),
			ev("local ok, e = pcall(redis.call, 'INCR', KEYS[1]) return {tostring(ok), type(e)}", []string{"s"}),
			ev("local ok, e = pcall(redis.call, 'NOPE') return {tostring(ok), type(e)}", nil),
			ev("local ok, e = pcall(error, 'x') return {tostring(ok), e}", nil),
			ev("return redis.pcall('GET', KEYS[1])", []string{"s"}),
		}},
		{"replies into lua", []diffStep{
			c("SET", "a", "1"),
			ev("return redis.call('GET', 'missing')", nil), ev("return {redis.call('GET', 'missing')}", nil),
			ev("return type(redis.call('GET', 'missing'))", nil), ev("return tostring(redis.call('GET', 'missing'))", nil),
			ev("return redis.call('MGET', 'a', 'missing', 'a')", nil),
			ev("return redis.call('PING')", nil), ev("return redis.call('PING').ok", nil),
			ev("return redis.call('SET', 'b', 'v')", nil), ev("return redis.call('SET', 'b', 'v', 'NX')", nil),
			ev("return redis.call('SET', 'b', 'w', 'GET')", nil),
			ev("return redis.call('INCRBY', 'a', 5)", nil), ev("return redis.call('INCRBY', 'a', 2.5)", nil),
			ev("return redis.call('SET', 'c', 1.5)", nil), c("GET", "c"),
			ev("return redis.call('SET', 'c', 10000000000000000)", nil), c("GET", "c"),
			ev("return redis.call('EXPIRE', 'a', 10)", nil), c("TTL", "a"),
			ev("return redis.call('SET', 'p', 'v', 'PX', 100)", nil), near(c("PTTL", "p")),
			ev("return redis.call('HSET', 'h', 'f1', 1, 'f2', 2.0)", nil), c("HGETALL", "h"),
			ev("return redis.call('DEL', 'a', 'b', 'nope')", nil),
		}},
		{"script cache", []diffStep{
			c("SCRIPT", "LOAD", "return 'loaded'"),
			c("EVALSHA", sha1hex("return 'loaded'"), "0"),
			c("EVALSHA", strings.ToUpper(sha1hex("return 'loaded'")), "0"),
			c("SCRIPT", "EXISTS", sha1hex("return 'loaded'"), "nope", strings.ToUpper(sha1hex("return 'loaded'"))),
			c("EVALSHA", "0000000000000000000000000000000000000000", "0"), c("EVALSHA", "short", "0"),
			ev("return 'by eval'", nil), c("EVALSHA", sha1hex("return 'by eval'"), "0"),
			c("SCRIPT", "EXISTS", sha1hex("return 'by eval'")),
			c("SCRIPT", "LOAD", "retur 1"), c("SCRIPT", "LOAD"), c("SCRIPT", "EXISTS"),
			c("SCRIPT", "FLUSH"), c("EVALSHA", sha1hex("return 'loaded'"), "0"),
			c("SCRIPT", "EXISTS", sha1hex("return 'loaded'")), c("SCRIPT", "NOPE"),
		}},
		{"lock: set-nx-px-token and redlock", []diffStep{
			c("SET", "lock", "tok1", "NX", "PX", "3000"), c("SET", "lock", "tok2", "NX", "PX", "3000"),
			ev(releaseScript, []string{"lock"}, "tok2"), c("GET", "lock"),
			ev(releaseScript, []string{"lock"}, "tok1"), c("EXISTS", "lock"), ev(releaseScript, []string{"lock"}, "tok1"),
			c("SET", "lock", "tok3", "NX", "PX", "100"), after(300*time.Millisecond, c("SET", "lock", "tok4", "NX", "PX", "3000")),
		}},
		{"lock: fenced-token", []diffStep{
			c("INCR", "lock:fence"), c("INCR", "lock:fence"), c("GET", "lock:fence"),
		}},
		{"lock: setnx timestamps (setnx-*, java-getset, python-setnx, setnx-expire)", []diffStep{
			c("SETNX", "lock.foo", "1767225604"), c("SETNX", "lock.foo", "1767225605"), c("GET", "lock.foo"),
			c("GETSET", "lock.foo", "1767225608"), c("DEL", "lock.foo"), c("GET", "lock.foo"),
			c("GETSET", "lock.foo", "1767225609"), c("EXPIRE", "lock.foo", "60"), c("TTL", "lock.foo"),
			c("DEL", "lock.foo"),
		}},
		{"lock: php-set-get", []diffStep{
			c("SETNX", "lock", "1767225604"), c("GET", "lock"), c("SET", "lock", "1767225700", "GET"),
			c("GET", "lock"), c("DEL", "lock"), c("SET", "lock", "1767225800", "GET"),
		}},
		{"lock: php-eval", []diffStep{
			ev(phpAcquireScript, []string{"lock"}, "1767225614", "10", "1767225604"), c("GET", "lock"), c("TTL", "lock"),
			ev(phpAcquireScript, []string{"lock"}, "1767225615", "10", "1767225605"),
			c("SET", "lock", "1767225500"),
			ev(phpAcquireScript, []string{"lock"}, "1767225614", "10", "1767225604"), c("GET", "lock"), c("TTL", "lock"),
			ev(phpUnlockScript, []string{"lock"}, "1767225604"), c("GET", "lock"),
			ev(phpUnlockScript, []string{"lock"}, "1767225700"), c("EXISTS", "lock"),
			ev(phpUnlockScript, []string{"lock"}, "1767225700"),
		}},
	}
}

// phpUnlockScript is php-eval's unlock script as locks ships it.
var phpUnlockScript = readLockScript("php_eval_unlock.lua")

// TestDifferential runs every case on a fresh node and on the real server
// (flushed first) and wants identical replies except the listed differences.
func TestDifferential(t *testing.T) {
	conn := redistest.Dial(t)
	version := serverVersion(t, conn)
	t.Logf("redis-server %s at %s", version, redistest.Addr(t))
	if !strings.HasPrefix(version, "7.0.") {
		t.Logf("knownDiffs were read from redis-server 7.0.15: a difference reported here may be this version's own")
	}
	seen := map[int]bool{}
	for _, dc := range diffCases() {
		t.Run(dc.name, func(t *testing.T) {
			if r, err := conn.Do("FLUSHALL"); err != nil || string(r) != "+OK\r\n" {
				t.Fatalf("FLUSHALL: %q %v", r, err)
			}
			if r, err := conn.Do("SCRIPT", "FLUSH"); err != nil || string(r) != "+OK\r\n" {
				t.Fatalf("SCRIPT FLUSH: %q %v", r, err)
			}
			n := New(1)
			now := diffT0
			for _, s := range dc.steps {
				now = now.Add(s.wait)
				if s.wait > 0 {
					time.Sleep(s.wait)
				}
				got := resp.AppendReply(nil, n.Exec(0, now, fill(s.args, now)))
				want, err := conn.Do(fill(s.args, time.Now())...)
				if err != nil {
					t.Fatalf("%s: %v", show(s.args), err)
				}
				if agree(s.cmp, string(got), string(want)) {
					continue
				}
				if i := findKnown(dc.name, s.args, string(got), string(want)); i >= 0 {
					seen[i] = true
					continue
				}
				t.Errorf("new difference: %s\n node  %q\n redis %q", show(s.args), got, want)
				t.Logf("knownDiff: {%q, %q, %q, %q, \"why\"},", dc.name, show(s.args), got, want)
			}
		})
	}
	if !t.Failed() {
		for i, d := range knownDiffs {
			if !seen[i] {
				t.Errorf("listed difference no longer seen (remove it from knownDiffs and the README): %s: %s", d.caseName, d.command)
			}
		}
	}
}

// serverVersion reads redis_version from INFO server.
func serverVersion(t *testing.T, conn *resp.Conn) string {
	t.Helper()
	raw, err := conn.Do("INFO", "server")
	if err != nil {
		t.Fatalf("INFO server: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\r\n") {
		if v, ok := strings.CutPrefix(line, "redis_version:"); ok {
			return v
		}
	}
	return "(unknown version)"
}

// agree compares two RESP replies as cmp says.
func agree(cmp compareKind, node, redis string) bool {
	switch cmp {
	case nearMs:
		a, aok := respInt(node)
		b, bok := respInt(redis)
		return aok && bok && a >= 0 && b >= 0 && a-b <= diffTolerance && b-a <= diffTolerance
	case timeShape:
		return timeReply.MatchString(node) && timeReply.MatchString(redis) && micros(node) && micros(redis)
	}
	return node == redis
}

var timeReply = regexp.MustCompile(`^\*2\r\n\$(\d+)\r\n\d+\r\n\$(\d+)\r\n(\d+)\r\n$`)

// micros checks that TIME's second element is below one million.
func micros(r string) bool {
	m := timeReply.FindStringSubmatch(r)
	us, err := strconv.Atoi(m[3])
	return err == nil && us < 1_000_000
}

func respInt(r string) (int64, bool) {
	if !strings.HasPrefix(r, ":") || !strings.HasSuffix(r, "\r\n") {
		return 0, false
	}
	v, err := strconv.ParseInt(r[1:len(r)-2], 10, 64)
	return v, err == nil
}

func findKnown(caseName string, args []string, node, redis string) int {
	cmd := show(args)
	for i, d := range knownDiffs {
		if d.caseName == caseName && d.command == cmd && d.node == node && d.redis == redis {
			return i
		}
	}
	return -1
}

// show is a command as knownDiffs names it: arguments joined by spaces,
// scripts and all.
func show(args []string) string { return strings.Join(args, " ") }

var placeholder = regexp.MustCompile(`^\{now_(ms|s)([+-]\d+)?\}$`)

// fill replaces {now_ms+N} and {now_s+N} with now in that unit plus N.
func fill(args []string, now time.Time) []string {
	out := make([]string, len(args))
	for i, a := range args {
		m := placeholder.FindStringSubmatch(a)
		if m == nil {
			out[i] = a
			continue
		}
		v := now.UnixMilli()
		if m[1] == "s" {
			v = now.Unix()
		}
		if m[2] != "" {
			off, _ := strconv.ParseInt(m[2], 10, 64)
			v += off
		}
		out[i] = strconv.FormatInt(v, 10)
	}
	return out
}
