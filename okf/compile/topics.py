"""Topical groups for wide folders: documents grouped by what they are about, not by their names.

When a folder holds more documents than one index.md should list (the fan-out cap), its documents are
split into groups of related documents: balanced k-means (cosine similarity of tf-idf vectors over the
words each document opens with), applied level by level until every group fits the cap.

A word with several senses ("family" of plants, of a crime syndicate, of rifles) joins documents that share
nothing else, and a group's centroid, summed over its members, makes such a word heavy enough to draw more
documents in on it alone. So each term's weight in a document is scaled by the evidence that the document
uses it in the sense its other holders do (:func:`in_sense`): how much more the document resembles the
term's other holders, on their other terms, than it resembles the folder's documents at large.

Balanced k-means stops at a local optimum that moves with the order the documents come in (on hotpotqa-dev
the held-out recall moved by 7 points between three orderings of the same documents). So the documents are
taken in an order made of their content alone (:func:`canonical`: by a hash of their terms and weights);
k-means's groups are improved by local search on k-means's own objective (:func:`_refine`: moves and swaps
of documents between groups while the sum of the members' similarities to their groups' centroids rises,
within the groups' capacity); and k-means runs ``RESTARTS`` times, from seeds spread from different documents
of that order, keeping the groups of highest objective, so that the arbitrary order decides less. The same
documents in any order, under any names, give the same groups. Everything is deterministic: seeds are picked
farthest-first, ties go to the earlier group, and no randomness is involved.

The similarity sums run as numpy arrays, each sum in the same order as the plain loop over a dict
(:func:`_dot`: the smaller vector's terms, left to right), so the floats and therefore the groups are
exactly those of the loop (tests/test_topics_fast.py checks them against it).

Statistics here organize the bundle at compile time; the groups' signposts then name their members and
key terms, and every reader reads them the same way. Nothing here depends on a question.
"""

from __future__ import annotations

import hashlib
import math
import struct
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import chain
from operator import mul, neg
from typing import Any

from okf.text.keyterms import idf_table

# Terms per document vector, and per centroid.
VECTOR_TERMS = 24
CENTROID_TERMS = 240
ROUNDS = 8
# K-means runs per partition, from seeds spread from as many documents; the one of highest objective is kept.
RESTARTS = 3

Vector = dict[str, float]


def vectors(terms_of: Sequence[Mapping[str, int]]) -> list[Vector]:
    """The documents' grouping vectors: :func:`tfidf` weighed by :func:`in_sense`, the same floats whatever
    the order the documents come in (computed in :func:`canonical` order, returned in the given one)."""
    order = canonical(list(map(content, terms_of)))
    computed = in_sense(tfidf([terms_of[i] for i in order]))
    out: list[Vector] = [{}] * len(order)
    for at, i in enumerate(order):
        out[i] = computed[at]
    return out


def content(weights: Mapping[str, float]) -> bytes:
    """A document's terms and weights as bytes, terms sorted: equal for equal mappings, whatever their order."""
    items = sorted(weights.items())
    terms = "\x00".join(t for t, _ in items).encode()
    return terms + b"\x00\x00" + struct.pack(f"<{len(items)}d", *(w for _, w in items))


def canonical(keys: Sequence[bytes]) -> list[int]:
    """Positions ordered by a hash of their :func:`content`, equal contents by position: an order that
    depends on what the documents say, not on the order they come in (nor on their names), and that spreads
    them like a shuffle rather than sorting them by their first word."""
    digests = [hashlib.blake2b(key, digest_size=8).digest() for key in keys]
    return sorted(range(len(keys)), key=lambda i: (digests[i], keys[i], i))


def tfidf(terms_of: Sequence[Mapping[str, int]]) -> list[Vector]:
    """Unit tf-idf vectors (the ``VECTOR_TERMS`` heaviest terms) of documents given their term counts."""
    df: Counter[str] = Counter()
    for counts in terms_of:
        df.update(counts.keys())
    weights = idf_table(df, max(1, len(terms_of)))
    out: list[Vector] = []
    shared = {t for t, n in df.items() if n > 1}.intersection(weights)  # terms of two documents or more
    for counts in terms_of:
        # ``(-(1.0 + log(n)) * weight, t)`` for the shared terms, by C-level maps (the same float operations).
        keys = list(filter(shared.__contains__, counts))
        tf = map((1.0).__add__, map(math.log, map(counts.__getitem__, keys)))
        scored = sorted(zip(map(mul, map(neg, tf), map(weights.__getitem__, keys)), keys))[:VECTOR_TERMS]
        norm = math.sqrt(sum(s * s for s, _ in scored)) or 1.0
        out.append({t: -s / norm for s, t in scored})
    return out


def in_sense(vectors_: Sequence[Vector]) -> list[Vector]:
    """Each document's term weights scaled by how much the document shares with the term's other holders.

    For document ``d`` and a term ``t`` of its vector ``v``, with ``u`` the vector without ``t``: ``a`` is the
    mean of ``u . v_e`` over the other documents ``e`` holding ``t`` (how much ``d`` resembles them on other
    terms), ``b`` the mean of ``u . v_e`` over every other document (how much it resembles any document); the
    weight is multiplied by ``ln(1 + a / b)``: 0 when the holders share nothing else with ``d`` (another sense,
    or a word everything uses), ``ln 2`` at the folder's average, more the closer they are. Then each vector is
    scaled to unit length again, terms heaviest first (ties by term). A document none of whose terms has
    support keeps its vector: there is nothing to tell its senses apart by. Nothing here is tuned: ``b`` is
    the folder's own, so the same holds for any folder.

    Cost: per term, the sum of its holders' vectors restricted to their terms, ``n * w * w`` products for
    ``n`` vectors of ``w`` terms, in blocks of terms so the temporaries stay bounded."""
    import numpy as np

    n = len(vectors_)
    if n < 3:
        return [dict(v) for v in vectors_]
    ids: dict[str, int] = {}
    setdefault = ids.setdefault
    lengths = np.fromiter(map(len, vectors_), dtype=np.intp, count=n)
    terms = np.fromiter((setdefault(t, len(ids)) for v in vectors_ for t in v), dtype=np.intp, count=int(lengths.sum()))
    weights = np.fromiter(chain.from_iterable(v.values() for v in vectors_), dtype=np.float64, count=len(terms))
    docs = np.repeat(np.arange(n, dtype=np.intp), lengths)
    size = len(ids)
    total = np.bincount(terms, weights, minlength=size)  # the sum of every vector
    holders = np.bincount(terms, minlength=size)
    # Each position's document's positions, padded with -1: the partners of a term in its document.
    width = int(lengths.max()) if n else 0
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    offsets = np.arange(width)
    rows = starts[:, None] + offsets
    rows[offsets >= lengths[:, None]] = -1
    # Per position (d, t): the sum over d's other terms s of w_d(s) * (the weight of s in the other documents
    # holding t, summed). Each product is taken against the others' sum alone, so a term no other holder of t
    # has adds exactly 0: no cancellation leaves a trace of support where there is none.
    alike = np.zeros(len(terms))
    order = np.argsort(terms, kind="stable")
    bounds = np.searchsorted(terms[order], np.arange(size + 1))
    step = max(1, 4_000_000 // max(1, width))  # positions per block: bounded temporaries on big folders
    lo = 0
    while lo < len(order):
        # A block ends on a term's last holder, so every (term, partner) sum is complete within it.
        hi = int(bounds[min(size, int(np.searchsorted(bounds, lo + step, side="right")) - 1)])
        hi = max(hi, int(bounds[terms[order[lo]] + 1]))
        block = order[lo:hi]
        partners = rows[docs[block]]
        valid = (partners >= 0) & (partners != block[:, None])
        owner = np.broadcast_to(np.arange(len(block))[:, None], partners.shape)[valid]
        partners = partners[valid]
        keys = terms[block][owner] * size + terms[partners]
        values = weights[partners]
        unique_keys, inverse = np.unique(keys, return_inverse=True)
        others = np.bincount(inverse, values, minlength=len(unique_keys))[inverse] - values
        alike[block] = np.bincount(owner, values * others, minlength=len(block))
        lo = hi
    alike /= np.maximum(holders[terms] - 1, 1)
    # The same against every other document: w_d(s) * (total[s] - w_d(s)) over d's terms s other than t.
    each = weights * (total[terms] - weights)
    anyone = (np.bincount(docs, each, minlength=n)[docs] - each) / (n - 1)
    ratio = np.divide(alike, anyone, out=np.zeros(len(terms)), where=anyone > 0)
    scaled = weights * np.log1p(ratio)
    out: list[Vector] = []
    names = list(ids)
    for d, v in enumerate(vectors_):
        at = int(starts[d])
        row = scaled[at : at + len(v)].tolist()
        norm = math.sqrt(sum(x * x for x in row))
        if not norm:
            out.append(dict(v))
            continue
        kept = sorted((-x / norm, names[t]) for x, t in zip(row, terms[at : at + len(v)].tolist()) if x > 0)
        out.append({t: -x for x, t in kept})
    return out


def _dot(a: Vector, b: Vector) -> float:
    """Cosine of two unit vectors: the smaller one's terms in its own order, added left to right."""
    if len(a) > len(b):
        a, b = b, a
    total = 0.0
    get = b.get
    for t, w in a.items():
        total += w * get(t, 0.0)
    return total


class _Items:
    """The vectors as arrays for the similarity sums: term ids and weights per item (padded with id 0 and
    weight 0.0 to the longest), lengths, and per term the items holding it with their weights."""

    def __init__(self, items: Sequence[Vector]) -> None:
        import numpy as np

        self.items = items
        self.ids: dict[str, int] = {}
        setdefault = self.ids.setdefault
        width = max(map(len, items), default=0) or 1
        flat_ids: list[int] = []
        flat_weights: list[float] = []
        pad_ids, pad_weights = [0] * width, [0.0] * width
        for v in items:
            flat_ids += [setdefault(t, len(self.ids)) for t in v]
            flat_weights += v.values()
            flat_ids += pad_ids[len(v) :]
            flat_weights += pad_weights[len(v) :]
        self.names = list(self.ids)
        self.terms = np.array(flat_ids, dtype=np.intp).reshape(len(items), width)
        self.weights = np.array(flat_weights, dtype=np.float64).reshape(len(items), width)
        self.lengths = np.fromiter(map(len, items), dtype=np.intp, count=len(items))
        self.width = width
        self.used = np.arange(width) < self.lengths[:, None]
        # Each term's rank among the terms sorted as strings: ties of weight go to the smaller term.
        self.rank = np.empty(len(self.names), dtype=np.intp)
        self.rank[sorted(range(len(self.names)), key=self.names.__getitem__)] = np.arange(len(self.names))
        owners = np.repeat(np.arange(len(items), dtype=np.intp), self.lengths)
        by_term = self.terms[self.used]
        order = np.argsort(by_term, kind="stable")  # per term, its items in input order
        self._owners, self._owner_weights = owners[order], self.weights[self.used][order]
        self._bounds = np.searchsorted(by_term[order], np.arange(len(self.ids) + 1)).tolist()

    def holders(self, term: str) -> tuple[Any, Any]:
        """The items holding ``term`` (indices ascending) and its weight in each."""
        at = self.ids.get(term)
        if at is None:
            return self._owners[:0], self._owner_weights[:0]
        lo, hi = self._bounds[at], self._bounds[at + 1]
        return self._owners[lo:hi], self._owner_weights[lo:hi]


def _by_items(index: _Items, centroids: Sequence[Vector]) -> Any:
    """items x centroids sums taken over each item's terms in its own order (``_dot`` where the item is the
    smaller side). A term the centroid lacks adds ``w * 0.0``, which changes no sum: every sum starts at +0.0
    and so never becomes -0.0, and x + 0.0 == x for every other x."""
    import numpy as np

    n, k = len(index.items), len(centroids)
    # The centroids over their own terms only, one row per term they hold (a last row of zeros for every
    # other term): (terms + 1) x k, so each item term's row of weights is one contiguous read.
    get = index.ids.get
    held: list[tuple[Any, Any]] = []
    for c in centroids:
        ids = list(map(get, c))
        if None in ids:  # terms no item holds add nothing to any sum
            pairs = [(at, w) for at, w in zip(ids, c.values()) if at is not None]
            held.append(([at for at, _ in pairs], [w for _, w in pairs]))
        else:
            held.append((ids, list(c.values())))
    local = np.unique(np.fromiter(chain.from_iterable(ids for ids, _ in held), dtype=np.intp))
    column = np.full(len(index.ids) + 1, len(local), dtype=np.intp)
    column[local] = np.arange(len(local))
    dense = np.zeros((len(local) + 1, k))
    for g, (ids, weights_g) in enumerate(held):
        if ids:
            dense[column[ids], g] = weights_g
    out = np.zeros((n, k))
    step = max(1, 4_000_000 // max(1, k * index.width))  # rows per block: bounded temporaries on big folders
    for lo in range(0, n, step):
        block = out[lo : lo + step]
        rows, weights = column[index.terms[lo : lo + step]], index.weights[lo : lo + step]
        for p in range(index.width):
            block += weights[:, p, None] * dense[rows[:, p]]
    return out


def _by_centroid(index: _Items, c: Vector) -> Any:
    """Every item's sum with ``c`` taken over ``c``'s terms in its own order (``_dot`` where ``c`` is the
    smaller side): each term adds its product to the items holding it (to the others it would add 0.0)."""
    import numpy as np

    row = np.zeros(len(index.items))
    for t, w in c.items():
        holders, weights = index.holders(t)
        row[holders] += w * weights
    return row


def _similarities(items: Sequence[Vector] | _Items, centroids: Sequence[Vector]) -> Any:
    """``[[_dot(v, c) for c in centroids] for v in items]`` as an array, exactly: summed over the item's terms
    in order, except for the items longer than a centroid, whose sums with it run over its terms."""

    index = items if isinstance(items, _Items) else _Items(items)
    out = _by_items(index, centroids)
    longest = int(index.lengths.max()) if len(index.items) else 0
    for g, c in enumerate(centroids):
        if len(c) < longest:
            longer = index.lengths > len(c)
            out[longer, g] = _by_centroid(index, c)[longer]
    return out


def _dots_with(index: _Items, seed: Vector) -> Any:
    """``[_dot(seed, v) for v in items]`` as an array, exactly (the seed's terms in order, but for the items
    smaller than the seed, whose terms are taken in their order)."""
    row = _by_centroid(index, seed)
    smaller = index.lengths < len(seed)
    if smaller.any():
        row[smaller] = _by_items(index, [seed])[smaller, 0]
    return row


def _centroid(index: _Items, members: Sequence[int]) -> Vector:
    """The unit sum of the members' vectors over its ``CENTROID_TERMS`` heaviest terms (ties by term).

    Each term's weight is summed member by member in order (bincount adds in input order, as the dict loop
    did); the norm is summed left to right over the kept terms, heaviest first."""
    import numpy as np

    rows = np.asarray(members, dtype=np.intp)
    used = index.used[rows]
    ids, weights = index.terms[rows][used], index.weights[rows][used]
    size = len(index.names)
    total = np.bincount(ids, weights, minlength=size)
    present = np.flatnonzero(np.bincount(ids, minlength=size))
    order = np.lexsort((index.rank[present], -total[present]))[:CENTROID_TERMS]
    top, values = present[order].tolist(), total[present[order]].tolist()
    squares = 0.0
    for w in values:
        squares += w * w
    norm = math.sqrt(squares) or 1.0
    names = index.names
    return {names[t]: w / norm for t, w in zip(top, values)}


def _seeds(items: Sequence[Vector] | _Items, k: int, first: int = 0) -> list[int]:
    """Farthest-first seeds, starting from item ``first``: spread over the folder, deterministic."""
    import numpy as np

    index = items if isinstance(items, _Items) else _Items(items)
    seeds = [first]
    nearest = _dots_with(index, index.items[first])
    while len(seeds) < k:
        candidate = int(np.argmin(nearest))  # the first of equals
        if candidate in seeds:
            break
        seeds.append(candidate)
        nearest = np.maximum(nearest, _dots_with(index, index.items[candidate]))
    return seeds


def partition(items: Sequence[Vector], k: int) -> list[list[int]]:
    """``items`` split into ``k`` balanced groups of similar vectors (indices, each group in input order):
    :func:`balanced_kmeans` from ``RESTARTS`` first seeds (items ``0``, ``n / RESTARTS``, ...), each run
    improved by :func:`_refine`; the groups of highest objective are kept (the earlier run's on a tie)."""
    n = len(items)
    if k <= 1 or n <= k:
        return [list(range(n))] if k <= 1 else [[i] for i in range(n)]
    capacity = math.ceil(n / k)
    index = _Items(items)
    best: tuple[float, list[list[int]]] = (-math.inf, [])
    for run in range(RESTARTS):
        groups, value = _refine(index, balanced_kmeans(index, k, capacity, run * n // RESTARTS), capacity)
        if value > best[0] + 1e-9:
            best = (value, groups)
    return best[1]


def balanced_kmeans(index: _Items, k: int, capacity: int, first: int = 0) -> list[list[int]]:
    """Balanced k-means: seeds farthest-first from item ``first``; each round assigns the items, the most
    decided first (widest margin between their best and second-best group), to the most similar group with
    room (at most ``capacity``), then recomputes the changed groups' centroids; at most ``ROUNDS`` rounds."""
    import numpy as np

    n = len(index.items)
    items = index.items
    centroids = [dict(items[i]) for i in _seeds(index, k, first)]
    while len(centroids) < k:  # fewer distinct seeds than groups (identical documents): pad deterministically
        centroids.append({})
    assignment: list[int] = [-1] * n
    groups_ = range(k)
    held: list[list[int]] = [[] for _ in groups_]  # each centroid's members (none for a seed)
    for _ in range(ROUNDS):
        sims = _similarities(index, centroids)
        # Most decided items first: a wide margin between best and second best group (k > 1 here).
        ranked = np.sort(sims, axis=1)
        margins = sorted(zip((-(ranked[:, -1] - ranked[:, -2])).tolist(), range(n)))
        best = sims.argmax(axis=1).tolist()  # the first of equals, as max() gives
        sizes = [0] * k
        new: list[int] = [-1] * n
        for _m, i in margins:
            # The most similar group with room (ties to the earlier group): the argmax first, as it mostly has room.
            g = best[i]
            if sizes[g] >= capacity:
                row = sims[i].tolist()
                g = min((g for g in groups_ if sizes[g] < capacity), key=lambda g: (-row[g], g))  # noqa: B023
            new[i] = g
            sizes[g] += 1
        if new == assignment:
            break
        assignment = new
        buckets: list[list[int]] = [[] for _ in groups_]
        for i, g in enumerate(assignment):
            buckets[g].append(i)
        # A group with the same members (in the same order) has the same centroid: only the others change.
        for g in groups_:
            if buckets[g] != held[g] or not held[g]:
                centroids[g] = _centroid(index, buckets[g])
        held = buckets
    members: list[list[int]] = [[] for _ in groups_]
    for i, g in enumerate(assignment):
        members[g].append(i)
    return [g for g in members if g]


def _refine(index: _Items, groups: list[list[int]], capacity: int) -> tuple[list[list[int]], float]:
    """``groups`` improved by local search on k-means's own objective, within ``capacity``, and the
    objective reached.

    The objective is the sum over groups of the length of their members' summed vectors ``S_g`` (for unit
    vectors, each member's similarity to its group's unit centroid, summed), what k-means raises but stops
    short of: its rounds assign by truncated centroids and fill groups greedily, so a document whose group is
    full lands where it is least unwanted and stays there. Here, while the objective rises (by more than
    1e-9): the best single move of a document into a group with room (never emptying a group), else, for
    each pair of groups, the swap of the document of each that gains most by joining the other, checked
    exactly (``|S_g - v_i + v_j| + |S_h - v_j + v_i|`` against ``|S_g| + |S_h|``), several disjoint pairs
    per pass. Each change raises the objective, so the search ends; it depends on nothing but the vectors
    and their order, so it is deterministic. Cost: per pass an items x groups array of gains, and per
    change the moved documents' dot products with every item (their terms' holders)."""
    import numpy as np

    n, k = len(index.items), len(groups)
    a = np.empty(n, dtype=np.intp)
    for g, members in enumerate(groups):
        a[members] = g
    sums = np.zeros((max(1, len(index.names)), k))  # padding holds term 0 at weight 0.0: it adds nothing
    np.add.at(sums, (index.terms, np.broadcast_to(a[:, None], index.terms.shape)), index.weights)
    d = np.zeros((n, k))  # d[i, g]: item i's dot product with group g's sum
    step = max(1, 4_000_000 // max(1, k * index.width))
    for lo in range(0, n, step):
        block = d[lo : lo + step]
        rows, weights = index.terms[lo : lo + step], index.weights[lo : lo + step]
        for p in range(index.width):
            block += weights[:, p, None] * sums[rows[:, p]]
    q = np.einsum("ij,ij->i", index.weights, index.weights)
    n2 = np.einsum("tg,tg->g", sums, sums)
    sizes = np.bincount(a, minlength=k)
    at = np.arange(n)
    tol = 1e-9

    def column(i: int) -> Any:
        return _by_centroid(index, index.items[i])

    def shift(i: int, g: int, h: int, col: Any) -> None:
        d[:, g] -= col
        d[:, h] += col
        a[i] = h
        sizes[g] -= 1
        sizes[h] += 1

    for _ in range(4 * n):
        norms = np.sqrt(n2)
        own = d[at, a]
        leave = np.sqrt(np.maximum(n2[a] - 2 * own + q, 0.0)) - norms[a]
        join = np.sqrt(np.maximum(n2[None, :] + 2 * d + q[:, None], 0.0)) - norms[None, :]
        gain = leave[:, None] + join
        gain[at, a] = -np.inf
        # Moves into groups with room, from groups of two or more.
        room = sizes < capacity
        if room.any():
            moving = np.where(room[None, :] & (sizes[a] > 1)[:, None], gain, -np.inf)
            mover, into = divmod(int(np.argmax(moving)), k)
            if moving[mover, into] > tol:
                source = int(a[mover])
                n2[source] = n2[source] - 2 * own[mover] + q[mover]
                n2[into] = n2[into] + 2 * d[mover, into] + q[mover]
                shift(mover, source, into, column(mover))
                continue
        used = np.zeros(k, dtype=bool)  # groups changed in this pass: the gains of the others still hold
        # Swaps: per pair of groups, the best leaver of each towards the other.
        order = np.argsort(a, kind="stable")
        starts = np.searchsorted(a[order], np.arange(k))
        best = np.maximum.reduceat(gain[order], starts, axis=0)  # best[g, h]: max over i in g of gain[i, h]
        score = best + best.T
        np.fill_diagonal(score, -np.inf)
        for flat in np.argsort(-score, axis=None).tolist():
            g, h = divmod(flat, k)
            if score[g, h] <= tol:
                break
            if g >= h or used[g] or used[h]:
                continue
            mg = order[starts[g] : starts[g] + sizes[g]]
            mh = order[starts[h] : starts[h] + sizes[h]]
            i = int(mg[np.argmax(gain[mg, h])])
            j = int(mh[np.argmax(gain[mh, g])])
            ci, cj = column(i), column(j)
            gij = ci[j]
            ng = n2[g] + q[i] + q[j] - 2 * d[i, g] + 2 * d[j, g] - 2 * gij
            nh = n2[h] + q[i] + q[j] - 2 * d[j, h] + 2 * d[i, h] - 2 * gij
            if math.sqrt(max(ng, 0.0)) + math.sqrt(max(nh, 0.0)) - norms[g] - norms[h] <= tol:
                continue
            n2[g], n2[h] = ng, nh
            shift(i, g, h, ci)
            shift(j, h, g, cj)
            used[g] = used[h] = True
        if not used.any():
            break
    out: list[list[int]] = [[] for _ in range(k)]
    for item, group in enumerate(a.tolist()):
        out[group].append(item)
    return [members for members in out if members], float(np.sqrt(n2).sum())


def topical_tree(count: int, vectors_: Sequence[Vector], fanout: int) -> list[list[int] | list]:
    """Nested groups of document indices, each level at most ``fanout`` wide.

    Returns a list whose entries are either ints (documents) at the leaves or lists (groups). The documents
    are grouped in :func:`canonical` order of their vectors, so the same vectors in another order give the
    same groups (the same tree but for the indices); each group lists its documents in the given order.
    """
    order = canonical(list(map(content, vectors_[:count])))

    def build(members: list[int]) -> list:
        if len(members) <= fanout:
            return sorted(order[at] for at in members)
        levels = math.ceil(math.log(len(members)) / math.log(fanout))
        k = min(fanout, math.ceil(len(members) / fanout ** (levels - 1)))
        parts = partition([vectors_[order[at]] for at in members], k)
        return [build([members[j] for j in part]) for part in parts]

    return build(list(range(count)))
