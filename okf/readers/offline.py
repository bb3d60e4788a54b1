"""The offline reader: a deterministic stand-in for a model, used when no model is configured.

It reads like a careful skimmer that only knows the question's words: a signpost is opened when its title,
name or description shares content words with the question; a body is relevant when it covers enough of
them; an answer quotes the evidence sentences that carry the most of them. Every decision is made per item
against a fixed threshold, never by ranking items against each other. No network, no randomness.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

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
from okf.readers.text import clip, sentences, term_words, terms

# select: a title or name match weighs 2, a description match 1; a concept needs 2, a directory any match
# (opening a directory is cheap and its children are decided again, one by one).
TITLE_WEIGHT = 2
DESCRIPTION_WEIGHT = 1
CONCEPT_KEEP_SCORE = 2
DIRECTORY_KEEP_SCORE = 1
# judge: a question term found in the title or a heading earns 1.0, in the body only 0.7.
HEADING_CREDIT = 1.0
BODY_CREDIT = 0.7
RELEVANT_COVERAGE = 0.45
# answer: sentences quoted per evidence item and overall.
SENTENCES_PER_EVIDENCE = 2
SENTENCES_TOTAL = 3


@dataclass(frozen=True)
class Question:
    """A question's content terms, each mapped to the word it came from."""

    words: dict[str, str]

    @classmethod
    def parse(cls, text: str) -> Question:
        return cls(term_words(text))

    @property
    def terms(self) -> set[str]:
        return set(self.words)

    def named(self, found: set[str] | list[str]) -> str:
        """The question's own words for ``found`` terms, in question order."""
        return ", ".join(word for term, word in self.words.items() if term in found)


def _name_of(path: str) -> str:
    """The last path segment without ``.md``: only it speaks for the signpost (ancestors already matched)."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return name.removesuffix(".md")


def select_one(question: Question, offer: SignpostOffer) -> Choice | None:
    """Keep ``offer`` when its words share enough of the question's terms, with a reason naming them."""
    strong = question.terms & (set(terms(offer.title)) | set(terms(_name_of(offer.path).replace("-", " "))))
    weak = (question.terms & set(terms(offer.description))) - strong
    score = TITLE_WEIGHT * len(strong) + DESCRIPTION_WEIGHT * len(weak)
    needed = DIRECTORY_KEEP_SCORE if offer.is_dir else CONCEPT_KEEP_SCORE
    if not strong and not weak or score < needed:
        return None
    parts = []
    if strong:
        parts.append(f"title/name mention {question.named(strong)}")
    if weak:
        parts.append(f"description mentions {question.named(weak)}")
    return Choice(index=offer.index, reason="; ".join(parts))


def _sentence_terms(question: Question, sentence: str) -> set[str]:
    return question.terms & set(terms(sentence))


def judge_one(question: Question, document: Document) -> Verdict:
    """Relevant when the body covers enough of the question's terms; the reason quotes a sentence."""
    wanted = question.terms
    if not wanted:
        return Verdict(id=document.id, relevant=False, reason="the question has no content words to look for")
    heading_terms = wanted & set(terms(" ".join([document.title, *document.headings])))
    body_sentences = sentences(document.text)
    body_terms = wanted & set(terms(" ".join(body_sentences)))
    credit = sum(HEADING_CREDIT if t in heading_terms else BODY_CREDIT for t in heading_terms | body_terms)
    coverage = credit / len(wanted)
    enough_in_body = len(body_terms) >= min(2, len(wanted))
    relevant = coverage >= RELEVANT_COVERAGE and (bool(heading_terms) or enough_in_body)
    best = max(body_sentences, key=lambda s: len(_sentence_terms(question, s)), default="")
    best_terms = _sentence_terms(question, best) if best else set()
    found = heading_terms | body_terms
    if relevant and best_terms:
        reason = f'"{clip(best)}" (mentions {question.named(found)})'
    elif relevant:
        reason = f"title/headings mention {question.named(heading_terms)}"
    elif found:
        reason = (
            f"mentions only {question.named(found)} of {len(wanted)} question words"
            f" (coverage {coverage:.2f} < {RELEVANT_COVERAGE})"
        )
    else:
        reason = "mentions none of the question's words"
    return Verdict(id=document.id, relevant=relevant, reason=reason)


@dataclass(frozen=True)
class _Candidate:
    evidence: Evidence
    order: int
    sentence: str
    found: frozenset[str]


def _candidates(question: Question, evidence: Sequence[Evidence]) -> list[_Candidate]:
    out: list[_Candidate] = []
    for order, item in enumerate(evidence):
        scored = [(s, frozenset(_sentence_terms(question, s))) for s in sentences(item.text)]
        scored = [pair for pair in scored if pair[1]]
        scored.sort(key=lambda pair: -len(pair[1]))  # stable: earlier sentences win ties
        picked: list[tuple[str, frozenset[str]]] = scored[:1]
        # A second sentence only when it adds a question word the first lacks.
        for sentence, found in scored[1:]:
            if len(picked) < SENTENCES_PER_EVIDENCE and found - picked[0][1]:
                picked.append((sentence, found))
        out.extend(_Candidate(item, order, s, f) for s, f in picked)
    return out


def answer_from(question: Question, evidence: Sequence[Evidence]) -> DraftAnswer:
    """Quote the evidence sentences that carry the most question terms, citing their evidence ids."""
    candidates = _candidates(question, evidence)
    chosen: list[_Candidate] = []
    covered: set[str] = set()
    # Greedy cover: each pick adds the most question words not yet quoted; ties go to earlier evidence.
    while candidates and len(chosen) < SENTENCES_TOTAL:
        best = max(candidates, key=lambda c: (len(c.found - covered), len(c.found), -c.order))
        if chosen and not best.found - covered:
            break
        chosen.append(best)
        covered |= best.found
        candidates.remove(best)
    if not chosen:
        return DraftAnswer(
            text="", cited=[], partial=False, missing="no evidence sentence mentions the question's words"
        )
    chosen.sort(key=lambda c: c.order)  # read in evidence order
    lines = [
        f'{c.evidence.title}: "{clip(c.sentence, 400)}"' if c.evidence.title else f'"{c.sentence}"'
        for c in chosen
    ]
    cited = list(dict.fromkeys(c.evidence.id for c in chosen))
    missing_terms = question.terms - covered
    return DraftAnswer(
        text="\n".join(lines),
        cited=cited,
        partial=bool(missing_terms),
        missing=f"the quoted evidence does not mention: {question.named(missing_terms)}"
        if missing_terms
        else "",
    )


class OfflineReader:
    """A deterministic reader matching the question's content words; no network. The default reader."""

    @property
    def name(self) -> str:
        return "offline"

    async def select(self, question: str, signposts: Sequence[SignpostOffer]) -> Selection:
        """Keep each signpost whose title, name or description shares enough of the question's words."""
        start = time.perf_counter()
        parsed = Question.parse(question)
        choices = [c for offer in signposts if (c := select_one(parsed, offer)) is not None]
        return Selection(choices=choices, usage=_usage(start))

    async def judge(self, question: str, documents: Sequence[Document]) -> Judgement:
        """One verdict per document, each decided on its own coverage of the question's words."""
        start = time.perf_counter()
        parsed = Question.parse(question)
        return Judgement(verdicts=[judge_one(parsed, d) for d in documents], usage=_usage(start))

    async def answer(self, question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        """An extractive answer: quoted evidence sentences, with ``partial`` when words stay uncovered."""
        start = time.perf_counter()
        draft = answer_from(Question.parse(question), evidence)
        draft.usage = _usage(start)
        return draft


def _usage(start: float) -> Usage:
    # One local "call", no tokens: the offline reader spends no model tokens.
    return Usage(calls=1, seconds=time.perf_counter() - start)
