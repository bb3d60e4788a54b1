"""The fan-in of recursive synthesis, in code: leaf facts merged, grouped by evidence item, fitted to a prompt.

Facts arrive from leaf workers in any order; :func:`merge` puts them in evidence order and merges facts
that say the same thing (their citations united). :func:`by_item` turns them into what the answerer reads:
one :class:`~okf.readers.base.Evidence` per cited item, its id and title unchanged, its text the facts that
cite it, one per line. So the answerer cites the same evidence ids the leaves cited, which are ids the
leaves were given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from okf.answer.evidence import EvidenceItem, estimate_tokens
from okf.readers.base import Evidence
from okf.readers.synthesis import Fact


@dataclass(frozen=True)
class Placed:
    """A fact with where it came from: the position of its first cited item, then the leaf's order."""

    key: tuple[int, int, int]
    fact: Fact


def merge(placed: Sequence[Placed]) -> list[Fact]:
    """Facts in evidence order; the same fact (case and spacing aside) once, with every citation it had."""
    merged: dict[str, Fact] = {}
    for entry in sorted(placed, key=lambda p: p.key):
        norm = " ".join(entry.fact.text.casefold().split())
        if norm in merged:
            known = merged[norm]
            known.cited = list(dict.fromkeys([*known.cited, *entry.fact.cited]))
        else:
            merged[norm] = Fact(text=entry.fact.text, cited=list(entry.fact.cited))
    return list(merged.values())


def by_item(items: Sequence[EvidenceItem], facts: Sequence[Fact]) -> list[Evidence]:
    """One evidence item per item some fact cites, in evidence order, its text the facts citing it."""
    lines: dict[str, list[str]] = {}
    for fact in facts:
        for ident in fact.cited:
            lines.setdefault(ident, []).append(fact.text)
    return [
        Evidence(
            id=item.evidence.id,
            title=item.evidence.title,
            text="\n".join(lines[item.evidence.id]),
            truncated=item.evidence.truncated,
            status=item.evidence.status,
            stale=item.evidence.stale,
        )
        for item in items
        if item.evidence.id in lines
    ]


def size(evidence: Sequence[Evidence]) -> int:
    """Tokens of evidence text, estimated as everywhere in okf (characters / 4)."""
    return sum(estimate_tokens(e.text) for e in evidence)


def fit(evidence: Sequence[Evidence], budget: int) -> tuple[list[Evidence], list[Evidence]]:
    """The items that fit ``budget`` in order, and the ones left out (never cut inside an item's facts)."""
    kept: list[Evidence] = []
    left: list[Evidence] = []
    used = 0
    for item in evidence:
        tokens = estimate_tokens(item.text)
        if not left and used + tokens <= budget:
            kept.append(item)
            used += tokens
        else:
            left.append(item)
    return kept, left


__all__ = ["Placed", "by_item", "fit", "merge", "size"]
