"""The layout of a body for the offline rule reader: paragraphs, list items and table rows, cut into sentences
that know the file lines they stand on.

Headings, fenced code and table separator rows are skipped. A list item starts at a marker (``-``, ``1.``,
``(a)``, ``a)``, ``(iv)``, ``(3)``); a line without one continues the unit before it. A line break is a
sentence boundary where the line before reads as a title (it ends in a capital, a digit, a bracket or a full
stop) and the next line starts a new sentence, so the title lines of a passage do not run into its first rule.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from okf.markdown import FENCE, LINK_OR_IMAGE, atx_heading

_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_MARKER = re.compile(
    r"^(?P<indent>\s*)(?P<marker>[-*+•]|\d{1,3}[.)]|\((?:[a-z]{1,2}|[ivxlc]{1,6}|\d{1,3}[A-Za-z]?|[A-Z])\)"
    r"|[a-z]{1,2}\)|[ivxlc]{1,6}\)|[a-z]\.(?=\s))(?:\s+|$)"
)
# Sentence ends: . ! ? followed by space and a capital, a digit or an opening mark. Abbreviations stay whole.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[A-Z0-9“\"‘'(\[])")
_ABBREVIATIONS = frozenset(
    [
        "e.g",
        "i.e",
        "etc",
        "no",
        "nos",
        "art",
        "arts",
        "reg",
        "regs",
        "inc",
        "ltd",
        "co",
        "corp",
        "vs",
        "cf",
        "para",
        "paras",
        "s",
        "ss",
        "mr",
        "mrs",
        "ms",
        "dr",
        "st",
        "approx",
        "incl",
        "sch",
        "ch",
        "sec",
        "fig",
        "vol",
        "pp",
        "p",
        "al",
        "u.a.e",
        "u.s",
        "u.k",
    ]
)
TITLE_WORDS = 8  # a line this short, unpunctuated, before a capitalised line is a title
_ROMAN = re.compile(r"^\(?[ivxlc]{1,6}\)$")
# Inline markup read as its text: links as their text, emphasis and code marks dropped, escapes undone.
_EMPHASIS = re.compile(r"(\*\*|__|\*|`+)(?=\S)(.+?)(?<=\S)\1")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|&$])")


def plain(line: str) -> str:
    """A markdown line as read: link text for links, emphasis and code marks dropped, escapes undone."""
    if "[" in line:
        line = LINK_OR_IMAGE.sub(r"\1", line)
    if "*" in line or "_" in line or "`" in line:
        line = _EMPHASIS.sub(r"\2", line)
    return _ESCAPE.sub(r"\1", line) if "\\" in line else line


@dataclass
class Unit:
    """A paragraph, list item or table row: its text (marker removed) and where each of its lines starts."""

    kind: str  # "para", "item" or "row"
    text: str
    starts: list[tuple[int, int]]  # (offset in text, file line) per source line
    marker: str = ""
    indent: int = 0
    breaks: list[int] = field(default_factory=list)  # offsets where a line break ends a sentence

    @property
    def first_line(self) -> int:
        return self.starts[0][1]

    @property
    def last_line(self) -> int:
        return self.starts[-1][1]

    def line_at(self, offset: int) -> int:
        """The file line holding character ``offset`` of the text."""
        index = bisect_right([start for start, _ in self.starts], offset) - 1
        return self.starts[max(index, 0)][1]

    def sentences(self) -> list[Sentence]:
        """The unit cut into sentences, each with its file line span."""
        cuts = sorted(
            {
                0,
                *self.breaks,
                *(m.end() for m in _SENTENCE_END.finditer(self.text) if not _abbreviation(self.text, m.start())),
            }
        )
        out: list[Sentence] = []
        for start, end in zip(cuts, [*cuts[1:], len(self.text)]):
            piece = self.text[start:end]
            lead = len(piece) - len(piece.lstrip())
            text = piece.strip()
            if text:
                first = start + lead
                out.append(Sentence(text, self.line_at(first), self.line_at(first + len(text) - 1), self))
        return out


@dataclass
class Sentence:
    """One sentence of a unit and the file lines it spans."""

    text: str
    start_line: int
    end_line: int
    unit: Unit


def marker_style(marker: str, within: str = "") -> str:
    """The family of a list marker: ``alpha``, ``roman``, ``number`` or ``bullet``. A single letter is roman
    only when it is "i" (or in a roman list, ``within="roman"``); "(c)" and "(v)" in a lettered list are letters."""
    bare = marker.strip("().")
    if marker in "-*+•":
        return "bullet"
    if bare.isdigit() or bare[:-1].isdigit():
        return "number"
    roman = bool(_ROMAN.match(marker)) or (marker.endswith(")") and set(bare) <= set("ivxlc"))
    if roman and (len(bare) > 1 or within == "roman" or (bare == "i" and within != "alpha")):
        return "roman"
    return "alpha" if bare.islower() else "upper"


def _abbreviation(text: str, dot: int) -> bool:
    """The full stop at ``dot`` ends an abbreviation ("e.g.", "No.") or an initial, not a sentence."""
    head = text[:dot].rstrip("\"'”’)")
    word = head[head.rfind(" ") + 1 :].lower().rstrip(".")
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def _title_break(previous: str, following: str) -> bool:
    """A line break that ends a sentence: the line before reads as a title or a finished sentence."""
    prev = previous.rstrip()
    nxt = following.lstrip()
    if not prev or not nxt or not (nxt[0].isupper() or nxt[0].isdigit() or nxt[0] in "“\"‘'("):
        return False
    if prev[-1].isupper() or prev[-1].isdigit() or prev[-1] in ".!?:)]":
        return True
    # A short line with no closing punctuation before a capitalised one is a title ("Margin Requirements").
    return len(prev.split()) <= TITLE_WORDS and prev[-1] not in ",;-–—" and not nxt[0].isdigit()


def units(text: str, first_line: int = 1) -> list[Unit]:
    """The paragraphs, items and rows of a markdown body whose first line is file line ``first_line``."""
    out: list[Unit] = []
    current: Unit | None = None
    fence: str | None = None

    def flush() -> None:
        nonlocal current
        if current is not None and current.text.strip():
            out.append(current)
        current = None

    for number, raw in enumerate(text.split("\n"), first_line):
        opened = FENCE.match(raw)
        if opened or fence:
            if opened and fence is None:
                fence = opened.group(1)[0] * 3
            elif opened and opened.group(1).startswith(fence or "\0"):
                fence = None
            flush()
            continue
        line = plain(raw)
        stripped = line.strip()
        if not stripped or atx_heading(line) is not None:
            flush()
            continue
        if stripped.startswith("|"):
            flush()
            if not _TABLE_RULE.match(stripped):
                cells = [c.strip() for c in stripped.strip("|").split("|")]
                row = " | ".join(c for c in cells if c)
                out.append(Unit("row", row, [(0, number)]))
            continue
        item = _MARKER.match(line)
        if item and item.end() < len(line.rstrip()):
            flush()
            body = line[item.end() :].strip()
            current = Unit(
                "item", body, [(0, number)], marker=item.group("marker"), indent=len(item.group("indent").expandtabs(4))
            )
            continue
        if current is None:
            current = Unit("para", stripped, [(0, number)])
            continue
        previous = current.text[current.starts[-1][0] :]
        offset = len(current.text) + 1
        if _title_break(previous, stripped):
            current.breaks.append(offset)
        current.text += " " + stripped
        current.starts.append((offset, number))
    flush()
    return out
