"""A locksim worker: the shim first, then the client library, then the
program (docs/foreign.md). With --zygote it first serves fork requests and
goes on in each child, which is then as a fresh worker at the same point."""

import sys

import locksim

locksim.install()
locksim.preload()
if "--zygote" in sys.argv[1:]:
    locksim.zygote()
locksim.serve()
