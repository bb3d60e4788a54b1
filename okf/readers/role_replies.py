"""The wire format of the extractor and assessor roles: payloads okf sends and validation of the replies.

Like :mod:`okf.readers.replies`, a reply that fails validation raises :class:`~okf.errors.ModelOutputError`
with a message written for the model (it is shown verbatim in the repair retry). What is validated: the JSON
shape, line numbers (only lines offered), indices (each offered index exactly once), types. What is *not*:
the deontic type and the verdict, which may be any string: okf closes those vocabularies in code, so an
off-vocabulary word becomes ``ambiguous`` or ``needs_review`` rather than a repair.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from okf.errors import ModelOutputError
from okf.readers.assessment import ApplicabilityDecision, Assessment, RequirementOffer, SubjectText
from okf.readers.extraction import RuleDraft, RuleStub, Section
from okf.readers.replies import extract_json

REASON_CHARS = 300
TEXT_CHARS = 1200
FIELD_CHARS = 300
MAX_RULES = 300  # rules kept from one reply; a section stating more is extracted in outline/fill batches


def _dump(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=1)


def numbered(lines: Sequence[str], first: int) -> str:
    """Lines as ``"<n> | text"``, numbered from ``first``."""
    return "\n".join(f"{first + i} | {line}" for i, line in enumerate(lines))


def _section(section: Section) -> dict[str, Any]:
    return {
        "id": section.id,
        "title": section.title,
        "first_line": section.first_line,
        "last_line": section.last_line,
        "text": numbered(section.lines, section.first_line),
    }


def extract_payload(section: Section, task: str) -> str:
    """The extractor's user message for ``extract`` or ``outline``."""
    return _dump({"task": task, "section": _section(section)})


def fill_payload(section: Section, stubs: Sequence[RuleStub]) -> str:
    """The extractor's user message for ``fill``."""
    rules = [
        {"index": s.index, "requirement_text": s.requirement_text, "lines": [s.start_line, s.end_line]} for s in stubs
    ]
    return _dump({"task": "fill", "section": _section(section), "rules": rules})


def _subject(subject: SubjectText) -> dict[str, Any]:
    return {"name": subject.name, "text": numbered(subject.lines, 1)}


def applies_payload(subject: SubjectText, question: str, offers: Sequence[RequirementOffer]) -> str:
    """The assessor's user message for ``applies``."""
    return _dump(
        {
            "task": "applies",
            "question": question,
            "subject": _subject(subject),
            "requirements": [o.model_dump() for o in offers],
        }
    )


def assess_payload(subject: SubjectText, offer: RequirementOffer) -> str:
    """The assessor's user message for ``assess``."""
    requirement = offer.model_dump(exclude={"index"})
    return _dump({"task": "assess", "question": "", "subject": _subject(subject), "requirement": requirement})


# --- validation ------------------------------------------------------------------------------------------


def _text(value: Any, limit: int = FIELD_CHARS) -> str:
    return " ".join(str(value).split())[:limit] if isinstance(value, (str, int, float)) else ""


def _lines(value: Any, first: int, last: int, where: str) -> tuple[int, int]:
    """``[a, b]`` (or a single line) within ``first..last``; a ModelOutputError message otherwise."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value, value]
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise ValueError(f'{where}: "lines" must be [first, last] line numbers')
    start, end = value
    if not first <= start <= end <= last:
        raise ValueError(f"{where}: lines {json.dumps(value)} are not within the lines shown ({first}..{last})")
    return start, end


def _strings(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f'{where}: "applicability" must be a list of "dimension: value" strings')
    return [_text(v) for v in value if v.strip()]


def _fields(item: dict[str, Any], where: str) -> dict[str, Any]:
    return {
        "deontic_type": _text(item.get("deontic_type") or ""),
        "actor": _text(item.get("actor") or ""),
        "applicability": _strings(item.get("applicability"), where),
        "evidence_standard": _text(item.get("evidence_standard") or ""),
    }


def _items(text: str, key: str, role: str) -> list[Any]:
    obj = extract_json(text, role)
    items = obj.get(key)
    if not isinstance(items, list):
        raise ModelOutputError(f'the JSON object must have a "{key}" list', raw=text, role=role)
    return items


def _problems(problems: list[str], text: str, role: str, hint: str) -> None:
    if problems:
        shown = "; ".join(problems[:6]) + (f"; and {len(problems) - 6} more" if len(problems) > 6 else "")
        raise ModelOutputError(f"{shown} ({hint})", raw=text, role=role)


def parse_rules(text: str, section: Section) -> list[RuleDraft]:
    """The rules of an ``extract`` reply: texts non-empty, lines within the section."""
    out: list[RuleDraft] = []
    problems: list[str] = []
    for n, item in enumerate(_items(text, "requirements", "extractor")[:MAX_RULES]):
        where = f"requirement {n}"
        try:
            if not isinstance(item, dict):
                raise ValueError(f"{where} is not an object")
            sentence = _text(item.get("requirement_text"), TEXT_CHARS)
            if not sentence:
                raise ValueError(f'{where}: "requirement_text" must be a non-empty string')
            start, end = _lines(item.get("lines"), section.first_line, section.last_line, where)
            out.append(RuleDraft(requirement_text=sentence, start_line=start, end_line=end, **_fields(item, where)))
        except ValueError as exc:
            problems.append(str(exc))
    _problems(problems, text, "extractor", "give every rule its sentence and lines shown in the section")
    return out


def parse_stubs(text: str, section: Section) -> list[RuleStub]:
    """The rules of an ``outline`` reply, numbered in reply order."""
    out: list[RuleStub] = []
    problems: list[str] = []
    for n, item in enumerate(_items(text, "rules", "extractor")[:MAX_RULES]):
        where = f"rule {n}"
        try:
            if not isinstance(item, dict):
                raise ValueError(f"{where} is not an object")
            sentence = _text(item.get("requirement_text"), TEXT_CHARS)
            if not sentence:
                raise ValueError(f'{where}: "requirement_text" must be a non-empty string')
            start, end = _lines(item.get("lines"), section.first_line, section.last_line, where)
            out.append(RuleStub(index=len(out), requirement_text=sentence, start_line=start, end_line=end))
        except ValueError as exc:
            problems.append(str(exc))
    _problems(problems, text, "extractor", "give every rule its sentence and lines shown in the section")
    return out


def _index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _one_per_index(items: list[Any], indices: Sequence[int], what: str) -> tuple[dict[int, dict[str, Any]], list[str]]:
    offered = set(indices)
    found: dict[int, dict[str, Any]] = {}
    problems: list[str] = []
    for item in items:
        index = _index(item.get("index")) if isinstance(item, dict) else None
        if not isinstance(item, dict) or index is None or index not in offered:
            shown = json.dumps(item.get("index") if isinstance(item, dict) else item)[:40]
            problems.append(f"a {what} names no offered index: {shown}")
        elif index in found:
            problems.append(f"two {what}s for index {index}")
        else:
            found[index] = item
    missing = [str(i) for i in indices if i not in found]
    if missing and not problems:
        problems.append(f"no {what} for index {', '.join(missing)}")
    return found, problems


def parse_fill(text: str, section: Section, stubs: Sequence[RuleStub]) -> list[RuleDraft]:
    """One filled rule per stub, in stub order; every stub index exactly once."""
    found, problems = _one_per_index(_items(text, "requirements", "extractor"), [s.index for s in stubs], "rule")
    out: list[RuleDraft] = []
    for stub in stubs:
        item = found.get(stub.index)
        if item is None:
            continue
        try:
            out.append(
                RuleDraft(
                    requirement_text=stub.requirement_text,
                    start_line=stub.start_line,
                    end_line=stub.end_line,
                    **_fields(item, f"index {stub.index}"),
                )
            )
        except ValueError as exc:
            problems.append(str(exc))
    _problems(problems, text, "extractor", f"give exactly one entry for each of the {len(stubs)} rules")
    return out


def parse_decisions(text: str, offers: Sequence[RequirementOffer]) -> list[ApplicabilityDecision]:
    """One applicability decision per offered requirement, in offer order."""
    found, problems = _one_per_index(_items(text, "decisions", "assessor"), [o.index for o in offers], "decision")
    out: list[ApplicabilityDecision] = []
    for offer in offers:
        item = found.get(offer.index)
        if item is None:
            continue
        if not isinstance(item.get("applies"), bool):
            problems.append(f'index {offer.index}: "applies" must be true or false')
            continue
        out.append(
            ApplicabilityDecision(id=offer.id, applies=item["applies"], reason=_text(item.get("reason"), REASON_CHARS))
        )
    _problems(problems, text, "assessor", f"give exactly one decision for each of the {len(offers)} requirements")
    return out


def parse_assessment(text: str, subject: SubjectText) -> Assessment:
    """An assessment: the verdict kept as given (closed in code), lines within the subject, confidence a number."""
    obj = extract_json(text, "assessor")
    problems: list[str] = []
    start = end = None
    if obj.get("lines") is not None:
        try:
            start, end = _lines(obj.get("lines"), 1, subject.line_count, "the verdict")
        except ValueError as exc:
            problems.append(str(exc))
    confidence = obj.get("confidence")
    if confidence is not None and (
        isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not math.isfinite(confidence)
    ):
        problems.append('"confidence" must be a number between 0 and 1')
        confidence = None
    _problems(problems, text, "assessor", "follow the reply format of the instructions")
    verdict = obj.get("verdict")
    return Assessment(
        verdict=verdict if isinstance(verdict, str) else None,
        rationale=_text(obj.get("rationale"), REASON_CHARS),
        confidence=None if confidence is None else min(1.0, max(0.0, float(confidence))),
        start_line=start,
        end_line=end,
    )
