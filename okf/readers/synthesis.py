"""The synthesis roles: a decomposer that splits a slice of evidence, a leaf worker that extracts facts from one.

Recursive synthesis (:mod:`okf.answer.synthesis`) reads evidence too large for one answer prompt by slices. Two
roles serve it, kept apart from the core :class:`~okf.readers.base.Reader` protocol (select, judge, answer):

- ``decompose(question, parts, budget_tokens)``: how to split a slice into groups of contiguous items. The
  decomposer sees each item's position, id, title, path and size, never its text. Its reply is taken as
  given (:class:`Split`); the code repairs it to a valid partition.
- ``extract_leaf(question, evidence)``: the question-relevant facts of one slice, each citing the ids of the
  items it is stated in, and the ids of the items the worker read (:class:`LeafExtract`). The code drops
  citations outside the slice and re-dispatches items the worker did not account for.

Both return ``failed=True`` with the error instead of raising for a model failure, like the core roles.
This module also holds the offline reader's deterministic decisions for both roles.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from okf.readers.base import Evidence, Usage
from okf.readers.matching import Field as TextField
from okf.readers.matching import Question, read_body

# Groups one decomposer reply may make (more are merged by the code). The offline decomposer makes as many
# as it takes to fill each to OFFLINE_FILL of the budget (so a nudged cut rarely overflows one), at most
# MAX_GROUPS: a slice of up to about 6 budgets becomes leaves at once, a larger one descends a level more.
MAX_GROUPS = 8
OFFLINE_FILL = 0.8
# Offline leaf: sentences quoted per item; a sentence needs, with its title, this share of the question's
# words, and a verb's room.
FACTS_PER_ITEM = 2
FACT_SHARE = 0.5
MIN_FACT_WORDS = 4


class Part(BaseModel):
    """An evidence item as offered to the decomposer: position in the slice, id, title, path and size."""

    index: int
    id: str
    title: str
    path: str = ""
    tokens: int


class Split(BaseModel):
    """The decomposer's reply: groups as (first, last) item positions, inclusive, exactly as it sent them."""

    groups: list[tuple[int, int]] = Field(default_factory=list)
    failed: bool = False
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


class Fact(BaseModel):
    """One question-relevant fact a leaf worker extracted, with the evidence ids it says state it."""

    text: str
    cited: list[str] = Field(default_factory=list)


class LeafExtract(BaseModel):
    """A leaf worker's reply: facts, and the ids of the items it read (relevant or not)."""

    facts: list[Fact] = Field(default_factory=list)
    checked: list[str] = Field(default_factory=list)
    failed: bool = False
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


@runtime_checkable
class Synthesizer(Protocol):
    """A reader that can serve recursive synthesis: split slices and extract facts from them."""

    async def decompose(self, question: str, parts: Sequence[Part], budget_tokens: int) -> Split: ...

    async def extract_leaf(self, question: str, evidence: Sequence[Evidence]) -> LeafExtract: ...


# --- the offline reader's decisions ---------------------------------------------------------------------


def _folder(part: Part) -> str:
    return part.path.rpartition("/")[0]


def split_offline(parts: Sequence[Part], budget_tokens: int) -> list[tuple[int, int]]:
    """Contiguous groups of about equal size, as many as the budget needs (2 to MAX_GROUPS).

    Each cut goes where the running size is nearest an equal share, moved to a nearby place where the
    folder changes (one document's sections stay together) when there is one within a quarter group.
    """
    n = len(parts)
    if n < 2:
        return [(0, n - 1)] if n else []
    total = sum(p.tokens for p in parts)
    k = min(MAX_GROUPS, n, max(2, math.ceil(total / max(OFFLINE_FILL * budget_tokens, 1))))
    running = [0]
    for p in parts:
        running.append(running[-1] + p.tokens)
    window = max(1, n // (4 * k))
    cuts: list[int] = []
    for j in range(1, k):
        target = total * j / k
        after = cuts[-1] + 1 if cuts else 1  # cuts stay in order and distinct: k cuts make k groups
        if after > n - 1:
            break
        ideal = min(range(after, n), key=lambda i: (abs(running[i] - target), i))
        near = [
            i
            for i in range(max(after, ideal - window), min(n - 1, ideal + window) + 1)
            if _folder(parts[i - 1]) != _folder(parts[i])
        ]
        cuts.append(min(near, key=lambda i: (abs(running[i] - target), i)) if near else ideal)
    bounds = [0, *sorted(set(cuts)), n]
    return [(a, b - 1) for a, b in pairwise(bounds) if b > a]


def extract_offline(question: str, evidence: Sequence[Evidence]) -> LeafExtract:
    """Per item, the sentences carrying most of the question's words (up to FACTS_PER_ITEM), each citing it.

    Deterministic: the offline reader's stand-in for a leaf worker. Every item given is read (``checked``).
    """
    parsed = Question.parse(question)
    facts: list[Fact] = []
    for item in evidence:
        title = TextField.of(item.title)
        topic = [u for u in parsed.units if not title.has_unit(u)] or list(parsed.units)
        if not topic:
            continue
        body = read_body(item.text)
        places = {u.key: body.sentences_with(u) for u in topic}
        # With the title's words counted as said, a fact covers half the question's words.
        need = max(1, math.ceil(len(parsed.units) * FACT_SHARE) - (len(parsed.units) - len(topic)))
        scored = [(n, s, frozenset(u.key for u in topic if n in places[u.key])) for n, s in enumerate(body.sentences)]
        scored = [x for x in scored if len(x[2]) >= need and len(x[1].split()) >= MIN_FACT_WORDS]
        scored.sort(key=lambda x: (-len(x[2]), x[0]))
        picked: list[tuple[int, str, frozenset[str]]] = scored[:1]
        for entry in scored[1:]:
            if len(picked) < FACTS_PER_ITEM and entry[2] - picked[0][2]:
                picked.append(entry)
        picked.sort(key=lambda x: x[0])  # in the item's own order
        facts.extend(Fact(text=" ".join(s.split()), cited=[item.id]) for _, s, _ in picked)
    return LeafExtract(facts=facts, checked=[e.id for e in evidence])


__all__ = ["MAX_GROUPS", "Fact", "LeafExtract", "Part", "Split", "Synthesizer", "extract_offline", "split_offline"]
