"""Python's cyclic garbage collector, paused while okf works on a question, a compile, an export or a check.

Both allocate many containers while large long-lived ones stay alive (a walk: the terms of every body it
reads, trace events, tasks, beside the bundle's listings and the reader's caches; a compile: term tables,
plans and trees that live until it ends). Each collection the allocations trigger walks the long-lived
objects again and finds nothing to free: 10 to 18% of the CPU of an offline question, 15 to 20% of a compile.
So the collector is paused for the work and restored when the last pause ends. Work overlapping in one
process (walks in the MCP server) shares one pause; so that a server whose walks never stop overlapping still
frees its cycles, a pause ending after the shared one has lasted ``COLLECT_EVERY_S`` collects once. A
collector the caller paused stays paused and is never collected here. Forked workers inherit the pause.

A pause asked with ``long_lived=True`` (a compile: its tables, plans and term caches outlive it; a
navigation: its result and the reader's caches outlive it, and a walk ends without reference cycles, so what
it no longer needs was freed by reference counting) hands what is still alive when the collector restarts to
the oldest generation (``gc.freeze`` then ``gc.unfreeze``: two
list splices). Otherwise every object allocated during the pause is still in the youngest generation, and the
first young collection after it walks them all (0.15 s in the parent of a CUAD compile, 0.2 s for the whole of
a hotpotqa-dev one, 0.35 s for a one-process CUAD compile); in the oldest generation they are walked by the
next full collection only, as long-lived objects are. Skipped when the process holds frozen objects of its own
(``gc.unfreeze`` would hand those back too).
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
_long_lived = False  # a holder of the current pause asked that its survivors go to the oldest generation


@contextmanager
def collector_paused(*, long_lived: bool = False) -> Iterator[None]:
    """Pause the cyclic collector for the duration of the block (counted across overlapping blocks).
    ``long_lived``: what the pause leaves alive goes to the oldest generation when the collector restarts."""
    global _holders, _restore, _since, _long_lived
    with _lock:
        if _holders == 0:
            _restore = gc.isenabled()
            _since = time.monotonic()
            _long_lived = False
            gc.disable()
        _holders += 1
        _long_lived = _long_lived or long_lived
    try:
        yield
    finally:
        collect = False
        with _lock:
            _holders -= 1
            if _holders == 0:
                if _restore:
                    if _long_lived and gc.get_freeze_count() == 0:
                        gc.freeze()  # every tracked object to the permanent generation, the young count reset
                        gc.unfreeze()  # and from there to the oldest generation
                    gc.enable()
            elif _restore and time.monotonic() - _since >= COLLECT_EVERY_S:
                _since = time.monotonic()
                collect = True
        if collect:
            gc.collect()
