package node

import (
	"os"
	"testing"
	"time"
)

// releaseScript is the compare-and-delete release from the Redis docs.
const releaseScript = `if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end`

// phpAcquireScript is php-eval's acquire script as locks ships it (the blog
// post's, verbatim): it must run unchanged, so the tests read that very file.
var phpAcquireScript = readLockScript("php_eval_acquire.lua")

// readLockScript reads a script that locks ships, so tests run it unchanged.
func readLockScript(name string) string {
	data, err := os.ReadFile("../../locks/" + name)
	if err != nil {
		panic("a lock script is missing: " + err.Error())
	}
	return string(data)
}

// TestScriptParity runs the same commands on a Node and on a plain miniredis
// (whose EVAL is its own) and wants identical replies, including the state
// left behind. Where the node answers as Redis 7 and miniredis does not (TTL
// rounding, errors raised by scripts: redis7.go, differential_test.go) the
// probes use what both agree on (PTTL).
func TestScriptParity(t *testing.T) {
	php := func(argv ...string) []string { return eval(phpAcquireScript, []string{"lock"}, argv...) }
	lock := []string{"lock"}
	tests := []struct {
		name string
		cmds [][]string
	}{
		{"release held by us", [][]string{
			cmd("SET", "lock", "tok1", "PX", "5000"),
			eval(releaseScript, lock, "tok1"),
			cmd("EXISTS", "lock"),
		}},
		{"release held by other", [][]string{
			cmd("SET", "lock", "tok2"),
			eval(releaseScript, lock, "tok1"),
			cmd("GET", "lock"),
		}},
		{"release missing", [][]string{eval(releaseScript, lock, "tok1")}},
		{"php acquire free", [][]string{
			php("1767225614", "10", "1767225604"),
			cmd("GET", "lock"), cmd("PTTL", "lock"),
		}},
		{"php acquire held", [][]string{
			cmd("SET", "lock", "1767225700"),
			php("1767225614", "10", "1767225604"),
			cmd("GET", "lock"), cmd("PTTL", "lock"),
		}},
		{"php acquire expired", [][]string{
			cmd("SET", "lock", "1767225500"),
			php("1767225614", "10", "1767225604"),
			cmd("GET", "lock"), cmd("PTTL", "lock"),
		}},
		{"lua types", [][]string{
			eval("return 42", nil), eval("return 3.99", nil), eval("return -3.99", nil),
			eval("return 0", nil), eval("return 'héllo'", nil), eval("return ''", nil),
			eval("return true", nil), eval("return false", nil), eval("return nil", nil),
			eval("return", nil), eval("return {}", nil),
			eval("return {1, 'a', true, false, 2.5}", nil),
			eval("return {1, {2, {3, nil, 4}}, 'x'}", nil),
			eval("return {1, 2, nil, 3}", nil),
			eval("local t = {} t[1] = 'a' t[3] = 'c' return t", nil),
			eval("return {a = 1, b = 2}", nil),
		}},
		{"status and error tables", [][]string{
			eval("return {ok = 'fine'}", nil), eval("return {err = 'bad thing'}", nil),
			eval("return redis.status_reply('QUEUED')", nil),
			eval("return redis.error_reply('My Err')", nil),
			eval("return redis.error_reply('-WRONGTYPE no')", nil),
			eval("return redis.error_reply('bad')", nil),
			eval("return {1, {err = 'inner'}, {ok = 'fine'}}", nil),
		}},
		{"pcall of an error", [][]string{
			cmd("SET", "s", "str"),
			eval("return redis.pcall('INCR', KEYS[1])", []string{"s"}),
			eval("local r = redis.pcall('INCR', KEYS[1]) return r.err", []string{"s"}),
			eval("return redis.pcall('LPUSH', KEYS[1], 'x')", []string{"s"}),
			eval("return redis.pcall('NOPE')", nil),
			eval("return type(redis.pcall('INCR', KEYS[1]))", []string{"s"}),
		}},
		{"replies into lua", [][]string{
			cmd("SET", "a", "1"),
			eval("return redis.call('GET', 'missing')", nil),
			eval("return {redis.call('GET', 'missing')}", nil),
			eval("return type(redis.call('GET', 'missing'))", nil),
			eval("return redis.call('MGET', 'a', 'missing', 'a')", nil),
			eval("return redis.call('PING')", nil),
			eval("return redis.call('PING').ok", nil),
			eval("return redis.call('TYPE', 'a')", nil),
			eval("return redis.call('INCRBY', 'a', 5)", nil),
			eval("return redis.call('HSET', 'h', 'f1', 1, 'f2', 2.0)", nil),
			eval("return redis.call('HGETALL', 'h')", nil),
			eval("return redis.call('EXPIRE', 'a', 10)", nil),
			cmd("PTTL", "a"),
			eval("return redis.call('SET', 'b', 'v', 'PX', 100)", nil),
			cmd("PTTL", "b"),
		}},
		{"keys and argv", [][]string{
			eval("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}", []string{"k1", "k2"}, "a1", "a2"),
			eval("return tonumber(ARGV[1]) + 1", nil, "41"),
			eval("return redis.call('EXISTS', KEYS[1], KEYS[2])", []string{"k1", "k2"}),
		}},
		{"time inside a script", [][]string{
			eval("return redis.call('TIME')", nil),
			eval("local t = redis.call('TIME') return tonumber(t[1]) * 1000000 + tonumber(t[2])", nil),
		}},
		{"redis helpers", [][]string{
			eval("return redis.sha1hex('abc')", nil),
			eval("return redis.log(redis.LOG_WARNING, 'x')", nil),
			eval("return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}", nil),
		}},
		{"numkeys", [][]string{
			cmd("EVAL", "return 1"),
			cmd("EVAL", "return 1", "x"),
			cmd("EVAL", "return 1", "-1"),
			cmd("EVAL", "return 1", "3", "a"),
			cmd("EVALSHA", "0000000000000000000000000000000000000000", "0"),
		}},
		{"script cache", [][]string{
			cmd("SCRIPT", "LOAD", "return 'loaded'"),
			cmd("EVALSHA", sha1hex("return 'loaded'"), "0"),
			cmd("SCRIPT", "EXISTS", sha1hex("return 'loaded'"), "nope"),
			cmd("SCRIPT", "FLUSH"),
			cmd("EVALSHA", sha1hex("return 'loaded'"), "0"),
			cmd("SCRIPT", "EXISTS"),
			cmd("SCRIPT", "NOPE"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, s := New(1), newStock(t, 1)
			for i, args := range tt.cmds {
				now := t0.Add(time.Duration(i) * time.Millisecond)
				got, want := n.Exec(0, now, args), s.exec(t, now, args)
				if !got.Equal(want) {
					t.Errorf("%q\n node %s\nstock %s", args, got, want)
				}
			}
		})
	}
}
