"""Sections from a document's own structure: markdown headings, or the numbering people use in text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from okf.markdown import parse_blocks

_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_ARTICLE = re.compile(r"^\s*(ARTICLE|Article|PART|Part|CHAPTER|Chapter)\s+([IVXLCDM]+|\d{1,3})\b[.:\-\u2013\u2014]?"
                      r"\s*(.*)$")
_SCHEDULE = re.compile(r"^\s*(SCHEDULE|Schedule|EXHIBIT|Exhibit|ANNEX|Annex|APPENDIX|Appendix|ATTACHMENT|"
                       r"Attachment)\s+([A-Z]{1,2}|\d{1,3}(?:\.\d{1,3})*|[IVX]+)(?![\w])[.:\-\u2013\u2014]?\s*(.*)$")
_SECTION = re.compile(r"^\s*(?:SECTION|Section|\u00a7)\s*(\d{1,3}(?:\.\d{1,3})*)(?![\w])\.?\s*(.*)$")
_NUMBERED = re.compile(r"^\s*(\d{1,3}(?:\.\d{1,3})*)(\.?)\s+(\S.*)$")


@dataclass
class Section:
    """A heading and what lies under it. ``start``..``end`` spans the whole subtree, heading included."""

    title: str
    kind: str  # document, heading, article, schedule, section, caps
    rank: float
    start: int
    end: int = 0
    number: str | None = None
    children: list[Section] = field(default_factory=list)
    anchor: str = ""

    @property
    def own_end(self) -> int:
        """Last line of this section's own text (before its first child)."""
        return self.children[0].start - 1 if self.children else self.end


def roman(value: str) -> int:
    """The integer of a roman numeral (already validated by the caller's regex)."""
    total = 0
    for i, ch in enumerate(value):
        v = _ROMAN[ch]
        total += -v if i + 1 < len(value) and _ROMAN[value[i + 1]] > v else v
    return total


def anchor_slug(text: str) -> str:
    """The GitHub-style anchor of a heading (lowercase, punctuation dropped, spaces to hyphens)."""
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def _title(rest: str) -> str:
    """A short title from the text after a number: the rest when short, else its first phrase."""
    rest = rest.strip().strip("-\u2013\u2014:").strip()
    quoted = re.match(r"[\"\u201c]([^\"\u201d]{1,60})[\"\u201d]", rest)
    if quoted and len(rest.split()) > 12:  # a definition clause: its term is its title
        return quoted.group(1)
    words = rest.split()
    if len(words) <= 12 and len(rest) <= 100:
        return rest.rstrip(".:;").strip()
    sentence = re.split(r"(?<=[.:;])\s", rest, maxsplit=1)[0]
    if len(sentence.split()) <= 10:
        return sentence.rstrip(".:;").strip()
    caps = []
    for word in words:
        if not re.fullmatch(r"[A-Z][A-Z&,'\-]*", word):
            break
        caps.append(word)
    if 0 < len(caps) <= 10:
        return " ".join(caps).rstrip(",")
    return " ".join(words[:8]).rstrip(".,;:") + "\u2026"


def _is_caps(line: str) -> bool:
    stripped = line.strip()
    if not (3 <= len(stripped) <= 80) or len(stripped.split()) > 10 or stripped[-1] in ",;":
        return False
    letters = sum(c.isalpha() for c in stripped)
    return letters >= 3 and letters >= 0.6 * len(stripped.replace(" ", "")) and stripped.upper() == stripped \
        and any(c.isupper() for c in stripped)


def _opens_title(rest: str) -> bool:
    """True when the text after a heading number can start a title ("Fees", "- TERM"), not a sentence
    continuing after a reference (", and ...", "of this Agreement")."""
    rest = rest.strip()
    return not rest or rest[0].isupper() or rest[0] in "\"\u201c(-\u2013\u2014:.["


def text_heading(line: str) -> Section | None:
    """A heading recognised on one line of plain text, or None."""
    if not line or line[0] in " \t" and not line.strip():
        return None
    m = _SCHEDULE.match(line)
    if m and _opens_title(m.group(3)) and len(line.split()) <= 14:
        kind = m.group(1).capitalize()
        title = f"{kind} {m.group(2)}" + (f": {_title(m.group(3))}" if m.group(3).strip() else "")
        return Section(title, "schedule", 1, 0, number=f"{kind.lower()}:{m.group(2)}")
    m = _ARTICLE.match(line)
    if m and _opens_title(m.group(3)):
        kind, num = m.group(1).capitalize(), m.group(2)
        value = str(roman(num)) if num.isalpha() else str(int(num))
        title = f"{kind} {num}" + (f": {_title(m.group(3))}" if m.group(3).strip() else "")
        return Section(title, "article", 2, 0, number=f"{kind.lower()}:{value}")
    m = _SECTION.match(line)
    if m and _opens_title(m.group(2)):
        num = m.group(1)
        title = f"Section {num}" + (f" {_title(m.group(2))}" if m.group(2).strip() else "")
        return Section(title, "section", 3 + num.count("."), 0, number=f"section:{num}")
    m = _NUMBERED.match(line)
    if m and (m.group(2) or "." in m.group(1)) and (m.group(3)[0].isupper() or m.group(3)[0] in "\"\u201c"):
        num = m.group(1)
        return Section(f"{num} {_title(m.group(3))}", "section", 3 + num.count("."), 0,
                       number=f"section:{num}")
    if _is_caps(line):
        return Section(line.strip().title() if len(line) > 3 else line.strip(), "caps", 2.5, 0)
    return None


def text_headings(lines: list[str]) -> list[Section]:
    """Every heading line of a plain-text document, with its line number as ``start``."""
    found: list[Section] = []
    previous_blank = True
    for number, line in enumerate(lines, 1):
        if line.strip():
            # An all-caps line inside a paragraph is emphasis, not a heading: require a blank line before.
            heading = text_heading(line)
            last = found[-1] if found else None
            if (heading is not None and heading.kind == "caps" and last is not None
                    and last.kind in ("article", "schedule") and ":" not in last.title and number - last.start <= 2):
                # "ARTICLE I" over "DEFINITIONS": the caps line is the article's title, not a new section.
                last.title = f"{last.title}: {heading.title}"
            elif heading is not None and previous_blank:  # a wrapped line inside a paragraph is no heading
                heading.start = number
                found.append(heading)
        previous_blank = not line.strip()
    return found


def markdown_headings(text: str) -> tuple[list[Section], list[int]]:
    """Top-level markdown headings as sections, and the first line of every top-level block."""
    found: list[Section] = []
    starts: list[int] = []
    for block in parse_blocks(text):
        starts.append(block.start_line)
        if block.kind == "heading" and block.text:
            found.append(Section(block.text, "heading", block.level, block.start_line, anchor=anchor_slug(block.text)))
    return found, starts


def build_tree(headings: list[Section], line_count: int, title: str) -> Section:
    """Nest flat headings by rank (ARTICLE > 1. > 1.1 ...); fill each section's ``end``."""
    root = Section(title, "document", 0, 1, line_count)
    stack = [root]
    for heading in headings:
        while len(stack) > 1 and stack[-1].rank >= heading.rank:
            closed = stack.pop()
            closed.end = heading.start - 1
        stack[-1].children.append(heading)
        stack.append(heading)
    for open_section in stack[1:]:
        open_section.end = line_count
    return root
