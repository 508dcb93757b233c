-- Release: only the holder of ARGV[1] may. It deletes the lock key, and
-- leaves one element on the signal list (KEYS[2]) for a waiter's BLPOP,
-- kept ARGV[2] ms. 0 when released, 1 when the token is not there.
if redis.call("get", KEYS[1]) ~= ARGV[1] then
    return 1
end
redis.call("del", KEYS[2])
redis.call("lpush", KEYS[2], 1)
redis.call("pexpire", KEYS[2], ARGV[2])
redis.call("del", KEYS[1])
return 0
