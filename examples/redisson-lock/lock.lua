-- Take the lock if nobody holds it, or count up if this owner does: nil.
-- Otherwise the milliseconds the holder's lease has left.
if redis.call("exists", KEYS[1]) == 0 or redis.call("hexists", KEYS[1], ARGV[2]) == 1 then
    redis.call("hincrby", KEYS[1], ARGV[2], 1)
    redis.call("pexpire", KEYS[1], ARGV[1])
    return nil
end
return redis.call("pttl", KEYS[1])
