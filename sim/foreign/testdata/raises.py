# locksim: ttl=1s
def acquire():
    return int(None)
def release(lease):
    pass
