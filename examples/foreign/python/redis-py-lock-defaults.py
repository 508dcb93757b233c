# locksim: expiry=none key=resource_name source=redis-py 4.3.4 (Debian python3-redis), redis/lock.py
"""redis-py's Lock with every default: no timeout (the key never expires),
blocking for ever, sleep=0.1 between tries.

    lock = r.lock("resource_name")
    lock.acquire()
    ...
    lock.release()
"""

import redis

import locksim

r = redis.Redis(host=locksim.host(0), port=locksim.port(0))


def acquire():
    lock = r.lock("resource_name")
    if lock.acquire():
        return lock
    return None


def release(lock):
    lock.release()
