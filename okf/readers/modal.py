"""Deontic clauses of a sentence, read from its modal structure: the offline extractor's grammar.

A *main modal* is a modal expression that carries the sentence's force:

- obligation: must, shall, is/are required to, is obliged to, has to, needs to, it is the duty of, is
  responsible for, (a rule) requires that;
- prohibition: must not, shall not, may not, cannot, is not permitted/allowed/entitled to, is prohibited from,
  a positive modal after a "No ..." subject, and a sentence opening with "Do not" or "Never";
- permission: may, is permitted/allowed/entitled to, has the power to, (a rule) permits, and the exemptions
  "does not have to", "need not", "is not required to".

"should", "expects" and "will" bind no one and are not read as rules. A modal is left out when it sits in a
subordinate clause (after "as", "where", "if", "in which", ... with no comma between, or in a relative clause
after the sentence's main modal), when it is epistemic ("may include", "may be relevant"), or when a definition
("means", "shall mean") comes first. Parenthesised text and long quotations are masked before any of this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OBLIGATION, PROHIBITION, PERMISSION = "obligation", "prohibition", "permission"

_PATTERNS: list[tuple[str, str]] = [
    (
        r"(?:does|do|did)\s+not\s+(?:have|need)\s+to|need\s+not|(?:is|are)\s+not\s+(?:required|obliged|obligated)\s+to",
        PERMISSION,
    ),
    (r"(?:must|shall|may)\s+(?:not|never)|cannot|can\s+not", PROHIBITION),
    (
        r"(?:is|are)\s+(?:not\s+(?:permitted|allowed|entitled|authori[sz]ed)\s+to|prohibited\s+from|forbidden\s+(?:to|from))",
        PROHIBITION,
    ),
    (r"(?:will\s+be|is|are|be|been|being)\s+(?:required|obliged|obligated)\s+to", OBLIGATION),
    (r"it\s+is\s+the\s+(?:duty|responsibility|obligation)\s+of", OBLIGATION),
    (r"(?:is|are|remains?)\s+responsible\s+for", OBLIGATION),
    (r"(?:has|have)\s+to|(?:would\s+|will\s+)?(?:needs?)\s+to", OBLIGATION),
    (r"requires?\s+that", OBLIGATION),
    (r"must|shall", OBLIGATION),
    (r"(?:is|are)\s+(?:permitted|allowed|entitled|authori[sz]ed)\s+to", PERMISSION),
    (r"(?:has|have)\s+(?:a|the)\s+(?:general\s+)?power\s+to", PERMISSION),
    (r"permits", PERMISSION),
    (r"may", PERMISSION),
]
_MODAL = re.compile("|".join(f"(?P<m{i}>\\b(?:{p})\\b)" for i, (p, _) in enumerate(_PATTERNS)), re.IGNORECASE)
_IMPERATIVE = re.compile(r"^(?:do\s+not|don['’]t|never)\s+[a-z]", re.IGNORECASE)
# Modals a rule instrument speaks with ("Rule 11.8.3(5) requires that", "COBS Rule 22.2 permits").
_INSTRUMENT = re.compile(
    r"\b(?:rules?|regulations?|sections?|parts?|chapters?|polic(?:y|ies)|law|act|"
    r"standards?|guidance)\b",
    re.IGNORECASE,
)
_ADVERBIAL = re.compile(
    r"\b(?:where|if|when|whenever|unless|whether|than|until|because|since|although|though|while|once|what|how|"
    r"so\s+that|such\s+that|(?:in|to|by|under|for|of|on|at|from|with|through)\s+(?:which|whom))\b"
    r"|(?<!such )(?<!acting )(?<!serving )(?<!known )(?<!well )(?<!so )(?<!defined )\bas\b(?!\s+well)",
    re.IGNORECASE,
)
_RELATIVE = re.compile(r"\b(?:that|which|who|whom|whose)\b", re.IGNORECASE)
_FINITE = re.compile(r"\b(?:is|are|was|were|has|have|had|does|do|did|will|would|can|could)\b", re.IGNORECASE)
_RELATIVE_SUBJECT = re.compile(r"\b(?:that|which|who)\s*$", re.IGNORECASE)  # "who may approve"
_DEFINITION = re.compile(r"\b(?:means|shall\s+mean|refers\s+to|is\s+defined\s+as|are\s+defined\s+as)\b", re.IGNORECASE)
_SKIP_AFTER = re.compile(
    r"^(?:\s+(?:also|only|then|therefore|still|further|additionally|in\s+particular|"
    r"at\s+any\s+time|not|reasonably|generally|nevertheless|however))+",
    re.IGNORECASE,
)
_EPISTEMIC = frozenset(
    [
        "include",
        "includes",
        "including",
        "have",
        "has",
        "need",
        "result",
        "arise",
        "affect",
        "cause",
        "lead",
        "vary",
        "differ",
        "occur",
        "contain",
        "become",
        "involve",
        "reflect",
        "indicate",
        "suggest",
        "mean",
        "seem",
        "appear",
        "depend",
        "well",
        "likely",
        "help",
        "exist",
        "fall",
        "happen",
        "prove",
        "impact",
        "constitute",
        "amount",
        "want",
        "wish",
        "find",
        "relate",
        "pose",
        "create",
    ]
)
# "may be expected to": a passive that states a likelihood, not a permission.
_EPISTEMIC_PASSIVE = frozenset(
    ["expected", "anticipated", "assumed", "seen", "thought", "said", "deemed", "considered", "regarded"]
)
_PARTICIPLES = frozenset(
    [
        "given",
        "made",
        "done",
        "held",
        "paid",
        "sold",
        "taken",
        "shown",
        "known",
        "brought",
        "kept",
        "sent",
        "set",
        "put",
        "met",
        "granted",
        "built",
        "bought",
        "chosen",
        "drawn",
        "driven",
        "eaten",
        "fallen",
        "felt",
        "found",
        "forgiven",
        "gotten",
        "hidden",
        "hit",
        "hurt",
        "laid",
        "led",
        "left",
        "lent",
        "let",
        "lost",
        "meant",
        "read",
        "ridden",
        "run",
        "said",
        "seen",
        "sought",
        "shut",
        "spent",
        "spoken",
        "stood",
        "struck",
        "sworn",
        "thought",
        "told",
        "understood",
        "withdrawn",
        "won",
        "written",
        "borne",
        "begun",
        "bound",
        "cast",
        "cut",
        "dealt",
        "undertaken",
        "overseen",
        "withheld",
    ]
)
_COORDINATION = re.compile(r"(?:,?\s*\b(?:and|or|but)\b\s*|;\s*(?:\b(?:and|or|but)\b\s*)?)", re.IGNORECASE)
_PAREN = re.compile(r"\([^()]*\)")
_QUOTE = re.compile(r"[“\"][^”\"]{80,}[”\"]")


@dataclass(frozen=True)
class Modal:
    """A main modal of a sentence: where it stands in the text, its deontic type, and whether it is passive."""

    start: int
    end: int
    kind: str
    word: str
    passive: bool


def mask(text: str) -> str:
    """``text`` with parenthesised text and long quotations blanked (same length, so offsets stay valid)."""
    masked = text
    for _ in range(3):  # nested parentheses, innermost first
        masked = _PAREN.sub(lambda m: " " * len(m.group()), masked)
    return _QUOTE.sub(lambda m: " " * len(m.group()), masked)


def _after(text: str, end: int) -> tuple[str, int]:
    """The first word after a modal ending at ``end`` (adverbs and a comma insertion skipped) and its offset."""
    rest = text[end:]
    skipped = _SKIP_AFTER.match(rest)
    offset = end + (skipped.end() if skipped else 0)
    rest = text[offset:]
    if rest.lstrip().startswith(","):
        close = rest.find(",", rest.find(",") + 1)
        if close > 0:
            offset += close + 1
            rest = text[offset:]
    word = re.match(r"\s*([A-Za-z’']+)", rest)
    return (word.group(1).lower(), offset + word.end()) if word else ("", offset)


def _participle(word: str) -> bool:
    return word.endswith("ed") or word in _PARTICIPLES


def _epistemic(text: str, end: int) -> bool | None:
    """For may/cannot: True when epistemic ("may include", "may be relevant"); else whether it is passive."""
    word, offset = _after(text, end)
    if word in _EPISTEMIC:
        return True
    if word == "be":
        following, _ = _after(text, offset)
        return not _participle(following) or following in _EPISTEMIC_PASSIVE
    return False


def _passive(text: str, end: int) -> bool:
    word, offset = _after(text, end)
    return word == "be" and _participle(_after(text, offset)[0])


def _boundary(masked: str, start: int) -> int:
    """Where the clause holding offset ``start`` begins: after the last comma, semicolon, colon or dash."""
    cut = max(masked.rfind(ch, 0, start) for ch in ",;:—–")
    return cut + 1


def main_modals(sentence: str, masked: str | None = None) -> list[Modal]:
    """The main modals of ``sentence`` in order (subordinate, epistemic and definitional ones left out)."""
    masked = mask(sentence) if masked is None else masked
    found: list[Modal] = []
    last_end = -1  # end of the last modal expression met, kept or not
    imperative = _IMPERATIVE.match(masked.lstrip())
    if imperative:
        lead = len(masked) - len(masked.lstrip())
        found.append(Modal(lead, lead + imperative.end() - 1, PROHIBITION, "do not", False))
        last_end = found[-1].end
    for match in _MODAL.finditer(masked):
        kind = _PATTERNS[int(next(k for k, v in match.groupdict().items() if v)[1:])][1]
        word = " ".join(match.group().lower().split())
        near = last_end >= 0 and match.start() >= last_end and len(masked[last_end : match.start()].split()) <= 2
        last = last_end
        last_end = match.end()
        if near or match.start() < last:
            continue  # "may be required to": one verb group, read by its first modal
        prefix = masked[_boundary(masked, match.start()) : match.start()]
        if _DEFINITION.search(masked[: match.start()]):
            return found
        adverbial = _ADVERBIAL.search(prefix)
        if adverbial and not found and _FINITE.search(prefix[adverbial.end() :]):
            adverbial = None  # "The exchange on which the securities are admitted must": its clause has a verb
        if adverbial or _RELATIVE_SUBJECT.search(prefix) or (found and _RELATIVE.search(prefix)):
            continue
        if word in ("may", "cannot", "can not", "may not") and _epistemic(masked, match.end()):
            continue
        if word in ("requires that", "require that", "permits") and not _INSTRUMENT.search(prefix):
            continue
        if word.endswith(("need to", "needs to")) and re.search(
            r"\b(?:may|the|a|an|any|no|its|their|our|this|that)\s*$", masked[: match.start()], re.IGNORECASE
        ):
            continue  # "may need to" is epistemic; "the need to" is a noun
        subject = masked[_boundary(masked, match.start()) : match.start()].strip().lower()
        if kind != PROHIBITION and re.match(r"^no\s+\w", subject):
            kind = PROHIBITION
        found.append(Modal(match.start(), match.end(), kind, word, _passive(masked, match.end())))
    return found


@dataclass(frozen=True)
class Clause:
    """One deontic clause of a sentence: its modal, the text it spans, and its own subject (may be empty)."""

    modal: Modal
    start: int  # where the clause's subject begins ("" subject: the modal itself)
    end: int
    subject_start: int
    shared_subject: bool


def clauses(sentence: str, masked: str | None = None) -> list[Clause]:
    """The deontic clauses of a sentence; clauses joined by "or" with a shared subject stay one rule."""
    masked = mask(sentence) if masked is None else masked
    modals = main_modals(sentence, masked)
    out: list[Clause] = []
    for i, modal in enumerate(modals):
        if i == 0:
            start = masked.rfind(";", 0, modal.start) + 1  # "A; B must": the rule is B's
            start += len(masked[start:]) - len(masked[start:].lstrip())
            out.append(Clause(modal, start, len(sentence), start, False))
            continue
        previous = out[-1]
        between = masked[modals[i - 1].end : modal.start]
        joints = list(_COORDINATION.finditer(between))
        if not joints:
            commas = between.rfind(",")
            if commas < 0:
                continue  # no joint: the modal belongs to the clause before
            joint_end = modals[i - 1].end + commas + 1
            joint_word = ","
        else:
            joint = joints[-1]
            joint_end = modals[i - 1].end + joint.end()
            joint_word = joint.group().strip(" ,;").lower()
        own_subject = masked[joint_end : modal.start].strip()
        if joint_word == "or" and not own_subject:
            continue  # "may limit ... or may dispense with": alternatives of one rule
        joint_start = modals[i - 1].end + (joints[-1].start() if joints else between.rfind(","))
        out[-1] = Clause(previous.modal, previous.start, joint_start, previous.subject_start, previous.shared_subject)
        out.append(Clause(modal, joint_end, len(sentence), joint_end, not own_subject))
    return out
