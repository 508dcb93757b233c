-- Renewal: 0 after setting the key's TTL to ARGV[2] s; 1 if the token is
-- not there; 2 if the key has no TTL.
if redis.call("get", KEYS[1]) ~= ARGV[1] then
    return 1
end
if redis.call("ttl", KEYS[1]) < 0 then
    return 2
end
redis.call("expire", KEYS[1], ARGV[2])
return 0
