"""Recursive synthesis: an answer grounded in evidence larger than one prompt, with coverage guaranteed in code.

The method is the ``rlm`` skill's (docs/ask.md): the code holds the whole evidence and drives the recursion;
a model is only ever called on one focused slice.

1. **Load** every shortlisted item (:func:`okf.answer.evidence.load_evidence`, which asserts the load is
   complete: every delivered item held, or reported unreadable).
2. **Decompose**: a slice that fits the budget is a leaf; a larger one goes to a fresh decomposer call, whose
   groups are repaired in code to a valid partition (:mod:`okf.answer.partition`) and decomposed in parallel.
   At :data:`MAX_DEPTH` a slice is a forced leaf, read in budget-sized calls without asking again.
3. **Leaves**: a leaf worker extracts the question-relevant facts of its slice. Citations to ids outside the
   slice are dropped, and a fact left without one; the ids the worker accounted for (read, or cited) are
   handled. A failed call is retried once; then its items are not covered, never dropped silently.
4. **Coverage tail**: items no leaf accounted for are dispatched to leaves again before the answer.
5. **Fan-in** in code (:mod:`okf.answer.fanin`); while the facts are larger than the budget, leaf workers
   reduce them in budget-sized groups (at most :data:`MAX_REDUCE_ROUNDS` rounds).
6. **Answer** from the reduced facts (and any ``pinned`` items, such as a contract's grounded facts, which
   go to the answerer as they are), validated by :func:`okf.answer.validate.validate` like any answer. Items
   not covered make the answer partial and are named.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from okf.answer import fanin
from okf.answer.evidence import EvidenceItem, GatheredEvidence, estimate_tokens
from okf.answer.partition import even, pack, repair
from okf.answer.prose import one_line
from okf.answer.validate import Validated, validate
from okf.errors import OKFError
from okf.models import SynthesisNode, SynthesisReport, TraceEvent
from okf.navigator.trace import Progress
from okf.readers.base import DraftAnswer, Evidence, Reader, Usage
from okf.readers.synthesis import Fact, LeafExtract, Part, Split, Synthesizer
from okf.text.words import clip

MAX_DEPTH = 3
LEAF_ATTEMPTS = 2
MAX_REDUCE_ROUNDS = 3
NAMES_SHOWN = 8
NOTHING_READ = (
    "No leaf worker returned a valid reply, so nothing was read; the shortlisted concepts are listed for you to read."
)


@dataclass
class _Read:
    """One slice read by a leaf worker (with its retry), validated against the ids it was given."""

    facts: list[Fact] = field(default_factory=list)
    accounted: set[str] = field(default_factory=set)
    dropped: list[str] = field(default_factory=list)
    failed: bool = False
    error: str | None = None
    attempts: int = 0


@dataclass
class Outcome:
    """What the recursion hands back to the pipeline: the checked answer and everything to assemble it."""

    checked: Validated
    ledger: GatheredEvidence
    usage: dict[str, Usage]
    caveats: list[str]
    report: SynthesisReport


class Synthesis:
    """One run of recursive synthesis over ``loaded`` for ``question``."""

    def __init__(
        self,
        question: str,
        loaded: GatheredEvidence,
        reader: Reader,
        budget: int,
        *,
        pinned: Sequence[EvidenceItem] = (),
        progress: Progress | None = None,
        seq: int = 0,
        clock: float = 0.0,
    ) -> None:
        if not isinstance(reader, Synthesizer):
            raise TypeError("recursive synthesis needs a reader with decompose and extract_leaf")
        self.question = question
        self.loaded = loaded
        self.items: list[EvidenceItem] = loaded.items
        self.pinned = list(pinned)
        self.sizes = [estimate_tokens(item.evidence.text) for item in self.items]
        self.reader = reader
        self.roles: Synthesizer = cast(Synthesizer, reader)
        self.budget = budget
        self.progress = progress
        self.seq, self.clock, self.start = seq, clock, time.monotonic()
        self.handled: set[str] = set()
        self.failed: set[str] = set()
        self.placed: list[fanin.Placed] = []
        self.dropped: list[str] = []
        self.calls = {"decomposer": 0, "leaf": 0, "answerer": 0}
        self.usage = {"decomposer": Usage(), "leaf": Usage(), "answerer": Usage()}
        self.trace: list[TraceEvent] = []
        self.errors: list[str] = []

    # --- the trace ---

    def event(self, kind: str, **data: Any) -> None:
        t = round(self.clock + time.monotonic() - self.start, 6)
        event = TraceEvent(seq=self.seq + len(self.trace), t=t, kind=kind, data=data)
        self.trace.append(event)
        if self.progress is not None:
            self.progress(event)

    # --- decompose ---

    async def node(self, start: int, end: int, depth: int, ident: str) -> tuple[SynthesisNode, int]:
        """The subtree over items ``start..end-1`` and its chain: model calls one after another in it."""
        tokens = sum(self.sizes[start:end])
        if tokens <= self.budget:
            return await self.leaf(list(range(start, end)), depth, ident, "fits")
        if depth >= MAX_DEPTH:
            return await self.leaf(list(range(start, end)), depth, ident, "max depth")
        sizes = self.sizes[start:end]
        parts = [
            Part(index=i, id=item.evidence.id, title=item.evidence.title, path=item.entry.path, tokens=sizes[i])
            for i, item in enumerate(self.items[start:end])
        ]
        self.calls["decomposer"] += 1
        try:
            split = await self.roles.decompose(self.question, parts, self.budget)
        except OKFError as exc:
            split = Split(failed=True, error=f"{type(exc).__name__}: {exc}")
        self.usage["decomposer"] = self.usage["decomposer"] + split.usage
        if split.failed:
            groups = even(sizes, max(2, -(-tokens // self.budget)))
            error = clip(one_line(split.error or "no valid reply"), 200)
            repairs = [f"the decomposer failed ({error}): split by size into {len(groups)} groups"]
            decided = "size"
        else:
            groups, repairs = repair(split.groups, sizes, self.budget)
            decided = "repaired" if repairs else "decomposer"
        self.event(
            "decompose",
            node=ident,
            depth=depth,
            first=start + 1,
            last=end,
            items=end - start,
            tokens=tokens,
            decided_by=decided,
            groups=[[start + a + 1, start + b] for a, b in groups],
            sent=[list(g) for g in split.groups],
            repairs=repairs,
        )
        children = await asyncio.gather(
            *(self.node(start + a, start + b, depth + 1, f"{ident}.{k}") for k, (a, b) in enumerate(groups, start=1))
        )
        node = SynthesisNode(
            id=ident,
            depth=depth,
            kind="split",
            first=start + 1,
            last=end,
            items=end - start,
            tokens=tokens,
            decided_by=decided,
            repairs=repairs,
            children=[c for c, _ in children],
        )
        return node, 1 + max(chain for _, chain in children)

    # --- leaves ---

    async def read(self, evidence: Sequence[Evidence]) -> _Read:
        """One leaf call over ``evidence``, retried once on failure, its reply checked against its ids."""
        out = _Read()
        extract = LeafExtract(failed=True)
        for out.attempts in range(1, LEAF_ATTEMPTS + 1):
            self.calls["leaf"] += 1
            try:
                extract = await self.roles.extract_leaf(self.question, evidence)
            except OKFError as exc:
                extract = LeafExtract(failed=True, error=f"{type(exc).__name__}: {exc}")
            self.usage["leaf"] = self.usage["leaf"] + extract.usage
            if not extract.failed:
                break
        if extract.failed:
            out.failed, out.error = True, extract.error or "no valid reply"
            return out
        given = {e.id.casefold(): e.id for e in evidence}

        def known(ident: str) -> str | None:
            return given.get(ident.strip().strip("[]()").strip().casefold())

        for fact in extract.facts:
            cited = [c for c in dict.fromkeys(known(c) for c in fact.cited) if c is not None]
            out.dropped += [c for c in fact.cited if known(c) is None]
            text = one_line(fact.text)
            if text and cited:
                out.facts.append(Fact(text=text, cited=cited))
                out.accounted.update(cited)
        out.accounted.update(c for c in (known(i) for i in extract.checked) if c is not None)
        return out

    async def leaf(self, indices: list[int], depth: int, ident: str, decided: str) -> tuple[SynthesisNode, int]:
        """A leaf over ``indices``: read in budget-sized calls (one, unless forced), facts kept, ids handled."""
        groups = pack([self.sizes[i] for i in indices], self.budget)
        reads = await asyncio.gather(*(self.read([self.items[i].evidence for i in indices[a:b]]) for a, b in groups))
        ids = [self.items[i].evidence.id for i in indices]
        position = dict(zip(ids, indices))
        failed: list[str] = []
        facts = 0
        for (a, b), got in zip(groups, reads):
            if got.failed:
                failed += ids[a:b]
                self.errors.append(got.error or "no valid reply")
                continue
            for k, fact in enumerate(got.facts):
                first = min(position[c] for c in fact.cited)
                self.placed.append(fanin.Placed((first, indices[a], k), fact))
            facts += len(got.facts)
            self.handled.update(got.accounted)
            self.dropped += got.dropped
        self.failed.update(failed)
        missed = [i for i in ids if i not in self.handled and i not in failed]
        dropped = [d for got in reads for d in got.dropped]
        node = SynthesisNode(
            id=ident,
            depth=depth,
            kind="leaf",
            first=min(indices) + 1,
            last=max(indices) + 1,
            items=len(indices),
            tokens=sum(self.sizes[i] for i in indices),
            decided_by=decided,
            calls=sum(r.attempts for r in reads),
            facts=facts,
            evidence_ids=ids,
            missed=missed,
            failed=failed,
            dropped_citations=dropped,
            error=next((r.error for r in reads if r.failed), None),
        )
        self.event(
            "leaf",
            node=ident,
            depth=depth,
            first=node.first,
            last=node.last,
            items=node.items,
            tokens=node.tokens,
            decided_by=decided,
            evidence_ids=ids,
            calls=node.calls,
            facts=facts,
            missed=missed,
            failed=failed,
            dropped_citations=dropped,
            error=node.error,
        )
        return node, max(r.attempts for r in reads)

    # --- coverage, fan-in, answer ---

    async def tail(self) -> tuple[SynthesisNode | None, int, list[str]]:
        """The coverage tail: items no leaf accounted for (and none failed on) are read now, before the answer."""
        ids = [item.evidence.id for item in self.items]
        missed = [n for n, i in enumerate(ids) if i not in self.handled and i not in self.failed]
        self.event(
            "coverage",
            covered=len(self.handled),
            total=len(ids),
            failed=sorted(self.failed, key=ids.index),
            missed=[ids[n] for n in missed],
        )
        if not missed:
            return None, 0, []
        node, chain = await self.leaf(missed, 0, "t", "coverage tail")
        return node, chain, [ids[n] for n in missed if ids[n] in self.handled]

    async def reduce(self, facts: list[Fact]) -> tuple[list[Evidence], int, int, list[Evidence]]:
        """The facts as the answerer reads them, reduced by leaf workers while larger than the budget.

        Returns the evidence, reduce rounds, their chain of calls, and the items whose facts never fit.
        """
        evidence = fanin.by_item(self.items, facts)
        rounds = chain = 0
        while fanin.size(evidence) > self.budget and rounds < MAX_REDUCE_ROUNDS:
            rounds += 1
            before = fanin.size(evidence)
            groups = pack([estimate_tokens(e.text) for e in evidence], self.budget)
            reads = await asyncio.gather(*(self.read(evidence[a:b]) for a, b in groups))
            chain += max(r.attempts for r in reads)
            kept: list[fanin.Placed] = []
            order = {e.id: n for n, e in enumerate(evidence)}
            for (a, b), got in zip(groups, reads):
                accounted = set() if got.failed else got.accounted
                for k, fact in enumerate(got.facts):
                    kept.append(fanin.Placed((min(order[c] for c in fact.cited), a, k), fact))
                # What a worker failed on or did not account for keeps its facts: reducing never loses them.
                for e in evidence[a:b]:
                    if e.id not in accounted:
                        kept += [
                            fanin.Placed((order[e.id], b, k), Fact(text=line, cited=[e.id]))
                            for k, line in enumerate(e.text.split("\n"))
                        ]
            evidence = fanin.by_item(self.items, fanin.merge(kept))
            self.event(
                "reduce",
                round=rounds,
                tokens_before=before,
                tokens_after=fanin.size(evidence),
                groups=len(groups),
                failed=sum(r.failed for r in reads),
            )
            if fanin.size(evidence) >= before:
                break
        kept_items, left = fanin.fit(evidence, self.budget)
        return kept_items, rounds, chain, left

    async def run(self) -> Outcome:
        started = time.monotonic()
        n = len(self.items)
        tree, chain = await self.node(0, n, 0, "r") if n else (None, 0)
        tail, tail_chain, recovered = await self.tail()
        ids = [item.evidence.id for item in self.items]
        not_covered = [i for i in ids if i not in self.handled]
        facts = fanin.merge(self.placed)
        caveats: list[str] = []
        if self.dropped:
            shown = ", ".join(repr(clip(one_line(d), 40)) for d in list(dict.fromkeys(self.dropped))[:5])
            caveats.append(
                f"Leaf workers cited {len(self.dropped)} id(s) outside the slice they were given "
                f"({shown}); those citations were dropped, and facts left without one."
            )
        evidence, rounds, reduce_chain, left = await self.reduce(facts) if facts else ([], 0, 0, [])
        if left:
            caveats.append(
                f"The facts of {len(left)} evidence item(s) did not fit the answer prompt "
                f"({self.budget} tokens) after {rounds} reduce round(s) and were left out: "
                f"{', '.join(e.id for e in left[:NAMES_SHOWN])}{' ...' if len(left) > NAMES_SHOWN else ''}."
            )
        by_id = {item.evidence.id: item for item in self.items}
        evidence = [item.evidence for item in self.pinned] + evidence
        ledger = GatheredEvidence(
            items=self.pinned + [by_id[e.id] for e in evidence if e.id in by_id],
            unreadable=self.loaded.unreadable,
            evidence_tokens=self.budget,
        )
        checked = await self.answer(evidence, ledger)
        unread = [entry.path for entry, _ in self.loaded.unreadable]
        checked = cover(checked, [by_id[i] for i in not_covered], unread, n + len(unread), caveats)
        answered = self.calls["answerer"]
        leaves = _leaves(tree) + (_leaves(tail) if tail else [])
        report = SynthesisReport(
            requested="recursive",
            mode="recursive",
            why="",
            budget_tokens=self.budget,
            evidence_tokens=sum(self.sizes),
            items_total=n + len(unread),
            items_covered=n - len(not_covered),
            missed_then_covered=recovered,
            not_covered=not_covered + unread,
            depth=max((leaf.depth for leaf in _leaves(tree)), default=0),
            leaves=len(leaves),
            calls=dict(self.calls),
            facts=sum(len(e.text.split("\n")) for e in evidence if e.id in by_id),
            reduce_rounds=rounds,
            rounds=chain + tail_chain + reduce_chain + answered,
            seconds=round(time.monotonic() - started, 6),
            tree=tree,
            tail=tail,
            trace=self.trace,
        )
        usage = {role: u for role, u in self.usage.items() if self.calls[role]}
        return Outcome(checked, ledger, usage, caveats, report)

    async def answer(self, evidence: list[Evidence], ledger: GatheredEvidence) -> Validated:
        """The answerer over the reduced facts; no facts means no call (an abstention that says why)."""
        if not evidence:
            if self.items and not self.handled and self.failed:
                error = clip(one_line(self.errors[0] if self.errors else "no valid reply"), 300)
                return Validated(
                    status="abstained",
                    answer="",
                    failed=True,
                    reason=f"Every leaf worker failed: {error}",
                    caveats=[NOTHING_READ],
                )
            why = (
                f"The leaf workers read {len(self.handled)} of {len(self.items)} evidence items and found no "
                "fact that bears on the question."
                if self.items
                else "No evidence item could be read."
            )
            return Validated(status="abstained", answer="", reason=why)
        self.calls["answerer"] += 1
        started = time.monotonic()
        try:
            draft = await self.reader.answer(self.question, evidence)
        except OKFError as exc:
            draft = DraftAnswer(
                failed=True,
                error=f"{type(exc).__name__}: {exc}",
                usage=Usage(calls=1, failures=1, seconds=time.monotonic() - started),
            )
        self.usage["answerer"] = self.usage["answerer"] + draft.usage
        return validate(self.question, draft, ledger)


def _leaves(node: SynthesisNode | None) -> list[SynthesisNode]:
    if node is None:
        return []
    if node.kind == "leaf":
        return [node]
    return [leaf for child in node.children for leaf in _leaves(child)]


def cover(
    checked: Validated, missing: list[EvidenceItem], unread: list[str], total: int, caveats: list[str]
) -> Validated:
    """Items no worker read make an answer partial and are named; an abstention names them in a caveat."""
    names = [f'"{clip(one_line(item.evidence.title), 60)}" ({item.evidence.id})' for item in missing] + unread
    if not names:
        return checked
    shown = ", ".join(names[:NAMES_SHOWN]) + (
        f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else ""
    )
    what = (
        f"{len(names)} of {total} evidence items were not read (a leaf worker failed on them or skipped "
        f"them twice, or they could not be loaded): {shown}"
    )
    caveats.append(f"{what}.")
    if checked.status == "abstained":
        return checked
    line = f"Not established by the evidence: what {len(names)} unread evidence item(s) say ({shown})."
    reason = f"{checked.reason} {line}" if checked.reason else line
    return Validated(
        status="partial",
        answer=f"{checked.answer}\n{line}",
        reason=reason,
        cited=checked.cited,
        caveats=checked.caveats,
        failed=checked.failed,
    )


async def synthesize(
    question: str,
    loaded: GatheredEvidence,
    reader: Reader,
    budget: int,
    *,
    pinned: Sequence[EvidenceItem] = (),
    progress: Progress | None = None,
    seq: int = 0,
    clock: float = 0.0,
) -> Outcome:
    """Recursive synthesis over ``loaded``: see the module docstring."""
    return await Synthesis(
        question, loaded, reader, budget, pinned=pinned, progress=progress, seq=seq, clock=clock
    ).run()


__all__ = ["LEAF_ATTEMPTS", "MAX_DEPTH", "MAX_REDUCE_ROUNDS", "Outcome", "Synthesis", "cover", "synthesize"]
