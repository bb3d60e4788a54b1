"""A bundle's content identity without a compile manifest: the SHA-256 of every markdown file, cached.

Hashing every file of a 300,000-concept bundle takes a minute, so, like git's index, the hash of each file is
remembered in ``$OKF_CACHE_DIR/corpus/`` (else ``$XDG_CACHE_HOME/okf/corpus/``, else ``~/.cache/okf/corpus/``)
keyed by the file's path, size and modification time in nanoseconds; a file whose size or time changed is
hashed again. The id stays content-identifying: equal ids mean equal file contents (the cache only saves
re-reading files that did not change). A file modified less than two seconds ago is not cached, so an edit that
keeps its size within the clock's granularity is still seen ("racy git").

The cache of one bundle is a text file of lines ``size mtime_ns sha256 path``, updated incrementally: a pass
that hashed some files appends their lines (a later line wins), and the file is rewritten whole (atomically)
only once it holds more stale lines than live ones. A line that cannot be read is ignored. The cache is an
optimization only: when it cannot be read or written, every file is hashed.

Without the cache the id still costs a stat of every markdown file, which grows with the bundle: navigation
never computes it (``Bundle.known_corpus_id``).
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from okf.limits import MAX_FILE_BYTES

FileHash = tuple[str, int, int, str]  # bundle path, size, mtime_ns, hash
Hasher = Callable[[str, list[str]], list[FileHash]]
_RACY_NS = 2_000_000_000
_HEADER = "okf corpus cache 2\n"
_UNADDRESSABLE = re.compile(r"[\\\x00-\x1f\x7f]")  # the bundle leaves such names out (W115)


def cache_dir() -> Path:
    """Where file hashes are cached."""
    if os.environ.get("OKF_CACHE_DIR"):
        return Path(os.environ["OKF_CACHE_DIR"]).expanduser() / "corpus"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "okf" / "corpus"


Stat = tuple[int, int]  # size, mtime_ns


def markdown_files(root_real: str) -> list[tuple[str, Stat | None]]:
    """Every markdown file of the bundle as :class:`~okf.bundle.Bundle` sees it, with its stat data.

    The same files as the bundle's listings, in :meth:`~okf.bundle.Bundle.iter_directories` order, names
    sorted within a directory: hidden entries skipped, symlinked directories not followed, a symlinked file counted only when
    its real path is a file inside the root. One ``scandir`` per directory and one stat per file; a file
    that cannot be stat'ed comes with ``None``.
    """
    inside = root_real.rstrip(os.sep) + os.sep
    found: list[tuple[str, list[tuple[str, Stat | None]]]] = []
    stack = [("", root_real)]
    while stack:
        rel_dir, real = stack.pop()
        files: list[tuple[str, Stat | None]] = []
        try:
            with os.scandir(real) as entries:
                for entry in entries:
                    entry_name = entry.name
                    if entry_name.startswith(".") or _UNADDRESSABLE.search(entry_name):
                        continue  # as the bundle's listings: hidden, or a name no bundle path can hold
                    try:
                        if entry.is_symlink():
                            if entry_name.endswith(".md"):
                                target = os.path.realpath(entry.path)
                                if target.startswith(inside) and os.path.isfile(target):
                                    files.append((entry_name, _stat(entry)))
                        elif entry.is_dir(follow_symlinks=False):
                            stack.append((f"{rel_dir}{entry_name}/", entry.path))
                        elif entry_name.endswith(".md") and entry.is_file(follow_symlinks=False):
                            files.append((entry_name, _stat(entry)))
                    except OSError:
                        continue
        except OSError:
            continue
        found.append((rel_dir, files))
    found.sort(key=lambda item: item[0])
    out: list[tuple[str, Stat | None]] = []
    for rel_dir, files in found:
        files.sort(key=lambda item: item[0])
        out.extend((rel_dir + entry_name, st) for entry_name, st in files)
    return out


def _stat(entry: os.DirEntry[str]) -> Stat | None:
    try:
        st = entry.stat()  # follows a symlink (already known to stay inside)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def hash_files(root_real: str, rels: list[str]) -> list[FileHash]:
    """Stat and hash the bundle files ``rels`` (a file over the size limit is identified by its size)."""
    out: list[FileHash] = []
    for rel in rels:
        real = os.path.join(root_real, rel)
        try:
            with open(real, "rb") as handle:
                st = os.fstat(handle.fileno())
                if st.st_size > MAX_FILE_BYTES:  # refused anyway; don't hash 50 MB for an id
                    digest = f"size:{st.st_size}"
                else:
                    digest = hashlib.sha256(handle.read()).hexdigest()
        except OSError as exc:
            # Unreadable or gone: part of the id as such (check reports the file). The space keeps it out of
            # the cache, whose lines hold no spaced digest: a chmod keeps the mtime, so it must be hashed again.
            out.append((rel, -1, -1, f"unreadable {exc.errno}"))
            continue
        out.append((rel, st.st_size, st.st_mtime_ns, digest))
    return out


def _cache_file(root_real: str) -> Path:
    return cache_dir() / (hashlib.sha256(root_real.encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".txt")


def _load(path: Path) -> tuple[dict[str, str], int]:
    """``{"path\\0size\\0mtime_ns": hash}`` from the cache file, and how many lines it has."""
    known: dict[str, str] = {}
    count = 0
    try:
        with open(path, encoding="utf-8", errors="surrogateescape", newline="\n") as handle:
            if handle.readline() != _HEADER:
                return {}, 0
            for line in handle:  # line by line: the file is never held whole
                count += 1
                parts = line.split(" ", 3)
                if len(parts) == 4 and parts[3].endswith("\n"):  # a torn last line (a writer cut short): skipped
                    size, mtime, digest, rel = parts
                    known[f"{rel[:-1]}\0{size}\0{mtime}"] = digest
    except OSError:
        return {}, 0
    return known, count


def _lines(hashes: Iterable[FileHash]) -> str:
    now = time.time_ns()
    return "".join(
        f"{size} {mtime} {digest} {rel}\n"
        for rel, size, mtime, digest in hashes
        if now - mtime > _RACY_NS and "\n" not in rel and " " not in digest
    )


def _append(path: Path, hashes: list[FileHash]) -> None:
    text = _lines(hashes)
    if not text:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            if os.fstat(fd).st_size == 0:
                text = _HEADER + text
            os.write(fd, text.encode("utf-8", "surrogateescape"))  # one write: appenders do not interleave
        finally:
            os.close(fd)
    except OSError:
        return


def _rewrite(path: Path, hashes: list[FileHash]) -> None:
    import tempfile  # lazy: only a bundle without a compile manifest writes the hash cache (okf check starts sooner)

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".corpus-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as handle:
            handle.write(_HEADER + _lines(hashes))
        os.replace(tmp, path)
    except OSError:
        return


def corpus_id(
    root_real: str, files: Iterable[tuple[str, Stat | None]] | None = None, hasher: Hasher | None = None
) -> str:
    """``sha256:`` and 16 hex digits over every file's path and content hash, in the order given.

    ``files`` are ``(bundle path, stat data)`` pairs (default: :func:`markdown_files`). ``hasher(root_real,
    rels)`` hashes the files the cache cannot vouch for; by default they are hashed here.
    """
    files = markdown_files(root_real) if files is None else list(files)
    cache_path = _cache_file(root_real)
    cached, lines = _load(cache_path)
    digests: list[str | None] = []
    misses: list[str] = []
    for rel, st in files:
        digest = None if st is None else cached.get(f"{rel}\0{st[0]}\0{st[1]}")
        if digest is None:
            misses.append(rel)
        digests.append(digest)
    fresh: dict[str, FileHash] = {}
    if misses:
        fresh = {item[0]: item for item in (hasher or hash_files)(root_real, misses)}
    id_hash = hashlib.sha256()
    material: list[str] = []
    for (rel, _), digest in zip(files, digests, strict=True):
        material.append(f"{rel}\0{digest if digest is not None else fresh[rel][3]}\n")
        if len(material) == 4096:
            id_hash.update("".join(material).encode("utf-8", "surrogateescape"))
            material.clear()
    id_hash.update("".join(material).encode("utf-8", "surrogateescape"))
    if lines + len(misses) > 2 * max(len(files), 1):
        # More stale lines than live ones (files changed or removed): write only the live ones.
        live = [
            fresh[rel] if rel in fresh or st is None else (rel, st[0], st[1], digest)
            for (rel, st), digest in zip(files, digests, strict=True)
            if st is not None or rel in fresh
        ]
        _rewrite(cache_path, live)  # type: ignore[arg-type]
    elif misses:
        _append(cache_path, list(fresh.values()))
    return "sha256:" + id_hash.hexdigest()[:16]
