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


def ordered_map(
    fn: Callable[[T], R],
    items: Sequence[T],
    jobs: int,
    shared: dict[str, Any],
    weights: Sequence[int] | None = None,
) -> Iterator[R]:
    """``fn`` over ``items``, results in the order of ``items``; in ``jobs`` forked processes when ``jobs > 1``.

    With ``weights`` (an item's expected cost, such as its size), workers are handed the heaviest items first,
    so that no long item starts last while the other worker has nothing left to do (what chunks in input order
    did: a chunk of long contracts at the end); results still come in input order."""
    SHARED.clear()
    SHARED.update(shared)
    try:
        if jobs <= 1 or len(items) < 2:
            yield from map(fn, items)
            return
        import multiprocessing  # only with workers: a small compile starts without the pool's modules
        from concurrent.futures import ProcessPoolExecutor

        # Chunks of items per task: one at a time cost the parent about 1 ms more per item (futures, queues), a
        # CPU the workers need. In weight order the last chunks hold the lightest items, so they end together.
        chunk = max(1, min(16, len(items) // (jobs * 8)))
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            if weights is None:
                yield from pool.map(fn, items, chunksize=chunk)
                return
            order = heaviest_first(weights)
            yield from _in_input_order(pool.map(fn, [items[i] for i in order], chunksize=chunk), order)
    finally:
        SHARED.clear()


def heaviest_first(weights: Sequence[int]) -> list[int]:
    """Indexes of ``weights``, heaviest first (equal weights in input order)."""
    return sorted(range(len(weights)), key=lambda i: -weights[i])


def _in_input_order(results: Iterator[R], order: list[int]) -> Iterator[R]:
    """``results`` (of the items at ``order``, in that order) in input order, each yielded as soon as every
    result before it in input order has arrived."""
    held: dict[int, R] = {}
    following = 0
    for index, result in zip(order, results):
        held[index] = result
        while following in held:
            yield held.pop(following)
            following += 1
