"""Reading bundle files: size limits, tolerant decoding, and concept parsing into the pure models."""

from __future__ import annotations

import os
from typing import Any

from okf.bundle import frontmatter
from okf.bundle.codes import diagnostic
from okf.bundle.meta import build_meta
from okf.bundle.model import Concept, ConceptMeta, Diagnostic
from okf.errors import BundleError
from okf.limits import MAX_FILE_BYTES
from okf.sources import decode


class CodedBundleError(BundleError):
    """A BundleError that carries the check code it maps to (E001, E002, E005, E006)."""

    def __init__(
        self, code: str, message: str, *, path: str | None = None, line: int | None = None, fix: str | None = None
    ) -> None:
        super().__init__(message, path=path, line=line, fix=fix)
        self.code = code


def read_text(real_path: str, rel: str) -> tuple[str, list[Diagnostic]]:
    """A bundle file's text (CRLF as LF, bad bytes replaced, a byte order mark dropped) and its diagnostics:
    E007 when bytes were not UTF-8 (OKF §4: concepts are UTF-8), W143 for a byte order mark."""
    return decode_text(_read(real_path, rel, stat=False)[0], rel)


def read_file(real_path: str, rel: str) -> tuple[bytes, os.stat_result]:
    """A bundle file's bytes and its ``fstat`` (taken before reading), within the size limit."""
    data, info = _read(real_path, rel, stat=True)
    assert info is not None  # asked for
    return data, info


def read_bytes(real_path: str, rel: str) -> bytes:
    """A bundle file's bytes, within the size limit, with no ``fstat`` for most files (as :func:`read_text`
    reads them: for a caller that has the file's stat already)."""
    return _read(real_path, rel, stat=False)[0]


# A first read this long holds most bundle files whole: a reader that needs no fstat then takes none.
_FIRST_READ = 1 << 16


def _read(real_path: str, rel: str, *, stat: bool) -> tuple[bytes, os.stat_result | None]:
    """:func:`read_file`; ``stat=False``: no fstat (None) when a first read of 64 KiB ends short of that (the
    whole file, as a read of its size and one byte more gives it: within the limit). Checking a bundle reads
    every file, so system calls count: one open, one read and one close for most files."""
    limit = MAX_FILE_BYTES
    try:
        fd = os.open(real_path, os.O_RDONLY)
        try:
            if not stat:
                data = os.read(fd, _FIRST_READ)
                if len(data) < _FIRST_READ:  # the whole file, as a read of its size and one more byte gives it
                    return data, None
                info = os.fstat(fd)  # a larger file: read as below (its size first, against the limit)
                os.lseek(fd, 0, os.SEEK_SET)
            else:
                info = os.fstat(fd)
            size = info.st_size
            if size > limit:
                raise CodedBundleError(
                    "E005",
                    f"file is {size / 1_048_576:.1f} MB, over the {limit // 1_048_576} MB limit",
                    path=rel,
                    fix="split it into several concepts",
                )
            data = os.read(fd, size + 1)  # one byte more than the size reveals a file that grew
            if len(data) != size:  # grew, or a short read: read on to the end, one byte over the limit at most
                while len(data) <= limit and (more := os.read(fd, limit + 1 - len(data))):
                    data += more
        finally:
            os.close(fd)
    except OSError as exc:
        raise CodedBundleError(
            "E006",
            f"cannot read file: {exc.strerror or exc}",
            path=rel,
            fix="check the file's permissions and that it is a regular file",
        ) from None
    if len(data) > MAX_FILE_BYTES:  # grew while we looked
        raise CodedBundleError("E005", "file is over the size limit", path=rel, fix="split it")
    return data, info


def decode_text(data: bytes, rel: str) -> tuple[str, list[Diagnostic]]:
    """The text of a bundle file's bytes, as :func:`read_text` gives it, and its diagnostics."""
    diags: list[Diagnostic] = []
    bom = data.startswith(b"\xef\xbb\xbf")
    if bom:
        diags.append(
            diagnostic(
                "W143",
                rel,
                1,
                "the file starts with a UTF-8 byte order mark; some OKF consumers then miss the frontmatter",
            )
        )
    try:
        # What decoding as "utf-8-sig" does (its error offsets too), without that codec's Python-level wrapper.
        text = (data[3:] if bom else data).decode("utf-8")
        if "\r" in text:
            text = text.replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        text = decode(data, rel).text
        line = data.count(b"\n", 0, exc.start) + 1
        diags.append(
            diagnostic(
                "E007",
                rel,
                line,
                f"not valid UTF-8 (first bad byte at offset {exc.start}); read with U+FFFD in its place",
            )
        )
    return text, diags


def load_frontmatter(text: str, rel: str) -> tuple[dict[str, Any] | None, frontmatter.Split]:
    """Split and load frontmatter, mapping failures to coded BundleErrors naming file and line."""
    try:
        return frontmatter.parse(text, rel)
    except frontmatter.NotAMapping as exc:
        raise CodedBundleError("E002", exc.message, path=rel, line=exc.line, fix=exc.fix) from None
    except frontmatter.Refused as exc:
        raise CodedBundleError("E005", exc.message, path=rel, line=exc.line, fix=exc.fix) from None
    except BundleError as exc:
        raise CodedBundleError("E001", exc.message, path=rel, line=exc.line, fix=exc.fix) from None


def parse_concept(rel: str, text: str, diags: list[Diagnostic]) -> Concept:
    """A Concept from its file text; raises CodedBundleError for frontmatter okf cannot read."""
    raw, parts = load_frontmatter(text, rel)
    if raw is None:
        meta = ConceptMeta()
        raw = {}
    else:
        meta, meta_diags = build_meta(raw, rel, parts.yaml_text or "", parts.yaml_start_line)
        diags = diags + meta_diags
        if parts.closer == "...":
            diags.append(
                diagnostic(
                    "W144",
                    rel,
                    parts.body_start_line - 1,
                    "frontmatter closed with '...'; OKF §4 closes it with '---', and some consumers read no further",
                )
            )
    return Concept(
        id=rel[:-3],
        path=rel,
        meta=meta,
        body=parts.body,
        body_start_line=parts.body_start_line,
        frontmatter=raw,
        diagnostics=diags,
    )
