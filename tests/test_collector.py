"""The cyclic garbage collector is paused while questions are worked on, and left as it was found."""

from __future__ import annotations

import asyncio
import gc
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from builders import concept, write_files

import okf.collector
from okf.collector import collector_paused
from okf.navigator import navigate_async
from okf.testing import ScriptedReader


@pytest.fixture(autouse=True)
def running_collector() -> Iterator[None]:
    """Each test starts with the collector running and leaves it as it was found: a test that pauses it
    (``gc.disable()``) must not leave the rest of the worker's tests without a collector (their cycles then
    pile up until some test's ``gc.collect()`` walks millions of objects)."""
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_paused_inside_and_restored_after() -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_pauses_restore_when_the_last_ends() -> None:
    outer = collector_paused()
    outer.__enter__()
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the outer holder still works
    outer.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_collector_the_caller_paused_stays_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    collected: list[int] = []
    monkeypatch.setattr(okf.collector.gc, "collect", lambda *a: collected.append(1) or 0)
    monkeypatch.setattr(okf.collector, "COLLECT_EVERY_S", 0.0)
    gc.disable()
    outer = collector_paused()
    outer.__enter__()
    with collector_paused():
        pass
    outer.__exit__(None, None, None)
    assert not gc.isenabled() and collected == []


def test_walks_that_never_stop_overlapping_still_collect(monkeypatch: pytest.MonkeyPatch) -> None:
    collected: list[int] = []
    monkeypatch.setattr(okf.collector.gc, "collect", lambda *a: collected.append(1) or 0)
    monkeypatch.setattr(okf.collector, "COLLECT_EVERY_S", 0.0)
    outer = collector_paused()
    outer.__enter__()
    for _ in range(3):
        with collector_paused():
            pass
    assert len(collected) == 3 and not gc.isenabled()
    outer.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_walk_runs_with_the_collector_paused_and_restores_it_even_when_it_fails(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "b",
        {"index.md": "# Root\n\n* [Leave](leave.md) - vacation days\n", "leave.md": concept("Leave", "25 days.")},
    )
    during: list[bool] = []

    def judge(question: str, documents: list) -> dict[str, bool]:  # type: ignore[type-arg]
        during.append(gc.isenabled())
        return {d.id: True for d in documents}

    result = asyncio.run(
        navigate_async(root, "How many vacation days?", reader=ScriptedReader(judge=judge), angles="off")
    )
    assert [e.path for e in result.shortlist] == ["leave.md"] and during == [False]
    assert gc.isenabled()

    def broken(question: str, documents: list) -> dict[str, bool]:  # type: ignore[type-arg]
        raise RuntimeError("reader bug")

    with pytest.raises(RuntimeError):
        asyncio.run(navigate_async(root, "How many vacation days?", reader=ScriptedReader(judge=broken), angles="off"))
    assert gc.isenabled()


def _in_oldest_generation(objects: list[object]) -> bool:
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    return all(id(o) in oldest for o in objects)


def test_a_long_lived_pause_hands_what_it_leaves_alive_to_the_oldest_generation() -> None:
    """Survivors of a ``long_lived`` pause go to the oldest generation (no young collection walks them all);
    a plain pause leaves them young, and nothing stays frozen either way."""
    with collector_paused(long_lived=True):
        kept = [[i] for i in range(500)]
    assert _in_oldest_generation(kept) and gc.get_freeze_count() == 0 and gc.isenabled()
    with collector_paused():
        young = [[i] for i in range(500)]
    assert not _in_oldest_generation(young) and gc.get_freeze_count() == 0


def test_a_long_lived_pause_leaves_the_callers_frozen_objects_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with collector_paused(long_lived=True):
            young = [[i] for i in range(500)]
        assert gc.get_freeze_count() == frozen and not _in_oldest_generation(young)
    finally:
        gc.unfreeze()


def test_a_compile_hands_what_it_leaves_alive_to_the_oldest_generation(tmp_path: Path) -> None:
    """compile_bundle pauses the collector as a long-lived pause: its report, made when the compile starts, is
    in the oldest generation when it returns (fails on a plain pause: a young collection promotes it one step)."""
    from okf.compile import compile_bundle

    sources = write_files(tmp_path / "src", {"a.md": "# Alpha\n\nThe treaty binds both parties.\n"})
    report = compile_bundle([sources], tmp_path / "out")
    assert _in_oldest_generation([report]) and gc.get_freeze_count() == 0


def _left_in_cycles(run: Callable[[], object]) -> list[str]:
    """What ``run`` leaves in reference cycles (which only the cyclic collector frees): okf's objects, tasks,
    coroutines and the frames of tracebacks, by type name."""
    gc.collect()
    gc.disable()
    try:
        result = run()
        del result
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
    finally:
        gc.set_debug(0)
        gc.enable()
    left = [
        type(o).__qualname__
        for o in gc.garbage
        if type(o).__module__.startswith("okf") or isinstance(o, (asyncio.Task, types.CoroutineType, types.FrameType))
    ]
    gc.garbage.clear()
    return left


@pytest.mark.parametrize("angles", ["off", "auto"])
def test_a_navigation_leaves_no_reference_cycles(angles: str) -> None:
    """A walk ends without cycles, even one a budget stopped with selector calls and judgments cancelled (the
    traceback of a cancelled task held its frames, and they the task and the walk; the ledger and its walks,
    an orchestration's views and their callbacks held each other): reference counting frees what it
    allocated, so its pause hands what survives to the oldest generation without leaving garbage there."""
    from okf.readers import OfflineReader

    bundle = Path(__file__).resolve().parent.parent / "bundles" / "harborview"
    for budgets in ({}, {"max_bodies": 4}):

        def run(budgets: dict[str, int] = budgets) -> object:
            return asyncio.run(
                navigate_async(
                    bundle,
                    "How many paid time off days does a new employee get each year?",
                    reader=OfflineReader(),
                    budgets=budgets,
                    angles=angles,
                )
            )

        assert _left_in_cycles(run) == []


def test_a_navigation_hands_what_it_leaves_alive_to_the_oldest_generation(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "b",
        {"index.md": "# Root\n\n* [Leave](leave.md) - vacation days\n", "leave.md": concept("Leave", "25 days.")},
    )
    result = asyncio.run(navigate_async(root, "How many vacation days?", reader=ScriptedReader(), angles="off"))
    assert _in_oldest_generation([result]) and gc.get_freeze_count() == 0 and gc.isenabled()
