# locksim: ttl=1s
import time
def acquire():
    deadline = time.time() + 1
    while time.time() < deadline:  # a busy wait: the clock stands still
        pass
    return True
def release(lease):
    pass
