# locksim: ttl=1s
import redis
r = redis.Redis(host="localhost", port=6379)  # redis-py's default address: not a node
def acquire():
    return r.set("lock", "x", nx=True, px=1000)
def release(lease):
    r.delete("lock")
