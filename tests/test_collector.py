"""The cyclic garbage collector is paused while questions are worked on, and left as it was found."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from builders import concept, write_files

import okf.collector
from okf.collector import collector_paused
from okf.navigator import navigate_async
from okf.testing import ScriptedReader


@pytest.fixture(autouse=True)
def running_collector() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
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
