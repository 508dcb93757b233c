# locksim: ttl=2s source=redis.io SET NX PX with a token
# The smallest honest lock: SET key token NX PX, released by a script that
# deletes the key only if it still holds this client's token.
import uuid

import redis

import locksim

r = redis.Redis(host=locksim.host(0), port=locksim.port(0))
RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"


def acquire():
    token = uuid.uuid4().hex
    for _ in range(50):
        if r.set("lock", token, nx=True, px=2000):
            return token
        __import__("time").sleep(0.05)
    return None


def release(token):
    r.eval(RELEASE, 1, "lock", token)
