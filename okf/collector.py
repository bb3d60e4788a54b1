"""Python's cyclic garbage collector, paused while okf works on a question, a compile, an export or a check.

Both allocate many containers while large long-lived ones stay alive (a walk: the terms of every body it
reads, trace events, tasks, beside the bundle's listings and the reader's caches; a compile: term tables,
plans and trees that live until it ends). Each collection the allocations trigger walks the long-lived
objects again and finds nothing to free: 10 to 18% of the CPU of an offline question, 15 to 20% of a compile.
So the collector is paused for the work and restored when the last pause ends. Work overlapping in one
process (walks in the MCP server) shares one pause; so that a server whose walks never stop overlapping still
frees its cycles, a pause ending after the shared one has lasted ``COLLECT_EVERY_S`` collects once. A
collector the caller paused stays paused and is never collected here. Forked workers inherit the pause.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

COLLECT_EVERY_S = 10.0

_lock = threading.Lock()
_holders = 0
_restore = False  # the first holder found the collector running: the last one starts it again
_since = 0.0


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector for the duration of the block (counted across overlapping blocks)."""
    global _holders, _restore, _since
    with _lock:
        if _holders == 0:
            _restore = gc.isenabled()
            _since = time.monotonic()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        collect = False
        with _lock:
            _holders -= 1
            if _holders == 0:
                if _restore:
                    gc.enable()
            elif _restore and time.monotonic() - _since >= COLLECT_EVERY_S:
                _since = time.monotonic()
                collect = True
        if collect:
            gc.collect()
