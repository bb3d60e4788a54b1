"""The offline extractor over worker processes: big bundles are read and extracted in slices of sections.

Only for the offline reader itself (whose extraction is pure CPU) and bundles of at least ``PARALLEL_FROM``
sections. Each worker opens the bundle and runs the same per-section code as one process does; results come
back in slice order, so the output is the one a single process gives. Workers start by ``fork`` when this
process has a single thread, else by ``spawn``.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from okf.bundle import Bundle
from okf.processes import start_method
from okf.readers.offline import OfflineReader
from okf.requirements.sections import FILL_BATCH, SectionRun

PARALLEL_FROM = 1500  # sections; below this, starting processes costs more than it saves
_SLICE = 250
_state: dict[str, Any] = {}


def workers() -> int:
    """One process per usable CPU (at most 8)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


def applies(reader: object, sections: int) -> bool:
    """True when the work goes to processes: the offline reader itself, enough sections, more than one CPU."""
    return type(reader) is OfflineReader and sections >= PARALLEL_FROM and workers() > 1


def _start(root: str, mode: str, dense_chars: int) -> None:
    _state["run"] = SectionRun(Bundle.open(root), OfflineReader(), None, mode, dense_chars, FILL_BATCH)  # type: ignore[arg-type]


def _slice(paths: list[str]) -> list[Any]:
    run = _state["run"]

    async def each() -> list[Any]:
        return [await run.section(path) for path in paths]

    return asyncio.run(each())


def extract_offline(bundle: Bundle, paths: list[str], mode: str, dense_chars: int, progress: Any) -> list[Any]:
    """The per-section outcomes of ``paths``, in order, computed by worker processes."""
    method = start_method()
    slices = [paths[i : i + _SLICE] for i in range(0, len(paths), _SLICE)]
    outcomes: list[Any] = []
    with ProcessPoolExecutor(
        max_workers=workers(),
        mp_context=multiprocessing.get_context(method),
        initializer=_start,
        initargs=(str(bundle.root), mode, dense_chars),
    ) as pool:
        for part in pool.map(_slice, slices):
            outcomes.extend(part)
            if progress is not None:
                progress(len(outcomes), len(paths))
    return outcomes
