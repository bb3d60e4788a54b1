"""A source document's text as okf cites it: decoded, CRLF made LF, converted by its format.

Which converter turns a file into text is decided by :data:`okf.sources.formats.FORMATS` (suffix -> format);
compile and check read sources through here alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from okf.limits import MAX_SOURCE_BYTES
from okf.sources.files import SourceRefused, mb, read_regular
from okf.sources.formats import format_of


@dataclass
class SourceText:
    """A source document's text and the notices raised while reading it."""

    text: str
    notices: list[str] = field(default_factory=list)
    data: bytes | None = None  # the file's bytes, when the caller asked to keep them (compile mirrors them)


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


def read_source_text(path: Path, *, keep_bytes: bool = False, data: bytes | None = None) -> SourceText:
    """The text of a source file as okf cites it: markdown and plain text as-is, HTML converted to
    markdown, PDF as its text layer (line numbers of HTML and PDF sources are of this converted text).
    ``keep_bytes`` keeps the file's bytes in ``data`` (read once, for a copy); ``data``: the file's bytes
    when already read (through :func:`read_regular`), so the file is not opened again."""
    kind = format_of(path)
    data = read_regular(path) if data is None else data
    if kind.extract is not None:  # a binary format: its own extractor gives the text
        text, notices = kind.extract(path, data)
        read = SourceText(text.replace("\r\n", "\n"), notices)
    else:
        read = decode(data, str(path))
        if kind.convert is not None:
            read = SourceText(kind.convert(read.text), read.notices)
    if keep_bytes:
        read.data = data
    if len(read.text) > MAX_SOURCE_BYTES and len(read.text.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise SourceRefused(
            f"its text is over the {mb(MAX_SOURCE_BYTES)} MB limit for one source: split it into smaller files", path
        )
    return read


def read_head(path: Path, chars: int, data: bytes | None = None) -> str:
    """About the first ``chars`` characters of a source's text as okf reads it (HTML converted; PDF whole).
    ``data``: the file's bytes when already read."""
    kind = format_of(path)
    if kind.extract is not None:  # the head of a binary file is no head of its text
        return read_source_text(path, data=data).text[:chars]
    if data is not None:
        raw = data[: chars * 4]
    else:
        with path.open("rb") as handle:
            raw = handle.read(chars * 4)
    text = raw.decode("utf-8-sig", errors="ignore").replace("\r\n", "\n")[:chars]
    return kind.convert(text) if kind.convert is not None else text
