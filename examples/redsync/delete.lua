-- Delete the key if it holds this mutex's value: DEL's count, else 0.
if redis.call("GET", KEYS[1]) ~= ARGV[1] then
    return 0
end
return redis.call("DEL", KEYS[1])
