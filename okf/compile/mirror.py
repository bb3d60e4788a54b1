"""Self-contained bundles: sources mirrored under ``references/sources/`` and the files their links name.

By default every source is copied into the bundle at ``references/sources/<its path under the compile root>``
(OKF §6.3) and each concept's ``sources[].resource`` is that copy's bundle path (``/references/sources/...``,
OKF §6.2, written by :func:`okf.bundle.paths.path_uri`: a ``#``, ``?`` or ``%`` in a file name is
percent-encoded, as a URI needs), so a consumer can follow it, and okf check, receipts and ledgers work on a bundle moved to another
machine without its source folder. Files are copied byte for byte (a PDF stays a PDF) with one exception: a
``.md`` source is mirrored as ``<name>.md.txt``, because every ``.md`` file of a bundle is a concept (OKF §3.1,
§11) and a source is not one. Images and other files a markdown or HTML source links to are copied the same
way ("assets") and the links rewritten to the copies.

A mirror is written from the bytes compile reads anyway (never read twice) and carried over, as a hard link
of the previous bundle's file, while the source's bytes are unchanged. ``--sources-url BASE`` cites
``BASE/<path>`` instead; ``--no-copy-sources`` cites the path under the compile root (not followable once the
bundle moves: compile warns).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import stat
from pathlib import Path
from typing import Any
from urllib.parse import quote

from okf.bundle.paths import path_uri
from okf.compile.parallel import SHARED
from okf.compile.state import CompileOptions, CompileState, SourceFile
from okf.compile.write import open_side_tree, write_outputs
from okf.limits import MAX_PDF_BYTES
from okf.sources import SourceRefused, read_regular

REFERENCES = "references/sources/"
NO_COPY_WARNING = (
    "sources are not copied into the bundle (--no-copy-sources): sources[].resource names paths "
    "under the compile folder, which a consumer cannot follow and okf check cannot read once the "
    "bundle is moved; compile without it (or with --sources-url) for a self-contained bundle"
)


def mirror_path(resource: str) -> str:
    """The bundle path of the copy of ``resource`` (a path under the compile root): ``a/b.md`` ->
    ``references/sources/a/b.md.txt`` (a ``.md`` file would be a concept), anything else kept as named."""
    return REFERENCES + resource + (".txt" if resource.lower().endswith(".md") else "")


def assign_mirrors(state: CompileState) -> None:
    """Give every source its mirror path (when sources are mirrored); warn when they are not copied."""
    mode = state.options.sources_mode()
    if mode == "source_root":
        state.warn(NO_COPY_WARNING)
    if mode != "mirror":
        return
    taken: set[str] = set()
    for source in state.files:
        path = mirror_path(source.resource)
        n = 1
        while path in taken:  # "a.md" and "a.md.txt" both sources: the second copy is numbered
            n += 1
            path = f"{mirror_path(source.resource)[:-4]}.{n}.txt"
        taken.add(path)
        source.mirror = path


def cited_resource(options: CompileOptions, source: SourceFile) -> str:
    """``sources[].resource`` as concepts write it: the mirror's bundle path, a URL, or the path under the
    compile root; a path with the characters that would change a URI's meaning percent-encoded."""
    if source.mirror:
        return "/" + path_uri(source.mirror)
    if options.sources_url:
        return options.sources_url.rstrip("/") + "/" + quote(source.resource)
    return path_uri(source.resource)


def write_mirror(source: SourceFile, data: bytes) -> dict[str, int]:
    """Write ``source``'s bytes as its mirror into the side tree (``SHARED["side"]``), unless the previous
    bundle's copy is the same bytes (``SHARED["kept_mirrors"]``); the written file and its size."""
    if source.resource in SHARED.get("kept_mirrors", ()):
        return {}
    return write_outputs(SHARED["side"], {source.mirror: data}, SHARED.setdefault("made_folders", set()))


# -- assets: files a markdown or HTML source links to that are not sources ---------------------------------


def asset_target(resource: str, root: Path) -> str | None:
    """Why the file ``resource`` (a path under the compile ``root``) cannot be copied into the bundle, or
    None when it can: it must stay inside the root (symlinks resolved) and be a regular file within limits."""
    if resource.startswith("../") or resource in ("..", ".", ""):
        return "it is outside the compiled folder"
    real = os.path.realpath(root / resource)
    base = os.path.realpath(root)
    if not real.startswith(base.rstrip(os.sep) + os.sep):
        return "it leads outside the compiled folder"
    try:
        st = os.stat(real)
    except OSError:
        return "no such file"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_size > MAX_PDF_BYTES:
        return f"over the {MAX_PDF_BYTES // 1_048_576} MB limit for one file"
    return None


def copy_assets(state: CompileState) -> None:
    """Copy every asset the bundle's documents link to into the side tree, once each; an asset whose bytes
    are those of the last compile is carried over. Records them in the manifest (``assets``: path -> sha256)
    and their stat data in the stat cache (so a changed image is noticed without reading it)."""
    wanted: dict[str, str] = {}
    for entry in state.doc_entries.values():
        for resource, path in (entry.get("assets") or {}).items():
            wanted.setdefault(resource, path)
    previous = (state.previous or {}).get("assets") or {}
    cached = (state.stat_cache or {}).get("assets") or {}
    record: dict[str, Any] = {}
    stats: dict[str, list[Any]] = {}
    for resource in sorted(wanted):
        path = wanted[resource]
        source = state.root / resource
        try:
            st = os.stat(source)
            key = [st.st_size, st.st_mtime_ns, st.st_ino]
            old = cached.get(resource)
            data = None
            if old is not None and old[:3] == key and key[1] < state.stat_cache.get("at", 0) - 2_000_000_000:
                digest = old[3]
            else:
                data = read_regular(source, MAX_PDF_BYTES)
                digest = hashlib.sha256(data).hexdigest()
        except (OSError, SourceRefused) as exc:
            state.warn(
                f"{resource}: linked file not copied ({getattr(exc, 'strerror', None) or exc}); its links are broken"
            )
            continue
        stats[resource] = [*key, digest]
        record[resource] = {"path": path, "sha256": digest}
        before = previous.get(resource) or {}
        if before.get("sha256") == digest and before.get("path") == path and (state.output / path).is_file():
            state.keep.add(path)
            continue
        if data is None:
            data = read_regular(source, MAX_PDF_BYTES)
        state.written.update(write_outputs(f"{open_side_tree(state)}{os.sep}", {path: data}))
    state.assets = record
    state.asset_stats = stats
    # Not compiled as a source, but copied: no "skipped" notice for it.
    state.report.skipped = [s for s in state.report.skipped if s.path not in record]


def asset_path(resource: str) -> str:
    """The bundle path an asset is copied to (beside the mirrored sources)."""
    return mirror_path(resource)


def link_asset(target_resource: str) -> str | None:
    """In a worker rendering a document: the bundle link for the non-source file ``target_resource`` (its copy
    is made by :func:`copy_assets`), or None when it cannot be copied (the reason in ``SHARED["missing"]``)."""
    root: Path = SHARED["root"]
    why = asset_target(target_resource, root)
    if why is not None:
        SHARED.setdefault("missing", []).append((target_resource, why))
        return None
    return "/" + asset_path(posixpath.normpath(target_resource))
