-- Reset the key's expiry to ARGV[2] ms if it holds this mutex's value:
-- PEXPIRE's answer, else 0.
if redis.call("GET", KEYS[1]) ~= ARGV[1] then
    return 0
end
return redis.call("PEXPIRE", KEYS[1], ARGV[2])
