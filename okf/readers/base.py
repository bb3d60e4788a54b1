"""The reader protocol: the one seam between okf and any model.

Navigation and answering talk only to a :class:`Reader`. It has three async operations:

- ``select(question, signposts)``: which of the offered signposts are worth opening (indices into the offer).
- ``judge(question, documents)``: one verdict per document, in order.
- ``answer(question, evidence)``: a draft answer citing evidence ids.

Requirement extraction and compliance judgment are separate role protocols that readers also implement
(:mod:`okf.readers.extraction`, :mod:`okf.readers.assessment`); this protocol stays the navigator's seam.

Every result carries the :class:`Usage` it cost. A reader never raises for a model failure: a failed
selection or verdict is returned with ``failed=True`` and the error text, so callers record it as a failure
and never mistake it for "not relevant". Readers may raise ``DeadlineExceeded`` only when their overall
deadline, or the caller's (:func:`deadline`), has passed.

Readers are async context managers: leaving ``async with reader:`` (or ``await reader.aclose()``) closes the
connections they opened in the running event loop; a reader stays usable afterwards (it opens new ones).
:func:`aclose` closes any reader, including ones without ``aclose``.

A reader that bounds the calls it sends at once may say so with an ``int`` attribute ``concurrency``: the
walk then admits a call against its ``max_calls`` and ``max_tokens`` budgets only when a slot is free, so a
call waiting for a slot is never counted as spent (:class:`~okf.readers.llm.LLMReader` has one).

A reader whose ``orders_concepts`` attribute is true is also offered the concept entries of each opened
directory's listing (``SignpostOffer.is_dir`` false, one more selector call): the concepts it chooses are read
first, in the order of their grades, and the others after them; every concept of an opened directory stays
a candidate (:class:`~okf.readers.offline.OfflineReader` does; a model reader spends no call on it).

A reader whose ``reads_on`` attribute is true has a selector that only matches words, so what it passes over
is not ruled out: a walk that has read everything it chose and found nothing relevant then opens the
directories it passed over (those of surer listings first) until a budget ends it
(:class:`~okf.readers.offline.OfflineReader` does; a model reader's passes are final, and no call is spent
on what it ruled out).

A reader whose ``coalesce`` attribute is false has calls that cost no round trip: the walk never holds a
partial judge batch for a coalescing window (a share of the calls' measured time, docs/navigate.md), and
reads the bundle's corpus id in line rather than in a thread beside the calls (there are none to overlap),
so what a walk reads within its budget, and when it ends, do not depend on how fast the machine ran
(:class:`~okf.readers.offline.OfflineReader` says so; a model reader shares calls).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Iterator, Sequence
from contextvars import ContextVar
from typing import Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, Field

# The roles a model plays: the three of the Reader protocol, the two of recursive synthesis
# (okf.readers.synthesis), which read with the answerer's profile, the extractor and assessor of
# requirements and compliance (okf.readers.extraction, okf.readers.assessment), which have their own, the
# describer that writes a compiled bundle's signposts (okf.readers.describing), and the planner of
# orchestration (okf.readers.planning), which reads with the selector's profile.
Role = Literal["selector", "judge", "answerer", "decomposer", "leaf", "extractor", "assessor", "describer", "planner"]


class Usage(BaseModel):
    """What a call (or a sum of calls) cost."""

    calls: int = 0
    retries: int = 0
    failures: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(**{k: getattr(self, k) + getattr(other, k) for k in _USAGE_FIELDS})


# The fields a sum of usages adds, named once (the class's field table is looked up through pydantic's
# machinery on every access; walks add usages after every call).
_USAGE_FIELDS = tuple(Usage.model_fields)


class SignpostOffer(BaseModel):
    """A signpost as offered to the selector; ``index`` is its position in the offer."""

    index: int
    path: str
    title: str
    description: str = ""
    is_dir: bool = True


class Choice(BaseModel):
    """One kept signpost with the selector's short reason.

    ``grade`` says how sure the selector is: ``strong`` (it says what the question asks about), ``weak``
    (it may hold it) or ``faint`` (it says little of the question, but something). The walk reads what
    strong choices hold before what weak ones hold, and what faint ones hold last (``DOUBT``).
    """

    index: int
    reason: str = ""
    grade: Literal["strong", "weak", "faint"] = "strong"


# What a choice of each grade adds to the doubt on the way to a directory: the walk opens directories with
# less doubt on the way first.
DOUBT = {"strong": 0, "weak": 1, "faint": 2}


class Selection(BaseModel):
    """The selector's reply: kept indices (validated: offered, in range, de-duplicated)."""

    choices: list[Choice] = Field(default_factory=list)
    failed: bool = False
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


class Document(BaseModel):
    """A concept body offered to the judge. ``sha256`` is of ``text`` as offered (the cache key)."""

    id: str
    title: str
    text: str
    sha256: str
    headings: list[str] = Field(default_factory=list)


Grade = Literal["relevant", "partial", "no"]


class Verdict(BaseModel):
    """The judge's decision on one document. ``relevant`` is None when the judgment failed.

    ``grade`` says how strongly: ``relevant`` (it states what was asked), ``partial`` (it bears on the
    question but does not state the answer), ``no``. A reader that gives no grade is read as ``relevant``
    when ``relevant`` is true and ``no`` otherwise.
    """

    id: str
    relevant: bool | None
    grade: Grade | None = None
    reason: str = ""
    failed: bool = False
    error: str | None = None
    cached: bool = False
    answers: list[int] = Field(
        default_factory=list,
        description="judge_angles only: the indices of the angles "
        "this document states the answer to (okf.readers.planning).",
    )
    bears: list[int] = Field(
        default_factory=list,
        description="judge_angles only: the indices of the angles this document bears on, relevant or partial "
        "(empty: the reader does not say which).",
    )


class Judgement(BaseModel):
    """One verdict per document, in the order the documents were given."""

    verdicts: list[Verdict]
    usage: Usage = Field(default_factory=Usage)


class Evidence(BaseModel):
    """One item of evidence offered to the answerer."""

    id: str
    title: str
    text: str
    truncated: bool = False
    status: str = "stable"
    stale: bool = False


class DraftAnswer(BaseModel):
    """The answerer's reply before validation in code.

    ``cited`` are evidence ids the model claims support the answer; ``missing`` says what the evidence does
    not establish when ``partial`` is true. ``failed`` is set when no valid reply could be had.
    """

    text: str = ""
    cited: list[str] = Field(default_factory=list)
    partial: bool = False
    missing: str = ""
    failed: bool = False
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


@runtime_checkable
class Reader(Protocol):
    """Anything that can select signposts, judge documents and draft answers."""

    @property
    def name(self) -> str:
        """Names the reader in every output, e.g. ``offline`` or ``openai:gpt-4o-mini@http://...``."""
        ...

    async def select(self, question: str, signposts: Sequence[SignpostOffer]) -> Selection: ...

    async def judge(self, question: str, documents: Sequence[Document]) -> Judgement: ...

    async def answer(self, question: str, evidence: Sequence[Evidence]) -> DraftAnswer: ...


_DEADLINE: ContextVar[float | None] = ContextVar("okf_reader_deadline", default=None)


@contextlib.contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Model calls made inside the block (and in tasks started inside it) must end within ``seconds``.

    A reader that honours it ends a call still running then with ``DeadlineExceeded`` naming what it was
    waiting for; an earlier deadline already in force is kept.
    """
    at = None if seconds is None else time.monotonic() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set(at if outer is None or (at is not None and at < outer) else outer)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def time_left() -> float | None:
    """Seconds until the caller's :func:`deadline` (negative once passed); None when there is none."""
    at = _DEADLINE.get()
    return None if at is None else at - time.monotonic()


T = TypeVar("T")


async def aclose(reader: object) -> None:
    """Close ``reader``'s connections in the running event loop, if it has any to close."""
    close = getattr(reader, "aclose", None)
    if close is not None:
        await close()


async def closing(reader: object, work: Awaitable[T]) -> T:
    """Await ``work``, then close what ``reader`` opened in this event loop (a sync call's loop ends with it)."""
    try:
        return await work
    finally:
        if reader is not None:
            await aclose(reader)
