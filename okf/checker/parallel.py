"""Checking a big bundle's concepts in worker processes: each opens its own Bundle and checks a slice.

The slices are contiguous runs of the sorted concept paths (so mostly whole directories, whose scans each
worker caches) and their results come back in slice order, so the report is the one a single process gives.
Workers start by ``fork`` when this process has a single thread (fast, and safe then), else by ``spawn``.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from datetime import datetime
from typing import Any

from okf.bundle import Bundle, Diagnostic
from okf.checker.rules import ManifestRead, SourceFiles, manifest_citing
from okf.checker.scan import ListedItem, Progress, check_concepts, check_directories, merge_listed
from okf.processes import start_method

PARALLEL_FROM = 4000  # below this, starting processes costs more than it saves
_SLICE = 500  # concepts per task: small enough to balance load, big enough that a task is not all overhead
_DIR_SLICE = 50  # directories per task

Listed = dict[str, tuple[str, int, str]]
_state: dict[str, object] = {}
# What a forked worker finds in its copy of this process: the caller's bundle (its directories already scanned)
# and source files, used when the worker checks the same root; a spawned worker starts empty and opens its own.
_inherited: dict[str, object] = {}


def default_workers(concepts: int) -> int:
    """How many processes to check ``concepts`` concepts with: one per usable CPU for big bundles, else 1."""
    if concepts < PARALLEL_FROM:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


def _start(root: str, now: datetime) -> None:
    # What the worker starts with (modules, the bundle's scans) lives as long as it does: frozen, the garbage
    # collector's full passes need not walk it again and again (they cost several percent of a check).
    gc.freeze()
    bundle = _inherited.get("bundle")
    if not isinstance(bundle, Bundle) or str(bundle.root) != root:
        bundle = Bundle.open(root)
    _state.update(bundle=bundle, now=now)


def _plain(diags: list[Diagnostic]) -> list[tuple[Any, ...]]:
    # Plain tuples pickle several times faster than pydantic models.
    return [(d.code, d.severity, d.path, d.line, d.message, d.fix) for d in diags]


def _models(rows: list[tuple[Any, ...]]) -> list[Diagnostic]:
    return [Diagnostic(code=c, severity=s, path=p, line=ln, message=m, fix=f) for c, s, p, ln, m, f in rows]


def _run_directories(directories: list[str], fanout: int) -> tuple[list[tuple[Any, ...]], int, list[ListedItem]]:
    diags, files, listed = check_directories(_state["bundle"], directories, fanout)  # type: ignore[arg-type]
    return _plain(diags), files, listed


def _run_citing() -> ManifestRead:
    return manifest_citing(_state["bundle"])  # type: ignore[arg-type]


def _run_concepts(paths: list[str], listed: Listed, citing: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    bundle, now = _state["bundle"], _state["now"]
    if _state.get("citing") != citing:  # the first slice this worker checks: its source files, kept for the rest
        _state.update(citing=citing, sources=SourceFiles(bundle, *citing))  # type: ignore[arg-type]
    return _plain(check_concepts(bundle, paths, listed, now, _state["sources"]))  # type: ignore[arg-type]


def check_in_pool(
    bundle: Bundle,
    directories: list[str],
    paths: list[str],
    fanout: int,
    now: datetime,
    workers: int,
    progress: Progress | None = None,
) -> tuple[list[Diagnostic], int, list[Diagnostic], ManifestRead]:
    """What :func:`okf.checker.scan.check_directories` and :func:`okf.checker.scan.check_concepts` give, computed by
    ``workers`` processes, in the order one process finds them: (listing diagnostics, index and log files
    read, concept diagnostics, and :func:`okf.checker.rules.manifest_citing` of the bundle).
    """
    method = start_method()
    if method == "fork":
        _inherited.update(bundle=bundle)
    try:
        return _check_in(bundle, directories, paths, fanout, now, workers, progress, method)
    finally:
        _inherited.clear()


def _check_in(
    bundle: Bundle,
    directories: list[str],
    paths: list[str],
    fanout: int,
    now: datetime,
    workers: int,
    progress: Progress | None,
    method: str,
) -> tuple[list[Diagnostic], int, list[Diagnostic], ManifestRead]:
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context(method),
        initializer=_start,
        initargs=(str(bundle.root), now),
    ) as pool:
        # The compile manifest is read by a worker, beside the listings: parsing it here would hold this
        # process's interpreter lock for its whole length (a large manifest: 0.1 s and more), and with it the
        # thread that hands the workers their tasks, so both would wait idle for their next listings.
        manifest = pool.submit(_run_citing)
        # Directories first: the concept checks need what every index says of each concept (W113).
        listings = [pool.submit(_run_directories, part, fanout) for part in _slices(directories, _DIR_SLICE)]
        found: list[Diagnostic] = []
        files = 0
        listed: Listed = {}
        for task in listings:
            rows, count, listed_part = task.result()
            found.extend(_models(rows))
            files += count
            listed.update(merge_listed([[item for item in listed_part if item[0] not in listed]]))
            del listed_part
        read = manifest.result()
        cited = read[2]
        # Concept slices are submitted a few ahead of the results read, so only those slices' share of
        # ``listed`` is copied at a time (memory stays flat on a 300,000-concept bundle).
        slices = iter(_balanced(paths, _SLICE, workers))
        window: deque[tuple[Future[list[tuple[Any, ...]]], int]] = deque()
        concept_diags: list[Diagnostic] = []
        checked = 0
        while True:
            while len(window) < 2 * workers and (part := next(slices, None)) is not None:
                entries = {p: listed.pop(p) for p in part if p in listed}
                window.append((pool.submit(_run_concepts, part, entries, cited), len(part)))
            if not window:
                break
            slice_task, size = window.popleft()
            concept_diags.extend(_models(slice_task.result()))
            checked += size
            if progress is not None:
                progress("concepts", checked, len(paths))
    return found, files, concept_diags, read


def _slices(items: list[str], size: int) -> list[list[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _balanced(items: list[str], size: int, workers: int) -> list[list[str]]:
    """Slices of ``size`` items, but the last ``workers * size`` items in slices of a quarter of that: a
    worker that finishes early waits for the others' last, short slices (not for a whole slice)."""
    head = max(0, len(items) - workers * size)
    return _slices(items[:head], size) + _slices(items[head:], max(1, size // 4))
