-- Delete the lock only while it still holds this caller's token; 1 if it
-- did, 0 if the key is gone or another token is there.
local current = redis.call('get', KEYS[1])
if current == false or current ~= ARGV[1] then
    return 0
end
redis.call('del', KEYS[1])
return 1
