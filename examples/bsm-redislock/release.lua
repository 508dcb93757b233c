-- Delete the keys only if every one holds ARGV[1]: OK, else false (nil).
local held = redis.call("mget", unpack(KEYS))
for i = 1, #KEYS do
    if held[i] ~= ARGV[1] then
        return false
    end
end
redis.call("del", unpack(KEYS))
return redis.status_reply("OK")
