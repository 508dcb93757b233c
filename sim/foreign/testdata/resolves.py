# locksim: ttl=1s
import socket
def acquire():
    assert socket.gethostbyname("localhost") == "127.0.0.1"  # node 0's host
    socket.gethostbyname("example.com")  # no node's: a finding
    return True
def release(lease):
    pass
