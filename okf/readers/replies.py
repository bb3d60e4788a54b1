"""The wire format of a model conversation: versioned prompts, the JSON payloads okf sends, and the tolerant
extraction and strict validation of the JSON objects models send back.

Validation failures raise :class:`~okf.errors.ModelOutputError` whose message is written for the model: it
is shown to the model verbatim in the repair retry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

from okf.errors import ModelOutputError
from okf.readers.base import Choice, Document, DraftAnswer, Evidence, Grade, SignpostOffer, Verdict
from okf.readers.synthesis import MAX_GROUPS, Fact, LeafExtract, Part

PROMPT_FILES = {
    "selector": "select.v2.md",
    "judge": "judge.v2.md",
    "answerer": "answer.v1.md",
    "extractor": "extract.v1.md",
    "assessor": "assess.v1.md",
    "describer": "describe.v1.md",
    "repair": "repair.v1.md",
    "decomposer": "decompose.v1.md",
    "leaf": "leaf.v1.md",
    "planner": "plan.v1.md",
    "judge-angles": "judge-angles.v1.md",
    "select-angles": "select-angles.v1.md",
}
REASON_CHARS = 300
GRADES: tuple[Grade, ...] = ("relevant", "partial", "no")
_GRADE_OF: dict[str, Grade] = {grade: grade for grade in GRADES}


@dataclass(frozen=True)
class Prompt:
    """A versioned prompt file: ``version`` is its file name without ``.md`` (``judge.v1``)."""

    version: str
    text: str


@cache
def prompt(role: str) -> Prompt:
    """The prompt for a role (``selector``, ``judge``, ``answerer``, ``decomposer``, ``leaf``, ``repair``)."""
    name = PROMPT_FILES[role]
    text = resources.files("okf.readers").joinpath("prompts", name).read_text(encoding="utf-8")
    return Prompt(version=name.removesuffix(".md"), text=text.strip())


def repair_message(error: str) -> str:
    """The user message of a repair retry, naming what was wrong with the previous reply."""
    return prompt("repair").text.replace("{error}", error)


# --- payloads: what okf sends -------------------------------------------------------------------------


def _dump(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=1)


def select_payload(question: str, signposts: Sequence[SignpostOffer]) -> str:
    """The selector's user message."""
    return _dump(
        {
            "task": "select",
            "question": question,
            "signposts": [
                {
                    "index": s.index,
                    "kind": "directory" if s.is_dir else "document",
                    "path": s.path,
                    "title": s.title,
                    "description": s.description,
                }
                for s in signposts
            ],
        }
    )


def judge_payload(question: str, documents: Sequence[Document]) -> str:
    """The judge's user message; documents are indexed by position."""
    return _dump(
        {
            "task": "judge",
            "question": question,
            "documents": [
                {"index": i, "id": d.id, "title": d.title, "headings": d.headings, "text": d.text}
                for i, d in enumerate(documents)
            ],
        }
    )


def answer_payload(question: str, evidence: Sequence[Evidence]) -> str:
    """The answerer's user message."""
    return _dump(
        {
            "task": "answer",
            "question": question,
            "evidence": [
                {
                    "id": e.id,
                    "title": e.title,
                    "text": e.text,
                    "status": e.status,
                    "stale": e.stale,
                    "truncated": e.truncated,
                }
                for e in evidence
            ],
        }
    )


# --- replies: what models send back -------------------------------------------------------------------

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str, role: str | None = None) -> dict[str, Any]:
    """The JSON object in a reply: the whole text, a fenced block, or the first ``{...}`` in prose."""
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    for start in (i for i, ch in enumerate(text) if ch == "{"):
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise ModelOutputError("the reply contains no JSON object", raw=text, role=role)


def _index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():  # "3" is a harmless slip; accept it
        return int(value.strip())
    return None


def _reason(value: Any) -> str:
    return " ".join(str(value).split())[:REASON_CHARS] if value is not None else ""


def parse_selection(text: str, signposts: Sequence[SignpostOffer]) -> list[Choice]:
    """Kept signposts from a selector reply; any index that was not offered makes the reply invalid."""
    obj = extract_json(text, "selector")
    keep = obj.get("keep")
    if not isinstance(keep, list):
        raise ModelOutputError('the JSON object must have a "keep" list', raw=text, role="selector")
    offered = {s.index for s in signposts}
    choices: dict[int, Choice] = {}
    bad: list[str] = []
    for item in keep:
        raw_index = item.get("index") if isinstance(item, dict) else item
        index = _index(raw_index)
        if index is None or index not in offered:
            bad.append(json.dumps(raw_index))
            continue
        reason = _reason(item.get("reason")) if isinstance(item, dict) else ""
        # A missing or unknown grade is read as strong: a kept signpost is never silently demoted.
        said = str(item.get("grade", "")).strip().lower() if isinstance(item, dict) else ""
        grade: Literal["strong", "weak", "faint"] = (
            "weak" if said == "weak" else "faint" if said == "faint" else "strong"
        )
        choices.setdefault(index, Choice(index=index, reason=reason, grade=grade))  # duplicates: first one wins
    if bad:
        valid = f"{min(offered)}..{max(offered)}" if offered else "none"
        raise ModelOutputError(
            f"indices not offered: {', '.join(bad)} (valid indices: {valid})", raw=text, role="selector"
        )
    return sorted(choices.values(), key=lambda c: c.index)


def parse_verdicts(text: str, documents: Sequence[Document]) -> list[Verdict]:
    """Exactly one verdict per document (matched by index or id), in document order; otherwise invalid."""
    obj = extract_json(text, "judge")
    items = obj.get("verdicts")
    if not isinstance(items, list):
        raise ModelOutputError('the JSON object must have a "verdicts" list', raw=text, role="judge")
    by_id = {d.id: i for i, d in enumerate(documents)}
    found: dict[int, Verdict] = {}
    problems: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            problems.append(f"a verdict is not an object: {json.dumps(item)[:60]}")
            continue
        index = _index(item.get("index"))
        if index is None and isinstance(item.get("id"), str):
            index = by_id.get(item["id"])
        if index is None or not 0 <= index < len(documents):
            problems.append(f"a verdict names no offered document: index {json.dumps(item.get('index'))}")
            continue
        if index in found:
            problems.append(f"two verdicts for index {index}")
            continue
        given = item.get("grade")
        relevant = item.get("relevant")
        named = _GRADE_OF.get(given.strip().lower()) if isinstance(given, str) else None
        grade: Grade
        if named is not None:
            grade = named
            relevant = grade != "no"
        elif isinstance(relevant, bool):  # a reply in the v1 shape ("relevant": true/false) is still read
            grade = "relevant" if relevant else "no"
        else:
            problems.append(f'index {index}: "grade" must be "relevant", "partial" or "no"')
            continue
        found[index] = Verdict(
            id=documents[index].id, relevant=relevant, grade=grade, reason=_reason(item.get("reason"))
        )
    missing = [str(i) for i in range(len(documents)) if i not in found]
    if missing and not problems:
        problems.append(f"no verdict for index {', '.join(missing)}")
    if problems:
        raise ModelOutputError(
            f"{'; '.join(problems)} (give exactly one verdict for each of the {len(documents)} documents)",
            raw=text,
            role="judge",
        )
    return [found[i] for i in range(len(documents))]


def parse_answer(text: str, evidence: Sequence[Evidence]) -> DraftAnswer:
    """A draft answer; cited ids must name evidence items given, and types must match the format."""
    obj = extract_json(text, "answerer")
    answer, cited = obj.get("answer"), obj.get("cited", [])
    partial, missing = obj.get("partial", False), obj.get("missing", "")
    problems = []
    if not isinstance(answer, str):
        problems.append('"answer" must be a string')
    if not isinstance(cited, list) or not all(isinstance(c, str) for c in cited):
        problems.append('"cited" must be a list of evidence id strings')
    if not isinstance(partial, bool):
        problems.append('"partial" must be true or false')
    if missing is None:
        missing = ""
    if not isinstance(missing, str):
        problems.append('"missing" must be a string')
    if not problems:
        ids = {e.id for e in evidence}
        unknown = [c for c in cited if c not in ids]
        if unknown:
            problems.append(
                f"cited ids not in the evidence: {', '.join(unknown)} (valid ids: {', '.join(sorted(ids)) or 'none'})"
            )
    if problems:
        raise ModelOutputError("; ".join(problems), raw=text, role="answerer")
    assert isinstance(answer, str) and isinstance(missing, str)  # the checks above raised otherwise
    return DraftAnswer(text=answer.strip(), cited=list(dict.fromkeys(cited)), partial=partial, missing=missing.strip())


# --- the synthesis roles (okf.readers.synthesis) ---------------------------------------------------------

PATH_CHARS = 120
TITLE_CHARS = 100
FACT_CHARS = 600


def decompose_payload(question: str, parts: Sequence[Part], budget_tokens: int) -> str:
    """The decomposer's user message: items by position, id, title, path and size; never their text."""
    return _dump(
        {
            "task": "decompose",
            "question": question,
            "budget_tokens": budget_tokens,
            "max_groups": MAX_GROUPS,
            "items": [
                {
                    "index": p.index,
                    "id": p.id,
                    "title": p.title[:TITLE_CHARS],
                    "path": p.path[-PATH_CHARS:],
                    "tokens": p.tokens,
                }
                for p in parts
            ],
        }
    )


def parse_split(text: str) -> list[tuple[int, int]]:
    """Groups from a decomposer reply: pairs of whole numbers. Whether they partition the slice is the
    code's to repair (okf.answer.partition), so any pair of numbers is accepted here."""
    obj = extract_json(text, "decomposer")
    groups = obj.get("groups")
    if not isinstance(groups, list) or not groups:
        raise ModelOutputError(
            'the JSON object must have a non-empty "groups" list of [first, last] index pairs',
            raw=text,
            role="decomposer",
        )
    out: list[tuple[int, int]] = []
    for group in groups:
        pair = [group.get("first"), group.get("last")] if isinstance(group, dict) else group
        ends = [_bound(v) for v in pair] if isinstance(pair, list) and len(pair) == 2 else []
        first, last = (ends + [None, None])[:2]
        if first is None or last is None:
            raise ModelOutputError(
                f"a group is not a [first, last] pair of item indices: {json.dumps(group)[:60]}",
                raw=text,
                role="decomposer",
            )
        out.append((first, last))
    return out


def _bound(value: Any) -> int | None:
    # Out-of-range and negative bounds are the code's to repair; only a non-number is a malformed reply.
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def leaf_payload(question: str, evidence: Sequence[Evidence]) -> str:
    """The leaf worker's user message: the slice's evidence items, on one line (a slice is up to a whole
    answer budget of text, and the C JSON encoder writes one line ten times faster than an indented one)."""
    items = [
        {"id": e.id, "title": e.title, "text": e.text, "status": e.status, "stale": e.stale, "truncated": e.truncated}
        for e in evidence
    ]
    return json.dumps({"task": "leaf", "question": question, "evidence": items}, ensure_ascii=False)


def parse_leaf(text: str) -> LeafExtract:
    """Facts and checked ids from a leaf reply; types must match the format. Citations outside the slice are
    kept here as sent: the code drops them and records it (okf.answer.synthesis)."""
    obj = extract_json(text, "leaf")
    facts, checked = obj.get("facts"), obj.get("checked")
    problems: list[str] = []
    if not isinstance(facts, list):
        problems.append('"facts" must be a list of {"fact": "...", "cited": ["id", ...]} objects')
        facts = []
    if not isinstance(checked, list) or not all(isinstance(c, str) for c in checked):
        problems.append('"checked" must list the id of every evidence item you read')
        checked = []
    out: list[Fact] = []
    for item in facts:
        fact = item.get("fact") if isinstance(item, dict) else None
        cited = item.get("cited") if isinstance(item, dict) else None
        if not isinstance(fact, str) or not isinstance(cited, list) or not all(isinstance(c, str) for c in cited):
            problems.append(f'a fact is not {{"fact": "...", "cited": ["id", ...]}}: {json.dumps(item)[:60]}')
            continue
        if fact.strip():
            out.append(Fact(text=" ".join(fact.split())[:FACT_CHARS], cited=list(dict.fromkeys(cited))))
    if problems:
        raise ModelOutputError("; ".join(problems), raw=text, role="leaf")
    return LeafExtract(facts=out, checked=list(dict.fromkeys(checked)))
