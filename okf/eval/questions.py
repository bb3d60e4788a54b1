"""Evaluation questions: load and validate a ``questions.jsonl`` file, and pick a fixed-seed sample.

One JSON object per line (blank lines are skipped)::

    {"id": "q1", "question": "...", "gold": [{"source": "a.txt", "start_line": 3, "end_line": 5}], "meta": {}}

``gold[].source`` is relative to the corpus ``sources/`` folder; ``start_line``/``end_line`` are 1-based and
inclusive. Every problem is reported as ``ConfigError`` naming the file, the line and the fix.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, TypeGuard

from pydantic import BaseModel, Field

from okf.errors import ConfigError
from okf.eval.paths import normalize_source

DEFAULT_SEED = 7


class GoldSpan(BaseModel):
    """One place in the sources that answers a question."""

    source: str = Field(description="Path relative to the corpus sources/ folder, normalized POSIX.")
    start_line: int
    end_line: int
    start: int | None = Field(default=None, description="Character offset (code points, 0-based).")
    end: int | None = Field(default=None, description="Character offset, exclusive.")

    @property
    def label(self) -> str:
        """``source:start-end`` for tables and messages."""
        return f"{self.source}:{self.start_line}-{self.end_line}"


class EvalQuestion(BaseModel):
    """A question with the gold spans that answer it."""

    id: str
    question: str
    gold: list[GoldSpan]
    meta: dict[str, Any] = Field(default_factory=dict)
    line: int = Field(default=0, description="Line of the questions file it came from.")


def _fail(path: str, line: int, message: str, fix: str) -> ConfigError:
    return ConfigError(f"{path}:{line}: {message}", fix=fix)


def _positive_int(value: Any) -> TypeGuard[int]:
    # bool is an int subclass; true/false is never a line number.
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _parse_span(raw: Any, path: str, line: int, index: int) -> GoldSpan:
    where = f"gold[{index}]"
    if not isinstance(raw, dict):
        raise _fail(
            path,
            line,
            f"{where} is {type(raw).__name__}, not an object",
            'write each gold span as {"source": ..., "start_line": n, "end_line": m}',
        )
    source = raw.get("source")
    if not isinstance(source, str) or not source.strip():
        raise _fail(
            path,
            line,
            f"{where}.source is missing or empty",
            "give the source file path relative to the corpus sources/ folder",
        )
    try:
        normalized = normalize_source(source)
    except ValueError as exc:
        raise _fail(
            path, line, f"{where}.source {source!r}: {exc}", "give a relative path inside the corpus sources/ folder"
        ) from None
    start_line, end_line = raw.get("start_line"), raw.get("end_line")
    if not _positive_int(start_line) or not _positive_int(end_line):
        raise _fail(
            path,
            line,
            f"{where} needs integer start_line and end_line >= 1 (got {start_line!r}, {end_line!r})",
            "give 1-based inclusive line numbers",
        )
    if start_line > end_line:
        raise _fail(
            path,
            line,
            f"{where} has start_line {start_line} after end_line {end_line}",
            "swap them: start_line <= end_line",
        )
    start, end = raw.get("start"), raw.get("end")
    for name, value in (("start", start), ("end", end)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise _fail(
                path,
                line,
                f"{where}.{name} must be a non-negative integer, got {value!r}",
                "give character offsets, or leave them out",
            )
    return GoldSpan(source=normalized, start_line=start_line, end_line=end_line, start=start, end=end)


def parse_question(raw: Any, path: str, line: int) -> EvalQuestion:
    """Validate one decoded line; ConfigError naming ``path:line`` on any problem."""
    if not isinstance(raw, dict):
        raise _fail(
            path,
            line,
            f"expected a JSON object, got {type(raw).__name__}",
            'write one object per line: {"id": ..., "question": ..., "gold": [...]}',
        )
    qid, text, gold = raw.get("id"), raw.get("question"), raw.get("gold")
    if not isinstance(qid, str) or not qid.strip():
        raise _fail(path, line, "'id' is missing or not a non-empty string", "give every question a unique id")
    if not isinstance(text, str) or not text.strip():
        raise _fail(path, line, f"question {qid!r}: 'question' is missing or empty", "add the question text")
    if not isinstance(gold, list) or not gold:
        raise _fail(
            path,
            line,
            f"question {qid!r}: 'gold' must be a non-empty list of spans",
            "list at least one gold span; questions without gold cannot be scored",
        )
    meta = raw.get("meta") or {}
    if not isinstance(meta, dict):
        raise _fail(path, line, f"question {qid!r}: 'meta' must be an object", "make meta an object or drop it")
    spans = [_parse_span(span, path, line, i) for i, span in enumerate(gold)]
    return EvalQuestion(id=qid, question=text.strip(), gold=spans, meta=meta, line=line)


def load_questions(path: str | Path) -> list[EvalQuestion]:
    """Read a questions JSONL file; ConfigError naming the file and line for anything malformed."""
    file = Path(path)
    shown = str(path)
    if not file.is_file():
        raise ConfigError(f"questions file not found: {shown}", fix="pass the path of a questions.jsonl file")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{shown}: not UTF-8 text ({exc.reason} at byte {exc.start})", fix="save the questions file as UTF-8"
        ) from None
    questions: list[EvalQuestion] = []
    seen: dict[str, int] = {}
    for number, row in enumerate(text.split("\n"), start=1):
        if not row.strip():
            continue
        try:
            raw = json.loads(row)
        except json.JSONDecodeError as exc:
            raise _fail(
                shown,
                number,
                f"not valid JSON: {exc.msg} (column {exc.colno})",
                "write exactly one JSON object per line",
            ) from None
        question = parse_question(raw, shown, number)
        if question.id in seen:
            raise _fail(
                shown,
                number,
                f"duplicate id {question.id!r} (first on line {seen[question.id]})",
                "give every question a unique id",
            )
        seen[question.id] = number
        questions.append(question)
    if not questions:
        raise ConfigError(f"{shown}: no questions in the file", fix="add one JSON object per line")
    return questions


def pick(
    questions: list[EvalQuestion], *, sample: int | None = None, seed: int = DEFAULT_SEED, limit: int | None = None
) -> list[EvalQuestion]:
    """A fixed-seed sample (kept in file order), then the first ``limit``; same inputs, same questions."""
    chosen = questions
    if sample is not None:
        if sample <= 0:
            raise ConfigError(f"--sample must be positive, got {sample}", fix="pass --sample N with N >= 1")
        if sample < len(questions):
            indices = sorted(random.Random(seed).sample(range(len(questions)), sample))
            chosen = [questions[i] for i in indices]
    if limit is not None:
        if limit <= 0:
            raise ConfigError(f"--limit must be positive, got {limit}", fix="pass --limit N with N >= 1")
        chosen = chosen[:limit]
    return chosen
