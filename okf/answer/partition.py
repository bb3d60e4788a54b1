"""Cuts of a slice into contiguous groups: a decomposer's reply repaired to a valid partition, and packing.

A partition of ``n`` items is a list of half-open ``(start, end)`` ranges, in order, that covers every index
``0..n-1`` exactly once with no empty range: none lost, none duplicated. :func:`repair` turns any decomposer
reply into one and says what it changed; :func:`problems` is the check, run again on every result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

from okf.readers.synthesis import MAX_GROUPS

Range = tuple[int, int]  # half-open: items start..end-1


def problems(groups: Sequence[Range], n: int) -> list[str]:
    """What keeps ``groups`` from being a partition of ``n`` items in order (empty: it is one)."""
    found: list[str] = []
    expected = 0
    for start, end in groups:
        if end <= start:
            found.append(f"empty group at index {start}")
        elif start > expected:
            found.append(f"indices {expected}-{start - 1} are in no group")
        elif start < expected:
            found.append(f"indices {start}-{min(end, expected) - 1} are in two groups")
        expected = max(expected, end)
    if expected < n:
        found.append(f"indices {expected}-{n - 1} are in no group")
    if any(start < 0 or end > n for start, end in groups):
        found.append(f"a group reaches outside indices 0-{n - 1}")
    return found


def _runs(indices: Sequence[int]) -> str:
    """``[3, 4, 5, 9]`` as ``3-5, 9``."""
    out: list[str] = []
    for i in indices:
        if out and int(out[-1].rpartition("-")[2]) == i - 1:
            out[-1] = f"{out[-1].partition('-')[0]}-{i}"
        else:
            out.append(str(i))
    return ", ".join(out)


def even(sizes: Sequence[int], k: int) -> list[Range]:
    """``k`` contiguous groups (fewer when there are fewer items) of about equal total size."""
    n = len(sizes)
    k = max(1, min(k, n))
    total = sum(sizes)
    running = [0]
    for size in sizes:
        running.append(running[-1] + size)
    cuts = sorted({min(range(1, n), key=lambda i: (abs(running[i] - total * j / k), i)) for j in range(1, k)})
    bounds = [0, *cuts, n]
    return [(a, b) for a, b in pairwise(bounds) if b > a]


def pack(sizes: Sequence[int], budget: int) -> list[Range]:
    """Contiguous groups in order, each within ``budget`` (an item larger than it stands alone)."""
    out: list[Range] = []
    start, used = 0, 0
    for i, size in enumerate(sizes):
        if i > start and used + size > budget:
            out.append((start, i))
            start, used = i, 0
        used += size
    if start < len(sizes):
        out.append((start, len(sizes)))
    return out


def repair(groups: Sequence[tuple[int, int]], sizes: Sequence[int], budget: int) -> tuple[list[Range], list[str]]:
    """A valid partition from a decomposer's inclusive ``(first, last)`` groups, and what was repaired.

    Every boundary the reply states is kept: the start of each group and the end of each group become cuts.
    So an overlap becomes a group of its own, a gap becomes a group of its own, a group reaching past the
    slice is clipped, and an empty group (first after last) is ignored. A reply that splits nothing is split
    by size into as many groups as the budget needs; more than MAX_GROUPS groups are merged, the smallest
    adjacent pair first. The result is checked with :func:`problems`.
    """
    n = len(sizes)
    notes: list[str] = []
    claimed = [0] * n
    cuts: set[int] = set()
    for first, last in groups:
        if first > last:
            notes.append(f"group [{first}, {last}] is empty (first after last): ignored")
            continue
        if last < 0 or first >= n:
            notes.append(f"group [{first}, {last}] lies outside indices 0-{n - 1}: ignored")
            continue
        if first < 0 or last >= n:
            notes.append(f"group [{first}, {last}] reaches outside indices 0-{n - 1}: clipped")
            first, last = max(first, 0), min(last, n - 1)
        for i in range(first, last + 1):
            claimed[i] += 1
        cuts.update(c for c in (first, last + 1) if 0 < c < n)
    twice = [i for i, c in enumerate(claimed) if c > 1]
    if twice:
        notes.append(
            f"indices {_runs(twice)} were in two or more groups: each kept once, overlaps made groups of their own"
        )
    lost = [i for i, c in enumerate(claimed) if c == 0]
    if lost:
        notes.append(f"indices {_runs(lost)} were in no group: made groups of their own")
    bounds = [0, *sorted(cuts), n]
    out = [(a, b) for a, b in pairwise(bounds) if b > a]
    if len(out) < 2 and n > 1:
        k = max(2, math.ceil(sum(sizes) / max(budget, 1)))
        out = even(sizes, min(k, MAX_GROUPS))
        notes.append(f"the reply split nothing: split by size into {len(out)} groups")
    if len(out) > MAX_GROUPS:
        before = len(out)
        while len(out) > MAX_GROUPS:
            weights = [sum(sizes[a:b]) for a, b in out]
            i = min(range(len(out) - 1), key=lambda j: (weights[j] + weights[j + 1], j))
            out[i : i + 2] = [(out[i][0], out[i + 1][1])]
        notes.append(f"{before} groups are more than {MAX_GROUPS}: adjacent small groups merged")
    left = problems(out, n)
    if left:  # cannot happen: every step above keeps a partition; refuse to go on over a broken one
        raise RuntimeError(f"okf bug: repaired cuts are not a partition: {'; '.join(left)}")
    return out, notes


__all__ = ["Range", "even", "pack", "problems", "repair"]
