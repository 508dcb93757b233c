-- Take every key with ARGV[1] (token .. metadata) for ARGV[3] ms. If any is
-- taken, take them over only when each already starts with this caller's
-- token (its first ARGV[2] bytes): a retry after a lost reply finds its own
-- keys. OK when held; false (a nil reply) when someone else holds one.
local pairs_ = {}
for _, key in ipairs(KEYS) do
    pairs_[#pairs_ + 1] = key
    pairs_[#pairs_ + 1] = ARGV[1]
end
if redis.call("msetnx", unpack(pairs_)) ~= 1 then
    local n = tonumber(ARGV[2])
    local mine = string.sub(ARGV[1], 1, n)
    for _, key in ipairs(KEYS) do
        if redis.call("getrange", key, 0, n - 1) ~= mine then
            return false
        end
    end
    redis.call("mset", unpack(pairs_))
end
for _, key in ipairs(KEYS) do
    redis.call("pexpire", key, ARGV[3])
end
return redis.status_reply("OK")
