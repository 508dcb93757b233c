# locksim: ttl=5s key=resource_name source=redis-py 4.3.4 (Debian python3-redis), redis/lock.py
"""redis-py's Lock with a 5 s timeout, waiting for ever (blocking=True, no
blocking_timeout), as its README's first example with a timeout:

    lock = r.lock("resource_name", timeout=5)
    lock.acquire()
    ...
    lock.release()
"""

import redis

import locksim

r = redis.Redis(host=locksim.host(0), port=locksim.port(0))


def acquire():
    lock = r.lock("resource_name", timeout=5)
    if lock.acquire():
        return lock
    return None


def release(lock):
    lock.release()
