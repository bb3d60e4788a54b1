"""Source documents as okf reads them: decoded text with stable line numbers, and span hashes.

One definition of "the text of lines a..b" serves compile (which records ``sources[].lines`` and
``sources[].sha256``), check (drift) and eval (gold overlap): lines are split on ``\\n`` only, 1-based, inclusive.

Only regular files are read, and only up to a size limit: a FIFO, a device or a symlink to one (which would
block or never end) and an oversized file are refused with :class:`SourceRefused`, an ``OSError`` whose
``strerror`` says why, before a byte is read.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from okf.limits import MAX_PDF_BYTES, MAX_SOURCE_BYTES

_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


class SourceRefused(OSError):
    """A source okf will not read: not a regular file, or over its size limit (``strerror`` says which)."""

    def __init__(self, reason: str, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__(0, reason, None if path is None else str(path))
        self.reason = reason


def size_limit(path: Path) -> int:
    """The most bytes okf reads of the source ``path``."""
    return MAX_PDF_BYTES if path.suffix.lower() == ".pdf" else MAX_SOURCE_BYTES


def refusal(path: Path, st: os.stat_result) -> str | None:
    """Why the file with stat ``st`` (symlinks followed) is not read as a source, or None when it is."""
    if not stat.S_ISREG(st.st_mode):
        kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
        via = "a symlink to " if os.path.islink(path) else ""
        return f"{via}{kind}, not a regular file: okf reads only regular files"
    limit = size_limit(path)
    if st.st_size > limit:
        return f"{_mb(st.st_size)} MB, over the {_mb(limit)} MB limit for one source: split it into smaller files"
    return None


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``, default :func:`size_limit`).

    Opened without blocking and checked on the open file, so a FIFO or device swapped in after a stat is
    still refused; :class:`SourceRefused` otherwise.
    """
    limit = size_limit(path) if limit is None else limit
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        why = refusal(path, os.fstat(fd))
        if why is not None:
            raise SourceRefused(why, path)
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > limit:  # grew while read
                raise SourceRefused(f"over the {_mb(limit)} MB limit for one source (it grew while read)", path)
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _mb(size: int) -> str:
    return f"{size / 1_048_576:.1f}"


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


def read_source_text(path: Path, *, keep_bytes: bool = False) -> SourceText:
    """The text of a source file as okf cites it: markdown and plain text as-is, HTML converted to
    markdown, PDF as its text layer (line numbers of HTML and PDF sources are of this converted text).
    ``keep_bytes`` keeps the file's bytes in ``data`` (read once, for a copy)."""
    suffix = path.suffix.lower()
    data = read_regular(path)
    if suffix == ".pdf":
        from okf.compile.extract import pdf_to_text  # lazy: pypdf only for PDF sources

        text, notices = pdf_to_text(path, data)
        read = SourceText(text.replace("\r\n", "\n"), notices)
    else:
        read = decode(data, str(path))
        if suffix in (".html", ".htm"):
            from okf.compile.extract import html_to_markdown

            read = SourceText(html_to_markdown(read.text), read.notices)
    if keep_bytes:
        read.data = data
    if len(read.text) > MAX_SOURCE_BYTES and len(read.text.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise SourceRefused(f"its text is over the {_mb(MAX_SOURCE_BYTES)} MB limit for one source: split it "
                            "into smaller files", path)
    return read


def read_head(path: Path, chars: int) -> str:
    """About the first ``chars`` characters of a source's text as okf reads it (HTML converted; PDF whole)."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return read_source_text(path).text[:chars]
    with path.open("rb") as handle:
        raw = handle.read(chars * 4)
    text = raw.decode("utf-8-sig", errors="ignore").replace("\r\n", "\n")[:chars]
    if suffix in (".html", ".htm"):
        from okf.compile.extract import html_to_markdown

        return html_to_markdown(text)
    return text


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
