"""Markdown parsing: the only module that imports markdown-it. Returns okf's own small dataclasses.

Line numbers are 1-based and inclusive; pass ``line_offset`` (the number of lines before ``text`` in its
file) to get file line numbers for a body that starts below its frontmatter.

:func:`find_links` and :func:`parse_index` first try a line scanner that is many times faster than
markdown-it (checking a bundle reads every concept). It accepts only text whose every construct it reproduces
exactly (plain ``[label](target "title")`` links, ATX headings, ``*``/``-``/``+`` bullets) and declines
anything else (backticks, HTML, escapes, entities, reference links, indented code, emphasis in labels...),
which then goes to markdown-it. tests/test_markdown.py checks both give identical results.

The line helpers at the end (:data:`FENCE`, :func:`fenced_lines`, :func:`atx_heading`,
:data:`LEADING_MARKERS`, :data:`LINK_OR_IMAGE`, :func:`link_text`) serve modules that read markdown a line
at a time without a full parse (receipts, wikilinks, the offline reader's layout, compile's term survey and
descriptions, answer validation): the markdown syntax okf reads is spelled here, once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

_BLOCK_KINDS = {
    "heading_open": "heading",
    "paragraph_open": "paragraph",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "fence": "code",
    "code_block": "code",
    "html_block": "html",
    "blockquote_open": "blockquote",
    "hr": "hr",
}


# markdown-it is imported when first needed (about 30 ms): the line scanners below read most bundles without it.
@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table")


@lru_cache(maxsize=1)
def _html_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # Raw HTML in a body is shown as text, never passed through: a bundle is untrusted input to a page.
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def to_html(text: str, rewrite: Callable[[str], str] | None = None) -> str:
    """``text`` rendered as HTML with raw HTML escaped; ``rewrite`` maps every link and image target.

    Unsafe URLs (``javascript:`` and the like) are refused by markdown-it and stay text.
    """
    parser = _html_parser()
    tokens = parser.parse(text)
    if rewrite is not None:
        for token in tokens:
            for child in token.children or ():
                name = "href" if child.type == "link_open" else "src" if child.type == "image" else None
                target = child.attrGet(name) if name else None
                if name and isinstance(target, str):
                    child.attrSet(name, rewrite(target))
    html: str = parser.renderer.render(tokens, parser.options, {})
    return html


@dataclass(frozen=True)
class Block:
    """A top-level markdown block. ``text`` is the plain heading text for headings, else empty."""

    kind: str
    start_line: int
    end_line: int
    level: int = 0
    text: str = ""


@dataclass(frozen=True)
class MdLink:
    """An inline markdown link: its text, raw target, and the line it is on."""

    text: str
    target: str
    line: int


@dataclass(frozen=True)
class IndexEntry:
    """One bullet of an ``index.md`` listing: ``[Title](target) - description``."""

    title: str
    target: str
    description: str
    section: str | None
    line: int


@dataclass
class IndexListing:
    """What an ``index.md`` body holds: its entries, section headings, and bullets it could not read."""

    entries: list[IndexEntry] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)


def _tokens(text: str) -> list[Token]:
    return _parser().parse(text)


def _inline_text(token: Token) -> str:
    """Plain text of an inline token (markup stripped)."""
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "html_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return "".join(parts).strip()


# Plain prose and ATX headings, read by line (see :func:`_fast_blocks`): a line starting with a letter or digit
# opens or continues a paragraph unless it opens an ordered list item; a heading's text is plain when it
# holds none of the characters inline markdown reads (emphasis, code, links, HTML, entities, escapes, a
# closing "#" sequence).
_PLAIN_HEADING = re.compile(r"(#{1,6}) +([^\\`*_\[\]<>!&~#]*[^\\`*_\[\]<>!&~#\s][^\\`*_\[\]<>!&~#]*?) *")


def _plain_heading(line: str, number: int) -> Block | None:
    """The heading block of an ATX ``line`` at line ``number`` when it is plain text (:data:`_PLAIN_HEADING`),
    else None: the line scanners hand such a text to markdown-it."""
    m = _PLAIN_HEADING.fullmatch(line)
    return None if m is None else Block("heading", number, number, len(m.group(1)), m.group(2).strip())


_ITEM_START = re.compile(r"[0-9]{1,9}[.)](?: |$)")
_BLOCK_DECLINE = re.compile("[\x00-\x09\x0b-\x1f\x7f|]")


def _fast_blocks(text: str, line_offset: int) -> list[Block] | None:
    """:func:`parse_blocks` by line scan, or None when the text needs markdown-it.

    Accepts only text whose every line is blank (spaces only), an ATX heading with plain text (no leading
    spaces), or starts with a letter or digit and opens no list item: such a line cannot start any other
    block (quote, list, fence, HTML, table, rule, setext underline, link reference, indented code) nor
    interrupt a paragraph, so paragraphs run between blank lines and headings. Tabs, control characters
    and ``|`` (a table row) decline. tests/test_markdown.py checks the result equals markdown-it's.
    """
    if _BLOCK_DECLINE.search(text):
        return None
    blocks: list[Block] = []
    start = 0  # 1-based first line of the open paragraph, 0 when none is open
    number = 0
    for number, line in enumerate(text.split("\n"), 1):
        first = line[:1]
        if first.isalnum():
            if _ITEM_START.match(line):
                return None
            if not start:
                start = number
            continue
        if start:
            blocks.append(Block("paragraph", start + line_offset, number - 1 + line_offset))
            start = 0
        if first == "#":
            heading = _plain_heading(line, number + line_offset)
            if heading is None:
                return None
            blocks.append(heading)
        elif line.strip(" "):
            return None
    if start:
        blocks.append(Block("paragraph", start + line_offset, number + line_offset))
    return blocks


def parse_blocks(text: str, line_offset: int = 0) -> list[Block]:
    """The top-level blocks of ``text``, in order, with their line ranges."""
    fast = _fast_blocks(text, line_offset)
    if fast is not None:
        return fast
    return _parse_blocks(text, line_offset)


def _parse_blocks(text: str, line_offset: int = 0) -> list[Block]:
    """:func:`parse_blocks` by markdown-it."""
    tokens = _tokens(text)
    blocks: list[Block] = []
    for i, tok in enumerate(tokens):
        if tok.level != 0 or tok.type not in _BLOCK_KINDS or tok.map is None:
            continue
        start, end = tok.map
        kind = _BLOCK_KINDS[tok.type]
        if kind == "heading":
            inline = tokens[i + 1]
            blocks.append(
                Block(
                    kind, start + 1 + line_offset, end + line_offset, level=int(tok.tag[1]), text=_inline_text(inline)
                )
            )
        else:
            blocks.append(Block(kind, start + 1 + line_offset, max(end, start + 1) + line_offset))
    return blocks


def _links_in_inline(inline: Token, first_line: int) -> list[MdLink]:
    links: list[MdLink] = []
    line = first_line
    target: str | None = None
    start_line = line
    label: list[str] = []
    for child in inline.children or []:
        if child.type in ("softbreak", "hardbreak"):
            line += 1
            if target is not None:
                label.append(" ")
        elif child.type == "link_open":
            target = str(child.attrGet("href") or "")
            start_line = line
            label = []
        elif child.type == "link_close" and target is not None:
            links.append(MdLink("".join(label).strip(), target, start_line))
            target = None
        elif target is not None and child.type in ("text", "code_inline"):
            label.append(child.content)
    return links


# Text holding any of these goes to markdown-it: code spans and fences, HTML and autolinks, images, tables,
# tabs, CR and other controls, and whitespace other than space and newline (markdown-it trims it from
# paragraphs, which shifts line numbers); str.isprintable() first rules all of those out in one pass of C
# code for most text, and only text it refuses is searched character by character. An ``&`` goes to markdown-it
# only where it may start an entity; a backslash only where the caller cannot read escapes or it escapes no
# ASCII punctuation (a hard break...).
_DECLINE_MARKS = ("`", "<", "|", "![", "~~~")
_DECLINE_CHARS = re.compile("[\x00-\x09\x0b-\x1f\x7f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_ASCII_CONTROLS = bytes([*range(0x0A), *range(0x0B, 0x20), 0x7F])  # _DECLINE_CHARS in ASCII
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")
_PUNCTUATION = r"[!-/:-@\[-`{-~]"  # CommonMark's ASCII punctuation: what a backslash escapes
_ESCAPE = re.compile(r"\\(" + _PUNCTUATION + ")")
# A backslash that escapes nothing, searched in text whose escapes are masked (what is left are backslashes before
# anything but ASCII punctuation), when it is not before an ASCII letter or digit. markdown-it reads a backslash
# and the letter or digit after it as the two characters of text they are (a file name ``US-DOCS\105216871.19``:
# 60 of cuad's bodies), and neither starts anything; before a line break it is a hard break, before a space or
# at the end of the text it is not that simple: the link scanner leaves those to markdown-it.
_LITERAL_BACKSLASH_NOT_TEXT = re.compile(r"\\(?![A-Za-z0-9])")


def _declined(text: str, *, escapes: bool = False) -> bool:
    """Whether ``text`` holds a construct the scanners leave to markdown-it (``escapes``: the caller reads
    backslash escapes of punctuation; the characters they escape are then plain text)."""
    if "\\" in text:
        if not escapes:
            return True
        text = _ESCAPE.sub("a", text)
        if "\\" in text:  # a backslash escaping nothing (read left to right: "\\\\s" is an escaped "\\", then "s")
            return True
    return _declined_unescaped(text, text)


def _declined_unescaped(text: str, entities: str) -> bool:
    """:func:`_declined` of a text whose escapes are replaced by letters (one or more each: a letter never
    makes or breaks a mark or a control character); ``entities``: the text with each escape replaced by one
    letter, where an entity is looked for as :func:`_declined` looks for it (a name's length counts there)."""
    for mark in _DECLINE_MARKS:
        if mark[0] in text and mark in text:  # one character first: memchr, where "![" in text is a slow search
            return True
    if text.isascii():  # most text: its declined characters are the ASCII controls, deleted in one C pass
        if len(text.encode("ascii").translate(None, _ASCII_CONTROLS)) != len(text):
            return True
    elif not text.replace("\n", " ").isprintable() and _DECLINE_CHARS.search(text):
        return True
    return "&" in entities and _ENTITY.search(entities) is not None


def _unescape(text: str) -> str:
    return _ESCAPE.sub(r"\1", text) if "\\" in text else text


# Four spaces of indentation. An indented line right after a line of paragraph text continues that paragraph
# whatever the nesting (code cannot interrupt a paragraph): inline text. Otherwise it opens an indented code
# block (its links are not links) when it is indented four columns past where any list item's or quote's
# content seen so far may start (so whichever container holds it, it is code there); the block runs over
# blank lines and lines as indented, and the scanner blanks its lines out. Anything in between depends on
# which container is open: declined, as are four spaces after a block marker (code inside the item).
# (one space after a marker belongs to it, four more make code; no nested quantifier may share a space, or
# a line of many markers would backtrack exponentially)
_INDENTED_AFTER_MARKER = re.compile(r"(?:[ ]*(?:>|[-+*]|[0-9]{1,9}[.)]))+[ ]{5}")
_LEAD = re.compile(r"(?:[ ]*(?:>|[-+*](?= |$)|[0-9]{1,9}[.)](?= |$)))*[ ]*")
_NOT_PARAGRAPH = re.compile(r"#{1,6}(?: |$)|(?:=+|-+|(?:[-*_][ ]*){3,})[ ]*$")


def _paragraph_text(line: str) -> bool:
    """True when ``line`` surely holds paragraph text (leading spaces and block markers aside): not blank,
    not a bare marker, heading, setext underline or thematic break."""
    content = line[_LEAD.match(line).end() :]  # type: ignore[union-attr]
    return bool(content) and _NOT_PARAGRAPH.match(content) is None


# _INDENTED_AFTER_MARKER at the start of a line after the first (a newline first: re finds it at C speed).
_INDENTED_AFTER_MARKER_NEXT = re.compile(r"\n(?:[ ]*(?:>|[-+*]|[0-9]{1,9}[.)]))+[ ]{5}")


def _without_code(text: str) -> str | None:
    """``text`` with its indented code lines blanked (spaces: lines and offsets kept), or None when what
    an indented line is cannot be told without markdown-it (see above)."""
    if "    " not in text:
        return text
    if not text.startswith("    ") and "\n    " not in text:
        # No line is indented four spaces (the runs of spaces are inside lines): no line is code, and the
        # steps below decline only a line with five spaces after its block markers (tests/test_markdown.py).
        if "     " not in text:
            return text
        return None if _INDENTED_AFTER_MARKER.match(text) or _INDENTED_AFTER_MARKER_NEXT.search(text) else text
    return _without_code_by_line(text)


def _without_code_by_line(text: str) -> str | None:
    """:func:`_without_code`, a line at a time."""
    lines = text.split("\n")
    content_column = 0  # the furthest column a container's content may start at, over the lines so far
    in_code = blanked = False
    continued = False  # the previous line continued a paragraph outside any container (whatever it reads as)
    previous = ""
    for n, line in enumerate(lines):
        if not line.strip(" "):
            previous = line  # blank: code goes on across it
            continued = False
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent >= 4:
            # "alpha" then "    # " then "    - [x](y)": the second line is paragraph text (no heading is
            # indented four spaces), so the third continues that paragraph too.
            if in_code or not (continued or _paragraph_text(previous)):
                if indent < content_column + 4 or (not in_code and previous.strip(" ") and not previous.strip(" =")):
                    return None  # which container holds it decides; "===" is paragraph text unless underlining
                in_code = blanked = True
                lines[n] = " " * len(line)
                previous = line
                continue
            if content_column and _INDENTED_AFTER_MARKER.match(line):
                return None
            continued = not content_column
        else:
            in_code = False
            continued = False
            if _INDENTED_AFTER_MARKER.match(line):
                return None
        lead = _LEAD.match(line).end()  # type: ignore[union-attr]
        if lead > indent:  # block markers: a list item or quote whose content may start at ``lead``
            content_column = max(content_column, lead)
        previous = line
    return "\n".join(lines) if blanked else text


# A link markdown-it reads the same way: label without brackets, a destination without spaces, parentheses
# or angle brackets, an optional quoted title after a space. A title needs a destination before it: in
# ``[a]( "t")`` markdown-it reads ``"t"`` as the destination.
_LINK = re.compile(r"\[([^\[\]]*)\]\((?:([^\s()<>]+)(?: +(?:\"[^\"\n]*\"|'[^'\n]*'))? *)?\)")
# The same on one line of an index whose labels may hold backslash escapes (never the destination or title).
_INDEX_LINK = re.compile(
    r"\[((?:[^\[\]\\\n]|\\" + _PUNCTUATION + r")*)\]\((?:([^\s()<>\\]+)"
    r"(?: +(?:\"[^\"\n\\]*\"|'[^'\n\\]*'))? *)?\)"
)
_LABEL_BREAK = re.compile(r" *\n *")
_BLANK_LINE = re.compile(r"\n *\n")
# A continuation line of a multi-line label must be plain paragraph text, not a block start.
_PLAIN_CONTINUATION = re.compile(r"\n *(?![0-9]+[.)])[A-Za-z0-9]")
# Maybe a heading, also inside a list item or a quote, at any indent ("1. # [a", "- a\n    # [a"): it ends at
# its line. Wider than headings (an indented code line too): a match only sends the text to markdown-it.
_HEADING_START = re.compile(r"(?:[ \t]*(?:[-*+]|[0-9]{1,9}[.)]|>))*[ \t]*#")


def _label_text(label: str, raw: str | None = None) -> str | None:
    """The label as markdown-it's text children give it, or None when the scanner cannot be sure. ``label``
    is the label with its backslash escapes masked (see :func:`_masked`), ``raw`` as written (escapes then
    stand for the characters they escape)."""
    if "*" in label or "_" in label:  # emphasis inside the label
        return None
    raw = label if raw is None else raw
    if "\n" not in label:
        return _unescape(raw.strip())
    if _BLANK_LINE.search(label) or len(_PLAIN_CONTINUATION.findall(label)) != label.count("\n"):
        return None
    # markdown-it drops the spaces around a line break inside a paragraph and emits a soft break (" ").
    return _unescape(_LABEL_BREAK.sub(" ", raw).strip())


# Destinations markdown-it's normalizeLink returns unchanged (no scheme, host, percent or non-ASCII).
_PLAIN_DESTINATION = re.compile(r"(?!//)[A-Za-z0-9_./#?=-]+")


@lru_cache(maxsize=16384)
def _href(destination: str) -> str | None:
    """markdown-it's normalized href, or None when it would refuse the link (``javascript:`` and kin)."""
    if _PLAIN_DESTINATION.fullmatch(destination):
        return destination
    href = _parser().normalizeLink(destination)
    return href if _parser().validateLink(href) else None


def _stray_brackets_plain(gap: str) -> bool:
    """True when brackets outside plain links (``[***]``, ``[1]``) are plain text: no ``](`` that may close a
    link label with nested brackets, no ``]:`` of a link reference definition (without one, ``[x]`` and
    ``[x][y]`` are text)."""
    return "](" not in gap and "]:" not in gap


def _masked(text: str) -> str | None:
    """``text`` with each backslash escape of punctuation replaced by two letters (same length: offsets and
    lines kept; an escaped character is plain text, which letters are too), or None when it holds a construct
    the link scanner leaves to markdown-it. A literal backslash (before a letter or digit) is kept as it is. A
    ``|`` declines even escaped: markdown-it finds a table's header row by any ``|`` in the line."""
    if "|" in text:
        return None
    if "\\" not in text:
        return None if _declined_unescaped(text, text) else text
    # Escapes are masked left to right, as markdown-it reads them (an escaped backslash is one): one left is literal.
    masked = _ESCAPE.sub("aa", text)  # _declined's checks read it as they read its one-letter version
    if "\\" in masked and _LITERAL_BACKSLASH_NOT_TEXT.search(masked):
        return None
    # A literal backslash before a letter or digit makes no mark or control character and ends an entity's name
    # (in markdown-it too): the checks below read it as it is.
    entities = _ESCAPE.sub("a", text) if "&" in text else masked  # without "&", no entity in either
    return None if _declined_unescaped(masked, entities) else masked


def _fast_links(text: str, line_offset: int) -> list[MdLink] | None:
    """The links of ``text`` by line scan, or None when the text needs markdown-it."""
    masked = _masked(text)
    if masked is None:
        return None
    masked = _without_code(masked)
    if masked is None:
        return None
    escaped = "\\" in text  # escapes masked, or literal backslashes left (see _masked)
    links: list[MdLink] = []
    pos = 0
    line = 1 + line_offset
    for m in _LINK.finditer(masked):
        start, end = m.span()
        # _stray_brackets_plain of the text between links, searched in place (no copy of it)
        if masked.find("]", pos, start) >= 0 and (
            masked.find("](", pos, start) >= 0 or masked.find("]:", pos, start) >= 0
        ):
            return None
        if escaped and text.find("\\", m.start(2), m.end(2)) >= 0:
            return None  # an escape in the destination: markdown-it unescapes it before normalizing
        inside = m.group(1)
        label = _label_text(inside, text[m.start(1) : m.end(1)] if escaped else None)
        href = _href(m.group(2) or "")
        if label is None or href is None:
            return None
        line += masked.count("\n", pos, start)
        if "\n" in inside:
            line_start = masked.rfind("\n", 0, start) + 1
            if _HEADING_START.match(masked, line_start):  # a heading ends at its line: no label continues
                return None
        links.append(MdLink(label, href, line))
        line += masked.count("\n", start, end)
        pos = end
    if masked.find("]", pos) >= 0 and not _stray_brackets_plain(masked[pos:]):
        return None
    return links


def _chunks(text: str) -> list[tuple[int, str]]:
    """``text`` cut before every unindented line that follows a blank line: (lines before it, chunk).

    There every list, quote, paragraph and indented code block has ended (an unindented line after a blank
    line continues none of them), so each chunk's links are those markdown-it finds in it alone, provided
    the text holds no link reference definition (``]:``) and none of the constructs ``_declined`` refuses
    (fences, HTML) that may run across blank lines.
    """
    lines = text.split("\n")
    starts = [0] + [n for n in range(1, len(lines)) if lines[n][:1] not in ("", " ") and not lines[n - 1].strip(" ")]
    return [(a, "\n".join(lines[a:b])) for a, b in zip(starts, starts[1:] + [len(lines)])]


def _chunkable(text: str) -> bool:
    """True when what the scanner may decline in ``text`` ends at a blank line (escapes, entities, images,
    tables), so its chunks may be read apart: no code span or fence, HTML or autolink, tab or other control."""
    if "`" in text or "<" in text or "~~~" in text:
        return False
    if text.isascii():
        return len(text.encode("ascii").translate(None, _ASCII_CONTROLS)) == len(text)
    return text.replace("\n", " ").isprintable() or _DECLINE_CHARS.search(text) is None


def find_links(text: str, line_offset: int = 0, *, fast: bool = True) -> list[MdLink]:
    """Every inline link in ``text`` (autolinks included), in order. ``fast=False`` forces markdown-it.

    Text the scanner declines as a whole is cut into independent chunks (see :func:`_chunks`): the scanner
    reads those it can, markdown-it the others.
    """
    if not fast:
        return _markdown_it_links(text, line_offset)
    if "<" not in text and ("]" not in text or ("](" not in text and "]:" not in text)):
        return []  # no inline link, reference definition or autolink can be written without one of these
    quick = _fast_links(text, line_offset)
    if quick is not None:
        return quick
    if "]:" in text or (_masked(text) is None and not _chunkable(text)):
        return _markdown_it_links(text, line_offset)
    chunks = _chunks(text)
    if len(chunks) == 1:
        return _markdown_it_links(text, line_offset)
    links: list[MdLink] = []
    for before, chunk in chunks:
        found = _fast_links(chunk, line_offset + before)
        links.extend(found if found is not None else _markdown_it_links(chunk, line_offset + before))
    return links


def find_images(text: str, line_offset: int = 0) -> list[MdLink]:
    """Every inline image ``![alt](src)`` in ``text``, in order, with the line it is on (alt as ``text``)."""
    if "!" not in text or "![" not in text:
        return []
    images: list[MdLink] = []
    for tok in _tokens(text):
        if tok.type != "inline" or tok.map is None:
            continue
        line = tok.map[0] + 1 + line_offset
        for child in tok.children or []:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type == "image":
                images.append(MdLink(child.content, str(child.attrGet("src") or ""), line))
    return images


def _markdown_it_links(text: str, line_offset: int) -> list[MdLink]:
    links: list[MdLink] = []
    for tok in _tokens(text):
        if tok.type == "inline" and tok.map is not None:
            links.extend(_links_in_inline(tok, tok.map[0] + 1 + line_offset))
    return links


_SEPARATOR = re.compile(r"^\s*(?:[-\u2013\u2014:|]+\s*)?")


_INDEX_HEADING = re.compile(r" {0,3}(#{1,6})(?:(?: +((?:[^#\\]|\\" + _PUNCTUATION + r")*))|$)")
# One to four spaces after the marker: five would open an indented code block inside the item.
_INDEX_BULLET = re.compile(r" {0,3}[*+-] {1,4}(?=\[)")
# A paragraph line: starts like plain text (a letter, digit, quote or parenthesis: not a list, quote, heading,
# setext underline, fence, table, HTML or link definition), or with an
# escaped punctuation character (okf's compiler escapes a leading "-" or "5."). One right after a bullet
# would continue that bullet's text, so it is accepted only after a blank line, heading or paragraph.
_INDEX_PROSE = re.compile(r" {0,3}(?:(?![0-9]+[.)])[A-Za-z0-9\"'(]|\\" + _PUNCTUATION + ")")


def _plain(text: str) -> str:
    """``text`` with its escaped characters taken out: what is left is markup."""
    return _ESCAPE.sub("", text) if "\\" in text else text


# A bullet with a plain label (no escape, emphasis or bracket), a plain destination (as _href returns it) and
# either nothing after it or " - " and a description that starts with no space or separator and holds nothing
# the steps of _fast_index decline (_simple_description tells): its title, target and description are the groups,
# stripped.
_SIMPLE_ENTRY = re.compile(
    r"[*+-] \[([^\[\]\\*_]*)\]\(((?!//)[A-Za-z0-9_./#?=-]+)\)"
    r"(?: - ([^\s\-\u2013\u2014:|\\\[*_].*))?"
)


def _simple_description(description: str | None) -> bool:
    """Whether the description _SIMPLE_ENTRY matched holds none of ``\\ [ * _`` (looked for with ``in``, C scans,
    rather than by a character class at every character, which is slow on wide strings)."""
    return description is None or not (
        "\\" in description or "[" in description or "*" in description or "_" in description
    )


def _fast_index(text: str, line_offset: int) -> IndexListing | None:
    """``parse_index`` by line scan when every line is blank, a plain heading or a plain linked bullet
    (backslash escapes of punctuation included, as okf's compiler writes them)."""
    if _declined(text, escapes=True):
        return None
    listing = IndexListing()
    section: str | None = None
    previous = "blank"
    for number, line in enumerate(text.split("\n"), start=1 + line_offset):
        if not line or (line[0] == " " and not line.strip(" ")):  # blank (a line not starting so is not)
            previous = "blank"
            continue
        simple = _SIMPLE_ENTRY.fullmatch(line)
        if simple:
            title, target, description = simple.groups()
            if _simple_description(description):
                # the entry okf's compiler writes, read by one match: what the steps below give it
                previous = "bullet"
                listing.entries.append(IndexEntry(title.strip(), target, (description or "").strip(), section, number))
                continue
        heading = _INDEX_HEADING.fullmatch(line)
        if heading:
            content = heading.group(2) or ""
            markup = _plain(content)
            if "*" in markup or "_" in markup or "[" in markup:
                return None
            section = _unescape(content).strip()
            listing.sections.append(section)
            previous = "heading"
            continue
        bullet = _INDEX_BULLET.match(line)
        if bullet is None and previous != "bullet" and "[" not in _plain(line) and _INDEX_PROSE.match(line):
            previous = "prose"  # a plain paragraph line (a summary): not an entry, not a problem
            continue
        previous = "bullet"
        link = _INDEX_LINK.match(line, bullet.end()) if bullet else None
        if link is None:
            return None
        rest = line[link.end() :]
        label = _plain(link.group(1))
        markup = _plain(rest)
        href = _href(link.group(2) or "")
        if "*" in label or "_" in label or href is None or "[" in markup or "*" in markup or "_" in markup:
            return None
        title = _unescape(link.group(1)).strip()
        description = _SEPARATOR.sub("", _unescape(rest).rstrip(), count=1).strip()
        listing.entries.append(IndexEntry(title, href, description, section, number))
    return listing


def parse_index(text: str, line_offset: int = 0, *, fast: bool = True) -> IndexListing:
    """Read an ``index.md`` body (OKF §8): sections under headings, bullets ``[Title](url) - description``.

    Tolerant: ``*`` or ``-`` bullets, ordered lists, any heading level, separators ``-``, ``:``, en or em
    dash, or none. A bullet without a link is reported in ``problems``, never guessed at. ``fast=False``
    forces markdown-it.
    """
    if fast:
        quick = _fast_index(text, line_offset)
        if quick is not None:
            return quick
    listing = IndexListing()
    tokens = _tokens(text)
    section: str | None = None
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            section = _inline_text(tokens[i + 1])
            listing.sections.append(section)
            continue
        if tok.type != "list_item_open" or tok.map is None:
            continue
        # The first inline of this item is its text; nested lists are visited as their own items.
        j = i + 1
        while j < len(tokens) and tokens[j].type not in ("inline", "list_item_close"):
            j += 1
        if j >= len(tokens) or tokens[j].type != "inline":
            continue
        inline = tokens[j]
        line = tok.map[0] + 1 + line_offset
        children = inline.children or []
        k = 0
        while k < len(children) and children[k].type == "text" and not children[k].content.strip():
            k += 1
        if k >= len(children) or children[k].type != "link_open":
            listing.problems.append((line, f"index entry has no link: {_inline_text(inline)[:80]!r}"))
            continue
        target = str(children[k].attrGet("href") or "")
        title_parts: list[str] = []
        k += 1
        while k < len(children) and children[k].type != "link_close":
            if children[k].type in ("text", "code_inline"):
                title_parts.append(children[k].content)
            k += 1
        rest: list[str] = []
        for child in children[k + 1 :]:
            if child.type in ("text", "code_inline", "html_inline"):
                rest.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                rest.append(" ")
        description = _SEPARATOR.sub("", "".join(rest), count=1).strip()
        listing.entries.append(IndexEntry("".join(title_parts).strip(), target, description, section, line))
    return listing


# A bullet whose text starts with a letter or a digit, bold or not (okf's log.md: "* **Creation**: ..."): it opens
# no heading, code, quote or HTML block, and no nested list but an ordered one (asked apart).
_PLAIN_BULLET = re.compile(r"[-*+] (?:\*\*)?[A-Za-z0-9]")


def _fast_headings(text: str, line_offset: int) -> list[Block] | None:
    """:func:`headings` by line scan, or None when the text needs markdown-it.

    Accepts the lines :func:`_fast_blocks` accepts and bullets of :data:`_PLAIN_BULLET`: none of them starts a
    heading inside a list item, a setext underline, a fence, indented code, HTML or a table, so the headings
    are the ATX lines. tests/test_markdown.py checks the result equals markdown-it's.
    """
    if _BLOCK_DECLINE.search(text):
        return None
    out: list[Block] = []
    for number, line in enumerate(text.split("\n"), 1):
        first = line[:1]
        if first.isalnum():
            if _ITEM_START.match(line):
                return None
        elif first == "#":
            heading = _plain_heading(line, number + line_offset)
            if heading is None:
                return None
            out.append(heading)
        elif first and first in "-*+":
            if not _PLAIN_BULLET.match(line) or _ITEM_START.match(line, 2):
                return None
        elif line.strip(" "):
            return None
    return out


def headings(text: str, line_offset: int = 0) -> list[Block]:
    """All headings of ``text`` at any nesting depth, in order."""
    fast = _fast_headings(text, line_offset)
    if fast is not None:
        return fast
    return _headings(text, line_offset)


def _headings(text: str, line_offset: int = 0) -> list[Block]:
    """:func:`headings` by markdown-it."""
    tokens = _tokens(text)
    out: list[Block] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map is not None:
            out.append(
                Block(
                    "heading",
                    tok.map[0] + 1 + line_offset,
                    tok.map[1] + line_offset,
                    level=int(tok.tag[1]),
                    text=_inline_text(tokens[i + 1]),
                )
            )
    return out


@dataclass(frozen=True)
class TableRow:
    """One body row of a pipe table: its file line and its cells as plain text (markup stripped)."""

    line: int
    cells: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    """A pipe table: its line range, header cells and body rows, as plain text."""

    start_line: int
    end_line: int
    header: tuple[str, ...]
    rows: tuple[TableRow, ...]


def tables(text: str, line_offset: int = 0) -> list[Table]:
    """Every pipe table of ``text`` (at any nesting depth), in order, with file line numbers."""
    tokens = _tokens(text)
    out: list[Table] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type != "table_open" or tok.map is None:
            i += 1
            continue
        header: tuple[str, ...] = ()
        rows: list[TableRow] = []
        cells: list[str] = []
        row_line = 0
        in_head = False
        i += 1
        while i < len(tokens) and tokens[i].type != "table_close":
            part = tokens[i]
            if part.type == "thead_open":
                in_head = True
            elif part.type == "thead_close":
                in_head = False
            elif part.type == "tr_open":
                cells, row_line = [], (part.map[0] + 1 + line_offset if part.map else 0)
            elif part.type == "inline":
                cells.append(_inline_text(part))
            elif part.type == "tr_close":
                if in_head:
                    header = tuple(cells)
                else:
                    rows.append(TableRow(row_line, tuple(cells)))
            i += 1
        out.append(Table(tok.map[0] + 1 + line_offset, tok.map[1] + line_offset, header, tuple(rows)))
    return out


# -- line helpers: markdown read a line at a time, for callers that need no full parse --------------------

# A code fence's marker run: three or more backticks or tildes after at most three spaces (CommonMark 4.5).
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
# Leading block markers of a line, however nested: headings, bullets (with a task box), ordered items, quotes.
LEADING_MARKERS = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|>\s*)+")
# An inline link or image, its label in group 1 (labels without brackets, destinations without parentheses).
LINK_OR_IMAGE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
# One leading block marker (a heading's, a quote's, a bullet's or an ordered item's).
LEADING_MARKER = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)")
# Inline markup read as text: emphasis and code marks (group 1 empty) or a link or image (its label in group 1);
# ``..._KEEP_UNDERSCORE`` leaves single underscores (snake_case words) alone. The same matches as
# ``[*_`]{1,3}|!?\[([^\]]*)\]\([^)]*\)``, written to open with the class of characters a match can start with,
# so the engine skips to the next of them instead of trying both branches at every place of a line (long
# lines of prose are most of a body).
INLINE_MARKUP = re.compile(r"[*_`!\[](?:(?<=[*_`])[*_`]{0,2}|(?:(?<=!)\[|(?<=\[))([^\]]*)\]\([^)]*\))")
INLINE_MARKUP_KEEP_UNDERSCORE = re.compile(r"\*{1,3}|_{2,3}|`|" + LINK_OR_IMAGE.pattern)
# Emphasis and code marks, and HTML tags.
MARKS_AND_TAGS = re.compile(r"[`*_]{1,3}|<[^>]+>")
# An inline link's destination, to rewrite it: ``](`` (group 1), the destination (2), an optional title and ``)`` (3).
LINK_DESTINATION = re.compile(r"(\]\()([^)\s]+)((?:\s+\"[^\"]*\")?\))")
# The same, the destination possibly empty, in one group-less pattern (to drop addresses from text).
LINK_ADDRESS = re.compile(r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")


def fenced_lines(lines: list[str]) -> list[bool]:
    """For each line, whether it is a code fence or inside a fenced code block (an unclosed fence runs to the
    end). A fence closes on a run of the same character at least as long, with nothing after it but spaces
    (CommonMark 4.5); fences are recognised at the top level (a fence inside a list item indented four or
    more spaces is left to the full parser)."""
    out: list[bool] = []
    fence: str | None = None
    for line in lines:
        opened = FENCE.match(line)
        if fence is None:
            if opened and not (opened.group(1)[0] == "`" and "`" in line[opened.end() :]):
                fence = opened.group(1)
            out.append(fence is not None)
            continue
        out.append(True)
        if (
            opened
            and opened.group(1)[0] == fence[0]
            and len(opened.group(1)) >= len(fence)
            and not line[opened.end() :].strip(" \t")
        ):
            fence = None
    return out


def atx_heading(line: str) -> tuple[int, str] | None:
    """``(level, text)`` when ``line`` is an ATX heading (``## Title``, optional closing ``#`` run), else None.
    ``text`` is the heading's raw inline source, stripped (escapes and emphasis left as written)."""
    m = _ATX.fullmatch(line)
    if m is None:
        return None
    text = m.group(2) or ""
    if text.endswith("#"):
        closing = _ATX_CLOSING.search(text)
        if closing:
            text = text[: closing.start()]
    return len(m.group(1)), text.strip(" \t")


def code_spans(body: str) -> list[tuple[int, int]]:
    """Offsets of fenced code blocks and inline code spans in markdown ``body`` (their text is literal)."""
    if "`" not in body and "~~~" not in body:
        return []
    spans: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    for m in FENCE.finditer(body):
        marker = m.group(1)
        if opened is None:
            opened = (m.start(), marker)
        elif (
            marker[0] == opened[1][0]
            and len(marker) >= len(opened[1])
            and not body[m.end() :].split("\n", 1)[0].strip()
        ):
            spans.append((opened[0], m.end()))
            opened = None
    if opened is not None:
        spans.append((opened[0], len(body)))
    if "`" in body:
        pos = 0
        for start, end in spans + [(len(body), len(body))]:
            for m in _CODE_SPAN.finditer(body, pos, start):
                if "\n\n" not in m.group(0):
                    spans.append((m.start(), m.end()))
            pos = end
    return sorted(spans)


def link_text(line: str) -> str:
    """``line`` with each inline link or image replaced by its label."""
    return LINK_OR_IMAGE.sub(r"\1", line) if "[" in line else line
