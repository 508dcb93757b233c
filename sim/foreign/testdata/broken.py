# locksim: ttl=1s
def acquire(:
