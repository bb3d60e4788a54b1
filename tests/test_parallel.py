"""Per-document work across processes (okf.compile.parallel): results in input order, heaviest items first."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import okf.compile.documents
from okf.compile import compile_bundle
from okf.compile.parallel import SHARED, _in_input_order, heaviest_first, ordered_map
from tests.builders import write_files


@given(st.lists(st.integers(min_value=0, max_value=5), max_size=30))
def test_heaviest_first_orders_by_weight_then_input(weights: list[int]) -> None:
    order = heaviest_first(weights)
    assert sorted(order) == list(range(len(weights)))
    assert [(-weights[i], i) for i in order] == sorted((-w, i) for i, w in enumerate(weights))


@given(st.permutations(list(range(12))))
def test_results_come_back_in_input_order_as_soon_as_they_can(order: list[int]) -> None:
    arrived: list[int] = []

    def results() -> Iterator[str]:
        for index in order:
            arrived.append(index)
            yield f"r{index}"

    out = []
    for result in _in_input_order(results(), order):
        index = int(result[1:])
        out.append(index)
        # yielded as soon as the last result it waited for (itself or an earlier one) arrived, not later
        assert len(arrived) == 1 + max(order.index(i) for i in range(index + 1))
    assert out == list(range(12))


def _square_with_offset(item: int) -> tuple[int, int]:
    return item * item + SHARED["offset"], os.getpid()


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_workers_return_results_in_input_order_with_weights() -> None:
    items = list(range(40))
    weights = [(i * 7919) % 13 for i in items]
    results = list(ordered_map(_square_with_offset, items, 2, {"offset": 1}, weights=weights))
    assert [r for r, _ in results] == [i * i + 1 for i in items]
    assert {pid for _, pid in results} != {os.getpid()}  # computed in the workers
    assert SHARED == {}


def test_build_documents_hands_the_largest_sources_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The weights build_documents passes are the sources' sizes, in input order (fails if documents went in
    input order, chunk by chunk: a long contract at the end kept one worker busy alone)."""
    src = write_files(
        tmp_path / "src",
        {
            "a.md": "# A\n\nShort.\n",
            "b.md": "# B\n\n" + "A longer text of the document. " * 50 + "\n",
            "c.md": "# C\n\n" + "Some words. " * 10 + "\n",
        },
    )
    seen: list[Any] = []
    original = okf.compile.documents.ordered_map

    def spy(fn: Any, items: Sequence[Any], jobs: int, shared: dict[str, Any], weights: Any = None) -> Any:
        seen.append((sorted(s.resource for s in items), [s.resource for s in items], weights))
        return original(fn, items, jobs, shared, weights=weights)

    monkeypatch.setattr(okf.compile.documents, "ordered_map", spy)
    compile_bundle([src], tmp_path / "out")
    (_, resources, weights) = seen[0]
    assert weights == [(src / r).stat().st_size for r in resources]
    assert [resources[i] for i in heaviest_first(weights)] == ["b.md", "c.md", "a.md"]
