"""Sections from a document's own structure: markdown headings, or the numbering people use in text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from okf.markdown import parse_blocks

_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_ARTICLE = re.compile(
    r"^\s*(ARTICLE|Article|PART|Part|CHAPTER|Chapter)\s+([IVXLCDM]+|\d{1,3})\b[.:\-\u2013\u2014]?"
    r"\s*(.*)$"
)
_SCHEDULE = re.compile(
    r"^\s*(SCHEDULE|Schedule|EXHIBIT|Exhibit|ANNEX|Annex|APPENDIX|Appendix|ATTACHMENT|"
    r"Attachment)\s+([A-Z]{1,2}|\d{1,3}(?:\.\d{1,3})*|[IVX]+)(?![\w])[.:\-\u2013\u2014]?\s*(.*)$"
)
_SECTION = re.compile(r"^\s*(?:SECTION|Section|\u00a7)\s*(\d{1,3}(?:\.\d{1,3})*)(?![\w])\.?\s*(.*)$")
_NUMBERED = re.compile(r"^\s*(\d{1,3}(?:\.\d{1,3})*)(\.?)\s+(\S.*)$")
_BARE_NUMBER = re.compile(r"^\s*(\d{1,3}(?:\.\d{1,3})*\.|\d{1,3}(?:\.\d{1,3})+)\s*$")
_MEANS = re.compile(r"\s*,?\s*(?:shall\s+mean|means|mean|shall\s+have\s+the\s+meaning|has\s+the\s+meaning)\b")
# A markdown heading opening with an identifier: "2.", "2.1.3", "1.1.3.Guidance.1.", "APP 4.25.", "9.7.4.(3).(a)",
# "1.2 Installing", "2.6.Suspending Securities"; ``rest`` is empty when the heading is only the identifier.
_QUOTED = re.compile(r"[\"\u201c]([^\"\u201d]{1,60})[\"\u201d]")
_CLAUSE_END = re.compile(r"(?<=[.:;])\s")
_CAPS_WORD = re.compile(r"[A-Z][A-Z&,'\-]*")
# A structural noun before a number ("Part 1", "Chapter 2", "Part 1.Chapter 1.1."), an all-caps word ("APP 4.25."),
# or letters glued to the number ("APP1.A1.1", "A6.2"); "A.", "B.5." are lettered sections.
_STRUCTURE_NOUN = r"(?:Part|Chapter|Section|Article|Rule|Schedule|Annex|Appendix|Title|Division|Subpart|Clause)"
_ID_WORD = rf"(?:(?:[A-Z]{{2,10}}|{_STRUCTURE_NOUN})\s(?=\d))?"  # "APP ", "Part " before a number
_ID_PART = rf"{_ID_WORD}(?:[A-Z]{{1,4}}(?=\d))?[\w()\-]+"
_ID_HEADING = re.compile(
    rf"^(?P<id>{_ID_WORD}(?:(?P<glued>[A-Z]{{1,4}})(?=\d)|(?P<letter>[A-Z])(?=\.))?"
    rf"(?(letter)|\d[\w()\-]*)(?:\.{_ID_PART})*)\.?(?:\s+(?P<rest>\S.*))?$"
)


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
    ident: tuple[str, ...] | None = None  # dotted numbering ("2.1.3" -> ("2", "1", "3")) of a markdown heading
    title_line: int = 0  # the line that gave a bare-number heading its title ("CLIENT CLASSIFICATION")
    label: str = ""  # an all-caps line opening a bare-number heading's text ("INTRODUCTION\nThis Guidance ...")

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
    quoted = _QUOTED.match(rest)
    if quoted and (len(rest.split()) > 12 or _MEANS.match(rest, quoted.end())):
        return quoted.group(1)  # a definition clause: its term is its title
    words = rest.split()
    if len(words) <= 12 and len(rest) <= 100:
        return rest.rstrip(".:;").strip()
    sentence = _CLAUSE_END.split(rest, maxsplit=1)[0]
    if len(sentence.split()) <= 10:
        return sentence.rstrip(".:;").strip()
    caps = []
    for word in words:
        if not _CAPS_WORD.fullmatch(word):
            break
        caps.append(word)
    if 0 < len(caps) <= 10:
        return " ".join(caps).rstrip(",")
    return " ".join(words[:8]).rstrip(".,;:") + "\u2026"


def _is_caps(line: str) -> bool:
    stripped = line.strip()
    # Cheapest test first: almost every line has a lowercase letter.
    if (
        not (3 <= len(stripped) <= 80)
        or stripped.upper() != stripped
        or len(stripped.split()) > 10
        or stripped[-1] in ",;"
    ):
        return False
    letters = sum(c.isalpha() for c in stripped)
    return letters >= 3 and letters >= 0.6 * len(stripped.replace(" ", "")) and any(c.isupper() for c in stripped)


def _opens_title(rest: str) -> bool:
    """True when the text after a heading number can start a title ("Fees", "- TERM"), not a sentence
    continuing after a reference (", and ...", "of this Agreement")."""
    rest = rest.strip()
    return not rest or rest[0].isupper() or rest[0] in '"\u201c(-\u2013\u2014:.['


def text_heading(line: str) -> Section | None:
    """A heading recognised on one line of plain text, or None."""
    if not line or (line[0] in " \t" and not line.strip()):
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
    if m and (m.group(2) or "." in m.group(1)) and (m.group(3)[0].isupper() or m.group(3)[0] in '"\u201c'):
        num = m.group(1)
        return Section(f"{num} {_title(m.group(3))}", "section", 3 + num.count("."), 0, number=f"section:{num}")
    if _is_caps(line):
        return Section(line.strip().title() if len(line) > 3 else line.strip(), "caps", 2.5, 0)
    return None


_RUN_IN = re.compile(r"^([^a-z]{3,120}?)[.:]\s+(?=\S)")


def _caps_label(text: str) -> str:
    """``text`` in title case when it reads as an all-caps heading ("NON-EQUIVALENT ESTIMATES"), else ""."""
    text = text.strip().rstrip(".:").strip()
    letters = sum(c.isalpha() for c in text)
    if letters < 3 or text.upper() != text or len(text) > 160 or len(text.split()) > 20:
        return ""
    return _name(text) if letters >= 0.6 * len(text.replace(" ", "")) else ""


def _label(line: str) -> str:
    """The all-caps label opening a passage: the whole line ("INTRODUCTION") or a run-in heading
    ("INTRODUCTION. This Guidance is ..."), in title case; "" when the line opens with prose."""
    if label := _caps_label(line):
        return label
    m = _RUN_IN.match(line.strip())
    return _caps_label(m.group(1)) if m else ""


def _title_line(line: str) -> str | None:
    """A line that can name the heading just above it ("DEFINITIONS", "Term and Termination"), or None."""
    stripped = line.strip()
    words = stripped.split()
    if not words or len(words) > 8 or len(stripped) > 80 or stripped[-1] in ",;" or not stripped[0].isupper():
        return None
    if stripped[-1] == "." and len(words) > 4:  # a short sentence, not a name
        return None
    return stripped.rstrip(".:").strip() or None


def _name(line: str) -> str:
    """A title line as written, all-caps lines in title case."""
    return line.title() if line.isupper() and len(line) > 3 else line


def text_headings(lines: list[str]) -> list[Section]:
    """Every heading line of a plain-text document, with its line number as ``start``."""
    found: list[Section] = []
    previous_blank = True
    bare: tuple[int, str] | None = None  # a line holding only a clause number ("5."), waiting for its title
    for number, line in enumerate(lines, 1):
        if line.strip():
            # An all-caps line inside a paragraph is emphasis, not a heading: require a blank line before.
            last = found[-1] if found else None
            named = (
                last is not None
                and last.kind in ("article", "schedule")
                and ":" not in last.title
                and number - last.start <= 2
            )
            # Most lines continue a paragraph with no pending heading: no branch below would use a match.
            heading = text_heading(line) if previous_blank or named or bare is not None else None
            if named and heading is not None and heading.kind == "caps":
                # "ARTICLE I" over "DEFINITIONS": the caps line is the article's title, not a new section.
                assert last is not None
                last.title = f"{last.title}: {heading.title}"
            elif named and heading is None and (title := _title_line(line)):
                assert last is not None
                last.title = f"{last.title}: {_name(title)}"  # "Part 2" over "Fees and Payment"
            elif (
                bare is not None
                and number - bare[0] <= 2
                and (heading is None or heading.kind == "caps")
                and (title := _title_line(line))
            ):
                # "5." alone over "TERM": one numbered heading "5 Term", so the clause keeps its number.
                num = bare[1]
                found.append(
                    Section(
                        f"{num} {_name(title)}",
                        "section",
                        3 + num.count("."),
                        bare[0],
                        number=f"section:{num}",
                        title_line=number,
                    )
                )
            elif heading is not None and previous_blank:  # a wrapped line inside a paragraph is no heading
                heading.start = number
                found.append(heading)
            bare = None
            if previous_blank and (m := _BARE_NUMBER.match(line)):
                bare = (number, m.group(1).rstrip("."))
        previous_blank = not line.strip()
    return found


def _ident(text: str) -> tuple[tuple[str, ...] | None, bool]:
    """The dotted numbering of a markdown heading, and whether the heading is nothing but that identifier."""
    m = _ID_HEADING.match(text)
    if m is None or len(m.group("id")) > 40:
        return None, False
    ident = m.group("id")
    if (m.group("glued") or m.group("letter")) and m.group("rest") is not None and "." not in ident:
        return None, False  # "Q3 Results", "A Guide": words, not an identifier
    return tuple(p for p in ident.split(".") if p), m.group("rest") is None


def markdown_headings(text: str, lines: list[str] | None = None) -> tuple[list[Section], list[int]]:
    """Markdown headings as sections, and the first line of every top-level block.

    A heading that is only an identifier ("### 2.") followed by nothing but one short line ("CLIENT
    CLASSIFICATION") takes that line as its title ("2. Client Classification"), so numbered passages read
    like a table of contents; :func:`build_tree` nests them by their numbering.
    """
    found: list[Section] = []
    starts: list[int] = []
    blocks = parse_blocks(text)
    idents = {i: _ident(b.text) for i, b in enumerate(blocks) if b.kind == "heading" and b.text}
    atx = [i for i in idents if blocks[i].end_line == blocks[i].start_line]
    # Where the headings are numbered passages ("### 2.1.3"), a line underlined by "=" or "-" is a formula or
    # a rule below text, not a heading (setext headings span two lines or more; ATX headings one).
    numbered = len(atx) >= 3 and 2 * sum(idents[i][0] is not None for i in atx) >= len(atx)
    for i, block in enumerate(blocks):
        starts.append(block.start_line)
        if i not in idents or (numbered and block.end_line > block.start_line):
            continue
        title, named, label = block.text, 0, ""
        ident, bare = idents[i]
        if bare and lines is not None and i + 1 < len(blocks):
            following = blocks[i + 1]
            closes = i + 2 >= len(blocks) or blocks[i + 2].kind == "heading"
            one_line = following.start_line == following.end_line and closes
            if following.kind == "paragraph" and one_line and (name := _title_line(lines[following.start_line - 1])):
                title = f"{title} {_name(name)}"
                named = following.start_line
            elif following.kind == "paragraph":
                label = _label(lines[following.start_line - 1])
        found.append(
            Section(
                title,
                "heading",
                block.level,
                block.start_line,
                anchor=anchor_slug(block.text),
                ident=ident,
                title_line=named,
                label=label,
            )
        )
    return found, starts


def _group_labels(section: Section) -> None:
    """Gather numbered passages that open with the same all-caps label into a section named by it.

    Guidance often numbers its paragraphs straight through and repeats the heading of the part they belong
    to at the top of each ("### 12)" / "OBJECTIVES OF THE FRAMEWORK" / text): consecutive siblings sharing a
    label become one section titled by the label, so the outline reads by subject, not by paragraph number.
    A lone labelled passage takes its label into its title ("1. General Introduction"). Nothing changes where
    every child shares one label (the parent already is that subject)."""
    for child in section.children:
        _group_labels(child)
    kids = section.children
    if not any(k.label for k in kids):
        return
    out: list[Section] = []
    i = 0
    while i < len(kids):
        j = i + 1
        while kids[i].label and j < len(kids):
            if kids[j].label == kids[i].label:
                j += 1
            elif not kids[j].label and j + 1 < len(kids) and kids[j + 1].label == kids[i].label:
                j += 2  # an unlabelled passage (a table's lead-in) between two of the same part
            else:
                break
        run = kids[i:j]
        if len(run) == len(kids):
            return
        if len(run) > 1:
            first = run[0]
            out.append(Section(first.label, "heading", first.rank, first.start, run[-1].end, children=run))
        else:
            if run[0].label and not run[0].children:
                run[0].title = f"{run[0].title} {run[0].label}"
            out.append(run[0])
        i = j
    section.children = out


def _holds(parent: Section, child: Section) -> bool:
    """True when ``child`` belongs under ``parent``: a higher heading rank, or (same rank) numbering that
    extends the parent's (2 > 2.1 > 2.1.3 > 2.1.3.Guidance)."""
    if parent.kind == "document":
        return True
    if parent.rank == child.rank and parent.ident is not None and child.ident is not None:
        return len(parent.ident) < len(child.ident) and child.ident[: len(parent.ident)] == parent.ident
    return parent.rank < child.rank


def _backwards(ident: tuple[str, ...], previous: tuple[str, ...]) -> bool:
    """True when numbering ``ident`` repeats or goes back from ``previous`` ("1." after "2."), judged only
    where both differ in plain numbers (words like "Guidance" have no order)."""
    for a, b in zip(ident, previous):
        if a != b:
            return a.isdigit() and b.isdigit() and int(a) < int(b)
    return len(ident) == len(previous)


def _follows(ident: tuple[str, ...], previous: tuple[str, ...]) -> bool:
    """True when ``ident`` is the next number after ``previous`` ("3." after "2.", "2.4" after "2.3")."""
    if len(ident) != len(previous) or ident[:-1] != previous[:-1]:
        return False
    a, b = ident[-1], previous[-1]
    return a.isdigit() and b.isdigit() and int(a) == int(b) + 1


def build_tree(headings: list[Section], line_count: int, title: str, first: int = 1) -> Section:
    """Nest flat headings by rank (ARTICLE > 1. > 1.1 ...) and by dotted numbering; fill each ``end``. The
    document's content starts at line ``first`` (after a note's frontmatter).

    Numbering that runs backwards ("1.", "2." after "2.6.3") is a numbered list inside the passage above,
    so it nests there instead of restarting the document's outline.
    """
    root = Section(title, "document", 0, first, line_count)
    stack = [root]
    listed: set[int] = set()  # ids of sections nested as such lists

    def close(line: int) -> None:
        stack.pop().end = line

    for heading in headings:
        ident = heading.ident
        last = stack[-1]
        if ident is not None and id(last) in listed and last.ident is not None and _follows(ident, last.ident):
            close(heading.start - 1)  # the next item of a numbered list nested in a passage
            listed.add(id(heading))
            stack[-1].children.append(heading)
            stack.append(heading)
            continue
        if ident is not None:
            depth = len(stack)
            while depth > 1 and not _holds(stack[depth - 1], heading):
                depth -= 1
            sibling = stack[depth] if depth < len(stack) else None
            if (
                sibling is not None
                and sibling.ident is not None
                and sibling.rank == heading.rank
                and id(sibling) not in listed
                and _backwards(ident, sibling.ident)
            ):
                listed.add(id(heading))
                stack[-1].children.append(heading)
                stack.append(heading)
                continue
        while len(stack) > 1 and not _holds(stack[-1], heading):
            close(heading.start - 1)
        stack[-1].children.append(heading)
        stack.append(heading)
    for open_section in stack[1:]:
        open_section.end = line_count
    _group_labels(root)
    return root
