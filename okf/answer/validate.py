"""The guarantees of ``okf ask``, enforced in code on the answerer's draft. The model reads; the code guarantees.

- A failed draft (no valid reply after the reader's repair retry) is an abstention that names the failure.
- A citation to an id that was not given as evidence is dropped, never shown, and noted in the caveats.
- An answer left with no valid citation is an abstention: uncited prose is never shown.
- A partial answer (the draft says so, names what is missing, or carries ``<partial/>``) is status
  ``partial`` and its prose ends by saying what the evidence does not establish.
- Engine markers never reach the prose (see :mod:`okf.answer.prose`).
- A rule is stated with its exceptions: an exception sentence in a cited item that bears on the answer and
  that the answer leaves out is appended to the answer, quoted verbatim and cited (see :func:`exceptions`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from okf.answer.evidence import GatheredEvidence
from okf.answer.prose import PARTIAL_TAG, append_markers, clean_prose, one_line, tidy
from okf.markdown import INLINE_MARKUP_KEEP_UNDERSCORE
from okf.readers.base import DraftAnswer
from okf.text.words import clip, plain_lines, terms

# Words that make a sentence an exception, condition or carve-out to a rule.
EXCEPTION_CUE = re.compile(
    r"\b(?:except(?:ion|ions|ing)?|unless|provided\s+(?:that|however)|providing\s+that|"
    r"(?:does|do|shall|will|would|did)\s+not\s+apply|doesn't\s+apply|don't\s+apply|not\s+applicable|"
    r"excluding|excluded\s+from|other\s+than|notwithstanding|carve[- ]?outs?)\b",
    re.IGNORECASE,
)
# An exception counts as stated when the answer carries this share of its content words.
COVERED_SHARE = 0.6
MAX_EXCEPTIONS = 3
_CUE_TERMS = frozenset(
    terms(
        "except exception exceptions excepting unless provided providing apply applies "
        "applicable excluding excluded other notwithstanding carve out outs"
    )
)
_QUOTE = re.compile(r"[\"“]([^\"“”\n]{12,})[\"”]")
# "This does not apply to X." qualifies the sentence before it: read the two together.
_ANAPHOR = re.compile(r"(?:this|these|that|those|it|such|the\s+(?:above|same|foregoing|preceding))\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[^a-z])")
# "49 U.S.C. 14706", "e.g. X", "Sec. 5": a full stop after these does not end a sentence.
_ABBREVIATION = re.compile(
    r"(?:\b(?:[A-Za-z]\.)+|\b(?:e\.g|i\.e|etc|no|nos|sec|art|para|inc|ltd|co|corp|"
    r"mr|ms|mrs|dr|st|vs|v|cf|approx|fig|p|pp)\.)$",
    re.IGNORECASE,
)
# An exception bears on the answer when it shares this many content words with the answer or the question.
SHARED_TERMS = 2


@dataclass
class Validated:
    """The answer after the guarantees: status, prose, the cited evidence ids in ledger order, and notes."""

    status: Literal["answered", "partial", "abstained"]
    answer: str
    reason: str | None = None
    cited: list[str] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)
    failed: bool = False


def _sentences(text: str) -> list[str]:
    # Split on sentence ends only (not ";"): an exception clause must be quoted with the rule it qualifies.
    # Single underscores kept: an identifier such as max_bodies stays one word.
    return [part for line in plain_lines(text, INLINE_MARKUP_KEEP_UNDERSCORE) for part in _split(line) if part]


def _split(line: str) -> list[str]:
    parts: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer(line):
        if _ABBREVIATION.search(line[start : end.start()]):
            continue
        parts.append(line[start : end.start()].strip())
        start = end.end()
    parts.append(line[start:].strip())
    return parts


def exceptions(answer: str, question: str, texts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Exception sentences from cited ``(evidence id, text)`` items that bear on the answer and it omits.

    A sentence is an exception when it carries a cue (except, unless, provided that, does not apply, ...).
    It bears on the answer when it shares :data:`SHARED_TERMS` content words with the answer or the question
    (one alone is too easily a coincidence in a long answer); a sentence that opens by pointing back ("This
    does not apply to X.") is read together with the sentence before it. The answer omits it when it carries
    less than :data:`COVERED_SHARE` of the sentence's content words. This filters sentences of evidence
    already cited; it ranks nothing.
    """
    asked = set(terms(answer)) | set(terms(question))
    stated = set(terms(answer))
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for evidence_id, text in texts:
        sentences = _sentences(text)
        for n, sentence in enumerate(sentences):
            if not EXCEPTION_CUE.search(sentence) or sentence in seen:
                continue
            own = set(terms(sentence)) - _CUE_TERMS
            context = own | (set(terms(sentences[n - 1])) if n and _ANAPHOR.match(sentence) else set())
            if not own or len((context - _CUE_TERMS) & asked) < min(SHARED_TERMS, len(own)):
                continue
            if len(own & stated) >= COVERED_SHARE * len(own):
                continue
            seen.add(sentence)
            found.append((evidence_id, sentence))
            if len(found) == MAX_EXCEPTIONS:
                return found
    return found


EXCEPTION_LEAD = "Exception stated by the source: "


def _unquoted(sentence: str) -> str:
    """An exception sentence as the source says it: a saved answer's (a synthesis's) own exception line and
    citation numbers unwrapped, so quoting it does not nest."""
    text = re.sub(r"\s*\[\d+(?:\s*,\s*\d+)*\]", "", sentence).strip()
    if text.startswith(EXCEPTION_LEAD):
        text = text[len(EXCEPTION_LEAD) :].strip()
        if len(text) > 1 and text[0] == text[-1] == '"':
            text = text[1:-1]
    return text


def _plain(text: str) -> str:
    # Compare text as readers quote it: without emphasis, link targets, table rules or line breaks.
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return " ".join(re.sub(r"[*_`]", "", text).replace("|", " ").casefold().split())


def place_markers(text: str, cited: list[str], numbers: dict[str, int], evidence: GatheredEvidence) -> str:
    """Markers for cited ids the prose did not place: on each line quoting that item verbatim, else at the end."""
    placed = {int(n) for n in re.findall(r"\[(\d+)\]", text)}
    lines = text.split("\n")
    unplaced: list[int] = []
    for ident in cited:
        if numbers[ident] in placed:
            continue
        source = _plain(evidence.by_id[ident].evidence.text)
        # A quoted passage found verbatim in one item is attributable to it: mark that line, not the end.
        hits = [k for k, line in enumerate(lines) if any(_plain(q) in source for q in _QUOTE.findall(line))]
        for k in hits:
            lines[k] = append_markers(lines[k], [numbers[ident]])
        if not hits:
            unplaced.append(numbers[ident])
    return append_markers("\n".join(lines), unplaced)


def _abstain(reason: str, caveats: list[str], *, failed: bool = False) -> Validated:
    return Validated(status="abstained", answer="", reason=reason, caveats=caveats, failed=failed)


def _short(value: str) -> str:
    return repr(clip(one_line(value), 40))


def validate(question: str, draft: DraftAnswer, evidence: GatheredEvidence) -> Validated:
    """Apply every guarantee to ``draft`` given the evidence actually offered."""
    caveats: list[str] = []
    if draft.failed:
        error = clip(one_line(draft.error or "no valid reply"), 300)
        note = (
            "The answerer returned no valid answer, so none is shown; the shortlisted concepts are listed "
            "for you to read."
        )
        return _abstain(f"The answerer failed: {error}", [note], failed=True)
    given = [item.evidence.id for item in evidence.items]
    by_fold = {ident.casefold(): ident for ident in given}
    # Ids as models write them ("C1", "[c1]") name the same evidence; anything else is not evidence.
    claimed = [c.strip().strip("[]()").strip() for c in draft.cited if c and c.strip()]
    numbers: dict[str, int] = {}
    prose = clean_prose(draft.text, valid_ids=given, claimed=claimed, numbers=numbers)
    for claim in claimed:  # cited but not placed inline: numbered after the inline ones
        if claim.casefold() in by_fold:
            numbers.setdefault(by_fold[claim.casefold()], len(numbers) + 1)
    invalid = list(
        {c.casefold(): c for c in reversed([*prose.invalid, *claimed]) if c.casefold() not in by_fold}.values()
    )[::-1]
    if invalid:
        caveats.append(
            f"The answerer cited {len(invalid)} id(s) that were not in the evidence "
            f"({', '.join(_short(i) for i in invalid[:5])}); those citations were dropped."
        )
    # Ids in the "missing" note are removed, not numbered: it cites nothing.
    missing = tidy(re.sub(r"\s*\[\d+\]", "", clean_prose(draft.missing, valid_ids=given, claimed=claimed).text))
    partial = draft.partial or bool(missing) or bool(PARTIAL_TAG.search(draft.text))
    text = prose.text
    if not text:
        why = (
            f"The answerer found no answer in the evidence: {missing.rstrip('.')}."
            if missing
            else "The answerer found no answer in the evidence."
        )
        return _abstain(why, caveats)
    if not numbers:
        return _abstain("The answer cited none of the evidence it was given, so it is not shown.", caveats)
    cited = sorted(numbers, key=numbers.__getitem__)
    text = place_markers(text, cited, numbers, evidence)
    plain = re.sub(r"\s*\[\d+\]", "", text)
    texts = [(i, evidence.by_id[i].evidence.text) for i in cited]
    for ident, sentence in exceptions(plain, question, texts):
        text += f'\n{EXCEPTION_LEAD}"{clip(one_line(_unquoted(sentence)), 400)}" [{numbers[ident]}]'
    reason = None
    if partial:
        what = (
            missing.rstrip(".")
            if missing
            else "the answerer marked this answer partial without saying which part the evidence leaves open"
        )
        reason = f"Not established by the evidence: {what}."
        text += f"\n{reason}"
    return Validated(
        status="partial" if partial else "answered", answer=text, reason=reason, cited=cited, caveats=caveats
    )
