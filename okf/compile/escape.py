"""Plain text written as markdown that shows exactly that text: the escapes a ``.txt`` or PDF body needs.

A contract's ``[Assignment]("Assignment")`` is a link in markdown, ``*`` opens emphasis, ``# 5`` at a line
start is a heading, ``&amp;`` an entity, ``<b>`` a tag. :func:`escapes` finds the offsets where a backslash
must go so no markdown syntax appears that the text did not have (CommonMark and the GFM tables and
strikethrough okf and GitHub render), and :func:`code_lines` the lines a renderer shows literally anyway (an
indented block after a blank line: a backslash there would show). Everything else stays as written: a
backslash is added only where the character would otherwise be read as markup.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from itertools import accumulate

# Characters that may start inline markup; each match is decided on its own (one C-level scan per body).
# Written as one character class first and the alternatives after it (told apart by a look-behind): a pattern
# opening with a class lets the regex engine skip to the next candidate character, where an alternation
# ("\\(?=...)|`|...|\*+|_+|~+", the same matches) is tried at every offset (8x slower on CUAD's 26 MB).
_INLINE = re.compile(
    r"[\\`\]<&*_~](?:(?<=\\)(?=[!-/:-@\[-`{-~]|\n|$)|(?<=`)|(?<=\])(?=[(:])|(?<=<)(?=[A-Za-z/!?])|"
    r"(?<=&)(?=#?[A-Za-z0-9]{1,32};)|(?<=\*)\**|(?<=_)_*|(?<=~)~*)"
)
# A line that can open a block with up to 3 spaces of indentation (indented code is handled apart).
_LINE_BODY = (
    r"( {0,3})(#{1,6}(?=[ \t]|$)|>|~{3,}|[-+*](?=[ \t]|$)|(\d{1,9})[.)](?=[ \t]|$)|[-_*=][-_*= \t]*$|"
    r"\[\^?[^\]\n]*\]:|\|?[ \t]*:?-+:?[ \t]*\|[-|: \t]*$|\|[ \t]*:?-+:?[ \t]*$)"
)
_LINE = re.compile("^" + _LINE_BODY, re.MULTILINE)
# The same after a newline: a literal first character the engine can search for, where "^" in MULTILINE
# mode is tried at every offset. No alternative matches a newline, so matches never overlap the next "\n".
_LINE_AFTER_NL = re.compile("\n" + _LINE_BODY, re.MULTILINE)
_INDENTED_BODY = r"(?: {4}| {0,3}\t).*\S.*$"
_INDENTED = re.compile("^" + _INDENTED_BODY, re.MULTILINE)
# The same after a newline (the engine searches for it; "^" was tried at every offset: 5x faster on CUAD).
# A match ends at its line's end, before the newline that opens the next line's search.
_INDENTED_AFTER_NL = re.compile("\n" + _INDENTED_BODY, re.MULTILINE)


def _line_starts(text: str) -> Iterator[re.Match[str]]:
    """``_LINE.finditer(text)``, found faster; each match's group 1 starts where its line does."""
    first = _LINE.match(text)
    if first is not None:
        yield first
    yield from _LINE_AFTER_NL.finditer(text)


def _prev_blank(text: str, start: int) -> bool:
    """True when the line starting at ``start`` is the first line or follows a blank line."""
    if start == 0:
        return True
    before = text.rfind("\n", 0, start - 1)
    return not text[before + 1 : start - 1].strip()


def code_lines(text: str) -> list[tuple[int, int]]:
    """Offsets (start, end) of lines that render as an indented code block: indented by 4 spaces (or a tab)
    after a blank line or another such line. Their text is shown literally."""
    out: list[tuple[int, int]] = []
    if "    " not in text and "\t" not in text:  # no line can be indented enough
        return out
    for start, end in _indented_lines(text):
        if _prev_blank(text, start) or (out and out[-1][1] + 1 == start):
            out.append((start, end))
    return out


def _indented_lines(text: str) -> Iterator[tuple[int, int]]:
    """The spans of ``_INDENTED.finditer(text)``, found faster: the first line's, then each line's after a newline."""
    first = _INDENTED.match(text)
    if first is not None:
        yield first.span()
    for m in _INDENTED_AFTER_NL.finditer(text):
        yield m.start() + 1, m.end()


def _space(ch: str) -> bool:
    return ch == "" or ch.isspace()


def _punct(ch: str) -> bool:
    return ch != "" and not ch.isalnum() and not ch.isspace()


def _delimiter(text: str, start: int, end: int) -> bool:
    """True when the run ``text[start:end]`` of ``*``, ``_`` or ``~`` can open or close emphasis (CommonMark
    flanking rules; an underscore inside a word cannot)."""
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    left = not _space(after) and (not _punct(after) or _space(before) or _punct(before))
    right = not _space(before) and (not _punct(before) or _space(after) or _punct(after))
    if text[start] == "_":
        return (left and (not right or _punct(before))) or (right and (not left or _punct(after)))
    return left or right


def escapes(text: str, code: list[tuple[int, int]] | None = None) -> list[int]:
    """Sorted offsets in ``text`` before which a backslash goes, so markdown renders ``text`` as written.
    ``code``: ``code_lines(text)`` when already at hand."""
    code = code_lines(text) if code is None else code
    starts = [a for a, _ in code]

    def in_code(at: int) -> bool:
        i = bisect.bisect_right(starts, at) - 1
        return i >= 0 and at <= code[i][1]

    marks: list[int] = []
    for m in _INLINE.finditer(text):
        at = m.start()
        if code and in_code(at):
            continue
        ch = text[at]
        if ch in "*_~":
            if _delimiter(text, at, m.end()):
                marks.extend(range(at, m.end()))
        else:
            marks.append(at)
    for m in _line_starts(text):
        at = m.start(2)
        if code and in_code(at):
            continue
        token = m.group(2)
        if m.group(3) is not None:  # "5. " opens an ordered list after a blank line; "1. " anywhere
            if not (_prev_blank(text, m.start(1)) or int(m.group(3)) == 1):
                continue
            marks.append(at + len(m.group(3)))
        elif token.startswith("["):  # a reference definition "[x]: ...": its "]"
            marks.append(at + token.index("]"))
        elif "|" in token:  # a table's delimiter row: its first "-"
            marks.append(at + token.index("-"))
        else:
            marks.append(at)
    return sorted(set(marks))


class TextEscapes:
    """:func:`escapes` and :func:`code_lines` of a whole text (its ``lines`` joined by newlines), found once,
    and each line's share; :meth:`of_lines` gives a run of its lines' own escapes from them."""

    def __init__(self, lines: list[str]) -> None:
        text = "\n".join(lines)
        self.lines = lines
        self.code = code_lines(text)
        self.code_starts = [a for a, _ in self.code]
        self.marks = escapes(text, self.code)
        self.starts = [0, *accumulate(len(line) + 1 for line in lines)]  # offset of each line, and the end

    def per_line(self) -> list[int]:
        """The backslashes each line gets (what :func:`escapes_per_line` returns)."""
        counts = [0] * len(self.lines)
        ends = self.starts[1:]
        for at in self.marks:
            counts[min(bisect.bisect_right(ends, at), len(self.lines) - 1)] += 1
        return counts

    def of_lines(self, first: int, last: int) -> tuple[list[int], list[tuple[int, int]]] | None:
        """``escapes(body)`` and ``code_lines(body)`` of lines ``first..last`` (1-based) joined by newlines, taken
        from the whole text's, or None when they may differ: only what precedes a line decides anything
        across lines (an ordered-list marker and an indented code line count only after a blank line, and
        code lines continue a code run), and a body's first line reads as following a blank line. So the
        two agree when line ``first`` is the first line or follows a blank one; then nothing before it
        matters (a blank line is never code), and the lines after it change nothing inside it (every
        pattern stops at its line's end, where ``$`` and a newline read alike)."""
        if first > 1 and self.lines[first - 2].strip():
            return None
        base, end = self.starts[first - 1], self.starts[last] - 1
        lo, hi = bisect.bisect_left(self.marks, base), bisect.bisect_left(self.marks, end)
        marks = [at - base for at in self.marks[lo:hi]]
        lo, hi = bisect.bisect_left(self.code_starts, base), bisect.bisect_left(self.code_starts, end)
        code = [(a - base, b - base) for a, b in self.code[lo:hi]]
        return marks, code


def escapes_per_line(lines: list[str]) -> list[int]:
    """The backslashes :func:`escapes` adds to each of ``lines`` (joined by newlines), line by line."""
    return TextEscapes(lines).per_line()


def escape_text(text: str) -> str:
    """``text`` with its :func:`escapes` applied."""
    marks = escapes(text)
    if not marks:
        return text
    out, pos = [], 0
    for at in marks:
        out.append(text[pos:at])
        out.append("\\")
        pos = at
    out.append(text[pos:])
    return "".join(out)
