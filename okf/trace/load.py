"""Read a walk from what okf writes: a ``--trace`` JSON-lines file, or ``okf navigate|ask --json`` output.

A tolerant consumer: events need only a ``kind``; a missing ``seq`` or ``t`` is filled in, unknown kinds and
unknown fields are kept as they are. Bad input raises :class:`~okf.errors.BundleError` naming the file, the
line and the fix.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from okf.errors import BundleError
from okf.models import TraceEvent

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def walk_file_name(question_id: str) -> str:
    """The file name (no extension) of a question's saved walk (``okf eval --walks``): the id made safe for
    any file system, plus a short hash of the id when it had to change (so two ids never share a file)."""
    safe = _UNSAFE.sub("_", question_id).strip("._")[:80] or "q"
    if safe != question_id:
        safe += "-" + hashlib.sha256(question_id.encode("utf-8")).hexdigest()[:8]
    return safe


@dataclass
class WalkRecord:
    """One walk and whatever is known around it: question, result, answer, budgets (each None when unknown)."""

    events: list[TraceEvent]
    source: str = ""
    question: str | None = None
    bundle: str | None = None
    reader: str | None = None
    corpus_id: str | None = None
    navigation: dict[str, Any] | None = None
    answer: dict[str, Any] | None = None
    budgets: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_result(cls, result: BaseModel | dict[str, Any], source: str = "") -> WalkRecord:
        """From a NavigationResult or an AnswerResult (the model or its JSON form)."""
        data = result.model_dump(mode="json") if isinstance(result, BaseModel) else dict(result)
        answer: dict[str, Any] | None = None
        navigation: dict[str, Any] | None = data
        if isinstance(data.get("navigation"), dict) or "answer" in data:
            answer = data
            navigation = data.get("navigation") if isinstance(data.get("navigation"), dict) else None
        nav = navigation or {}
        events = [_event(raw, n, source, line=None) for n, raw in enumerate(nav.get("trace") or [], start=1)]
        if answer is not None:
            events += _answer_event(answer, events)
        known = {
            "trace",
            "question",
            "bundle",
            "reader",
            "corpus_id",
            "budgets",
            "shortlist",
            "stopped_by",
            "stats",
            "warnings",
            "navigation",
        }
        extra = {k: v for k, v in {**nav, **(answer or {})}.items() if k not in known}
        return cls(
            events=events,
            source=source,
            question=_text(data.get("question") or nav.get("question")),
            bundle=_text(nav.get("bundle")),
            reader=_text(data.get("reader") or nav.get("reader")),
            corpus_id=_text(data.get("corpus_id") or nav.get("corpus_id")),
            navigation=navigation,
            answer=answer,
            budgets=nav.get("budgets") if isinstance(nav.get("budgets"), dict) else None,
            extra=extra,
        )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _answer_event(answer: dict[str, Any], events: list[TraceEvent]) -> list[TraceEvent]:
    """The ``answer`` event the CLI's progress sees but a saved AnswerResult does not carry in its trace."""
    if any(e.kind == "answer" for e in events) or not answer.get("status"):
        return []
    cited = [c.get("concept_id") for c in answer.get("citations") or [] if isinstance(c, dict)]
    t = max((e.t for e in events), default=0.0)
    return [
        TraceEvent(
            seq=len(events),
            t=t,
            kind="answer",
            data={"status": answer.get("status"), "cited": cited, "failed": bool(answer.get("failed"))},
        )
    ]


def _event(raw: Any, number: int, source: str, *, line: int | None) -> TraceEvent:
    """Trace event ``number`` (from 1); ``line`` is its file line when it has one of its own."""
    if not isinstance(raw, dict) or not isinstance(raw.get("kind"), str) or not raw["kind"]:
        what = "" if line else f"trace[{number - 1}] is "
        raise BundleError(
            what + 'not a trace event (a JSON object with a "kind")',
            path=source or None,
            line=line,
            fix="pass a file written by `okf navigate --trace FILE` or `okf navigate|ask --json`",
        )
    seq = raw.get("seq")
    t = raw.get("t")
    data = raw.get("data")
    path = raw.get("path")
    return TraceEvent(
        seq=seq if isinstance(seq, int) and not isinstance(seq, bool) else number - 1,
        t=float(t) if isinstance(t, int | float) and not isinstance(t, bool) else 0.0,
        kind=raw["kind"],
        path=path if isinstance(path, str) else None,
        data=data if isinstance(data, dict) else ({} if data is None else {"value": data}),
    )


def parse_walk(text: str, source: str = "") -> WalkRecord:
    """A walk from file text: one JSON result object, or JSON lines of trace events."""
    stripped = text.strip()
    if not stripped:
        raise BundleError(
            "the file is empty",
            path=source or None,
            fix="write a trace with `okf navigate BUNDLE QUESTION --trace FILE`",
        )
    if stripped.startswith("{"):
        try:
            whole = json.loads(stripped)
        except ValueError:
            whole = None
        if isinstance(whole, dict):
            if "summary" in whole and "results" in whole:
                raise BundleError(
                    "this is an evaluation report, not a walk",
                    path=source or None,
                    fix="render it with `okf report FILE --html OUT.html`",
                )
            if "trace" in whole or "navigation" in whole or "answer" in whole:
                return WalkRecord.from_result(whole, source)
    events: list[TraceEvent] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BundleError(
                f"not valid JSON ({exc.msg} at column {exc.colno})",
                path=source or None,
                line=number,
                fix="each line of a trace file is one JSON event",
            ) from None
        events.append(_event(raw, len(events) + 1, source, line=number))
    return WalkRecord(events=events, source=source)


def load_walk(path: str | Path) -> WalkRecord:
    """Read a walk file (see :func:`parse_walk`); BundleError when it is missing or unreadable."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BundleError("no such file", path=name, fix="pass the file written by --trace or --json") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BundleError(f"cannot read it: {exc}", path=name, fix="pass a UTF-8 JSON or JSON-lines file") from None
    return parse_walk(text, name)
