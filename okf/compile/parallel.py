"""Per-document work across processes: results in input order, so the output never depends on scheduling."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Shared read-only inputs of the current parallel step; forked workers inherit it instead of receiving a copy
# with every task (a document's text and the bundle-wide anchor maps would otherwise be pickled per task).
SHARED: dict[str, Any] = {}
# Below this much source text, starting workers costs more than it saves. Many small files do not change
# that: on hotpotqa-dev (2,484 files, 1.4 MB) two workers took more CPU and no less time than one (each plan
# travels back pickled, then a second pool renders), measured side by side (docs/benchmarks.md).
MIN_BYTES = 2_000_000


def workers(total_bytes: int) -> int:
    """How many processes to use: one per CPU (at most 2 unless OKF_COMPILE_JOBS says), 1 for small jobs."""
    env = os.environ.get("OKF_COMPILE_JOBS", "")
    wanted = int(env) if env.isdigit() and int(env) > 0 else min(2, os.cpu_count() or 1)
    if total_bytes < MIN_BYTES or sys.platform != "linux":  # fork keeps SHARED without pickling it
        return 1
    return wanted


def ordered_map(fn: Callable[[T], R], items: Sequence[T], jobs: int, shared: dict[str, Any]) -> Iterator[R]:
    """``fn`` over ``items`` in order; in ``jobs`` forked processes when ``jobs > 1``."""
    SHARED.clear()
    SHARED.update(shared)
    try:
        if jobs <= 1 or len(items) < 2:
            yield from map(fn, items)
            return
        import multiprocessing  # only with workers: a small compile starts without the pool's modules
        from concurrent.futures import ProcessPoolExecutor

        chunk = max(1, min(16, len(items) // (jobs * 8)))
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            yield from pool.map(fn, items, chunksize=chunk)
    finally:
        SHARED.clear()
