"""The offline reader: a deterministic stand-in for a model, used when no model is configured.

It reads like a careful skimmer who knows the question's words and the bundle's vocabulary (how rare each
word is in the bundle, the misspellings it can read past, the acronyms the sources define), and nothing
else. It is no model: it cannot understand a paraphrase it has no word for.

- select (okf.readers.selection): keep a signpost whose title, name, description or key terms say enough
  of what the question asks about, weighed by rarity in the bundle and by how well it tells the listing
  apart; open both of two signposts it cannot separate. It grades the concept entries of a listing the same
  way, so the walk reads the concepts whose signposts speak to the question before the others.
- judge (okf.readers.judging): a graded verdict per body (relevant / partial / no) from the weighed share
  of the question it says, and says together in one passage; decided on that body alone.
- answer (okf.readers.extractive): quote the evidence sentences that say the most of the question.
- plan (okf.readers.angles): the question's parts and angles, from its own words and the bundle's vocabulary;
  judge_angles: the graded verdict for each angle, the best one given, with the angles it is relevant to.

No network, no randomness: the same question over the same bundle gives the same decisions.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Self

from okf.readers.angles import plan_offline
from okf.readers.base import Document, DraftAnswer, Evidence, Judgement, Selection, SignpostOffer, Usage, Verdict
from okf.readers.extractive import answer_from
from okf.readers.judging import assess, head_field, judge_all, judge_one, verdict_of
from okf.readers.matching import Body, Question, read_body, read_body_once
from okf.readers.offline_roles import OfflineRoles
from okf.readers.planning import AngleSelection, Plan, PlanHints
from okf.readers.selection import select_offer
from okf.readers.synthesis import LeafExtract, Part, Split, extract_offline, split_offline
from okf.text.vocabulary import Vocabulary

__all__ = ["OfflineReader", "Question", "answer_from", "judge_all", "judge_one", "select_offer"]

_RANK = {"relevant": 2, "partial": 1, "no": 0}
# Parsed bodies kept per reader (keyed by sha256): a walk re-judges nothing, but many walks share bodies.
BODY_CACHE_SIZE = 4096


class OfflineReader(OfflineRoles):
    """A deterministic reader matching the question's units of meaning; no network. The default reader.

    It also extracts requirements and judges compliance offline (:mod:`okf.readers.offline_roles`), and
    splits and reads evidence for recursive synthesis (:mod:`okf.readers.synthesis`)."""

    def __init__(self, vocabulary: Vocabulary | None = None) -> None:
        self.vocabulary = vocabulary
        self._bodies: OrderedDict[str, Body] = OrderedDict()
        self._questions: OrderedDict[str, Question] = OrderedDict()

    # It grades the concepts of an opened directory from their signposts too, so the walk reads the likely
    # ones first (okf.readers.base); the judge still decides every body it reads.
    orders_concepts = True
    # Its selector matches words, so a directory it passes over may still hold the answer in other words: a
    # walk that found nothing in what it chose reads on in what it passed over (okf.readers.base).
    reads_on = True
    # select_angles is select of each angle on its own: an orchestration may select one angle at a time
    # (okf.readers.planning).
    selects_apart = True
    # Its calls cost no round trip: a walk sends a partial judge batch at once rather than hold it for a
    # window measured on the clock, so what it reads never depends on the machine's speed (okf.readers.base).
    coalesce = False

    @property
    def name(self) -> str:
        return "offline"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Nothing to close: the offline reader holds no connections."""

    def bind(self, vocabulary: Vocabulary | None) -> OfflineReader:
        """This reader reading a bundle with ``vocabulary`` (its statistics weigh the question's words)."""
        if vocabulary is self.vocabulary:
            return self
        bound = OfflineReader(vocabulary)
        bound._bodies = self._bodies  # parsed bodies do not depend on the vocabulary
        return bound

    def question(self, text: str) -> Question:
        """``text`` parsed against this reader's vocabulary (cached: a walk asks the same question many times)."""
        parsed = self._questions.get(text)
        if parsed is None:
            parsed = self._questions[text] = Question.parse(text, self.vocabulary)
            if len(self._questions) > 256:
                self._questions.popitem(last=False)
        return parsed

    def _body(self, document: Document) -> Body:
        # Keyed by the sha256 of the text as offered; a document without one is read afresh.
        if not document.sha256 or set(document.sha256) == {"0"}:
            return read_body(document.text)
        body = self._bodies.get(document.sha256)
        if body is None:
            body = self._bodies[document.sha256] = read_body_once(document.text)
            if len(self._bodies) > BODY_CACHE_SIZE:
                self._bodies.popitem(last=False)
        else:
            self._bodies.move_to_end(document.sha256)
        return body

    async def select(self, question: str, signposts: Sequence[SignpostOffer]) -> Selection:
        """Keep each signpost that says enough of what the question asks about."""
        start = time.perf_counter()
        parsed = self.question(question)
        choices = select_offer(parsed, signposts) if parsed.units else []
        return Selection(choices=choices, usage=_usage(start))

    async def judge(self, question: str, documents: Sequence[Document]) -> Judgement:
        """One graded verdict per document, each decided on that body alone."""
        start = time.perf_counter()
        parsed = self.question(question)
        verdicts = judge_all(parsed, documents, [self._body(d) for d in documents])
        return Judgement(verdicts=verdicts, usage=_usage(start))

    async def judge_angles(self, question: str, angles: Sequence[str], documents: Sequence[Document]) -> Judgement:
        """Per document, the verdict under each angle (each body read once): the best grade (the first
        angle giving it speaks), and the angles under which it is relevant."""
        start = time.perf_counter()
        parsed = [self.question(a) for a in angles] or [self.question(question)]
        verdicts: list[Verdict] = []
        for document in documents:
            body = self._body(document)
            head = head_field(document)  # the same for every angle
            assessed = [assess(q, document, body, head) for q in parsed]
            per = [a.given for a in assessed]
            # The best grade, the first angle giving it speaks (its verdict alone is worded).
            best = max(range(len(per)), key=lambda i: _RANK[per[i]])
            answers = [i for i, g in enumerate(per) if g == "relevant"]
            bears = [i for i, g in enumerate(per) if g != "no"]
            verdicts.append(verdict_of(parsed[best], document, assessed[best], answers=answers, bears=bears))
        return Judgement(verdicts=verdicts, usage=_usage(start))

    async def select_angles(
        self, question: str, angles: Sequence[str], signposts: Sequence[SignpostOffer]
    ) -> AngleSelection:
        """For each angle, the signposts it keeps (as :meth:`select` would, one angle at a time)."""
        start = time.perf_counter()
        kept = []
        for angle in angles:
            parsed = self.question(angle)
            kept.append(select_offer(parsed, signposts) if parsed.units else [])
        return AngleSelection(kept=kept, usage=_usage(start))

    async def plan(self, question: str, count: int | None, hints: PlanHints) -> Plan:
        """Parts and angles made of the question's words and the bundle's vocabulary (okf.readers.angles)."""
        start = time.perf_counter()
        return Plan(parts=plan_offline(question, self.vocabulary, count), usage=_usage(start))

    async def answer(self, question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        """An extractive answer: quoted evidence sentences, with ``partial`` when units stay unsaid."""
        start = time.perf_counter()
        draft = answer_from(self.question(question), evidence)
        draft.usage = _usage(start)
        return draft

    async def decompose(self, question: str, parts: Sequence[Part], budget_tokens: int) -> Split:
        """Contiguous groups of about equal size, cut where the folder changes when one is near."""
        start = time.perf_counter()
        return Split(groups=split_offline(parts, budget_tokens), usage=_usage(start))

    async def extract_leaf(self, question: str, evidence: Sequence[Evidence]) -> LeafExtract:
        """Per item, the sentences that carry the question's topic units, each citing its item."""
        start = time.perf_counter()
        extract = extract_offline(question, evidence)
        extract.usage = _usage(start)
        return extract


def _usage(start: float) -> Usage:
    # One local "call", no tokens: the offline reader spends no model tokens.
    return Usage(calls=1, seconds=time.perf_counter() - start)
