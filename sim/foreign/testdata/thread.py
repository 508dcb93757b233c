# locksim: ttl=1s
import threading
def acquire():
    threading.Thread(target=lambda: None).start()
    return True
def release(lease):
    pass
