"""The tolerant typed view of a frontmatter mapping: ``ConceptMeta`` plus diagnostics, never a rejection.

A value of the wrong type in an optional field is kept as written in ``ConceptMeta.extra`` and noted
(W133); unknown keys go to ``extra`` unchanged (OKF §4.1 asks consumers to preserve them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from pydantic import ValidationError

from okf.bundle.codes import diagnostic
from okf.bundle.model import Actor, ConceptMeta, Diagnostic, SourceRef, Status, as_datetime

_KNOWN = {
    "type",
    "title",
    "description",
    "resource",
    "tags",
    "sources",
    "generated",
    "verified",
    "status",
    "stale_after",
}
_STATUSES = {s.value for s in Status}
_STR_ONLY = frozenset({str})
_STR_OR_NONE = frozenset({str, type(None)})
_PLAIN_SOURCE = frozenset({"id", "resource", "title", "author", "sha256", "lines"})
_TEXT_FIELDS = ("id", "title", "author", "sha256")
_LINES_TEXT = re.compile(r"^\s*(\d+)\s*[-\u2013:]\s*(\d+)\s*$")


def _key_line(yaml_text: str, first_line: int, key: str) -> int:
    """The file line of a top-level ``key:`` in the frontmatter (the block's first line if not found)."""
    prefix = key + ":"
    for i, line in enumerate(yaml_text.split("\n")):
        if line.startswith(prefix):
            return first_line + i
    return first_line


def _scalar_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float, date)) and not isinstance(value, bool):
        return str(value)
    return None


def _as_dt(value: Any) -> datetime | None:
    if isinstance(value, (date, datetime)):
        return as_datetime(value)
    if isinstance(value, str):
        try:
            return as_datetime(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
        except ValueError:
            return None
    return None


def _lines(value: Any) -> tuple[int, int] | None:
    """``[a, b]`` or ``"a-b"`` as a 1-based inclusive span; None when unreadable."""
    if isinstance(value, str):
        m = _LINES_TEXT.match(value)
        pair: Any = (int(m.group(1)), int(m.group(2))) if m else None
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        pair = tuple(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        pair = (value, value)
    else:
        pair = None
    if pair is None or not all(isinstance(x, int) and not isinstance(x, bool) for x in pair):
        return None
    start, end = pair
    return (start, end) if 1 <= start <= end else None


def _actor(value: Any) -> Actor | None:
    if type(value) is dict and len(value) == 2 and type(value.get("by")) is str and type(value.get("at")) is datetime:
        # ``{by: text, at: datetime}`` as okf writes it: what the steps below give, without copying the mapping.
        at = value["at"]
        return Actor(by=value["by"], at=at if at.tzinfo else at.replace(tzinfo=UTC))
    return _any_actor(value)


def _any_actor(value: Any) -> Actor | None:
    """:func:`_actor` for any value: each field converted as needed, None when one cannot be."""
    if not isinstance(value, dict):
        return None
    data = dict(value)
    if "at" in data and data["at"] is not None:
        at = _as_dt(data["at"])
        if at is None:
            return None
        data["at"] = at
    if "by" in data:
        by = _scalar_text(data["by"])
        if by is None:
            return None
        data["by"] = by
    try:
        return Actor.model_validate(data)
    except ValidationError:
        return None


def _source(value: Any) -> SourceRef | None:
    if type(value) is dict and value.keys() <= _PLAIN_SOURCE:
        # A source as okf's compiler writes it (string keys it knows, text values, two ordered line numbers):
        # what the steps below give, without their conversions (tests/test_frontmatter.py compares both).
        lines = value.get("lines")
        get = value.get
        if (
            type(get("resource", "")) is str
            # _TEXT_FIELDS, unrolled
            and type(get("id")) in _STR_OR_NONE
            and type(get("title")) in _STR_OR_NONE
            and type(get("author")) in _STR_OR_NONE
            and type(get("sha256")) in _STR_OR_NONE
            and type(lines) is list
            and len(lines) == 2
            and type(lines[0]) is int
            and type(lines[1]) is int
            and 1 <= lines[0] <= lines[1]
        ):
            data = dict(value)
            data["lines"] = (lines[0], lines[1])
            try:
                return SourceRef.model_validate(data)
            except ValidationError:
                return None
    return _any_source(value)


def _any_source(value: Any) -> SourceRef | None:
    """:func:`_source` for any value: each field converted as needed, None when one cannot be."""
    if isinstance(value, str):  # a bare resource string is a readable shorthand
        return SourceRef(resource=value)
    if not isinstance(value, dict):
        return None
    # YAML's keys are strings but for "1:" or "null:" (C-level type test first: most sources are all strings).
    data = dict(value) if set(map(type, value)) <= _STR_ONLY else {str(k): v for k, v in value.items()}
    if "lines" in data and data["lines"] is not None:
        span = _lines(data["lines"])
        if span is None:
            return None
        data["lines"] = span
    if "last_modified" in data and data["last_modified"] is not None:
        data["last_modified"] = _as_dt(data["last_modified"])
        if data["last_modified"] is None:
            return None
    for key in ("resource", "id", "title", "author", "sha256"):
        if type(data.get(key)) not in _STR_OR_NONE:  # a string is itself as text: only others are converted
            text = _scalar_text(data[key])
            if text is None:
                return None
            data[key] = text
    try:
        return SourceRef.model_validate(data)
    except ValidationError:
        return None


def build_meta(
    raw: dict[str, Any], path: str = "", yaml_text: str = "", first_line: int = 2
) -> tuple[ConceptMeta, list[Diagnostic]]:
    """The typed view of ``raw`` and the diagnostics for values it could not type (kept in ``extra``)."""
    diags: list[Diagnostic] = []
    extra: dict[str, Any] = {} if raw.keys() <= _KNOWN else {k: v for k, v in raw.items() if k not in _KNOWN}
    fields: dict[str, Any] = {}

    def bad(key: str, expected: str) -> None:
        extra[key] = raw[key]
        diags.append(
            diagnostic(
                "W133", path, _key_line(yaml_text, first_line, key), f"'{key}' should be {expected}; kept as written"
            )
        )

    kind = raw.get("type")
    if kind is not None and not isinstance(kind, str) and _scalar_text(kind) is not None:
        diags.append(
            diagnostic(
                "W145",
                path,
                _key_line(yaml_text, first_line, "type"),
                f"'type' is {type(kind).__name__} {kind!r}, not a string; read as {str(kind)!r}",
            )
        )
    for key in ("type", "title", "description", "resource"):
        if key in raw and raw[key] is not None:
            text = _scalar_text(raw[key])
            if text is None:
                bad(key, "a string")
            else:
                fields[key] = text.strip() if key == "type" else text
    if "tags" in raw and raw["tags"] is not None:
        tags = raw["tags"]
        if isinstance(tags, str):
            fields["tags"] = [t.strip() for t in tags.split(",") if t.strip()]
        elif isinstance(tags, list) and set(map(type, tags)) <= _STR_ONLY:  # all strings, tested in C
            fields["tags"] = list(tags)
        elif isinstance(tags, list) and all(_scalar_text(t) is not None for t in tags):
            fields["tags"] = [str(t) for t in tags]
        else:
            bad("tags", "a list of strings")
    if "sources" in raw and raw["sources"] is not None:
        items = raw["sources"] if isinstance(raw["sources"], list) else [raw["sources"]]
        parsed = [_source(item) for item in items]
        fields["sources"] = [s for s in parsed if s is not None]
        if any(s is None for s in parsed):
            bad("sources", "a list of {resource, ...} mappings (lines as [a, b] or 'a-b')")
    if "generated" in raw and raw["generated"] is not None:
        actor = _actor(raw["generated"])
        if actor is None:
            bad("generated", "a {by, at} mapping")
        else:
            fields["generated"] = actor
    elif "timestamp" in raw:  # OKF v0.1: timestamp is superseded by generated.at (§13.1)
        at = _as_dt(raw["timestamp"])
        if at is not None:
            fields["generated"] = Actor(by="", at=at)
    if "verified" in raw and raw["verified"] is not None:
        items = raw["verified"] if isinstance(raw["verified"], list) else [raw["verified"]]
        actors = [_actor(item) for item in items]
        fields["verified"] = [a for a in actors if a is not None]
        if any(a is None for a in actors):
            bad("verified", "a list of {by, at} mappings")
    if "status" in raw and raw["status"] is not None:
        status = _scalar_text(raw["status"])
        if status is not None and status.strip().lower() in _STATUSES:
            fields["status"] = Status(status.strip().lower())
        else:
            extra["status"] = raw["status"]
            diags.append(
                diagnostic(
                    "W134",
                    path,
                    _key_line(yaml_text, first_line, "status"),
                    f"status {raw['status']!r} is not draft, stable or deprecated; read as stable",
                )
            )
    if "stale_after" in raw and raw["stale_after"] is not None:
        when = _as_dt(raw["stale_after"])
        if when is None:
            bad("stale_after", "an ISO 8601 date or datetime")
        else:
            fields["stale_after"] = when
    return ConceptMeta(**fields, extra=extra), diags


@dataclass(frozen=True)
class Summary:
    """What publishing a concept needs of its frontmatter: the fields of :func:`build_meta`'s ``ConceptMeta``
    it reads, typed exactly as there, without building the rest (no diagnostics, no model validation).
    ``sources``: each readable source's ``(resource, lines)``, in order."""

    title: str | None = None
    description: str | None = None
    sources: tuple[tuple[str, tuple[int, int] | None], ...] = ()
    deprecated: bool = False
    stale_after: datetime | None = None


def _source_span(value: Any) -> tuple[str, tuple[int, int] | None] | None:
    """``(ref.resource, ref.lines)`` of ``_source(value)`` (None when it is None). A source the compiler writes
    (string keys it knows, text values, two ordered line numbers) is read directly: SourceRef would take it
    as it is, so validating the model only to read two fields back is skipped (tested against ``_source``)."""
    if type(value) is dict and value.keys() <= _PLAIN_SOURCE:
        resource = value.get("resource", "")
        if type(resource) is str and all(type(value.get(k)) in _STR_OR_NONE for k in _TEXT_FIELDS):
            lines = value.get("lines")
            if lines is None:
                return resource, None
            if type(lines) is list and len(lines) == 2:
                start, end = lines
                if type(start) is int and type(end) is int and 1 <= start <= end:
                    return resource, (start, end)
    ref = _source(value)
    return None if ref is None else (ref.resource, ref.lines)


def summarize(raw: dict[str, Any]) -> Summary:
    """``build_meta(raw)``'s title, description, sources, whether its status is deprecated, and stale_after
    (tests/test_frontmatter.py compares the two)."""
    sources: tuple[tuple[str, tuple[int, int] | None], ...] = ()
    if raw.get("sources") is not None:
        items = raw["sources"] if isinstance(raw["sources"], list) else [raw["sources"]]
        sources = tuple(s for s in map(_source_span, items) if s is not None)
    status = _scalar_text(raw.get("status"))
    stale_after = raw.get("stale_after")
    return Summary(
        title=_scalar_text(raw.get("title")),
        description=_scalar_text(raw.get("description")),
        sources=sources,
        deprecated=status is not None and status.strip().lower() == Status.deprecated.value,
        stale_after=None if stale_after is None else _as_dt(stale_after),
    )
