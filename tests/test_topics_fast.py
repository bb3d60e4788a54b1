"""okf.compile.topics: the array similarity computations give exactly _dot's values (same groups)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from okf.compile.topics import _centroid, _dot, _dots_with, _Items, _similarities, partition

_terms = st.sampled_from([f"t{i}" for i in range(12)])
_vectors = st.dictionaries(_terms, st.floats(min_value=0.001, max_value=1.0), max_size=8)


@settings(max_examples=200, deadline=None)
@given(st.lists(_vectors, min_size=1, max_size=8), st.lists(_vectors, min_size=1, max_size=5))
def test_indexed_similarities_equal_dot_exactly(items, centroids):
    assert _similarities(items, centroids).tolist() == [[_dot(v, c) for c in centroids] for v in items]
    index = _Items(items)
    for seed in items + centroids:
        assert _dots_with(index, seed).tolist() == [_dot(seed, v) for v in items]


def _centroid_reference(members):
    """The centroid as a dict loop over the members (as first written)."""
    import math

    from okf.compile.topics import CENTROID_TERMS

    total = {}
    for vector in members:
        for t, w in vector.items():
            total[t] = total.get(t, 0.0) + w
    top = sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))[:CENTROID_TERMS]
    norm = math.sqrt(sum(w * w for _, w in top)) or 1.0
    return {t: w / norm for t, w in top}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(_vectors, st.dictionaries(_terms, st.sampled_from([0.25, 0.5, 1.0]), max_size=6)),
        min_size=1,
        max_size=12,
    ),
    st.data(),
)
def test_centroid_equals_dict_sum_exactly(items, data):
    """Same terms, same order, same weights to the last bit as summing dicts member by member."""
    members = data.draw(st.lists(st.integers(min_value=0, max_value=len(items) - 1), max_size=8, unique=True))
    got = _centroid(_Items(items), members)
    want = _centroid_reference([items[i] for i in members])
    assert list(got.items()) == list(want.items())


@settings(max_examples=50, deadline=None)
@given(st.lists(_vectors, min_size=3, max_size=30), st.integers(min_value=2, max_value=5))
def test_partition_covers_every_item_once(items, k):
    groups = partition(items, k)
    assert sorted(i for g in groups for i in g) == list(range(len(items)))


def _partition_reference(items, k):
    """The partition as first written (full sorts, one scan of the assignment per group): the fast one must
    give exactly its groups."""
    import math

    from okf.compile.topics import CENTROID_TERMS, ROUNDS, _seeds

    def centroid(members):
        total = {}
        for vector in members:
            for t, w in vector.items():
                total[t] = total.get(t, 0.0) + w
        top = sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))[:CENTROID_TERMS]
        norm = math.sqrt(sum(w * w for _, w in top)) or 1.0
        return {t: w / norm for t, w in top}

    n = len(items)
    if k <= 1 or n <= k:
        return [list(range(n))] if k <= 1 else [[i] for i in range(n)]
    capacity = math.ceil(n / k)
    centroids = [dict(items[i]) for i in _seeds(items, k)]
    while len(centroids) < k:
        centroids.append({})
    assignment = [-1] * n
    for _ in range(ROUNDS):
        sims = [[_dot(v, c) for c in centroids] for v in items]

        def margin(i):
            best = sorted(sims[i], reverse=True)  # noqa: B023 - used within this round only
            return (-(best[0] - (best[1] if len(best) > 1 else 0.0)), i)

        sizes = [0] * k
        new = [-1] * n
        for i in sorted(range(n), key=margin):
            for g in sorted(range(k), key=lambda g: (-sims[i][g], g)):
                if sizes[g] < capacity:
                    new[i] = g
                    sizes[g] += 1
                    break
        if new == assignment:
            break
        assignment = new
        centroids = [centroid([items[i] for i in range(n) if assignment[i] == g]) for g in range(k)]
    groups = [[i for i in range(n) if assignment[i] == g] for g in range(k)]
    return [g for g in groups if g]


_few_terms = st.sampled_from([f"t{i}" for i in range(5)])
# Vectors with repeated weights and identical vectors among them: the ties a partition must break alike.
_item_lists = st.lists(
    st.one_of(_vectors, st.dictionaries(_few_terms, st.sampled_from([0.25, 0.5, 1.0]), max_size=3)),
    min_size=3,
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(
    _item_lists,
    st.integers(min_value=2, max_value=6),
)
def test_balanced_kmeans_equals_reference(items, k):
    """Same groups as the straightforward balanced k-means, ties included (repeated weights, identical
    vectors): the partition before its local search."""
    import math

    from okf.compile.topics import balanced_kmeans

    want = _partition_reference(items, k)
    if len(items) > k:
        assert balanced_kmeans(_Items(items), k, math.ceil(len(items) / k)) == want


def test_centroid_keeps_heaviest_terms_in_order():
    from okf.compile.topics import CENTROID_TERMS

    members = [{f"w{i:04d}": 1.0 / (1 + i % 7) for i in range(j, j + 300)} for j in range(0, 90, 30)]
    total = {}
    for vector in members:
        for t, w in vector.items():
            total[t] = total.get(t, 0.0) + w
    top = sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))[:CENTROID_TERMS]
    assert list(_centroid(_Items(members), range(len(members)))) == [t for t, _ in top]


def _vectors_reference(terms_of):
    """topics.vectors as first written: a generator of scored pairs per document, sorted whole."""
    import math
    from collections import Counter

    from okf.compile.topics import VECTOR_TERMS
    from okf.text.keyterms import idf_table

    df = Counter()
    for counts in terms_of:
        df.update(counts.keys())
    weights = idf_table(df, max(1, len(terms_of)))
    out = []
    for counts in terms_of:
        scored = sorted(
            ((-(1.0 + math.log(n)) * weights.get(t, 0.0), t) for t, n in counts.items() if t in weights and df[t] > 1)
        )[:VECTOR_TERMS]
        norm = math.sqrt(sum(s * s for s, _ in scored)) or 1.0
        out.append({t: -s / norm for s, t in scored})
    return out


_words = st.sampled_from(["alpha", "beta", "gamma", "delta", "eps", "zeta", "theta", "5.2", "ab", "iota", "kappa"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(_words, st.integers(min_value=1, max_value=40), max_size=11), min_size=1, max_size=9))
def test_vectors_equal_the_first_written_ones(terms_of):
    from okf.compile.topics import tfidf

    assert [list(v.items()) for v in tfidf(terms_of)] == [list(v.items()) for v in _vectors_reference(terms_of)]


def _in_sense_reference(vectors_):
    """okf.compile.topics.in_sense as a plain loop over pairs of documents."""
    import math

    n = len(vectors_)
    if n < 3:
        return [dict(v) for v in vectors_]
    out = []
    for d, v in enumerate(vectors_):
        scaled = {}
        for t, w in v.items():
            u = {s: x for s, x in v.items() if s != t}
            sims = [sum(x * e.get(s, 0.0) for s, x in u.items()) for j, e in enumerate(vectors_) if j != d]
            holders = [sim for sim, e in zip(sims, [e for j, e in enumerate(vectors_) if j != d]) if t in e]
            alike = sum(holders) / max(1, len(holders))
            anyone = sum(sims) / (n - 1)
            scaled[t] = w * math.log1p(alike / anyone) if anyone > 0 else 0.0
        norm = math.sqrt(sum(x * x for x in scaled.values()))
        if not norm:
            out.append(dict(v))
            continue
        out.append({t: x / norm for t, x in sorted(scaled.items(), key=lambda kv: (-kv[1], kv[0])) if x > 0})
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(_words, st.integers(min_value=1, max_value=40), max_size=11), min_size=1, max_size=9))
def test_in_sense_equals_the_pairwise_loop(terms_of):
    from okf.compile.topics import in_sense, tfidf

    plain = tfidf(terms_of)
    got, want = in_sense(plain), _in_sense_reference(plain)
    assert [sorted(v) for v in got] == [sorted(v) for v in want]
    for a, b in zip(got, want):
        assert all(abs(a[t] - b[t]) < 1e-9 for t in a)


def test_in_sense_lowers_a_word_where_its_other_holders_share_nothing_else():
    """A word every document of one subject uses, and one document of another subject uses in another
    sense: in that document it weighs less than the words it shares with its own subject."""
    from okf.compile.topics import in_sense

    plants = [{"cell": 0.5, "leaf": 0.5, "root": 0.5, "seed": 0.5} for _ in range(4)]
    ships = [{"sail": 0.5, "hull": 0.5, "mast": 0.5, "crew": 0.5} for _ in range(3)]
    prison = {"cell": 0.5, "sail": 0.5, "hull": 0.5, "mast": 0.5}  # shares "cell" with the plants alone
    got = in_sense([*plants, *ships, prison])
    assert got[-1].get("cell", 0.0) < min(got[-1][t] for t in ("sail", "hull", "mast"))
    assert "cell" not in got[-1]  # its other holders share nothing else with it: no weight at all
    assert got[0]["cell"] > 0.8 * got[0]["leaf"]  # among the plants it stays one of their words


def _objective(items, groups):
    """k-means's own objective: the summed length of each group's summed vectors."""
    import math

    total = 0.0
    for members in groups:
        summed = {}
        for i in members:
            for t, w in items[i].items():
                summed[t] = summed.get(t, 0.0) + w
        total += math.sqrt(sum(w * w for w in summed.values()))
    return total


@settings(max_examples=150, deadline=None)
@given(
    _item_lists,
    st.integers(min_value=2, max_value=6),
)
def test_partition_refines_kmeans_within_capacity(items, k):
    """The local search keeps every item once, every group within capacity and none empty, and the groups
    kept (the best of the runs) never fall below the objective k-means reached from the first seed."""
    import math

    from okf.compile.topics import balanced_kmeans

    groups = partition(items, k)
    assert sorted(i for g in groups for i in g) == list(range(len(items)))
    assert all(g == sorted(g) for g in groups)
    if len(items) > k:
        capacity = math.ceil(len(items) / k)
        assert all(0 < len(g) <= capacity for g in groups)
        assert len(groups) <= k
        before = balanced_kmeans(_Items(items), k, capacity)
        assert _objective(items, groups) >= _objective(items, before) - 1e-9


def _shape(tree, keys):
    """A topical tree with each document replaced by its content, each leaf group's contents sorted: what
    must not change when the same documents come in another order."""
    if all(isinstance(part, int) for part in tree):
        return sorted(keys[i] for i in tree)
    return [_shape(part, keys) if isinstance(part, list) else keys[part] for part in tree]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.dictionaries(_words, st.integers(min_value=1, max_value=40), min_size=1, max_size=11),
        min_size=5,
        max_size=40,
    ),
    st.randoms(use_true_random=False),
    st.integers(min_value=2, max_value=6),
)
def test_topical_tree_does_not_depend_on_document_order(terms_of, rnd, fanout):
    """The same documents in another order: the same vectors (to the bit) and the same groups (documents
    with equal vectors are alike to the grouping, so only which of them sits where may differ)."""
    from okf.compile.topics import topical_tree, vectors

    order = list(range(len(terms_of)))
    rnd.shuffle(order)
    shuffled = [terms_of[i] for i in order]
    first, second = vectors(terms_of), vectors(shuffled)
    assert [list(second[at].items()) for at in range(len(order))] == [list(first[i].items()) for i in order]
    keys = [tuple(sorted(v.items())) for v in first]
    tree = topical_tree(len(terms_of), first, fanout)
    again = topical_tree(len(shuffled), second, fanout)
    assert _shape(tree, keys) == _shape(again, [keys[i] for i in order])
