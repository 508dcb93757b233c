"""locksim's Python shim: lock code runs unmodified in simulated time.

Imported before anything else in a worker (locksim_worker.py), it replaces
what a lock program could read of the world with the simulation's, and turns
every sleep, connection, write and blocking read into a message to the Go
controller (docs/foreign.md, the protocol): time.time/time_ns/monotonic/
perf_counter/sleep and the calendar functions, datetime's now/utcnow/today,
socket.socket/create_connection/getaddrinfo, random (seeded), os.urandom,
SystemRandom and secrets, uuid1/uuid4/getnode. Threads are a finding: the
controller runs one thread of control per worker.

A program imports it as `locksim` for the run's nodes (NODES, host, port),
its lock parameters (params) and round_script (a document's acquire-and-
release script, run whole with do_job() between).
"""

import base64
import builtins
import datetime as _datetime
import errno
import gc
import json
import os
import platform
import random as _random
import socket as _socket
import sys
import threading as _threading
import time as _time
import uuid as _uuid

# The real things the shim itself needs, taken before they are replaced.
_RealSocket = _socket.socket
_real_exit = os._exit

NODES = []  # the run's nodes as "host:port", node 0 first
params = {}  # the run's lock parameters: key, ttl_ms, retries, ...
name = ""  # the simulated client's name ("c1")

_ctl = None  # the protocol socket (fd 3)
_rfile = None
_wall = 0  # the worker's clocks, in ns, as last told
_mono = 0
_reads = 0  # clock reads since the last wait
SPIN_READS = 1_000_000
_next_conn = 1
_rng = _random.Random(0)  # SystemRandom, os.urandom, uuid's node


def host(i=0):
    """Node i's host."""
    return NODES[i].rsplit(":", 1)[0]


def port(i=0):
    """Node i's port."""
    return int(NODES[i].rsplit(":", 1)[1])


# ---------------------------------------------------------------- protocol


def _send(msg):
    _ctl.sendall((json.dumps(msg, separators=(",", ":")) + "\n").encode())


def _recv():
    line = _rfile.readline()
    if not line:
        _real_exit(0)  # the controller is gone: so is this run
    return json.loads(line)


def _set_clocks(m):
    global _wall, _mono, _reads
    _wall, _mono, _reads = int(m["wall"]), int(m["mono"]), 0


def finding(msg):
    """Report what the simulation cannot see, and end the worker."""
    _send({"op": "finding", "msg": msg})
    _real_exit(0)


def log(msg):
    _send({"op": "log", "msg": str(msg)})


def _wait(conns, timeout_ns):
    m = {"op": "wait", "conns": conns}
    if timeout_ns is not None:
        m["timeout"] = str(max(0, int(timeout_ns)))
    _send(m)
    ev = _recv()
    _set_clocks(ev)
    return ev


# ---------------------------------------------------------------- time


def _read():
    global _reads
    _reads += 1
    if _reads > SPIN_READS:
        finding("spins: read its clock %d times without waiting (a busy loop the simulation cannot advance)" % SPIN_READS)


def _time_time():
    _read()
    return _wall / 1e9


def _time_ns():
    _read()
    return _wall


def _monotonic():
    _read()
    return _mono / 1e9


def _monotonic_ns():
    _read()
    return _mono


def _sleep(secs):
    if secs < 0:
        raise ValueError("sleep length must be non-negative")
    if secs == 0:
        return  # sleep(0) gives way to no one here: no time passes
    _wait([], secs * 1e9)


def _cpu_clock(fn):
    def unseen(*_a):
        finding("reads CPU time (time.%s), which a simulated client does not have" % fn)

    return unseen


def _now_or(f):
    def call(secs=None):
        return f(_time_time() if secs is None else secs)

    return call


_real_localtime, _real_gmtime, _real_ctime = _time.localtime, _time.gmtime, _time.ctime
_real_strftime, _real_asctime = _time.strftime, _time.asctime


def _strftime(fmt, t=None):
    return _real_strftime(fmt, _real_localtime(_time_time()) if t is None else t)


def _asctime(t=None):
    return _real_asctime(_real_localtime(_time_time()) if t is None else t)


class _DateTime(_datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return cls.fromtimestamp(_time_time(), tz)

    @classmethod
    def utcnow(cls):
        return cls.utcfromtimestamp(_time_time())

    @classmethod
    def today(cls):
        return cls.fromtimestamp(_time_time())


class _Date(_datetime.date):
    @classmethod
    def today(cls):
        return cls.fromtimestamp(_time_time())


def _patch_time():
    t = _time
    t.time, t.time_ns = _time_time, _time_ns
    t.monotonic, t.monotonic_ns = _monotonic, _monotonic_ns
    t.perf_counter, t.perf_counter_ns = _monotonic, _monotonic_ns
    t.sleep = _sleep
    t.process_time, t.process_time_ns = _cpu_clock("process_time"), _cpu_clock("process_time_ns")
    t.thread_time, t.thread_time_ns = _cpu_clock("thread_time"), _cpu_clock("thread_time_ns")
    t.localtime, t.gmtime, t.ctime = _now_or(_real_localtime), _now_or(_real_gmtime), _now_or(_real_ctime)
    t.strftime, t.asctime = _strftime, _asctime
    _datetime.datetime = _DateTime
    _datetime.date = _Date


# ---------------------------------------------------------------- random


def _urandom(n):
    return _rng.randbytes(n)


def _patch_random():
    os.urandom = _urandom
    _random.SystemRandom.random = lambda self: _rng.random()
    _random.SystemRandom.getrandbits = lambda self, k: _rng.getrandbits(k)
    _random.SystemRandom.randbytes = lambda self, n: _rng.randbytes(n)
    real_uuid1 = _uuid.uuid1

    def uuid1(node=None, clock_seq=None):
        # With node given, uuid1 takes Python's path, which reads
        # time.time_ns (the simulation's), not libuuid's clock.
        return real_uuid1(_uuid.getnode() if node is None else node,
                          _random.getrandbits(14) if clock_seq is None else clock_seq)

    _uuid.uuid1 = uuid1
    _uuid.getnode = lambda: _node


_node = 0x010000000001


def _seed(seed):
    global _node
    _random.seed(seed)
    _rng.seed(seed ^ 0x5DEECE66D)
    _node = _rng.getrandbits(48) | 0x010000000000  # a multicast bit: no real MAC
    _uuid._last_timestamp = None


# ---------------------------------------------------------------- threads


def _no_threads(self, *a, **k):
    finding("starts a thread (%s): a worker runs one thread of control, the simulation's" % getattr(self, "name", "thread"))


def _patch_threads():
    _threading.Thread.start = _no_threads
    import _thread

    _thread.start_new_thread = lambda *a, **k: finding("starts a thread (_thread.start_new_thread)")
    _thread.start_new = _thread.start_new_thread


# ---------------------------------------------------------------- sockets


def _node_addr(host_, port_):
    """The node address host:port names, or None."""
    addr = "%s:%s" % (host_, port_)
    if addr in NODES:
        return addr
    if host_ in ("localhost", "::1", "ip6-localhost"):
        addr = "127.0.0.1:%s" % port_
        if addr in NODES:
            return addr
    return None


def _not_a_node(host_, port_):
    finding("dials %s:%s, which is not a node of the run (%s)" % (host_, port_, ", ".join(NODES)))


def _getaddrinfo(host_, port_, family=0, type=0, proto=0, flags=0):
    addr = _node_addr(host_, port_)
    if addr is None:
        _not_a_node(host_, port_)
    h, p = addr.rsplit(":", 1)
    return [(_socket.AF_INET, _socket.SOCK_STREAM, 6, "", (h, int(p)))]


class SimSocket:
    """A TCP socket to a simulated node: its bytes are protocol messages."""

    def __init__(self, family=_socket.AF_INET, type=_socket.SOCK_STREAM, proto=0, fileno=None):
        if fileno is not None:
            finding("opens a socket on an inherited descriptor (fileno=%r)" % fileno)
        self.family, self.type, self.proto = family, type, proto
        self._timeout = _socket.getdefaulttimeout()
        self._id = None
        self._addr = None
        self._buf = bytearray()
        self._eof = False
        self._closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def settimeout(self, t):
        self._timeout = None if t is None else float(t)

    def gettimeout(self):
        return self._timeout

    def setblocking(self, flag):
        self._timeout = None if flag else 0.0

    def getblocking(self):
        return self._timeout != 0.0

    def setsockopt(self, *a):
        pass

    def getsockopt(self, *a):
        return 0

    def connect(self, address):
        global _next_conn
        h, p = address[0], address[1]
        addr = _node_addr(h, p)
        if addr is None:
            _not_a_node(h, p)
        if self._id is not None:
            raise OSError(errno.EISCONN, "Transport endpoint is already connected")
        self._id, self._addr = _next_conn, addr
        _next_conn += 1
        _send({"op": "connect", "conn": self._id, "addr": addr})

    def connect_ex(self, address):
        self.connect(address)
        return 0

    def getpeername(self):
        h, p = self._addr.rsplit(":", 1)
        return (h, int(p))

    def getsockname(self):
        return ("127.0.0.1", 40000 + (self._id or 0))

    def fileno(self):
        return -1 if self._closed else 1000 + (self._id or 0)

    def _check(self):
        if self._closed:
            raise OSError(errno.EBADF, "Bad file descriptor")
        if self._id is None:
            raise OSError(errno.ENOTCONN, "Transport endpoint is not connected")

    def sendall(self, data, flags=0):
        self._check()
        if self._eof:
            raise ConnectionResetError(errno.ECONNRESET, "Connection reset by peer")
        data = bytes(data)
        if data:
            _send({"op": "send", "conn": self._id, "data": base64.b64encode(data).decode()})

    def send(self, data, flags=0):
        self.sendall(data)
        return len(data)

    def _fill(self):
        if self._buf or self._eof:
            return
        if self._timeout == 0.0:
            # No time passes between messages: nothing can have come.
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        ev = _wait([self._id], None if self._timeout is None else self._timeout * 1e9)
        kind = ev["ev"]
        if kind == "data":
            self._buf += base64.b64decode(ev["data"])
        elif kind == "eof":
            self._eof = True
        elif kind == "timeout":
            raise _socket.timeout("timed out")

    def recv(self, n, flags=0):
        self._check()
        self._fill()
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def recv_into(self, buffer, nbytes=0, flags=0):
        data = self.recv(nbytes or len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def shutdown(self, how):
        pass

    def close(self):
        if not self._closed:
            self._closed = True
            if self._id is not None:
                _send({"op": "close", "conn": self._id})

    def detach(self):
        finding("detaches a socket's descriptor, which a simulated socket does not have")

    def makefile(self, *a, **k):
        finding("reads a socket through makefile(), which the shim does not simulate")


def _create_connection(address, timeout=_socket._GLOBAL_DEFAULT_TIMEOUT, source_address=None, **kw):
    s = SimSocket()
    if timeout is not _socket._GLOBAL_DEFAULT_TIMEOUT:
        s.settimeout(timeout)
    s.connect(address)
    return s


def _patch_sockets():
    _socket.socket = SimSocket
    _socket.SocketType = SimSocket
    _socket.create_connection = _create_connection
    _socket.getaddrinfo = _getaddrinfo
    _socket.gethostbyname = _gethostbyname


def _gethostbyname(h):
    """A node's host is its own address; any other host is a finding."""
    if h in ("localhost", "ip6-localhost"):
        h = "127.0.0.1"
    if not any(a.rsplit(":", 1)[0] == h for a in NODES):
        finding("resolves %s, which is no node's host (%s)" % (h, ", ".join(NODES)))
    return h


# ---------------------------------------------------------------- rounds

_round = {"active": False, "jobbed": False}


class _Round:
    """A document's script that acquires, runs do_job() and releases, run
    whole by each acquire: do_job() answers the acquire (held) and waits
    for the release call, and the rest of the script is the release."""

    def __init__(self, path, names):
        with open(path, "rb") as f:
            self.code = compile(f.read(), path, "exec")
        self.names = names

    def acquire(self):
        g = {"__name__": "__round__", "__builtins__": builtins, "do_job": _do_job}
        g.update(self.names)
        _round["active"], _round["jobbed"] = True, False
        try:
            exec(self.code, g)
        finally:
            _round["active"] = False
        return _round["jobbed"]

    def release(self, lease):
        raise RuntimeError("a round script releases in the acquire's script, after do_job()")


def _do_job():
    """The job: the simulated client's critical section, between its
    acquire (this answers it: held) and its release (the call this waits
    for)."""
    if not _round["active"]:
        raise RuntimeError("do_job() outside a round script")
    _send({"op": "return", "held": True, "token": None})
    while True:
        m = _recv()
        _set_clocks(m)
        if m.get("fn") == "release":
            _round["jobbed"] = True
            return
        _send({"op": "raise", "error": "RuntimeError: a round script runs only acquire and release, not %s" % m.get("fn")})


def round_script(path, **names):
    """Make path's script (a document's code, verbatim) this program's lock:
    each acquire runs it whole, in a fresh namespace holding do_job and
    names (redis_client=..., and the modules it uses without importing
    them). Call it at the program's top level."""
    frame = sys._getframe(1)
    r = _Round(path, names)
    frame.f_globals["acquire"] = r.acquire
    frame.f_globals["release"] = r.release


# ---------------------------------------------------------------- worker


def _one_line(e):
    text = "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__
    return text.splitlines()[0] if text else type(e).__name__


def install():
    """Replace the clocks, random sources, threads and sockets: before any
    library that takes them (redis-py does `from time import time`)."""
    _patch_time()
    _patch_random()
    _patch_threads()
    _patch_sockets()


def preload():
    """Import the client libraries a zygote shares with its children."""
    try:
        import redis  # noqa: F401
        import redis.lock  # noqa: F401
    except ImportError:
        pass


def zygote():
    """Serve fork requests on fd 3 until it closes; returns in each child."""
    import signal

    ctl = _RealSocket(fileno=3)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reap themselves
    gc.freeze()
    while True:
        msg, fds, _flags, _addr = _socket.recv_fds(ctl, 1, 1)
        if not msg or not fds:
            _real_exit(0)
        pid = os.fork()
        if pid == 0:
            ctl.close()
            os.dup2(fds[0], 3)
            os.close(fds[0])
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            return
        os.close(fds[0])


def serve():
    """The worker's life: hello, init, load the program, then calls."""
    global _ctl, _rfile, NODES, params, name
    _ctl = _RealSocket(fileno=3)
    _rfile = _ctl.makefile("rb")
    _send({"op": "hello", "lang": "python", "version": platform.python_version(), "pid": os.getpid()})
    init = _recv()
    NODES, params, name = list(init["nodes"]), dict(init.get("params") or {}), init["name"]
    _set_clocks(init)
    _seed(int(init["seed"]))
    path = init["program"]
    os.chdir(os.path.dirname(path))
    sys.path.insert(0, os.path.dirname(path))
    sys.argv = [path]
    gc.collect()
    import importlib.util

    try:
        spec = importlib.util.spec_from_file_location("locksim_program", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["locksim_program"] = mod
        spec.loader.exec_module(mod)
    except BaseException as e:  # noqa: B036 - the program's failure, reported
        _send({"op": "raise", "error": _one_line(e)})
        _recv()
        _real_exit(0)
    fns = [f for f in ("acquire", "release", "extend") if callable(getattr(mod, f, None))]
    _send({"op": "ready", "fns": fns})
    lease = None
    while True:
        m = _recv()
        _set_clocks(m)
        fn = m["fn"]
        try:
            v = getattr(mod, fn)() if fn == "acquire" else getattr(mod, fn)(lease)
        except BaseException as e:  # noqa: B036
            _send({"op": "raise", "error": _one_line(e)})
            continue
        if _round["jobbed"] and fn == "acquire":
            _round["jobbed"] = False
            _send({"op": "return", "held": False, "token": None})  # the release's
            continue
        if fn == "acquire":
            lease = v
        elif fn == "extend" and v is not None and not isinstance(v, (bool, int, float, str, bytes)):
            lease = v  # an extend that returns a new lease object (redlock 5's) replaces it
        token = v.decode("latin-1") if isinstance(v, bytes) else v if isinstance(v, str) else None
        _send({"op": "return", "held": bool(v), "token": token})
