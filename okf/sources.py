"""Source documents as okf reads them: decoded text with stable line numbers, and span hashes.

One definition of "the text of lines a..b" serves compile (which records ``sources[].lines`` and
``sources[].sha256``), check (drift) and eval (gold overlap): lines are split on ``\\n`` only, 1-based, inclusive.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class SourceText:
    """A source document's text and the notices raised while reading it."""

    text: str
    notices: list[str] = field(default_factory=list)


def decode(data: bytes, path: str = "") -> SourceText:
    """UTF-8 (BOM tolerated) with undecodable bytes replaced, and a notice saying so; CRLF becomes LF."""
    notices: list[str] = []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8-sig", errors="replace")
        notices.append(f"{path}: undecodable bytes replaced with U+FFFD (first at byte {exc.start})")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return SourceText(text, notices)


def read_source_text(path: Path) -> SourceText:
    """The text of a source file as okf cites it: markdown and plain text as-is, HTML converted to
    markdown, PDF as its text layer (line numbers of HTML and PDF sources are of this converted text)."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        from okf.compile.extract import pdf_to_text  # lazy: pypdf only for PDF sources

        text, notices = pdf_to_text(path)
        return SourceText(text.replace("\r\n", "\n"), notices)
    source = decode(path.read_bytes(), str(path))
    if suffix in (".html", ".htm"):
        from okf.compile.extract import html_to_markdown

        return SourceText(html_to_markdown(source.text), source.notices)
    return source


def span_text(text: str, start_line: int, end_line: int) -> str:
    """Lines ``start_line..end_line`` (1-based, inclusive) of ``text``, joined with ``\\n``."""
    return "\n".join(text.split("\n")[start_line - 1:end_line])


def line_starts(text: str) -> list[int]:
    """The offset where each line of ``text`` starts (for many :func:`span_text` calls on one text)."""
    starts = [0]
    find = text.find
    at = find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = find("\n", at + 1)
    return starts


def span_text_at(text: str, starts: list[int], start_line: int, end_line: int) -> str:
    """:func:`span_text` by slicing, with ``starts`` from :func:`line_starts` (no split per call)."""
    if start_line < 1 or end_line < start_line:
        return span_text(text, start_line, end_line)
    if start_line > len(starts):
        return ""
    end = starts[end_line] - 1 if end_line < len(starts) else len(text)
    return text[starts[start_line - 1]:end]


def span_sha256(text: str, start_line: int, end_line: int) -> str:
    """sha256 hex of :func:`span_text`, UTF-8 encoded."""
    return hashlib.sha256(span_text(text, start_line, end_line).encode("utf-8")).hexdigest()
