"""What every walk of an orchestration sees: one reading of each listing and one judgment of each body for
all the angles walking, so that many angles cost about what one walk costs in words read.

- **Selections.** The walks of a round open the same listings (each angle from the root). The first walk to
  offer a listing asks the selector once for every angle of the round (``select_angles``); the others wait
  for that reply and take their own angle's choices. A listing is read once per round.
- **Judgments.** Walks of one round share a visited set (okf.navigator.walk.Shared): each body is offered to
  the judge by one walk, whichever reached it first. So that the verdict does not depend on which, the body
  is judged for *every* angle made so far in one call (``judge_angles``), and the angles it states the answer
  to are kept here, per bundle and body sha256: the orchestration's one judgment cache. A body reached again
  in a later round is judged again there (new angles were made meanwhile, never asked of it). The walk that
  sent it sees the verdict under its own angle: a body relevant to other angles only is partial to it (kept
  as evidence for them, but it neither widens that walk's frontier nor fills its shortlist), so the walk of
  the question goes on as a lone walk would. The angles a body bears on (relevant or partial), when the
  reader says, order the partial evidence of the merged shortlist (okf.orchestrate.result).

A reader without ``select_angles`` / ``judge_angles`` (okf.readers.planning) selects per walk and judges a
body for the angle of the walk that reached it, crediting that angle only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from okf.models import AngleRecord
from okf.navigator.walk import paid_words
from okf.readers.base import (
    Document,
    DraftAnswer,
    Evidence,
    Judgement,
    Reader,
    Selection,
    SignpostOffer,
    Usage,
    Verdict,
)
from okf.readers.planning import AngleJudge, AngleSelection, AngleSelector

_RANK = {"relevant": 2, "partial": 1, "no": 0}


@dataclass
class Judged:
    """What is known of one body: its best grade and reason, and the angles it answers or was judged for."""

    grade: str = "no"
    reason: str = ""
    answers: set[str] = field(default_factory=set)
    judged_for: set[str] = field(default_factory=set)
    bears: set[str] = field(default_factory=set)  # the angles it bears on (relevant or partial)


class Judgments:
    """The orchestration's shared reading: judgments per (bundle root, body sha256), the angles made so far,
    the round's walking angles and its shared listing reads, and the words the selector really read."""

    def __init__(self, question: str) -> None:
        self.question = question
        self.angles: list[AngleRecord] = []  # every angle made so far, in order (the judge sees them all)
        self.walking: list[AngleRecord] = []  # the angles walking this round (the selector reads for them)
        self.by_body: dict[tuple[str, str], Judged] = {}
        self.selections: dict[
            tuple[str, tuple[str, ...], tuple[str, ...]], asyncio.Future[AngleSelection | _Apart]
        ] = {}
        self.words_signposts = 0
        self.signposts_offered = 0

    def new_round(self, walking: list[AngleRecord]) -> None:
        self.walking = walking
        self.selections = {}

    def record(
        self,
        bundle: str,
        sha256: str,
        grade: str,
        reason: str,
        answers: Sequence[str],
        judged_for: Sequence[str],
        bears: Sequence[str] = (),
    ) -> None:
        known = self.by_body.setdefault((bundle, sha256), Judged())
        if _RANK.get(grade, 0) > _RANK.get(known.grade, 0):
            known.grade, known.reason = grade, reason
        known.answers.update(answers)
        known.judged_for.update(judged_for)
        known.bears.update(bears)
        known.bears.update(answers)

    def answers_of(self, bundle: str, sha256: str) -> set[str]:
        known = self.by_body.get((bundle, sha256))
        return set(known.answers) if known else set()

    def bears_of(self, bundle: str, sha256: str) -> set[str]:
        """The angles a body bears on (relevant or partial)."""
        known = self.by_body.get((bundle, sha256))
        return set(known.bears) if known else set()

    def read(self, signposts: Sequence[SignpostOffer]) -> None:
        """Count a listing page the selector really read."""
        self.signposts_offered += len(signposts)
        self.words_signposts += sum([paid_words(s.title) + paid_words(s.description) for s in signposts])


@dataclass
class _Apart:
    """A listing read for angles selected apart: the selections worked out so far, by angle index."""

    choices: dict[int, Selection] = field(default_factory=dict)


async def _read(
    selector: AngleSelector, question: str, texts: Sequence[str], signposts: Sequence[SignpostOffer], *, apart: bool
) -> AngleSelection | _Apart:
    """The shared read of a listing: every angle's choices in one reply, or, from a reader that selects each
    angle apart, nothing worked out yet (each walk's angle is selected when it asks)."""
    if apart:
        return _Apart()
    return await selector.select_angles(question, texts, signposts)


def _texts(angles: Sequence[AngleRecord]) -> dict[str, list[str]]:
    """Angle ids by text: angles with the same text (an angle walked again elsewhere) are asked once."""
    out: dict[str, list[str]] = {}
    for angle in angles:
        out.setdefault(angle.text, []).append(angle.id)
    return out


class AngleView:
    """The reader one walk sees (see the module docstring)."""

    def __init__(self, reader: Reader, judgments: Judgments, angle: AngleRecord, bundle: str) -> None:
        self._reader = reader
        self._judgments = judgments
        self._angle = angle
        self._bundle = bundle
        # Checked once (a runtime protocol check costs more than it seems, once per call).
        self._selector: AngleSelector | None = reader if isinstance(reader, AngleSelector) else None
        self._judge: AngleJudge | None = reader if isinstance(reader, AngleJudge) else None
        # Called on the loop's next turn after each judge reply, once the walk has recorded its verdicts
        # (okf.orchestrate.run starts second hops from new evidence at once).
        self.judged: Callable[[], None] | None = None
        limit = getattr(reader, "concurrency", None)
        if isinstance(limit, int):
            self.concurrency = limit
        # A reader that orders the concepts of a listing (okf.readers.base) does so for every angle's walk.
        self.orders_concepts = getattr(reader, "orders_concepts", False) is True
        self.reads_on = getattr(reader, "reads_on", False) is True
        self.coalesce = getattr(reader, "coalesce", True) is not False
        # A reader whose select_angles is its select of each angle on its own (no model call to share): each
        # walk's angle is selected only when that walk asks (okf.readers.planning, ``selects_apart``).
        self._apart = getattr(reader, "selects_apart", False) is True

    @property
    def name(self) -> str:
        return self._reader.name

    async def select(self, question: str, signposts: Sequence[SignpostOffer]) -> Selection:
        shared = self._judgments
        texts = list(_texts(shared.walking))
        if self._selector is None or len(texts) < 2 or self._angle.text not in texts:
            shared.read(signposts)
            return await self._reader.select(question, signposts)
        key = (self._bundle, tuple(s.path for s in signposts), tuple(texts))
        future = shared.selections.get(key)
        first = future is None
        if future is None:
            shared.read(signposts)
            future = shared.selections[key] = asyncio.ensure_future(
                _read(self._selector, shared.question, texts, signposts, apart=self._apart)
            )
        reply = await asyncio.shield(future)
        index = texts.index(self._angle.text)
        if isinstance(reply, _Apart):
            # Selected for this angle alone, once the listing's shared read has come (the same turn of the
            # loop as a shared reply): what every other angle would keep is not worked out unless asked.
            selection = reply.choices.get(index)
            if selection is None:
                selection = reply.choices[index] = await self._reader.select(self._angle.text, signposts)
            usage = selection.usage if first else Usage(cache_hits=1)
            return Selection(choices=selection.choices, failed=selection.failed, error=selection.error, usage=usage)
        usage = reply.usage if first else Usage(cache_hits=1)
        if reply.failed:
            return Selection(failed=True, error=reply.error, usage=usage)
        kept = reply.kept[index] if index < len(reply.kept) else []
        return Selection(choices=kept, usage=usage)

    async def judge(self, question: str, documents: Sequence[Document]) -> Judgement:
        ids_of = _texts(self._judgments.angles)
        texts = list(ids_of)
        if self._judge is not None:
            judgement = await self._judge.judge_angles(self._judgments.question, texts, documents)
        else:
            judgement = await self._reader.judge(self._angle.text, documents)
        own = ids_of.get(self._angle.text, [self._angle.id])
        every = [i for ids in ids_of.values() for i in ids]
        mine = texts.index(self._angle.text) if self._angle.text in ids_of else -1
        walked: list[Verdict] = []
        for document, verdict in zip(documents, judgement.verdicts):
            walked.append(verdict)
            if verdict.failed or verdict.relevant is None:
                continue
            grade = verdict.grade or ("relevant" if verdict.relevant else "no")
            if self._judge is not None:
                answers = [i for k in verdict.answers if 0 <= k < len(texts) for i in ids_of[texts[k]]]
                judged_for = every
                # A reader that does not say which angles a body bears on: the angle of the walk judging it.
                said = verdict.bears if verdict.bears else [mine] if grade != "no" else []
                bears = [i for k in said if 0 <= k < len(texts) for i in ids_of[texts[k]]]
                if grade == "relevant" and mine not in verdict.answers:
                    # Relevant to other angles only: evidence for them (recorded here), but for this walk only
                    # bearing on its angle, so it neither widens this walk's frontier nor fills its shortlist
                    # (the walk of the question goes on as a lone walk would).
                    walked[-1] = verdict.model_copy(update={"grade": "partial"})
            else:
                answers, judged_for = (own if grade == "relevant" else []), own
                bears = own if grade != "no" else []
            self._judgments.record(self._bundle, document.sha256, grade, verdict.reason, answers, judged_for, bears)
        if self.judged is not None:
            asyncio.get_running_loop().call_soon(self.judged)
        if walked != judgement.verdicts:
            judgement = judgement.model_copy(update={"verdicts": walked})
        return judgement

    async def answer(self, question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        return await self._reader.answer(question, evidence)


async def settle(judgments: Judgments) -> None:
    """Cancel shared listing reads nobody waits for any more (the walks of the round have ended)."""
    pending = [f for f in judgments.selections.values() if not f.done()]
    for future in pending:
        future.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    for future in judgments.selections.values():
        if future.done() and not future.cancelled():
            future.exception()  # retrieved, so an unawaited failure is not reported as never retrieved
