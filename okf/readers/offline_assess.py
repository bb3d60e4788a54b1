"""The offline compliance judge: honest and conservative, because it reads words, not meaning.

A requirement's *act* is what its sentence says after the modal ("be named as additional insured on general
liability and auto policies"); its *key terms* are the first content words of the act, up to a clause
boundary. A subject sentence *states the act in the requirement's own terms* when it carries every key term.

- applies: the requirement plausibly applies when one subject sentence carries at least half its key terms
  (and at least two, or all when it has fewer), one of them the act's head. Terms in nearly a third of the
  subject's sentences (the parties' names) are context and do not count. Each requirement is decided on
  its own.
- assess: for an obligation, a sentence stating the act is ``compliant``, and one stating it under a negation
  ("shall not", "no", "without") is a ``violation``; for a prohibition the other way round. Anything else,
  permissions and ambiguous rules included, is ``needs_review``: the text does not show enough.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from okf.readers.assessment import RequirementOffer, SubjectText
from okf.readers.layout import units
from okf.readers.modal import OBLIGATION, PROHIBITION, main_modals, mask
from okf.text.words import terms

KEY_TERMS = 6
# applies: a term in at least this share of the subject's sentences (of at least CONTEXT_MIN_SENTENCES) is context.
CONTEXT_SHARE = 0.3
CONTEXT_MIN_SENTENCES = 6
# The confidence the offline judge gives a verdict it reached by matching words (it understands none).
MATCH_CONFIDENCE = 0.5
# The act ends at a clause boundary; its timing ("within 1 hour", "before signature") is part of it.
_ACT_END = re.compile(
    r"[,;:(]|\s(?:unless|if|where|when|whenever|provided|except|other\s+than|so\s+that|"
    r"in\s+order\s+to)\s",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|without|neither|nor|none|cannot|won['’]t|shan['’]t|isn['’]t|"
    r"aren['’]t|doesn['’]t|don['’]t)\b|n['’]t\b",
    re.IGNORECASE,
)
# Negative words that negate nothing: "no later than", "without undue delay".
_NOT_NEGATING = re.compile(
    r"\b(?:no|not)\s+(?:later|earlier|less|more|fewer|greater|sooner)\s+than\b|"
    r"\bwithout\s+(?:undue\s+)?delay\b|\bwithout\s+(?:limitation|prejudice)\b|"
    r"\bnot\s+(?:only|limited\s+to)\b|\bnotwithstanding\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]+(?:[.'’][^\W_]+)*")
# Verbs that carry no act of their own: the object after them is the act ("ensure that X is kept").
_LIGHT = frozenset(terms("be ensure ensures take steps make sure have has hold comply"))


@dataclass(frozen=True)
class SubjectSentence:
    """A sentence of the subject, its terms and the lines it spans."""

    text: str
    start_line: int
    end_line: int
    terms: frozenset[str]

    def negates(self, key: list[str]) -> bool:
        """A negation stands in the clause that carries ``key``, before its last key term."""
        plain = _NOT_NEGATING.sub(lambda m: " " * len(m.group()), self.text)
        places = [m.start() for m in _WORD.finditer(plain) if set(terms(m.group())) & set(key)]
        if not places:
            return False
        start = plain.rfind(";", 0, places[0]) + 1
        return bool(_NEGATION.search(plain[start : places[-1]]))


def subject_sentences(subject: SubjectText) -> list[SubjectSentence]:
    """The subject's sentences with their terms and lines (numbered from 1)."""
    out = []
    for unit in units(subject.text, 1):
        for sentence in unit.sentences():
            found = frozenset(terms(sentence.text))
            if found:
                out.append(SubjectSentence(sentence.text, sentence.start_line, sentence.end_line, found))
    return out


def act_of(requirement: RequirementOffer) -> tuple[str, str]:
    """The act a requirement's sentence names after its first main modal, and the modal's deontic type."""
    text = requirement.requirement_text
    masked = mask(text)
    modals = main_modals(text, masked)
    if not modals:
        return text, requirement.deontic_type
    modal = modals[0]
    rest = masked[modal.end :]
    end = _ACT_END.search(rest)
    return text[modal.end : modal.end + (end.start() if end else len(rest))], modal.kind


def key_terms(requirement: RequirementOffer) -> list[str]:
    """The first content terms of the requirement's act (light verbs left out), at most ``KEY_TERMS``."""
    act, _ = act_of(requirement)
    found = [t for t in dict.fromkeys(terms(act)) if t not in _LIGHT]
    return found[:KEY_TERMS]


def context_terms(subject: list[SubjectSentence]) -> frozenset[str]:
    """Terms so common in the subject (a party's name, "carrier") that they say nothing about any one act."""
    if len(subject) < CONTEXT_MIN_SENTENCES:
        return frozenset()
    counts: dict[str, int] = {}
    for sentence in subject:
        for term in sentence.terms:
            counts[term] = counts.get(term, 0) + 1
    return frozenset(t for t, n in counts.items() if n >= CONTEXT_SHARE * len(subject))


def applies(
    subject: list[SubjectSentence], requirement: RequirementOffer, context: frozenset[str] = frozenset()
) -> tuple[bool, str, int | None]:
    """Whether the requirement plausibly applies, why, and the line of the sentence that decided it: one subject
    sentence carries at least half the act's key terms (two at least), one of them the act's head (its first
    two terms). ``context`` terms (see :func:`context_terms`) do not count."""
    key = [t for t in key_terms(requirement) if t not in context]
    if not key:
        return False, "the requirement names no act to look for beyond the subject's own context", None
    needed = len(key) if len(key) < 2 else max(2, math.ceil(len(key) / 2))
    best: SubjectSentence | None = None
    best_count = 0
    for sentence in subject:
        count = sum(t in sentence.terms for t in key)
        if count > best_count and any(t in sentence.terms for t in key[:2]):
            best, best_count = sentence, count
    if best is not None and best_count >= needed:
        shared = [t for t in key if t in best.terms]
        return True, f"line {best.start_line} mentions {', '.join(shared)} of the requirement's act", best.start_line
    return False, f"no subject sentence carries {needed} of the act's terms ({', '.join(key)})", None


def assess(subject: list[SubjectSentence], requirement: RequirementOffer) -> tuple[str, str, SubjectSentence | None]:
    """The verdict, its rationale and the subject sentence it rests on (None when nothing matched)."""
    key = key_terms(requirement)
    _, kind = act_of(requirement)
    kind = requirement.deontic_type if requirement.deontic_type in (OBLIGATION, PROHIBITION) else kind
    stating = [s for s in subject if key and all(t in s.terms for t in key)]
    if kind not in (OBLIGATION, PROHIBITION) or not stating:
        partial = max(subject, key=lambda s: sum(t in s.terms for t in key), default=None)
        if partial is not None and not any(t in partial.terms for t in key):
            partial = None
        why = (
            "a permission or an ambiguous rule: the offline judge cannot tell from words whether it is met"
            if kind not in (OBLIGATION, PROHIBITION)
            else f"no subject sentence states the act in the requirement's terms ({', '.join(key)})"
        )
        return "needs_review", why, partial
    negated = [s for s in stating if s.negates(key)]
    plain = [s for s in stating if not s.negates(key)]
    if kind == OBLIGATION:
        if negated:
            return "violation", f"line {negated[0].start_line} states the required act under a negation", negated[0]
        return "compliant", f"line {plain[0].start_line} states the required act", plain[0]
    if plain:
        return "violation", f"line {plain[0].start_line} states the prohibited act", plain[0]
    return "compliant", f"line {negated[0].start_line} states the prohibited act under a negation", negated[0]
