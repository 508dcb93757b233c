# locksim: ttl=1s
import select
def acquire():
    select.select([], [], [], 10)  # a real wait, outside the shim: the worker sends nothing
    return True
def release(lease):
    pass
