package node

import "strings"

// miniredisCommands is every command miniredis registers, so that validating
// an algorithm file can ask which commands a node runs without building one
// (building registers them all: about a millisecond and a megabyte).
// TestCommandTableIsMiniredis keeps it equal to what a node registers.
var miniredisCommands = []string{
	"APPEND", "AUTH", "BITCOUNT", "BITOP", "BITPOS", "BLMOVE", "BLPOP", "BRPOP", "BRPOPLPUSH",
	"BZMPOP", "BZPOPMAX", "BZPOPMIN", "CLIENT", "CLUSTER", "COMMAND", "COPY", "DBSIZE", "DECR",
	"DECRBY", "DEL", "DELEX", "DISCARD", "DUMP", "ECHO", "EVAL", "EVALSHA", "EVALSHA_RO",
	"EVAL_RO", "EXEC", "EXISTS", "EXPIRE", "EXPIREAT", "EXPIRETIME", "FLUSHALL", "FLUSHDB",
	"GEOADD", "GEODIST", "GEOPOS", "GEORADIUS", "GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO",
	"GEORADIUS_RO", "GEOSEARCH", "GET", "GETBIT", "GETDEL", "GETEX", "GETRANGE", "GETSET", "HDEL",
	"HELLO", "HEXISTS", "HEXPIRE", "HGET", "HGETALL", "HINCRBY", "HINCRBYFLOAT", "HKEYS", "HLEN",
	"HMGET", "HMSET", "HPERSIST", "HPTTL", "HRANDFIELD", "HSCAN", "HSET", "HSETEX", "HSETNX",
	"HSTRLEN", "HTTL", "HVALS", "INCR", "INCRBY", "INCRBYFLOAT", "INFO", "KEYS", "LINDEX",
	"LINSERT", "LLEN", "LMOVE", "LMPOP", "LPOP", "LPOS", "LPUSH", "LPUSHX", "LRANGE", "LREM",
	"LSET", "LTRIM", "MEMORY", "MGET", "MOVE", "MSET", "MSETNX", "MULTI", "OBJECT", "PERSIST",
	"PEXPIRE", "PEXPIREAT", "PEXPIRETIME", "PFADD", "PFCOUNT", "PFMERGE", "PING", "PSETEX",
	"PSUBSCRIBE", "PTTL", "PUBLISH", "PUBSUB", "PUNSUBSCRIBE", "QUIT", "RANDOMKEY", "RENAME",
	"RENAMENX", "RESTORE", "RPOP", "RPOPLPUSH", "RPUSH", "RPUSHX", "SADD", "SCAN", "SCARD",
	"SCRIPT", "SDIFF", "SDIFFSTORE", "SELECT", "SET", "SETBIT", "SETEX", "SETNX", "SETRANGE",
	"SINTER", "SINTERCARD", "SINTERSTORE", "SISMEMBER", "SMEMBERS", "SMISMEMBER", "SMOVE", "SPOP",
	"SRANDMEMBER", "SREM", "SSCAN", "STRLEN", "SUBSCRIBE", "SUNION", "SUNIONSTORE", "SWAPDB",
	"TIME", "TOUCH", "TTL", "TYPE", "UNLINK", "UNSUBSCRIBE", "UNWATCH", "WAIT", "WATCH", "XACK",
	"XADD", "XAUTOCLAIM", "XCLAIM", "XDEL", "XGROUP", "XINFO", "XLEN", "XPENDING", "XRANGE",
	"XREAD", "XREADGROUP", "XREVRANGE", "XTRIM", "ZADD", "ZCARD", "ZCOUNT", "ZINCRBY", "ZINTER",
	"ZINTERSTORE", "ZLEXCOUNT", "ZMPOP", "ZMSCORE", "ZPOPMAX", "ZPOPMIN", "ZRANDMEMBER", "ZRANGE",
	"ZRANGEBYLEX", "ZRANGEBYSCORE", "ZRANK", "ZREM", "ZREMRANGEBYLEX", "ZREMRANGEBYRANK",
	"ZREMRANGEBYSCORE", "ZREVRANGE", "ZREVRANGEBYLEX", "ZREVRANGEBYSCORE", "ZREVRANK", "ZSCAN",
	"ZSCORE", "ZUNION", "ZUNIONSTORE",
}

var commandTable = func() map[string]bool {
	m := make(map[string]bool, len(miniredisCommands))
	for _, name := range miniredisCommands {
		m[name] = true
	}
	return m
}()

// Supported reports whether a node runs the command name, in any case: one
// miniredis registers that a node does not refuse as unsimulated.
func Supported(cmd string) bool {
	name := strings.ToUpper(cmd)
	return commandTable[name] && !unsimulated[name]
}
