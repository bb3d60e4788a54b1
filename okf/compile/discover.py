"""Inputs: check the source and output paths, find the documents, hash them."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from okf._version import __version__
from okf.compile.state import CompileState, SourceFile
from okf.errors import CompileError
from okf.sources import KINDS, SourceRefused, read_regular, refusal


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def check_paths(state: CompileState) -> None:
    """Refuse missing sources, an output that is a file, and an output inside (or holding) the sources."""
    if not state.inputs:
        raise CompileError("no sources given", fix="name at least one source file or folder")
    resolved = []
    for source in state.inputs:
        if not source.exists():
            raise CompileError(
                "source does not exist",
                path=str(source),
                fix="check the path; sources are files or folders of .md, .txt, .html or .pdf",
            )
        resolved.append(source.resolve())
    output = state.output.resolve()  # ".." and symlinks resolved even before it exists: "-o ../src/out" too
    if output.exists() and not output.is_dir():
        raise CompileError(
            "output exists and is not a folder", path=str(state.output), fix="choose a folder path for -o"
        )
    for source in resolved:
        base = source if source.is_dir() else source.parent
        if _inside(output, base) and (source.is_dir() or output == source):
            raise CompileError(
                "output is inside the sources", path=str(state.output), fix=f"write the bundle outside {source}"
            )
        if _inside(source, output):
            raise CompileError(
                "a source is inside the output folder",
                path=str(source),
                fix="the output folder is replaced on compile: move the sources out of it",
            )
    if output.is_dir() and any(output.iterdir()) and not (output / ".okf" / "manifest.json").is_file():
        raise CompileError(
            "output folder exists, is not empty and was not written by okf compile",
            path=str(state.output),
            fix="choose a new or empty folder (nothing was changed)",
        )
    state.output = output
    dirs = [s if s.is_dir() else s.parent for s in resolved]
    state.root = Path(os.path.commonpath(dirs)) if len(resolved) > 1 else dirs[0]
    state.inputs = resolved


def _walk(folder: Path, state: CompileState, found: dict[Path, None]) -> None:
    """Every non-hidden file under ``folder`` (symlinked folders not entered), with an explicit stack: a source
    tree may be nested deeper than Python's recursion limit."""
    stack = [folder]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as entries:
                listed = sorted(((e.name, e.is_dir(follow_symlinks=False)) for e in entries), reverse=True)
        except OSError as exc:
            state.skip(Path(os.path.relpath(here, state.root)).as_posix(), f"folder not readable ({exc.strerror})")
            continue
        for name, is_dir in listed:
            if name.startswith("."):
                continue
            if is_dir:
                stack.append(here / name)
            else:
                found[here / name] = None


def discover(state: CompileState) -> None:
    """Every source file under the inputs, sorted; other files skipped with a notice."""
    found: dict[Path, None] = {}
    for source in state.inputs:
        if source.is_dir():
            _walk(source, state, found)
        else:
            found[source] = None
    files = []
    for path in found:
        resource = path.relative_to(state.root).as_posix()
        kind = KINDS.get(path.suffix.lower())
        if kind is None:
            state.skip(resource, "not a source format okf compiles (.md, .markdown, .txt, .html, .htm, .pdf)")
            continue
        files.append(SourceFile(path, resource, kind))
    files.sort(key=lambda f: f.resource)
    state.files = files
    state.report.sources = len(files)


STAT_CACHE = ".okf/stat-cache.json"
RACY_NS = 2_000_000_000  # a file modified this close to the recording may change again within the same mtime


def _stat_key(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _load_stat_cache(state: CompileState) -> dict[str, Any]:
    """The previous compile's (size, mtime_ns, inode) -> sha256 record; empty when missing or unreadable."""
    try:
        data = json.loads((state.output / STAT_CACHE).read_bytes())
        if isinstance(data, dict) and isinstance(data.get("files"), dict) and isinstance(data.get("at"), int):
            return data
    except (OSError, ValueError):
        pass
    return {}


# Source bytes kept in memory from hashing for the later steps (grouping terms, planning): files up to this
# size, up to this much in all; larger ones are read again where needed.
KEEP_BYTES_EACH = 4_000_000
KEEP_BYTES = 256_000_000


def hash_sources(state: CompileState) -> None:
    """sha256 of each source file's bytes; unreadable files are skipped with a notice.

    Like git's index, a file whose size, mtime and inode match the last compile's record keeps its recorded
    sha256 unread, unless its mtime is within 2 s of that record (racy: it may have changed since in the
    same mtime tick); the sha256 stays the truth everywhere else. The bytes read here are kept (within
    ``KEEP_BYTES``) for the grouping terms and the planning, which so read exactly the bytes hashed."""
    cache = {} if state.options.force else _load_stat_cache(state)
    cached: dict[str, Any] = cache.get("files", {})
    racy_from = cache.get("at", 0) - RACY_NS
    state.stat_at = time.time_ns()
    readable, all_cached = [], True
    kept = 0
    for source in state.files:
        try:
            st = os.stat(source.path)
            refused = refusal(source.path, st)  # a FIFO or device would block the read, or never end
            if refused is not None:
                state.skip(source.resource, refused)
                continue
            key = _stat_key(st)
            old = cached.get(source.resource)
            if old is not None and old[:3] == key and key[1] < racy_from:
                source.sha256 = old[3]
            else:
                all_cached = False
                source.sha256, data = _read_hashed(source.path)
                if len(data) <= KEEP_BYTES_EACH and kept + len(data) <= KEEP_BYTES:
                    state.source_bytes[source.resource] = data  # read once: grouping and planning reuse them
                    kept += len(data)
        except SourceRefused as exc:
            state.skip(source.resource, exc.reason)
            continue
        except OSError as exc:
            state.skip(source.resource, f"not readable ({exc.strerror or exc})")
            continue
        state.stats[source.resource] = [*key, source.sha256]
        readable.append(source)
    state.stat_cache = cache
    state.files = readable
    state.report.sources = len(readable)
    if all_cached:  # a linked file (an image) that changed is copied again: no settling
        all_cached = _assets_unchanged(state, cache.get("assets") or {}, racy_from)
    if all_cached and cache.get("settled") and cache["settled"] == _settled_key(state, cache.get("indexes", [])):
        # Same sources, setup and okf-written bundle files as after the last compile: nothing can change.
        state.settled = True
        state.report.concepts = state.report.unchanged = int(cache.get("concepts", 0))


def _assets_unchanged(state: CompileState, assets: dict[str, Any], racy_from: int) -> bool:
    """True when every file copied for a link (an asset) still has its recorded size, mtime and inode."""
    for rel, old in assets.items():
        try:
            key = _stat_key(os.stat(state.root / rel))
        except OSError:
            return False
        if old[:3] != key or key[1] >= racy_from:
            return False
    return True


def _settled_key(state: CompileState, indexes: list[str]) -> str | None:
    """Digest of everything a no-op compile depends on: okf version, options, paths, the sources' stat data,
    and the stat data of the manifest, log.md and folder index files (a hand edit there is repaired)."""
    parts: list[Any] = [
        __version__,
        state.options.recorded(),
        state.options.title,
        str(state.output),
        str(state.root),
        state.stats,
    ]
    for rel in [".okf/manifest.json", "log.md", *indexes]:
        try:
            parts.append([rel, *_stat_key(os.stat(state.output / rel))])
        except OSError:
            return None
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8")).hexdigest()


def _read_hashed(path: Path) -> tuple[str, bytes]:
    """sha256 of the file's bytes, and the bytes."""
    data = read_regular(path)
    return hashlib.sha256(data).hexdigest(), data


def save_stat_cache(state: CompileState) -> None:
    """Record the sources' stat data beside the manifest (not part of the bundle's content); rewritten only
    when it changed. A failure to write it only costs the next compile some hashing."""
    if not (state.output / ".okf").is_dir():
        return
    indexes = sorted(state.manifest.get("indexes", []))
    data = {
        "format": 1,
        "at": state.stat_at,
        "files": state.stats,
        "indexes": indexes,
        "concepts": state.report.concepts,
        "settled": _settled_key(state, indexes),
        "assets": state.asset_stats,
    }
    old = state.stat_cache
    newest = max((v[1] for v in [*state.stats.values(), *state.asset_stats.values()]), default=0)
    if (
        all(old.get(k) == data[k] for k in ("files", "indexes", "concepts", "settled", "assets"))
        and newest < old.get("at", 0) - RACY_NS
    ):
        return  # same record, none racy: rewriting would only move "at"
    path = state.output / STAT_CACHE
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(json.dumps(data, separators=(",", ":"), sort_keys=True).encode("utf-8"))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
