"""The offline extractor: the operative rules of a section, read from the modal structure of its sentences.

Each sentence gives one rule per deontic clause (:mod:`okf.readers.modal`). A sentence ending in ":" or a dash
whose last clause is deontic leads a list: the list gives one rule per top-level item when its items are
cumulative acts or contents ("must: (a) ...; (b) ...; and (c) ..."), and one rule for the whole list when
they are alternatives ("; or"), conditions ("may ... if:"), examples ("such as:") or qualifiers ("conduct— (a)
for the purpose of ..."). Nested items belong to their item. Deterministic: no model, no randomness.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from okf.readers.extraction import RuleDraft, RuleStub, Section
from okf.readers.layout import Sentence, Unit, marker_style, units
from okf.readers.modal import Clause, clauses, mask
from okf.readers.rule_fields import actor, applicability, evidence_standard, subject_pieces

# Names the grammar below in the extraction cache's keys: change it when the rules read change.
GRAMMAR_VERSION = "modal.1"
# A list's requirement text is cut to this many characters (the citation keeps the whole span).
LIST_TEXT_CHARS = 700
_LEAD_END = re.compile(r"[:—–]\s*$|\s-\s*$")
_LIST_CONDITION = re.compile(r"\b(?:if|unless|where|provided\s+that|when|whenever|except)\b", re.IGNORECASE)
_LIST_EXAMPLES = re.compile(
    r"\b(?:such\s+as|including|include|includes|for\s+example|e\.g\.)\s*[:—–-]?\s*$", re.IGNORECASE
)
_VERB = re.compile(r"\b(?:be|is|are|was|were|been|being|has|have|had|must|shall|may|will|do|does)\b", re.IGNORECASE)
_QUALIFIER = re.compile(
    r"^\s*(?:for|in|with|by|on|at|from|under|whether|where|if|when|so\s+as|so|as|to\s+the\s+"
    r"extent|without|within|unless|during|after|before|subject\s+to)\b",
    re.IGNORECASE,
)
_TRAILING_JOIN = re.compile(r"(?:[;,]\s*|\s+)(?:and|or)\s*$|[;,:.]\s*$", re.IGNORECASE)


def _tidy(text: str) -> str:
    """One clean sentence: whitespace collapsed, trailing joints dropped, a full stop at the end."""
    text = " ".join(text.replace("\u200e", "").split())
    for _ in range(3):
        text = _TRAILING_JOIN.sub("", text).strip(" —–-")
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    return text + "." if text and text[-1] not in ".!?" else text


class _Builder:
    """Rules of one section, in reading order; remembers the last named actor to resolve pronouns."""

    def __init__(self) -> None:
        self.rules: list[RuleDraft] = []
        self.last_actor = ""

    def add(self, text: str, kind: str, who: str, where: list[str], evidence: str, start: int, end: int) -> None:
        if who.lower() in ("it", "he", "she", "they") and self.last_actor:
            who = self.last_actor
        elif who:
            self.last_actor = who
        draft = RuleDraft(
            requirement_text=_tidy(text),
            deontic_type=kind,
            actor=who,
            applicability=where,
            evidence_standard=evidence,
            start_line=start,
            end_line=end,
        )
        if draft.requirement_text and all(
            (r.requirement_text, r.start_line) != (draft.requirement_text, draft.start_line) for r in self.rules
        ):
            self.rules.append(draft)

    def sentence(self, sentence: Sentence, found: Sequence[Clause] | None = None) -> None:
        """One rule per deontic clause of a sentence."""
        text = sentence.text
        found = clauses(text) if found is None else found
        for clause in found:
            head = found[0]
            lead = head if clause.shared_subject else clause
            _, conditions = subject_pieces(text, lead)
            own = text[clause.start : clause.end]
            if clause.shared_subject:
                own = text[head.start : head.modal.start] + text[clause.modal.start : clause.end]
            who = actor(text, clause, conditions, subject_of=lead)
            self.add(
                own,
                clause.modal.kind,
                who,
                applicability(text, clause, conditions),
                evidence_standard(text[clause.start : clause.end]),
                sentence.start_line,
                sentence.end_line,
            )

    def listing(self, lead: Sentence, found: Sequence[Clause], items: list[list[Unit]]) -> None:
        """The rules of a list led by a deontic sentence."""
        self.sentence(lead, found[:-1])
        governing = found[-1]
        text = lead.text
        head = found[0]
        stem = text[governing.start :]
        if governing.shared_subject:
            stem = text[head.start : head.modal.start] + text[governing.modal.start :]
        stem = re.sub(r"[:—–]\s*$|\s-\s*$", "", stem.rstrip())
        lead_clause = head if governing.shared_subject else governing
        _, conditions = subject_pieces(text, lead_clause)
        who = actor(text, governing, conditions, subject_of=lead_clause)
        where = applicability(text, governing, conditions)
        tail = mask(text[governing.modal.end :])
        tops = [group[0] for group in items]
        endings = [t.text.rstrip(" .;,").lower() for t in tops[:-1]]
        single = (
            _conditions_list(tail)
            or bool(_LIST_EXAMPLES.search(tail))
            or any(e.endswith(" or") or e == "or" for e in endings)
            or all(_QUALIFIER.match(t.text) for t in tops)
        )
        if single:
            body = " ".join(f"{u.marker} {u.text}" for group in items for u in group)
            joined = f"{stem} {body}"
            if len(joined) > LIST_TEXT_CHARS:
                joined = joined[:LIST_TEXT_CHARS].rsplit(" ", 1)[0] + " …"
            self.add(
                joined,
                governing.modal.kind,
                who,
                where,
                evidence_standard(f"{stem} {body}"),
                lead.start_line,
                items[-1][-1].last_line,
            )
            return
        for group in items:
            item = group[0]
            sentences = item.sentences()
            first = sentences[0]
            own = clauses(first.text)
            if own:
                self.sentence(first, own)
            else:
                end = group[-1].last_line if len(sentences) == 1 else first.end_line
                self.add(
                    f"{stem} {first.text}",
                    governing.modal.kind,
                    who,
                    where,
                    evidence_standard(f"{stem} {first.text}"),
                    item.first_line,
                    end,
                )
            for later in sentences[1:]:
                self.sentence(later)


def _conditions_list(tail: str) -> bool:
    """The list completes a condition ("may ... if:", "unless it is satisfied that—", "if, before X, the
    firm:"), rather than following a finished one ("where X is Y, the following must be satisfied:")."""
    found = list(_LIST_CONDITION.finditer(tail))
    if not found:
        return False
    after = tail[found[-1].end() :]
    if "," not in after.strip(" ,"):
        return True
    return not _VERB.search(after.rstrip(" ,").rsplit(",", 1)[-1])


def _list_items(layout: list[Unit], start: int) -> list[list[Unit]]:
    """The items after ``layout[start]``, grouped under their top-level items; stops at an item of another
    style that states a rule of its own (a new numbered paragraph, not a sub-item)."""
    groups: list[list[Unit]] = []
    top_style = ""
    top_indent = 0
    for unit in layout[start + 1 :]:
        if unit.kind != "item":
            break
        style = marker_style(unit.marker, top_style)
        if not groups:
            top_style, top_indent = style, unit.indent
            groups.append([unit])
        elif style == top_style and unit.indent <= top_indent:
            groups.append([unit])
        elif unit.indent <= top_indent and any(clauses(s.text) for s in unit.sentences()):
            break
        else:
            groups[-1].append(unit)
    return groups


def read_rules(section: Section) -> list[RuleDraft]:
    """Every operative rule of ``section`` with its fields, in reading order."""
    layout = units(section.text, section.first_line)
    builder = _Builder()
    index = 0
    while index < len(layout):
        unit = layout[index]
        sentences = unit.sentences()
        lead = sentences[-1] if sentences else None
        found = clauses(lead.text) if lead is not None and _LEAD_END.search(lead.text) else []
        items = _list_items(layout, index) if found else []
        for sentence in sentences[:-1] if items else sentences:
            builder.sentence(sentence)
        if items and lead is not None:
            builder.listing(lead, found, items)
            index += 1 + sum(len(group) for group in items)
            continue
        index += 1
    return builder.rules


def outline_rules(rules: Sequence[RuleDraft]) -> list[RuleStub]:
    """The skeleton of a section's rules (from :func:`read_rules`): sentences and lines, fields left out."""
    return [
        RuleStub(index=i, requirement_text=r.requirement_text, start_line=r.start_line, end_line=r.end_line)
        for i, r in enumerate(rules)
    ]


def fill_rules(section: Section, stubs: Sequence[RuleStub], rules: Sequence[RuleDraft]) -> list[RuleDraft]:
    """The fields of each stub: those of the same rule of ``rules`` (the section's, from :func:`read_rules`),
    else read from the stub's own text."""
    known = {(r.requirement_text, r.start_line, r.end_line): r for r in rules}
    out: list[RuleDraft] = []
    for stub in stubs:
        draft = known.get((stub.requirement_text, stub.start_line, stub.end_line))
        if draft is None:
            own = read_rules(
                Section(
                    id=section.id,
                    title=section.title,
                    text=stub.requirement_text,
                    first_line=stub.start_line,
                    sha256="",
                )
            )
            fields = own[0] if own else None
            draft = RuleDraft(
                requirement_text=stub.requirement_text,
                deontic_type=fields.deontic_type if fields else "",
                actor=fields.actor if fields else "",
                applicability=fields.applicability if fields else [],
                evidence_standard=fields.evidence_standard if fields else "",
                start_line=stub.start_line,
                end_line=stub.end_line,
            )
        out.append(draft)
    return out
