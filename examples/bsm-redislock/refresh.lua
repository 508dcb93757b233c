-- Set every key's TTL to ARGV[2] ms if each holds ARGV[1]: OK, else false.
local held = redis.call("mget", unpack(KEYS))
for i = 1, #KEYS do
    if held[i] ~= ARGV[1] then
        return false
    end
end
for _, key in ipairs(KEYS) do
    redis.call("pexpire", key, ARGV[2])
end
return redis.status_reply("OK")
