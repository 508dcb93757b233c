# locksim: ttl=3s lifetime=5s resolution=1s expiry=timestamp key=lock.foo
# locksim: files=002-document.py source=002_8a9477ba888b29a3.txt
"""002's Python, run as the post gives it.

002-document.py is the post's code block ("程序代码"), pasted verbatim: it
acquires, calls do_job(), and releases, as one script. It names redis_client,
do_job and the time module without defining or importing them; the harness
gives those three and nothing else. locksim.round_script runs the script
whole for each of the client's rounds: do_job() is the client's critical
section.
"""

import time

import redis

import locksim

redis_client = redis.Redis(host=locksim.host(0), port=locksim.port(0))
locksim.round_script("002-document.py", redis_client=redis_client, time=time)
