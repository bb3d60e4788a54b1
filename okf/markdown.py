"""Markdown parsing: the only module that imports markdown-it. Returns okf's own small dataclasses.

Line numbers are 1-based and inclusive; pass ``line_offset`` (the number of lines before ``text`` in its
file) to get file line numbers for a body that starts below its frontmatter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

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


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True}).enable("table")


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


def parse_blocks(text: str, line_offset: int = 0) -> list[Block]:
    """The top-level blocks of ``text``, in order, with their line ranges."""
    tokens = _tokens(text)
    blocks: list[Block] = []
    for i, tok in enumerate(tokens):
        if tok.level != 0 or tok.type not in _BLOCK_KINDS or tok.map is None:
            continue
        start, end = tok.map
        kind = _BLOCK_KINDS[tok.type]
        if kind == "heading":
            inline = tokens[i + 1]
            blocks.append(Block(kind, start + 1 + line_offset, end + line_offset,
                                level=int(tok.tag[1]), text=_inline_text(inline)))
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


def find_links(text: str, line_offset: int = 0) -> list[MdLink]:
    """Every inline link in ``text`` (autolinks included), in order."""
    links: list[MdLink] = []
    for tok in _tokens(text):
        if tok.type == "inline" and tok.map is not None:
            links.extend(_links_in_inline(tok, tok.map[0] + 1 + line_offset))
    return links


_SEPARATOR = re.compile(r"^\s*(?:[-\u2013\u2014:|]+\s*)?")


def parse_index(text: str, line_offset: int = 0) -> IndexListing:
    """Read an ``index.md`` body (OKF §8): sections under headings, bullets ``[Title](url) - description``.

    Tolerant: ``*`` or ``-`` bullets, ordered lists, any heading level, separators ``-``, ``:``, en or em
    dash, or none. A bullet without a link is reported in ``problems``, never guessed at.
    """
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
        for child in children[k + 1:]:
            if child.type in ("text", "code_inline", "html_inline"):
                rest.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                rest.append(" ")
        description = _SEPARATOR.sub("", "".join(rest), count=1).strip()
        listing.entries.append(IndexEntry("".join(title_parts).strip(), target, description, section, line))
    return listing


def headings(text: str, line_offset: int = 0) -> list[Block]:
    """All headings of ``text`` at any nesting depth, in order."""
    tokens = _tokens(text)
    out: list[Block] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map is not None:
            out.append(Block("heading", tok.map[0] + 1 + line_offset, tok.map[1] + line_offset,
                             level=int(tok.tag[1]), text=_inline_text(tokens[i + 1])))
    return out
