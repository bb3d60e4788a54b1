"""Reading a source file safely: only regular files, and only up to the size limit of its format.

A FIFO, a device or a symlink to one (which would block or never end) and an oversized file are refused with
:class:`SourceRefused`, an ``OSError`` whose ``strerror`` says why, before a byte is read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from okf.sources.formats import format_of

_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


class SourceRefused(OSError):
    """A source okf will not read: not a regular file, or over its size limit (``strerror`` says which)."""

    def __init__(self, reason: str, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__(0, reason, None if path is None else str(path))
        self.reason = reason


def size_limit(path: Path) -> int:
    """The most bytes okf reads of the source ``path`` (its format's limit)."""
    return format_of(path).max_bytes


def refusal(path: Path, st: os.stat_result) -> str | None:
    """Why the file with stat ``st`` (symlinks followed) is not read as a source, or None when it is."""
    if not stat.S_ISREG(st.st_mode):
        kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
        via = "a symlink to " if os.path.islink(path) else ""
        return f"{via}{kind}, not a regular file: okf reads only regular files"
    limit = size_limit(path)
    if st.st_size > limit:
        return f"{mb(st.st_size)} MB, over the {mb(limit)} MB limit for one source: split it into smaller files"
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
                raise SourceRefused(f"over the {mb(limit)} MB limit for one source (it grew while read)", path)
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def mb(size: int) -> str:
    return f"{size / 1_048_576:.1f}"
