"""Source documents as okf reads them: decoded text with stable line numbers, and span hashes.

:mod:`okf.sources.formats` maps a file's suffix to the converter that makes its text (HTML to markdown,
PDF to its text layer); :mod:`okf.sources.files` reads only regular files within their size limit;
:mod:`okf.sources.text` gives the text as okf cites it; :mod:`okf.sources.spans` defines a line span and
its hash. Compile, check, eval and ask read sources through this package alone.
"""

from __future__ import annotations

from okf.sources.files import SourceRefused, read_regular, refusal, size_limit
from okf.sources.formats import FORMATS, KINDS, Format, format_of
from okf.sources.spans import line_starts, span_sha256, span_text, span_text_at
from okf.sources.text import SourceText, decode, read_head, read_source_text

__all__ = [
    "FORMATS",
    "KINDS",
    "Format",
    "SourceRefused",
    "SourceText",
    "decode",
    "format_of",
    "line_starts",
    "read_head",
    "read_regular",
    "read_source_text",
    "refusal",
    "size_limit",
    "span_sha256",
    "span_text",
    "span_text_at",
]
