package node

import (
	"math"
	"testing"
	"time"
)

// TestRedis7Answers pins, without a server, the replies redis7.go gives as
// Redis 7.0.15 does (each one was read from redis-server by the differential
// suite), so that they hold where no server runs.
func TestRedis7Answers(t *testing.T) {
	tests := []struct {
		setup []string
		args  []string
		want  Reply
	}{
		{nil, cmd("SET", "k", "v", "NX", "XX"), errr("ERR syntax error")},
		{nil, cmd("SET", "k", "v", "XX", "NX"), errr("ERR syntax error")},
		{nil, cmd("SET", "k", "v", "PX"), errr("ERR syntax error")},
		{nil, cmd("SET", "k", "v", "KEEPTTL", "PX", "100"), errr("ERR syntax error")},
		{nil, cmd("SET", "k", "v", "PXAT", "100", "KEEPTTL"), errr("ERR syntax error")},
		{nil, cmd("SET", "k", "v", "EX", "10", "PX", "100"), errr("ERR syntax error")},
		{nil, cmd("SET", "k", "v", "BOGUS"), errr("ERR syntax error")},
		{nil, cmd("SET", "k", "v", "PX", "0"), errr("ERR invalid expire time in 'set' command")},
		{nil, cmd("SET", "k", "v", "EX", "-5"), errr("ERR invalid expire time in 'set' command")},
		{nil, cmd("SET", "k", "v", "PX", "01"), errr("ERR value is not an integer or out of range")},
		{nil, cmd("SET", "k", "v", "PX", "9223372036854775807"), errr("ERR invalid expire time in 'set' command")},
		{nil, cmd("SET", "k", "v", "EX", "9223372036854775"), errr("ERR invalid expire time in 'set' command")},
		{nil, cmd("SET", "k", "v", "PXAT", "9223372036854775807"), status("OK")},
		{nil, cmd("SET", "k", "v", "EX", "10", "EX", "20", "GET", "GET"), nilReply},
		{nil, cmd("SET", "k", "v", "PX", "100", "PX", "200", "NX", "NX", "GET"), nilReply},
		{nil, cmd("SET", "k", "v", "nx", "px", "100"), status("OK")},
		{cmd("SET", "k", "v"), cmd("EXPIRE", "k", "9223372036854775807"), errr("ERR invalid expire time in 'expire' command")},
		{cmd("SET", "k", "v"), cmd("EXPIRE", "k", "-9223372036854775808"), errr("ERR invalid expire time in 'expire' command")},
		{cmd("SET", "k", "v"), cmd("PEXPIRE", "k", "9223372036854775807", "NX"), errr("ERR invalid expire time in 'pexpire' command")},
		{cmd("SET", "k", "v"), cmd("PEXPIREAT", "k", "9223372036854775807"), integer(1)},
		{cmd("SET", "k", "v"), cmd("EXPIRE", "k", "9223372036854775807", "NX", "XX"),
			errr("ERR NX and XX, GT or LT options at the same time are not compatible")},
		{cmd("SET", "k", "v", "PX", "2600"), cmd("TTL", "k"), integer(3)},
		{cmd("SET", "k", "v", "PX", "2400"), cmd("TTL", "k"), integer(2)},
		{cmd("SET", "k", "v", "PX", "300"), cmd("TTL", "k"), integer(0)},
		{cmd("SET", "k", "v"), cmd("TTL", "k"), integer(-1)},
		{nil, cmd("TTL", "k"), integer(-2)},
		{nil, cmd("TTL"), errr("ERR wrong number of arguments for 'ttl' command")},
		{nil, eval("return redis.pcall('GET')", nil), errr("ERR Wrong number of args calling Redis command from script")},
		{nil, eval("return redis.pcall('TTL', 'k')", nil), integer(-2)},
		{nil, cmd("SCRIPT", "LOAD"), errr("ERR wrong number of arguments for 'script|load' command")},
		{nil, eval("local a = 1\nreturn redis.call('NOPE')", nil),
			errr("ERR Unknown Redis command called from script script: " + sha1hex("local a = 1\nreturn redis.call('NOPE')") + ", on @user_script:2.")},
	}
	for _, tt := range tests {
		n := New(1)
		if tt.setup != nil {
			n.Exec(0, t0, tt.setup)
		}
		if got := n.Exec(0, t0, tt.args); !got.Equal(tt.want) {
			t.Errorf("%q\n got %s\nwant %s", tt.args, got, tt.want)
		}
	}
}

// TestRedis7OnlyOutsideMulti: inside MULTI the node leaves SET to
// miniredis, which checks it when queueing.
func TestRedis7OnlyOutsideMulti(t *testing.T) {
	n := New(1)
	mustExec(t, n, t0, cmd("MULTI"), status("OK"))
	mustExec(t, n, t0, cmd("TTL", "k"), status("QUEUED"))
	mustExec(t, n, t0, cmd("EXEC"), array(integer(-2)))
	mustExec(t, n, t0.Add(time.Second), cmd("TTL", "k"), integer(-2))
}

func TestRedisInt(t *testing.T) {
	good := map[string]int64{
		"0": 0, "1": 1, "-1": -1, "42": 42,
		"9223372036854775807": math.MaxInt64, "-9223372036854775808": math.MinInt64,
	}
	for s, want := range good {
		if got, ok := redisInt(s); !ok || got != want {
			t.Errorf("redisInt(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "-", "-0", "01", "+1", " 1", "1 ", "1.5", "1e3", "0x10",
		"9223372036854775808", "-9223372036854775809", "99999999999999999999"} {
		if got, ok := redisInt(s); ok {
			t.Errorf("redisInt(%q) = %d, want a refusal", s, got)
		}
	}
}
