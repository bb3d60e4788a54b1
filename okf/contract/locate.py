"""Find a fact in a bundle: the one concept its locator names, the section under its heading, and every place
its extractor finds a value there, each with the file lines it was read from.

Nothing here judges the value; :mod:`okf.contract.evaluate` types and checks it. Every way of not finding a
fact is a :class:`Unlocated` with a stable code, a message and a fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from okf.bundle import Bundle, Concept
from okf.bundle.documents import parse_concept, read_text
from okf.contract.load import compile_regex
from okf.contract.model import Fact, Locator
from okf.contract.values import plain
from okf.errors import BundleError
from okf.markdown import headings, tables
from okf.sources import span_text

MAX_OCCURRENCES = 50
_GLOB = re.compile(r"[*?]")


@dataclass(frozen=True)
class Source:
    """A concept file as read for a contract: its path, whole text and parsed concept."""

    path: str
    text: str
    concept: Concept


@dataclass(frozen=True)
class Span:
    """File lines ``start_line..end_line`` (1-based, inclusive) of a source."""

    start_line: int
    end_line: int


@dataclass(frozen=True)
class Occurrence:
    """One place the extractor found a value: the raw value and the lines it was read from."""

    raw: Any
    span: Span


class Unlocated(Exception):
    """The fact could not be found; ``span`` is the text searched, when there was one."""

    def __init__(self, code: str, message: str, fix: str, span: Span | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.fix, self.span = code, message, fix, span


def _glob_regex(pattern: str) -> re.Pattern[str]:
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        else:
            char = pattern[i]
            out += "[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char)
            i += 1
    return re.compile(out)


def _clip_list(items: list[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def find_concept(bundle: Bundle, ref: str) -> str:
    """The path of the one concept ``ref`` (id, path or glob) names; Unlocated for none or several."""
    ref = ref.strip().lstrip("/")
    if _GLOB.search(ref):
        by_path = ref.endswith(".md")
        matcher = _glob_regex(ref)
        found = [p for p in bundle.iter_concepts() if matcher.fullmatch(p if by_path else p[:-3])]
        if not found:
            raise Unlocated(
                "no_concept",
                f"the glob {ref!r} matches no concept",
                "check the pattern against 'okf navigate' or the bundle's index.md listings",
            )
        if len(found) > 1:
            raise Unlocated(
                "ambiguous_concept",
                f"the glob {ref!r} matches {len(found)} concepts: {_clip_list(found)}",
                "narrow the pattern so it matches exactly one concept",
            )
        return found[0]
    try:
        rel = bundle.resolve(ref).rstrip("/")
    except BundleError as exc:
        raise Unlocated(
            "no_concept",
            f"{ref!r} is not a path inside the bundle: {exc.message}",
            "use a concept id or path relative to the bundle root",
        ) from None
    path = rel if rel.endswith(".md") else rel + ".md"
    if not bundle.is_concept_path(path):
        raise Unlocated(
            "no_concept",
            f"no concept {ref!r} in the bundle",
            "use a concept id from the bundle's listings, e.g. 'handbook/paid-time-off'",
        )
    return path


def read_source(bundle: Bundle, path: str) -> Source:
    """The concept at ``path`` read afresh (never from a cache: a contract checks the text as it is now)."""
    try:
        text, diagnostics = read_text(bundle.real_path(path), path)
        concept = parse_concept(path, text, diagnostics)
    except BundleError as exc:
        raise Unlocated(
            "unreadable",
            f"{path} cannot be read: {exc.message}",
            exc.fix or "fix the file (okf check BUNDLE names the problem)",
        ) from None
    return Source(path, text, concept)


def body_span(source: Source) -> Span:
    """The concept's body lines."""
    return Span(source.concept.body_start_line, source.concept.end_line)


def section_span(source: Source, heading: str) -> Span:
    """The lines of the one section headed ``heading``: its heading line to before the next heading of the same
    or a higher level."""
    concept = source.concept
    wanted = plain(heading.lstrip("#")).casefold()
    found = headings(concept.body, concept.body_start_line - 1)
    hits = [n for n, h in enumerate(found) if plain(h.text).casefold() == wanted]
    if not hits:
        titles = [repr(h.text) for h in found]
        raise Unlocated(
            "no_heading",
            f"no heading {heading!r} in {source.path}"
            + (f" (headings: {_clip_list(titles, 8)})" if titles else " (it has no headings)"),
            "use the text of one of its headings, or leave heading out",
            body_span(source),
        )
    if len(hits) > 1:
        lines = ", ".join(str(found[n].start_line) for n in hits)
        raise Unlocated(
            "ambiguous_heading",
            f"the heading {heading!r} occurs {len(hits)} times in {source.path} (lines {lines})",
            "use a glob or a regex that tells them apart",
            body_span(source),
        )
    first = found[hits[0]]
    end = concept.end_line
    for later in found[hits[0] + 1 :]:
        if later.level <= first.level:
            end = later.start_line - 1
            break
    return Span(first.start_line, max(end, first.start_line))


def frontmatter_span(source: Source, key: str) -> Span:
    """The frontmatter lines of top-level key ``key`` (its value's lines included); the whole block otherwise."""
    closing = source.concept.body_start_line - 1
    lines = source.text.split("\n")
    start = None
    pattern = re.compile(rf"^(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')\s*:")
    for number in range(2, closing):
        line = lines[number - 1]
        if start is None:
            if pattern.match(line):
                start = number
        elif line and not line[0].isspace() and not line.startswith("#") and not line.startswith("-"):
            return Span(start, _trim(lines, start, number - 1))
    if start is None:
        return Span(1, max(closing, 1))
    return Span(start, _trim(lines, start, closing - 1))


def _trim(lines: list[str], start: int, end: int) -> int:
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


def _lookup(data: Any, dotted: str) -> tuple[bool, Any]:
    value = data
    for part in dotted.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return False, None
    return True, value


def _line_at(text: str, offset: int, first: int) -> int:
    return first + text.count("\n", 0, offset)


def extract(source: Source, locator: Locator, span: Span, *, timeout: float) -> list[Occurrence]:
    """Every place ``locator``'s extractor finds a value within ``span`` (at most MAX_OCCURRENCES), in order."""
    concept = source.concept
    if locator.frontmatter is not None:
        found, value = _lookup(concept.frontmatter, locator.frontmatter)
        if not found:
            return []
        top = locator.frontmatter.split(".")[0]
        return [Occurrence(value, frontmatter_span(source, top))]
    text = span_text(source.text, span.start_line, span.end_line)
    out: list[Occurrence] = []
    if locator.literal is not None:
        at = text.find(locator.literal)
        while at >= 0 and len(out) < MAX_OCCURRENCES:
            last = at + max(len(locator.literal) - 1, 0)
            out.append(
                Occurrence(
                    locator.literal, Span(_line_at(text, at, span.start_line), _line_at(text, last, span.start_line))
                )
            )
            at = text.find(locator.literal, at + 1)
        return out
    if locator.regex is not None:
        try:
            for match in compile_regex(locator.regex).finditer(text, timeout=timeout):
                if match.group(1) is None:
                    continue
                last = max(match.end() - 1, match.start())
                out.append(
                    Occurrence(
                        match.group(1),
                        Span(_line_at(text, match.start(), span.start_line), _line_at(text, last, span.start_line)),
                    )
                )
                if len(out) >= MAX_OCCURRENCES:
                    break
        except TimeoutError:
            raise Unlocated(
                "regex_timeout",
                f"the regex ran longer than {timeout:g} s on {source.path} lines "
                f"{span.start_line}-{span.end_line} and was stopped (catastrophic backtracking)",
                "simplify the regex: avoid nested quantifiers such as (a+)+ and repeated .* groups",
                span,
            ) from None
        return out
    assert locator.table is not None
    return _table_cells(source, locator, span)


def _cell_key(text: str) -> str:
    return plain(text).strip("*_`").casefold()


def _table_cells(source: Source, locator: Locator, span: Span) -> list[Occurrence]:
    cell = locator.table
    assert cell is not None
    concept = source.concept
    column, row = _cell_key(cell.column), _cell_key(cell.row)
    inside = [
        t
        for t in tables(concept.body, concept.body_start_line - 1)
        if span.start_line <= t.start_line and t.end_line <= span.end_line
    ]
    with_column = [
        (t, [_cell_key(h) for h in t.header].index(column))
        for t in inside
        if column in [_cell_key(h) for h in t.header]
    ]
    if not with_column:
        headers = sorted({h for t in inside for h in t.header if h})
        seen = f" (columns: {_clip_list([repr(h) for h in headers], 8)})" if headers else " (no tables there)"
        raise Unlocated(
            "not_found",
            f"no table column headed {cell.column!r} in {source.path} lines {span.start_line}-{span.end_line}{seen}",
            "use a column header as written",
            span,
        )
    out: list[Occurrence] = []
    for table, index in with_column:
        for body_row in table.rows:
            if body_row.cells and _cell_key(body_row.cells[0]) == row:
                value = body_row.cells[index] if index < len(body_row.cells) else ""
                out.append(Occurrence(value, Span(body_row.line, body_row.line)))
    if not out:
        rows = [repr(r.cells[0]) for t, _ in with_column for r in t.rows if r.cells]
        raise Unlocated(
            "not_found",
            f"no row {cell.row!r} in the table(s) with column {cell.column!r} in "
            f"{source.path} (rows: {_clip_list(rows, 8)})",
            "use the text of the row's first cell as written",
            span,
        )
    return out


def scope(source: Source, fact: Fact) -> Span:
    """What the extractor searches: the frontmatter, the section under the heading, or the whole body."""
    locator = fact.locate
    if locator.frontmatter is not None:
        return Span(1, max(source.concept.body_start_line - 1, 1))
    if locator.heading is not None:
        return section_span(source, locator.heading)
    return body_span(source)
