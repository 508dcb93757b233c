-- Lengthen the lock while it holds this caller's token. ARGV[2] is the
-- time to add in ms; ARGV[3] is "1" to set the TTL to ARGV[2] instead
-- (replace_ttl). 0 if the token is not there, or the key has no TTL.
if redis.call('get', KEYS[1]) ~= ARGV[1] then
    return 0
end
local left = redis.call('pttl', KEYS[1])
if left < 0 then
    return 0
end
if ARGV[3] == "1" then
    redis.call('pexpire', KEYS[1], ARGV[2])
else
    redis.call('pexpire', KEYS[1], left + tonumber(ARGV[2]))
end
return 1
