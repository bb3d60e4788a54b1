"""A bundle's content identity without a compile manifest: the SHA-256 of every markdown file, cached.

Hashing every file of a 100,000-concept bundle takes seconds, so, like git's index, the hash of each file is
remembered in ``$OKF_CACHE_DIR/corpus/`` (else ``$XDG_CACHE_HOME/okf/corpus/``, else ``~/.cache/okf/corpus/``)
keyed by the file's path, size and modification time in nanoseconds; a file whose size or time changed is
hashed again. The id stays content-identifying: equal ids mean equal file contents (the cache only saves
re-reading files that did not change). A file modified less than two seconds ago is not cached, so an edit that
keeps its size within the clock's granularity is still seen ("racy git"). The cache is an optimization only:
when it cannot be read or written, every file is hashed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from okf.bundle.frontmatter import MAX_FILE_BYTES

FileHash = tuple[str, int, int, str]  # bundle path, size, mtime_ns, hash
Hasher = Callable[[str, list[str]], list[FileHash]]
_RACY_NS = 2_000_000_000
_VERSION = 1


def cache_dir() -> Path:
    """Where file hashes are cached."""
    if os.environ.get("OKF_CACHE_DIR"):
        return Path(os.environ["OKF_CACHE_DIR"]).expanduser() / "corpus"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "okf" / "corpus"


def hash_files(root_real: str, rels: list[str]) -> list[FileHash]:
    """Stat and hash the bundle files ``rels`` (a file over the size limit is identified by its size)."""
    out: list[FileHash] = []
    for rel in rels:
        real = os.path.join(root_real, rel)
        st = os.stat(real)
        if st.st_size > MAX_FILE_BYTES:  # refused anyway; don't hash 50 MB for an id
            digest = f"size:{st.st_size}"
        else:
            with open(real, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
        out.append((rel, st.st_size, st.st_mtime_ns, digest))
    return out


def _cache_file(root_real: str) -> Path:
    return cache_dir() / (hashlib.sha256(root_real.encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".json")


def _load(path: Path) -> dict[str, list[object]]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) and data.get("version") == _VERSION else None
    return files if isinstance(files, dict) else {}


def _store(path: Path, root_real: str, hashes: list[FileHash]) -> None:
    now = time.time_ns()
    files = {rel: [size, mtime, digest] for rel, size, mtime, digest in hashes if now - mtime > _RACY_NS}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".corpus-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"version": _VERSION, "root": root_real, "files": files}, handle, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError:
        return


def corpus_id(root_real: str, rels: Iterable[str], hasher: Hasher | None = None) -> str:
    """``sha256:`` and 16 hex digits over every file's path and content hash, in the order given.

    ``hasher(root_real, rels)`` hashes the files the cache cannot vouch for (``okf check`` passes one that
    spreads them over its worker processes); by default they are hashed here.
    """
    rels = list(rels)
    cache_path = _cache_file(root_real)
    cached = _load(cache_path)
    known: dict[str, FileHash] = {}
    misses: list[str] = []
    for rel in rels:
        entry = cached.get(rel)
        try:
            st = os.stat(os.path.join(root_real, rel))
        except OSError:
            misses.append(rel)  # hash_files reports the error
            continue
        if isinstance(entry, list) and len(entry) == 3 and entry[0] == st.st_size and entry[1] == st.st_mtime_ns:
            known[rel] = (rel, st.st_size, st.st_mtime_ns, str(entry[2]))
        else:
            misses.append(rel)
    if misses:
        for item in (hasher or hash_files)(root_real, misses):
            known[item[0]] = item
    digest = hashlib.sha256()
    for rel in rels:
        digest.update(f"{rel}\0{known[rel][3]}\n".encode())
    if misses or len(cached) != len(rels):
        _store(cache_path, root_real, [known[rel] for rel in rels])
    return "sha256:" + digest.hexdigest()[:16]
