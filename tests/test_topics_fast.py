"""okf.compile.topics: the indexed similarity computations give exactly _dot's values (same groups)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from okf.compile.topics import _dot, _dots_with, _similarities, partition

_terms = st.sampled_from([f"t{i}" for i in range(12)])
_vectors = st.dictionaries(_terms, st.floats(min_value=0.001, max_value=1.0), max_size=8)


@settings(max_examples=200, deadline=None)
@given(st.lists(_vectors, min_size=1, max_size=8), st.lists(_vectors, min_size=1, max_size=5))
def test_indexed_similarities_equal_dot_exactly(items, centroids):
    assert _similarities(items, centroids) == [[_dot(v, c) for c in centroids] for v in items]
    postings: dict[str, list[tuple[int, float]]] = {}
    for i, v in enumerate(items):
        for t, w in v.items():
            postings.setdefault(t, []).append((i, w))
    for seed in items:
        assert _dots_with(items, postings, seed) == [_dot(seed, v) for v in items]


@settings(max_examples=50, deadline=None)
@given(st.lists(_vectors, min_size=3, max_size=30), st.integers(min_value=2, max_value=5))
def test_partition_covers_every_item_once(items, k):
    groups = partition(items, k)
    assert sorted(i for g in groups for i in g) == list(range(len(items)))
