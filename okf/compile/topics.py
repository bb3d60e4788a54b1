"""Topical groups for wide folders: documents grouped by what they are about, not by their names.

When a folder holds more documents than one index.md should list (the fan-out cap), its documents are
split into groups of related documents: balanced k-means (cosine similarity of tf-idf vectors over the
words each document opens with), applied level by level until every group fits the cap. Everything is
deterministic: seeds are picked farthest-first from the first document in path order, ties go to the
earlier group, and no randomness is involved, so the same sources always give the same groups.

Statistics here organize the bundle at compile time; the groups' signposts then name their members and
key terms, and every reader reads them the same way. Nothing here depends on a question.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

from okf.text.keyterms import idf_table

# Terms per document vector, and per centroid.
VECTOR_TERMS = 24
CENTROID_TERMS = 240
ROUNDS = 8

Vector = dict[str, float]


def vectors(terms_of: Sequence[Mapping[str, int]]) -> list[Vector]:
    """Unit tf-idf vectors (the ``VECTOR_TERMS`` heaviest terms) of documents given their term counts."""
    df: Counter[str] = Counter()
    for counts in terms_of:
        df.update(counts.keys())
    weights = idf_table(df, max(1, len(terms_of)))
    out: list[Vector] = []
    for counts in terms_of:
        scored = sorted(((-(1.0 + math.log(n)) * weights.get(t, 0.0), t) for t, n in counts.items()
                         if t in weights and df[t] > 1))[:VECTOR_TERMS]
        norm = math.sqrt(sum(s * s for s, _ in scored)) or 1.0
        out.append({t: -s / norm for s, t in scored})
    return out


def _dot(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(w * b.get(t, 0.0) for t, w in a.items())


def _centroid(members: Sequence[Vector]) -> Vector:
    total: dict[str, float] = {}
    for vector in members:
        for t, w in vector.items():
            total[t] = total.get(t, 0.0) + w
    top = sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))[:CENTROID_TERMS]
    norm = math.sqrt(sum(w * w for _, w in top)) or 1.0
    return {t: w / norm for t, w in top}


def _seeds(items: Sequence[Vector], k: int) -> list[int]:
    """Farthest-first seeds, starting from the first item: spread over the folder, deterministic."""
    seeds = [0]
    nearest = [_dot(items[0], v) for v in items]
    while len(seeds) < k:
        candidate = min(range(len(items)), key=lambda i: (nearest[i], i))
        if candidate in seeds:
            break
        seeds.append(candidate)
        nearest = [max(a, _dot(items[candidate], v)) for a, v in zip(nearest, items)]
    return seeds


def partition(items: Sequence[Vector], k: int) -> list[list[int]]:
    """``items`` split into ``k`` balanced groups of similar vectors (indices, each group in input order)."""
    n = len(items)
    if k <= 1 or n <= k:
        return [list(range(n))] if k <= 1 else [[i] for i in range(n)]
    capacity = math.ceil(n / k)
    centroids = [dict(items[i]) for i in _seeds(items, k)]
    while len(centroids) < k:  # fewer distinct seeds than groups (identical documents): pad deterministically
        centroids.append({})
    assignment: list[int] = [-1] * n
    for _ in range(ROUNDS):
        sims = [[_dot(v, c) for c in centroids] for v in items]
        # Most decided items first: a wide margin between best and second best group.
        def margin(i: int) -> tuple[float, int]:
            best = sorted(sims[i], reverse=True)
            return (-(best[0] - (best[1] if len(best) > 1 else 0.0)), i)

        sizes = [0] * k
        new: list[int] = [-1] * n
        for i in sorted(range(n), key=margin):
            for g in sorted(range(k), key=lambda g: (-sims[i][g], g)):
                if sizes[g] < capacity:
                    new[i] = g
                    sizes[g] += 1
                    break
        if new == assignment:
            break
        assignment = new
        centroids = [_centroid([items[i] for i in range(n) if assignment[i] == g]) for g in range(k)]
    groups = [[i for i in range(n) if assignment[i] == g] for g in range(k)]
    return [g for g in groups if g]


def topical_tree(count: int, vectors_: Sequence[Vector], fanout: int) -> list[list[int] | list]:  # type: ignore[type-arg]
    """Nested groups of document indices, each level at most ``fanout`` wide.

    Returns a list whose entries are either ints (documents) at the leaves or lists (groups).
    """
    indices = list(range(count))

    def build(members: list[int]) -> list:  # type: ignore[type-arg]
        if len(members) <= fanout:
            return members
        levels = math.ceil(math.log(len(members)) / math.log(fanout))
        k = min(fanout, math.ceil(len(members) / fanout ** (levels - 1)))
        parts = partition([vectors_[i] for i in members], k)
        return [build([members[j] for j in part]) for part in parts]

    return build(indices)
