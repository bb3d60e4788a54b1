"""Line spans of a source's text: one definition of "the text of lines a..b" and its hash.

It serves compile (which records ``sources[].lines`` and ``sources[].sha256``), check (drift) and eval (gold
overlap): lines are split on ``\\n`` only, 1-based, inclusive.
"""

from __future__ import annotations

import hashlib
from itertools import accumulate, count
from operator import add


def span_text(text: str, start_line: int, end_line: int) -> str:
    """Lines ``start_line..end_line`` (1-based, inclusive) of ``text``, joined with ``\\n``."""
    return "\n".join(text.split("\n")[start_line - 1 : end_line])


def line_starts(text: str) -> list[int]:
    """The offset where each line of ``text`` starts (for many :func:`span_text` calls on one text): line i
    starts after the lines before it and their newlines, summed by C-level iterators (no Python step per line)."""
    lengths = map(len, text.split("\n")[:-1])
    return list(map(add, accumulate(lengths, initial=0), count()))


def span_text_at(text: str, starts: list[int], start_line: int, end_line: int) -> str:
    """:func:`span_text` by slicing, with ``starts`` from :func:`line_starts` (no split per call)."""
    if start_line < 1 or end_line < start_line:
        return span_text(text, start_line, end_line)
    if start_line > len(starts):
        return ""
    end = starts[end_line] - 1 if end_line < len(starts) else len(text)
    return text[starts[start_line - 1] : end]


def span_sha256(text: str, start_line: int, end_line: int) -> str:
    """sha256 hex of :func:`span_text`, UTF-8 encoded."""
    return hashlib.sha256(span_text(text, start_line, end_line).encode("utf-8")).hexdigest()
