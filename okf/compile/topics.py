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

import heapq
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import compress

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
        scored = sorted(
            ((-(1.0 + math.log(n)) * weights.get(t, 0.0), t) for t, n in counts.items() if t in weights and df[t] > 1)
        )[:VECTOR_TERMS]
        norm = math.sqrt(sum(s * s for s, _ in scored)) or 1.0
        out.append({t: -s / norm for s, t in scored})
    return out


def _dot(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(w * b.get(t, 0.0) for t, w in a.items())


def _similarities(
    items: Sequence[Vector],
    centroids: Sequence[Vector],
    previous: list[list[float]] | None = None,
    changed: Sequence[int] | None = None,
) -> list[list[float]]:
    """``[[_dot(v, c) for c in centroids] for v in items]``, through an index of the centroids' terms.

    Exactly ``_dot``'s values: where a vector is the smaller side, its terms are taken in its own order and
    only the ones a centroid carries are added (``_dot`` adds 0.0 for the others, which changes no sum); the
    rare pair whose centroid is smaller than the vector goes through ``_dot`` itself. With ``previous`` (the
    rows for the last centroids), only the ``changed`` centroids' columns are computed: a column depends on
    its own centroid alone, so the others are the same numbers.
    """
    k = len(centroids)
    columns = range(k) if previous is None or changed is None else changed
    postings: dict[str, list[tuple[int, float]]] = {}
    for g in columns:
        for t, w in centroids[g].items():
            postings.setdefault(t, []).append((g, w))
    # Centroids smaller than some vector (rare: an emptied group) are the only ones _dot reads from their side.
    longest = max(map(len, items), default=0)
    small = [(g, len(centroids[g])) for g in columns if len(centroids[g]) < longest]
    get = postings.get
    out: list[list[float]] = []
    for index, v in enumerate(items):
        if previous is None or changed is None:
            row = [0.0] * k
        else:
            row = previous[index].copy()
            for g in columns:
                row[g] = 0.0
        for t, w in v.items():
            found = get(t)
            if found is not None:
                for g, cw in found:
                    row[g] += w * cw
        size = len(v)
        for g, centroid_size in small:
            if size > centroid_size:
                row[g] = _dot(v, centroids[g])
        out.append(row)
    return out


def _centroid(members: Sequence[Vector]) -> Vector:
    total: dict[str, float] = {}
    get = total.get
    for vector in members:
        for t, w in vector.items():
            total[t] = get(t, 0.0) + w
    if len(total) > CENTROID_TERMS:  # the heaviest terms (ties by term): a partial sort of (-w, t) pairs
        top = [(t, -w) for w, t in heapq.nsmallest(CENTROID_TERMS, [(-w, t) for t, w in total.items()])]
    else:
        top = sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))
    norm = math.sqrt(sum(w * w for _, w in top)) or 1.0
    return {t: w / norm for t, w in top}


def _dots_with(items: Sequence[Vector], postings: Mapping[str, list[tuple[int, float]]], seed: Vector) -> list[float]:
    """``[_dot(seed, v) for v in items]``, exactly (as :func:`_similarities`: the seed's terms in its own
    order where it is the smaller side, ``_dot`` itself for an item smaller than the seed)."""
    row = [0.0] * len(items)
    for t, w in seed.items():
        for i, iw in postings.get(t, ()):
            row[i] += w * iw
    for i in compress(range(len(items)), map(len(seed).__gt__, map(len, items))):  # items smaller than the seed
        row[i] = _dot(seed, items[i])
    return row


def _seeds(items: Sequence[Vector], k: int) -> list[int]:
    """Farthest-first seeds, starting from the first item: spread over the folder, deterministic."""
    postings: dict[str, list[tuple[int, float]]] = {}
    for i, vector in enumerate(items):
        for t, w in vector.items():
            postings.setdefault(t, []).append((i, w))
    seeds = [0]
    nearest = _dots_with(items, postings, items[0])
    while len(seeds) < k:
        candidate = min(range(len(items)), key=nearest.__getitem__)  # the first of equals
        if candidate in seeds:
            break
        seeds.append(candidate)
        nearest = [max(a, d) for a, d in zip(nearest, _dots_with(items, postings, items[candidate]))]
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
    groups_ = range(k)
    sims: list[list[float]] | None = None
    changed: list[int] = list(groups_)
    held: list[list[int]] = [[] for _ in groups_]  # each centroid's members (none for a seed)
    for _ in range(ROUNDS):
        sims = _similarities(items, centroids, sims, changed)
        # Most decided items first: a wide margin between best and second best group.
        margins = []
        for i, row in enumerate(sims):
            ranked = sorted(row)  # k > 1 here
            margins.append((-(ranked[-1] - ranked[-2]), i))
        margins.sort()
        sizes = [0] * k
        new: list[int] = [-1] * n
        for _m, i in margins:
            row = sims[i]
            # The most similar group with room (ties to the earlier group): the argmax first, as it mostly has room.
            g = max(groups_, key=row.__getitem__)
            if sizes[g] >= capacity:
                g = min((g for g in groups_ if sizes[g] < capacity), key=lambda g: (-row[g], g))
            new[i] = g
            sizes[g] += 1
        if new == assignment:
            break
        assignment = new
        buckets: list[list[int]] = [[] for _ in groups_]
        for i, g in enumerate(assignment):
            buckets[g].append(i)
        # A group with the same members (in the same order) has the same centroid: only the others change.
        changed = [g for g in groups_ if buckets[g] != held[g] or not held[g]]
        for g in changed:
            centroids[g] = _centroid([items[i] for i in buckets[g]])
        held = buckets
    members: list[list[int]] = [[] for _ in groups_]
    for i, g in enumerate(assignment):
        members[g].append(i)
    return [g for g in members if g]


def topical_tree(count: int, vectors_: Sequence[Vector], fanout: int) -> list[list[int] | list]:
    """Nested groups of document indices, each level at most ``fanout`` wide.

    Returns a list whose entries are either ints (documents) at the leaves or lists (groups).
    """
    indices = list(range(count))

    def build(members: list[int]) -> list:
        if len(members) <= fanout:
            return members
        levels = math.ceil(math.log(len(members)) / math.log(fanout))
        k = min(fanout, math.ceil(len(members) / fanout ** (levels - 1)))
        parts = partition([vectors_[i] for i in members], k)
        return [build([members[j] for j in part]) for part in parts]

    return build(indices)
