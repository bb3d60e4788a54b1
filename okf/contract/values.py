"""Typed fact values: what a string (or a frontmatter value) parses to for each fact type, and comparisons.

Parsing is strict: a value that does not parse as its type is a failure naming the fact, never a guess.
Numbers allow thousands separators, a leading currency sign and a trailing percent sign (``$1,500``,
``4%``); dates are ISO (``2026-01-01``) or written out (``January 1, 2026``, ``1 January 2026``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

_SPACE = re.compile(r"\s+")
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?:\D|$))")
_ORDINAL = re.compile(r"(?<=\d)(?:st|nd|rd|th)\b", re.IGNORECASE)
_DATE_FORMATS = ("%Y-%m-%d", "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y", "%d %B %Y", "%d %b %Y", "%b. %d, %Y")
_TRUE = frozenset({"true", "yes", "y", "on"})
_FALSE = frozenset({"false", "no", "n", "off"})
_LIST_SPLIT = re.compile(r"\s*[,;]\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+")


class ValueProblem(ValueError):
    """A value does not parse as its fact's type; ``fix`` says what to do."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix


def plain(text: str) -> str:
    """Whitespace collapsed, ends trimmed."""
    return _SPACE.sub(" ", text).strip()


def _shown(raw: Any) -> str:
    text = plain(str(raw))
    return repr(text if len(text) <= 60 else text[:57] + "...")


def parse_number(raw: Any) -> int | float:
    """An int or float from a number or text such as ``15``, ``1,500``, ``$1,500.00``, ``4%``."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise ValueProblem(f"{_shown(raw)} is not a number", "read only the number, e.g. a regex '(\\d+) days'")
    if isinstance(raw, (int, float)):
        return raw
    text = plain(raw).strip("*_`")
    text = text.lstrip("$€£").rstrip("%").strip()
    text = _THOUSANDS.sub("", text)
    if not _NUMBER.fullmatch(text):
        raise ValueProblem(
            f"{_shown(raw)} is not a number",
            "capture only the number, e.g. a regex '(\\d+) days' instead of the whole text",
        )
    value = float(text)
    return int(value) if value.is_integer() and "." not in text else value


def parse_date(raw: Any) -> date:
    """A calendar date from a date, a datetime, ISO text or text such as ``January 1, 2026``."""
    if isinstance(raw, datetime):
        return raw.date()
    if isinstance(raw, date):
        return raw
    if isinstance(raw, str):
        text = _ORDINAL.sub("", plain(raw).strip("*_`"))
        for fmt in _DATE_FORMATS:
            try:
                return datetime.strptime(text, fmt).date()
            except ValueError:
                continue
    raise ValueProblem(
        f"{_shown(raw)} is not a date", "capture a date with its year, e.g. '2026-01-01' or 'January 1, 2026'"
    )


def parse_boolean(raw: Any) -> bool:
    """True or False from a boolean or the words true/false, yes/no, y/n, on/off."""
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        word = plain(raw).strip("*_`").casefold()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    raise ValueProblem(f"{_shown(raw)} is not a boolean", "capture one of true/false, yes/no")


def parse_list(raw: Any, separator: str | None = None) -> list[str]:
    """A list of strings from a list, or text split on ``separator`` (default: commas, semicolons, and/or)."""
    if isinstance(raw, (list, tuple)):
        items = [plain(str(item)) for item in raw]
    elif isinstance(raw, str):
        parts = raw.split(separator) if separator else _LIST_SPLIT.split(plain(raw))
        items = [plain(part).rstrip(".") for part in parts]
    else:
        raise ValueProblem(f"{_shown(raw)} is not a list", "read a list, or text whose items are separated by commas")
    return [item for item in items if item]


def parse_string(raw: Any) -> str:
    """Text with whitespace collapsed; a date as ISO; a number as written."""
    if isinstance(raw, (list, tuple, dict)):
        raise ValueProblem(f"{_shown(raw)} is not a single string", "use type list, or read one value")
    if isinstance(raw, (date, datetime)):
        return raw.isoformat()
    return plain(str(raw))


def parse_enum(raw: Any, values: Sequence[str]) -> str:
    """One of ``values`` (case and surrounding markup ignored), returned as declared."""
    text = plain(str(raw)).strip("*_`").casefold()
    for value in values:
        if plain(value).casefold() == text:
            return value
    raise ValueProblem(
        f"{_shown(raw)} is not one of the enum values {list(values)}",
        "add it to the fact's values if it is valid, or fix the locator",
    )


def parse_value(kind: str, raw: Any, *, values: Sequence[str] | None = None, separator: str | None = None) -> Any:
    """``raw`` parsed as a fact of type ``kind``; ValueProblem when it does not parse."""
    if raw is None:
        raise ValueProblem("the value is empty", "point the locator at text that holds the value")
    if kind == "number":
        return parse_number(raw)
    if kind == "date":
        return parse_date(raw)
    if kind == "boolean":
        return parse_boolean(raw)
    if kind == "list":
        return parse_list(raw, separator)
    if kind == "enum":
        return parse_enum(raw, values or [])
    return parse_string(raw)


def as_json(value: Any) -> Any:
    """A parsed value as JSON data: dates as ISO strings."""
    if isinstance(value, date):
        return value.isoformat()
    return value


def infer_type(raw: Any) -> str:
    """The most specific type ``raw`` parses as (boolean, number, date, list, else string); for contract init."""
    if isinstance(raw, bool):
        return "boolean"
    if isinstance(raw, (list, tuple)):
        return "list"
    for kind, parse in (("number", parse_number), ("date", parse_date)):
        try:
            parse(raw)
        except ValueProblem:
            continue
        return kind
    if isinstance(raw, str) and plain(raw).casefold() in ("true", "false"):
        return "boolean"
    return "string"
