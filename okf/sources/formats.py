"""The source formats okf compiles and checks: a table from file suffix to the converter that makes its text.

Text formats are decoded as UTF-8 and then converted (HTML to markdown); binary formats (PDF) have an
extractor that turns the file's bytes into text and notices. Compile discovers sources by this table and
check re-reads them through it, so the two cannot disagree on what a source's text is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from okf.limits import MAX_PDF_BYTES, MAX_SOURCE_BYTES


def _html_to_markdown(text: str) -> str:
    from okf.sources.html import html_to_markdown  # lazy: html.parser only for HTML sources (okf check starts sooner)

    return html_to_markdown(text)


def _pdf_to_text(path: Path, data: bytes) -> tuple[str, list[str]]:
    from okf.sources.pdf import pdf_to_text  # lazy: pypdf only for PDF sources

    return pdf_to_text(path, data)


@dataclass(frozen=True)
class Format:
    """One source format: its kind's name, how its text is made, and the most bytes okf reads of a file."""

    kind: str
    convert: Callable[[str], str] | None = None  # decoded text -> the text okf cites
    extract: Callable[[Path, bytes], tuple[str, list[str]]] | None = None  # binary: bytes -> text, notices
    max_bytes: int = MAX_SOURCE_BYTES


MARKDOWN = Format("markdown")
TEXT = Format("text")
HTML = Format("html", convert=_html_to_markdown)
PDF = Format("pdf", extract=_pdf_to_text, max_bytes=MAX_PDF_BYTES)

FORMATS: dict[str, Format] = {
    ".md": MARKDOWN,
    ".markdown": MARKDOWN,
    ".txt": TEXT,
    ".html": HTML,
    ".htm": HTML,
    ".pdf": PDF,
}
KINDS: dict[str, str] = {suffix: source_format.kind for suffix, source_format in FORMATS.items()}


def format_of(path: Path) -> Format:
    """The format of the source ``path`` by its suffix; a file of any other suffix is read as plain text."""
    return FORMATS.get(path.suffix.lower(), TEXT)
