# locksim: ttl=30s key=resource_name source=redis-py 4.3.4 (Debian python3-redis), redis/lock.py
"""redis-py's Lock as its documentation uses it:

    with r.lock("resource_name", timeout=30, blocking_timeout=10):
        ...critical section...

the settings of ../../redis-py-lock.yaml, the algorithm file written from the
library's documented behaviour, so that the two can be compared scenario by
scenario (TestRedisPyLockAgainstItsAlgorithmFile). The client is redis-py's
defaults: no socket timeout, so a lost reply blocks the call for ever.
"""

import redis

import locksim

r = redis.Redis(host=locksim.host(0), port=locksim.port(0))


def acquire():
    lock = r.lock("resource_name", timeout=30, blocking_timeout=10)
    # __enter__: acquire(), raising LockError when it returns False
    return lock.__enter__()


def release(lock):
    lock.__exit__(None, None, None)  # release(): raises LockNotOwnedError if the token is gone
