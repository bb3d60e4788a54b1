"""The wire format of the planner and of the angle-aware judge: payloads okf sends, validation of replies.

Like :mod:`okf.readers.replies`, a reply that fails validation raises :class:`~okf.errors.ModelOutputError`
with a message written for the model (shown verbatim in the repair retry). Validated: the JSON shape, texts
(non-empty, at most :data:`~okf.readers.planning.ANGLE_CHARS`), the number of parts, indices (documents and
angles offered). Not validated: an angle's origin (an unknown one is read as ``rephrasing``) and duplicate
angles, which the orchestrator drops in code and records.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from okf.errors import ModelOutputError
from okf.readers.base import Choice, Document, SignpostOffer, Verdict
from okf.readers.planning import (
    ANGLE_CHARS,
    MAX_ANGLES,
    MAX_PARTS,
    PLANNED_ORIGINS,
    PlanHints,
    PlannedAngle,
    PlannedPart,
)
from okf.readers.replies import GRADES, _index, _reason, extract_json, parse_selection, parse_verdicts, select_payload


def _dump(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=1)


def _checked_text(value: Any, where: str, empty: str, what: str) -> tuple[str, str | None]:
    """A question's or an angle's text and None, or ("", why it cannot be one) (``where``: the part; ``empty``:
    the message for no text; ``what``: its name in the message for a long one)."""
    if not isinstance(value, str) or not value.strip():
        return "", f"{where}: {empty}"
    if len(value) > ANGLE_CHARS:
        return "", f"{where}: {what} is longer than {ANGLE_CHARS} characters"
    return value, None


def _angle_indices(listed: Any, angles: Sequence[str], where: str, key: str) -> tuple[list[int] | None, list[str]]:
    """The angle indices of a reply's ``key`` list, with a problem per index not offered; (None, [problem])
    when it is not a list (``where`` names the item in the messages)."""
    if not isinstance(listed, list):
        return None, [f'{where}: "{key}" must be a list of angle indices']
    picked: list[int] = []
    bad: list[str] = []
    for raw in listed:
        k = _index(raw)
        if k is None or not 0 <= k < len(angles):
            bad.append(f"{where}: angle {json.dumps(raw)} was not offered (valid: 0..{len(angles) - 1})")
        else:
            picked.append(k)
    return picked, bad


def plan_payload(question: str, count: int | None, hints: PlanHints) -> str:
    """The planner's user message."""
    return _dump(
        {
            "task": "plan",
            "question": question,
            "angles_per_part": count,
            "bundle_vocabulary": {"acronyms": hints.acronyms, "terms": hints.terms},
        }
    )


def parse_plan(text: str) -> list[PlannedPart]:
    """Parts with angles from a planner reply; the part's own question is its first angle when the reply
    leaves it out. At most MAX_PARTS parts and MAX_ANGLES angles each are read."""
    obj = extract_json(text, "planner")
    parts = obj.get("parts")
    if not isinstance(parts, list) or not parts:
        raise ModelOutputError('the JSON object must have a non-empty "parts" list', raw=text, role="planner")
    if len(parts) > MAX_PARTS:
        raise ModelOutputError(f"{len(parts)} parts: give at most {MAX_PARTS}", raw=text, role="planner")
    out: list[PlannedPart] = []
    problems: list[str] = []
    for n, part in enumerate(parts):
        question, problem = _checked_text(
            part.get("question") if isinstance(part, dict) else None,
            f"part {n}",
            '"question" must be a non-empty string',
            "the question",
        )
        if problem:
            problems.append(problem)
            continue
        angles = part.get("angles", [])
        if not isinstance(angles, list):
            problems.append(f'part {n}: "angles" must be a list')
            continue
        read: list[PlannedAngle] = []
        for item in angles[:MAX_ANGLES]:
            missing = f'an angle has no "text": {json.dumps(item)[:60]}'
            angle, problem = _checked_text(
                item.get("text") if isinstance(item, dict) else item, f"part {n}", missing, "an angle"
            )
            if problem:
                problems.append(problem)
                continue
            origin = str(item.get("origin", "")).strip().lower() if isinstance(item, dict) else ""
            read.append(
                PlannedAngle.model_validate(
                    {"text": " ".join(angle.split()), "origin": origin if origin in PLANNED_ORIGINS else "rephrasing"}
                )
            )
        question = " ".join(question.split())
        if not any(a.text == question for a in read):
            read.insert(0, PlannedAngle(text=question, origin="question" if len(parts) == 1 else "subquestion"))
        out.append(PlannedPart(question=question, angles=read[:MAX_ANGLES]))
    if problems:
        raise ModelOutputError("; ".join(problems), raw=text, role="planner")
    return out


def judge_angles_payload(question: str, angles: Sequence[str], documents: Sequence[Document]) -> str:
    """The angle-aware judge's user message: angles and documents indexed by position."""
    return _dump(
        {
            "task": "judge",
            "question": question,
            "angles": [{"index": i, "text": a} for i, a in enumerate(angles)],
            "documents": [
                {"index": i, "id": d.id, "title": d.title, "headings": d.headings, "text": d.text}
                for i, d in enumerate(documents)
            ],
        }
    )


def parse_angle_verdicts(text: str, angles: Sequence[str], documents: Sequence[Document]) -> list[Verdict]:
    """One verdict per document (as :func:`~okf.readers.replies.parse_verdicts`) with ``answers``: the angle
    indices a relevant document states the answer to (none listed: the question itself, index 0). An index
    not offered makes the reply invalid."""
    verdicts = parse_verdicts(text, documents)
    items = extract_json(text, "judge").get("verdicts") or []
    by_id = {d.id: i for i, d in enumerate(documents)}
    answers: dict[int, list[int]] = {}
    bad: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        index = _index(item.get("index"))
        if index is None and isinstance(item.get("id"), str):
            index = by_id.get(item["id"])
        picked, problems = _angle_indices(item.get("answers", []), angles, f"index {index}", "answers")
        bad += problems
        if picked is None:
            continue
        if index is not None:
            answers[index] = sorted(set(picked))
    if bad:
        raise ModelOutputError("; ".join(bad), raw=text, role="judge")
    out = []
    for i, verdict in enumerate(verdicts):
        listed = answers.get(i, [])
        relevant = verdict.grade == "relevant"
        out.append(verdict.model_copy(update={"answers": (listed or [0]) if relevant else []}))
    return out


def select_angles_payload(question: str, angles: Sequence[str], signposts: Sequence[SignpostOffer]) -> str:
    """The angle-aware selector's user message: the select payload with the angles."""
    payload = json.loads(select_payload(question, signposts))
    payload["angles"] = [{"index": i, "text": a} for i, a in enumerate(angles)]
    return _dump(
        {"task": "select", "question": question, "angles": payload["angles"], "signposts": payload["signposts"]}
    )


def parse_angle_selection(text: str, angles: Sequence[str], signposts: Sequence[SignpostOffer]) -> list[list[Choice]]:
    """For each angle, its kept signposts: a kept signpost listing no angle is kept for every angle. An index
    (signpost or angle) not offered makes the reply invalid."""
    choices = parse_selection(text, signposts)
    items = extract_json(text, "selector").get("keep") or []
    listed: dict[int, list[int]] = {}
    bad: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        index = _index(item.get("index"))
        picked, problems = _angle_indices(item.get("angles", []), angles, f"signpost {index}", "angles")
        bad += problems
        if picked is None:
            continue
        if index is not None and index not in listed:
            listed[index] = picked
    if bad:
        raise ModelOutputError("; ".join(bad), raw=text, role="selector")
    kept: list[list[Choice]] = [[] for _ in angles]
    for choice in choices:
        for k in listed.get(choice.index) or range(len(angles)):
            kept[k].append(choice)
    return kept


__all__ = [
    "GRADES",
    "_reason",
    "judge_angles_payload",
    "parse_angle_selection",
    "parse_angle_verdicts",
    "parse_plan",
    "plan_payload",
    "select_angles_payload",
]
