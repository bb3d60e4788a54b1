"""The fields of a deontic clause the offline extractor reads: actor, applicability and evidence standard.

- actor: the grammatical subject before the modal (the last comma-separated piece that is not a condition or
  an aside, determiners and relative clauses dropped); for a passive clause, its "by ..." agent when one is
  named, else none; a pronoun is resolved to the party its conditional clause names.
- applicability: conditional clauses as ``dimension: value`` pairs: where/if/when/in the case of/in respect of
  give ``condition``, unless/other than/except give ``exception``, "subject to" gives ``subject to``,
  "for the purposes of" gives ``purpose``, before/prior to/within give ``timing``.
- evidence standard: what the clause says the act must be shown by ("in writing", "verified by callback",
  "written approval", "documentary evidence").
"""

from __future__ import annotations

import re

from okf.readers.modal import Clause, mask

_CONDITION = re.compile(
    r"^\s*(?P<word>where|if|when|whenever|in\s+the\s+case\s+of|in\s+respect\s+of|to\s+the\s+extent(?:\s+that)?|"
    r"in\s+the\s+event(?:\s+that|\s+of)?|once|provided\s+that|unless|except|other\s+than|excluding|subject\s+to|"
    r"notwithstanding|for\s+the\s+purposes?\s+of|for\s+this\s+purpose|prior\s+to|before|after|within|until|"
    r"pursuant\s+to|in\s+accordance\s+with)\b",
    re.IGNORECASE,
)
_DIMENSION = {
    "unless": "exception",
    "except": "exception",
    "other than": "exception",
    "excluding": "exception",
    "subject to": "subject to",
    "notwithstanding": "subject to",
    "pursuant to": "subject to",
    "in accordance with": "subject to",
    "for the purpose of": "purpose",
    "for the purposes of": "purpose",
    "for this purpose": "purpose",
    "prior to": "timing",
    "before": "timing",
    "after": "timing",
    "within": "timing",
    "until": "timing",
}
# Trailing conditions after the act: ", unless ...", " if ...", " where ...".
_TRAILING = re.compile(
    r"(?:,\s*|\s+)(?P<word>unless|if|where|whenever|provided\s+that|in\s+the\s+case\s+of|"
    r"to\s+the\s+extent\s+that)\b",
    re.IGNORECASE,
)
_ASIDE = re.compile(
    r"^\s*(?:and|or|but|then|therefore|thus|also|in\s+particular|however|further|"
    r"accordingly|including|such\s+as|e\.g\.|i\.e\.|as|with|without|by|in|on|at|for|from|to|under)\b",
    re.IGNORECASE,
)
_DETERMINER = re.compile(
    r"^(?:(?:a|an|the|each|every|any|all|such|its|their|this|that|these|those|"
    r"every\s+other|any\s+other)\s+)+",
    re.IGNORECASE,
)
_RELATIVE_TAIL = re.compile(r"\s+(?:that|which|who|whom|whose|where|when)\b.*$", re.IGNORECASE)
_PRONOUNS = frozenset({"it", "he", "she", "they", "its", "him", "them"})
_AGENT = re.compile(
    r"\bby\s+(?:the\s+|a\s+|an\s+|its\s+|each\s+|any\s+)?(?P<agent>[A-Z][\w’'&-]*(?:\s+(?:of\s+|and\s+)?"
    r"[A-Z][\w’'&-]*){0,5})"
)
_AUXILIARIES = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "does",
        "do",
        "did",
        "can",
        "could",
        "will",
        "would",
        "may",
        "must",
        "shall",
        "should",
        "becomes",
    ]
)
_EVIDENCE = re.compile(
    r"\b(?:(?:by\s+notice\s+)?in\s+writing|written\s+(?:approval|consent|notice|justification|confirmation|"
    r"record|agreement|warning|policy|procedures?|report)s?|(?:verified|evidenced|supported|substantiated|certified|"
    r"confirmed|attested)\s+by\s+[^,;.]{2,60}|(?:documentary|written|satisfactory|sufficient|"
    r"adequate|appropriate)\s+evidence(?:\s+of\s+[^,;.]{2,60})?|competent\s+and\s+reliable\s+[^,;.]{2,60})",
    re.IGNORECASE,
)
ACTOR_WORDS = 12
VALUE_CHARS = 200


def _clean(text: str) -> str:
    return " ".join(text.replace("\u200e", "").split()).strip(" ,;:—–-")


def _dimension(word: str) -> str:
    return _DIMENSION.get(" ".join(word.lower().split()), "condition")


_VAGUE = re.compile(
    r"^(?:if|where|when)\s+(?:any|so|applicable|appropriate|necessary|relevant|possible|"
    r"practicable|required)\b",
    re.IGNORECASE,
)


def _pair(word: str, text: str) -> str | None:
    """``dimension: value`` from a condition ``word`` and the text after it; None for a vague one ("if any")."""
    if _VAGUE.match(f"{word} {_clean(text)}"):
        return None
    value = _clean(text).rstrip(".")
    if len(value) > VALUE_CHARS:
        value = value[:VALUE_CHARS].rsplit(" ", 1)[0] + " …"
    return f"{_dimension(word)}: {value}"


def subject_pieces(text: str, clause: Clause) -> tuple[str, list[str]]:
    """The subject of a clause, and the leading or inserted conditions met on the way to it (raw text)."""
    masked = mask(text)
    before = masked[clause.subject_start : clause.modal.start]
    pieces = re.split(r"[,;:—–]", before)
    offsets, at = [], clause.subject_start
    for piece in pieces:
        offsets.append(at)
        at += len(piece) + 1
    subject, conditions = "", []
    for piece, offset in zip(pieces, offsets):
        original = text[offset : offset + len(piece)]
        if _CONDITION.match(piece):
            conditions.append(original)
        elif piece.strip() and not _ASIDE.match(piece):
            subject = original
        elif conditions and piece.strip():
            conditions[-1] += "," + original  # a condition holding a comma ("If X, or Y, the firm must")
    return _clean(re.sub(r"\s*\([^()]*\)", "", subject)), conditions


def actor(text: str, clause: Clause, conditions: list[str], subject_of: Clause | None = None) -> str:
    """Who the clause binds (empty when an agentless passive or an imperative names no one); the subject is
    read before ``subject_of``'s modal (the first clause's, for a clause sharing its subject)."""
    if clause.modal.word == "do not":
        return ""
    rest = text[clause.modal.end :]
    if clause.modal.word.startswith("it is the"):
        named = re.match(r"\s*(.+?)\s+to\s+\w", rest)
        return _tidy(named.group(1)) if named else ""
    if clause.modal.passive:
        agent = _AGENT.search(mask(rest)[:300])
        return _tidy(agent.group("agent")) if agent else ""
    subject, _ = subject_pieces(text, subject_of or clause)
    if subject.lower().startswith("no "):
        subject = subject[3:]
    if subject.lower() in _PRONOUNS:
        for condition in conditions:
            party = _condition_subject(condition)
            if party:
                return party
    return _tidy(subject)


def _condition_subject(condition: str) -> str:
    """The subject of a conditional clause ("where a firm holds ..." -> "firm"), or ""."""
    found = _CONDITION.match(condition)
    words = condition[found.end() :].split() if found else []
    if not words or words[0].lower() not in ("a", "an", "the", "any", "each", "every"):
        return ""
    taken: list[str] = []
    for word in words[1:7]:
        plain = word.strip(",;:()").lower()
        if plain in _AUXILIARIES or (taken and plain.endswith(("s", "ed")) and word[0].islower()):
            break
        taken.append(word.strip(",;:()"))
    return " ".join(taken)


def _tidy(subject: str) -> str:
    subject = _clean(_RELATIVE_TAIL.sub("", _clean(subject)))
    subject = _DETERMINER.sub("", subject)
    words = subject.split()
    return " ".join(words[:ACTOR_WORDS])


def applicability(text: str, clause: Clause, conditions: list[str]) -> list[str]:
    """The clause's conditions as ``dimension: value`` pairs, leading ones first, then trailing ones."""
    pairs: list[str | None] = []
    for condition in conditions:
        found = _CONDITION.match(mask(condition))
        if found:
            pairs.append(_pair(found.group("word"), condition[found.end("word") :]))
    act = text[clause.modal.end : clause.end]
    masked = mask(act)
    insertion = re.match(r"\s*,([^,]+),", masked)
    if insertion and _CONDITION.match(insertion.group(1)):
        found = _CONDITION.match(insertion.group(1))
        assert found is not None
        pairs.append(_pair(found.group("word"), act[insertion.start(1) + found.end("word") : insertion.end(1)]))
    trailing = _TRAILING.search(masked)
    if trailing:
        tail = act[trailing.end("word") :]
        stop = re.search(r"[;]", tail)
        pairs.append(_pair(trailing.group("word"), tail[: stop.start()] if stop else tail))
    return [p for p in dict.fromkeys(pairs) if p and not p.endswith(": ")]


def evidence_standard(text: str) -> str:
    """The evidence standard the clause names, if any ("in writing", "verified by callback")."""
    found = _EVIDENCE.search(text)
    return _clean(found.group()) if found else ""
