"""How okf starts its worker processes (check, export and requirement extraction; compile forks always).

Fork when this process runs one thread: a forked worker inherits what the parent has read (a bundle's
listings, a reader's tables) instead of reading it again. With another thread running, a fork would copy
that thread's locks in whatever state they are, so workers are spawned instead.
"""

from __future__ import annotations

import multiprocessing
import threading


def start_method() -> str:
    """``"fork"`` when this process runs one thread and the platform forks, else ``"spawn"``."""
    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return "fork"
    return "spawn"
