"""A scripted in-process reader for tests of navigation and answering: no model, no network.

Each role is given as a fixed reply or a callable (plain or async) receiving ``(question, items)``. Replies
may be the reader models themselves or plain shorthands:

- select: ``Selection`` | iterable of offer indices (``int``) or signpost paths (``str``), each possibly
  paired with a grade: ``(path, "weak")``
- judge: ``Judgement`` | list of ``Verdict`` | list of ``bool | grade | None`` (in document order)
  | dict ``{document id: bool | grade | None}`` (documents not named are not relevant); a grade is
  ``"relevant"``, ``"partial"`` or ``"no"``
- answer: ``DraftAnswer`` | ``str`` (the answer text, citing every evidence id)
- decompose (recursive synthesis): ``Split`` | list of ``(first, last)`` pairs, taken as sent (the code
  repairs them)
- leaf (recursive synthesis): ``LeafExtract`` | list of ``Fact`` | dict ``{evidence id: fact text}`` (each
  fact cites its id; every item given counts as read)

A role left as ``None`` is decided by :class:`~okf.readers.offline.OfflineReader`. ``None`` as a verdict
means a failed judgment. Calls are counted per role, concurrency is tracked, and ``latency`` (seconds, one
number or per role) is simulated with ``asyncio.sleep``. ``concurrency`` bounds the calls in flight as a
model client's connection limit does (the others wait for a slot) and is exposed as the reader's
``concurrency``, as :class:`~okf.readers.llm.LLMReader` exposes its own.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Self

from okf.readers.base import (
    Choice,
    Document,
    DraftAnswer,
    Evidence,
    Judgement,
    Selection,
    SignpostOffer,
    Usage,
    Verdict,
)
from okf.readers.offline import OfflineReader
from okf.readers.synthesis import Fact, LeafExtract, Part, Split

Script = Any  # a fixed reply or a callable (question, items) -> reply, possibly async


class ScriptedReader:
    """A reader whose select/judge/answer replies are scripted by the test."""

    def __init__(
        self,
        *,
        select: Script = None,
        judge: Script = None,
        answer: Script = None,
        decompose: Script = None,
        leaf: Script = None,
        name: str = "scripted",
        latency: float | Mapping[str, float] = 0.0,
        tokens_per_call: int = 0,
        concurrency: int | None = None,
    ) -> None:
        self._scripts = {"select": select, "judge": judge, "answer": answer, "decompose": decompose, "leaf": leaf}
        self._name = name
        self._latency = latency
        self._tokens = tokens_per_call
        self._offline = OfflineReader()
        self.calls: dict[str, int] = dict.fromkeys(self._scripts, 0)
        self.requests: list[tuple[str, str, list[Any]]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.closed = 0
        self.concurrency = concurrency
        self._slots: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None  # per event loop

    @property
    def name(self) -> str:
        return self._name

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Counts the close (``closed``); a scripted reader holds no connections."""
        self.closed += 1

    @property
    def total_calls(self) -> int:
        """Calls made to any role so far."""
        return sum(self.calls.values())

    async def _reply(self, role: str, question: str, items: Sequence[Any]) -> Any:
        if not self.concurrency:
            return await self._send(role, question, items)
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots[0] is not loop:
            self._slots = (loop, asyncio.Semaphore(self.concurrency))
        async with self._slots[1]:
            return await self._send(role, question, items)

    async def _send(self, role: str, question: str, items: Sequence[Any]) -> Any:
        self.calls[role] += 1
        self.requests.append((role, question, list(items)))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            delay = self._latency.get(role, 0.0) if isinstance(self._latency, Mapping) else self._latency
            if delay:
                await asyncio.sleep(delay)
            script = self._scripts[role]
            if callable(script):
                reply = script(question, items)
                return await reply if inspect.isawaitable(reply) else reply
            return script
        finally:
            self.in_flight -= 1

    def _usage(self) -> Usage:
        return Usage(calls=1, prompt_tokens=self._tokens)

    async def select(self, question: str, signposts: Sequence[SignpostOffer]) -> Selection:
        """The scripted selection (offline decisions when unscripted)."""
        reply = await self._reply("select", question, signposts)
        if reply is None and self._scripts["select"] is None:
            reply = await self._offline.select(question, signposts)
        if isinstance(reply, Selection):
            return reply.model_copy(update={"usage": self._usage()})
        by_path = {s.path: s.index for s in signposts}
        choices: list[Choice] = []
        for item in _iterable(reply, "select"):
            grade = "strong"
            if isinstance(item, tuple):  # (path or index, "strong" | "weak")
                item, grade = item
            index = by_path[item] if isinstance(item, str) else int(item)
            if index not in {c.index for c in choices}:
                choices.append(Choice.model_validate({"index": index, "reason": "scripted", "grade": grade}))
        return Selection(choices=choices, usage=self._usage())

    async def judge(self, question: str, documents: Sequence[Document]) -> Judgement:
        """The scripted verdicts (offline decisions when unscripted)."""
        reply = await self._reply("judge", question, documents)
        if reply is None and self._scripts["judge"] is None:
            reply = await self._offline.judge(question, documents)
        if isinstance(reply, Judgement):
            return reply.model_copy(update={"usage": self._usage()})
        if isinstance(reply, Mapping):
            reply = [reply.get(d.id, False) for d in documents]
        verdicts = [
            v if isinstance(v, Verdict) else _verdict(d, v)
            for d, v in zip(documents, _iterable(reply, "judge"), strict=True)
        ]
        return Judgement(verdicts=verdicts, usage=self._usage())

    async def answer(self, question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        """The scripted draft answer (offline when unscripted)."""
        reply = await self._reply("answer", question, evidence)
        if reply is None and self._scripts["answer"] is None:
            reply = await self._offline.answer(question, evidence)
        if isinstance(reply, str):
            reply = DraftAnswer(text=reply, cited=[e.id for e in evidence])
        if not isinstance(reply, DraftAnswer):
            raise TypeError(f"scripted answer must be a DraftAnswer or str, got {type(reply).__name__}")
        return reply.model_copy(update={"usage": self._usage()})

    async def decompose(self, question: str, parts: Sequence[Part], budget_tokens: int) -> Split:
        """The scripted split, as sent (offline when unscripted)."""
        reply = await self._reply("decompose", question, parts)
        if reply is None and self._scripts["decompose"] is None:
            reply = await self._offline.decompose(question, parts, budget_tokens)
        if not isinstance(reply, Split):
            reply = Split(groups=[(int(a), int(b)) for a, b in _iterable(reply, "decompose")])
        return reply.model_copy(update={"usage": self._usage()})

    async def extract_leaf(self, question: str, evidence: Sequence[Evidence]) -> LeafExtract:
        """The scripted facts (offline when unscripted)."""
        reply = await self._reply("leaf", question, evidence)
        if reply is None and self._scripts["leaf"] is None:
            reply = await self._offline.extract_leaf(question, evidence)
        if isinstance(reply, Mapping):
            reply = [Fact(text=str(text), cited=[ident]) for ident, text in reply.items()]
        if not isinstance(reply, LeafExtract):
            reply = LeafExtract(facts=list(_iterable(reply, "leaf")), checked=[e.id for e in evidence])
        return reply.model_copy(update={"usage": self._usage()})


def _verdict(document: Document, relevant: bool | str | None) -> Verdict:
    if relevant is None:
        return Verdict(id=document.id, relevant=None, failed=True, error="scripted failure")
    if isinstance(relevant, str):  # a grade: "relevant", "partial" or "no"
        return Verdict.model_validate(
            {"id": document.id, "relevant": relevant != "no", "grade": relevant, "reason": "scripted"}
        )
    return Verdict(id=document.id, relevant=bool(relevant), reason="scripted")


def _iterable(reply: Any, role: str) -> Iterable[Any]:
    if isinstance(reply, (str, bytes)) or not isinstance(reply, Iterable):
        raise TypeError(f"scripted {role} reply must be a list, got {type(reply).__name__}")
    return reply


__all__ = ["ScriptedReader"]
