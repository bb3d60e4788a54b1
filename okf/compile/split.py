"""Concepts sized for one reader: split long sections at block or paragraph boundaries, merge tiny ones."""

from __future__ import annotations

import bisect
import re
from itertools import accumulate

from okf.compile.state import Node
from okf.compile.structure import Section


class Sizer:
    """Word counts of line ranges and the lines where a piece may start (never inside a block)."""

    def __init__(self, lines: list[str], block_starts: list[int] | None, added: list[int] | None = None) -> None:
        """``added``: characters each line gains when written (the backslashes plain text needs, okf.compile.escape),
        so a piece is sized as the judge will read it."""
        self.lines = lines
        # Running sums at C speed: words and characters (plus the newline) of lines 1..n.
        self.prefix = [0, *accumulate(map(len, map(str.split, lines)))]
        sizes = map((1).__add__, map(len, lines)) if added is None else (len(a) + 1 + b for a, b in zip(lines, added))
        self.char_prefix = [0, *accumulate(sizes)]
        if block_starts is None:  # plain text: a paragraph starts after a blank line
            filled = [bool(line.strip()) for line in lines]
            starts = [n for n, (full, before) in enumerate(zip(filled, [False, *filled]), 1) if full and not before]
            self.text = True
        else:
            starts, self.text = sorted(set(block_starts)), False
        self.starts = starts

    def words(self, start: int, end: int) -> int:
        """Words in lines ``start..end``."""
        return self.prefix[end] - self.prefix[start - 1] if end >= start else 0

    def chars(self, start: int, end: int) -> int:
        """Characters of lines ``start..end`` joined by newlines (what a judge is shown of them)."""
        return self.char_prefix[end] - self.char_prefix[start - 1] - 1 if end >= start else 0

    def trim(self, start: int, end: int) -> tuple[int, int] | None:
        """The range without leading and trailing blank lines; None when it holds no text."""
        if self.words(start, end) == 0 and not any(self.lines[i - 1].strip() for i in range(start, end + 1)):
            return None
        while start <= end and not self.lines[start - 1].strip():
            start += 1
        while end >= start and not self.lines[end - 1].strip():
            end -= 1
        return (start, end) if start <= end else None

    def fits(self, start: int, end: int, limit: int, chars: int) -> bool:
        """Lines ``start..end`` hold at most ``limit`` words and ``chars`` characters."""
        return self.words(start, end) <= limit and self.chars(start, end) <= chars

    def split(self, start: int, end: int, limit: int, chars: int) -> list[tuple[int, int]]:
        """Pieces of ``start..end`` with at most ``limit`` words and ``chars`` characters each where the
        boundaries allow (a single line longer than that stays whole: provenance is by line)."""
        if self.fits(start, end, limit, chars):
            return [(start, end)]
        lo, hi = bisect.bisect_right(self.starts, start), bisect.bisect_right(self.starts, end)
        cuts = [start] + self.starts[lo:hi] + [end + 1]
        units = [(cuts[i], cuts[i + 1] - 1) for i in range(len(cuts) - 1)]
        # An oversized block or paragraph may be cut between its lines.
        units = [
            u
            for a, b in units
            for u in ([(n, n) for n in range(a, b + 1)] if not self.fits(a, b, limit, chars) else [(a, b)])
        ]
        pieces: list[tuple[int, int]] = []
        cur_start = units[0][0]
        for a, b in units:
            if a > cur_start and not self.fits(cur_start, b, limit, chars):
                pieces.append((cur_start, a - 1))
                cur_start = a
        pieces.append((cur_start, end))
        return [t for p in pieces if (t := self.trim(*p))]


def section_type(section: Section) -> str:
    """The concept ``type`` of a section (documented in docs/format.md)."""
    if re.search(r"\bdefinitions?\b|\binterpretation\b", section.title, re.I):
        return "Definitions"
    if section.kind in ("article", "schedule"):
        return section.title.split()[0].capitalize()
    return "Document" if section.kind == "document" else "Section"


class Planner:
    """Turns a section tree into nodes: leaves as concepts, big sections as directories."""

    def __init__(self, sizer: Sizer, max_words: int, min_words: int, max_chars: int) -> None:
        self.sizer, self.max_words, self.min_words, self.max_chars = sizer, max_words, min_words, max_chars

    def leaves(self, section: Section, start: int, end: int, slug: str, title: str, kind: str) -> list[Node]:
        """One concept for ``start..end``, or numbered parts when it is too long."""
        trimmed = self.sizer.trim(start, end)
        if trimmed is None:
            return []
        pieces = self.sizer.split(*trimmed, self.max_words, self.max_chars)
        if len(pieces) == 1:
            return [Node(slug, title, kind, lines=pieces[0], words=self.sizer.words(*pieces[0]))]
        n = len(pieces)
        return [
            Node(f"{slug}-part-{i}", f"{title} (part {i} of {n})", kind, lines=p, words=self.sizer.words(*p))
            for i, p in enumerate(pieces, 1)
        ]

    def plan(self, section: Section, lead: int | None = None) -> list[Node]:
        """Nodes for a section and its subsections, in document order."""
        start = lead if lead is not None else section.start
        kind = section_type(section)
        if not section.children or self.sizer.fits(start, section.end, self.max_words, self.max_chars):
            return self.leaves(section, start, section.end, section.title, section.title, kind)
        own = self.sizer.trim(start, section.own_end)
        children: list[Node] = []
        carry: int | None = None
        if own and self.sizer.words(*own) >= self.min_words:
            own_kind = "Overview" if section.kind == "document" else kind
            children += self.leaves(section, start, section.own_end, "overview", section.title, own_kind)
        else:  # a bare heading (or nothing) before the first child: it opens the first child's concept
            carry = start
        for i, child in enumerate(section.children):
            children += self.plan(child, carry if i == 0 else None)
        self.merge_tiny(children)
        return [Node(section.title, section.title, kind, children=children)]

    def merge_tiny(self, nodes: list[Node]) -> None:
        """Fold concepts under ``min_words`` into the neighbouring concept (previous first)."""
        i = 0
        while i < len(nodes):
            node = nodes[i]
            if node.is_dir or node.words >= self.min_words or len(nodes) == 1:
                i += 1
                continue
            prev = nodes[i - 1] if i > 0 else None
            nxt = nodes[i + 1] if i + 1 < len(nodes) else None
            assert node.lines is not None
            if (
                prev is not None
                and prev.lines is not None
                and not prev.is_dir
                and self.sizer.fits(prev.lines[0], node.lines[1], self.max_words, self.max_chars)
            ):
                prev.lines, prev.words = (prev.lines[0], node.lines[1]), prev.words + node.words
            elif (
                nxt is not None
                and nxt.lines is not None
                and not nxt.is_dir
                and self.sizer.fits(node.lines[0], nxt.lines[1], self.max_words, self.max_chars)
            ):
                nxt.lines, nxt.words = (node.lines[0], nxt.lines[1]), nxt.words + node.words
            elif (
                nxt is not None
                and nxt.is_dir
                and (leaf := _first_leaf(nxt)) is not None
                and leaf.lines
                and self.sizer.fits(node.lines[0], leaf.lines[1], self.max_words, self.max_chars)
            ):
                # A fragment before a directory (a repeated title line) opens the directory's first concept.
                leaf.lines, leaf.words = (node.lines[0], leaf.lines[1]), leaf.words + node.words
            else:
                i += 1
                continue
            del nodes[i]


def _first_leaf(node: Node) -> Node | None:
    """The first concept inside directory ``node`` (in document order)."""
    while node.is_dir:
        if not node.children:
            return None
        node = node.children[0]
    return node


def plan_document(
    root: Section, sizer: Sizer, max_words: int, min_words: int, max_chars: int, first: int = 1
) -> list[Node]:
    """The nodes directly inside a document's directory; its content starts at line ``first``."""
    planner = Planner(sizer, max_words, min_words, max_chars)
    lead: int | None = None
    own = sizer.trim(root.start, root.own_end)
    # A single top heading (a markdown "# Title") with next to nothing before it is the document itself.
    if len(root.children) == 1 and (own is None or sizer.words(*own) < min_words):
        top = root.children[0]
        root = Section(top.title, "document", 0, top.start, top.end, children=top.children)
        lead = first
    nodes = planner.plan(root, lead)
    if len(nodes) == 1 and nodes[0].is_dir:
        return nodes[0].children
    return nodes
