"""The compile manifest (<output>/.okf/manifest.json): what each source produced, to rebuild only changes."""

from __future__ import annotations

import json
import os
import posixpath
from collections import Counter
from operator import itemgetter, neg
from pathlib import Path
from typing import Any

from okf._version import __version__
from okf.compile.state import CompileState
from okf.compile.tree import place_documents
from okf.sources import read_head
from okf.text.keyterms import count_terms, eligible, smallest

MANIFEST = ".okf/manifest.json"
# 2: markdown frontmatter is not content; wikilinks resolved (okf.compile.vault); 3: key terms shown once;
# 4: directory topics (okf.compile.headings); 5: the title index written as .okf/titles.json (okf.bundle.titles)
FORMAT = 5


def load_manifest(state: CompileState) -> None:
    """Read the previous manifest; an unreadable or foreign one means a full rebuild (with a warning)."""
    path = state.output / MANIFEST
    if not path.is_file():
        return
    try:
        data = json.loads(path.read_text("utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("sources"), dict):
            raise ValueError("not an okf manifest")
    except (OSError, ValueError) as exc:
        state.warn(f"{path}: manifest unreadable ({exc}); rebuilding everything")
        data = {"sources": {}, "files": []}
    state.previous = data


def source_root_label(root: Path, output: Path) -> str:
    """The compile root relative to the output when possible (POSIX), else absolute."""
    try:
        return Path(os.path.relpath(root, output)).as_posix()
    except ValueError:  # another drive on Windows
        return root.as_posix()


# Characters of a document read for its grouping terms: how it opens says what it is about.
GROUP_HEAD_CHARS = 6000
GROUP_TERMS = 60


def place(state: CompileState) -> None:
    """Decide each document's directory: folders kept; a folder with more documents than the fan-out cap
    grouped by topic (from the terms each document opens with, cached in the manifest by content hash)."""
    resources = [f.resource for f in state.files]
    per_folder = Counter(posixpath.dirname(r) for r in resources)
    if per_folder and max(per_folder.values()) > state.options.fanout:
        state.group_terms = grouping_terms(state)
    state.tree, state.placement = place_documents(resources, state.options.fanout, state.group_terms or None)


def grouping_terms(state: CompileState) -> dict[str, dict[str, int]]:
    """Each source's grouping terms: the most frequent content words of its opening, reused when unchanged."""
    old = (state.previous or {}).get("sources", {})
    out: dict[str, dict[str, int]] = {}
    for source in state.files:
        entry = old.get(source.resource) or {}
        if entry.get("sha256") == source.sha256 and isinstance(entry.get("group_terms"), dict):
            out[source.resource] = entry["group_terms"]
            continue
        try:
            head = read_head(source.path, GROUP_HEAD_CHARS, state.source_bytes.get(source.resource))
        except (OSError, ValueError):
            head = ""
        out[source.resource] = top_terms(count_terms(head))
    return out


def top_terms(counts: Counter[str], limit: int = GROUP_TERMS) -> dict[str, int]:
    """The ``limit`` most frequent terms of ``counts`` that can be key terms, ties by term, most frequent
    first: ``sorted((-n, t) ...)[:limit]`` over the eligible terms, built by C-level maps."""
    keys = list(eligible(counts))
    top = smallest(limit, list(zip(map(neg, map(counts.__getitem__, keys)), keys)))
    return dict(zip(map(itemgetter(1), top), map(neg, map(itemgetter(0), top))))


def plan_changes(state: CompileState) -> None:
    """Pick the sources to rebuild: new, changed, moved, or linking to a source that changed."""
    previous = state.previous or {}
    old_sources: dict[str, Any] = previous.get("sources", {})
    same_setup = (
        previous.get("okf_version") == __version__
        and previous.get("options") == state.options.recorded()
        and previous.get("format") == FORMAT
    )
    rebuild, changed = [], set()
    for source in state.files:
        old = old_sources.get(source.resource)
        if (
            state.options.force
            or not same_setup
            or old is None
            or old.get("sha256") != source.sha256
            or old.get("dir") != state.placement[source.resource]
        ):
            changed.add(source.resource)
    changed |= set(old_sources) - {f.resource for f in state.files}
    for source in state.files:
        old = old_sources.get(source.resource)
        if source.resource in changed or changed & set((old or {}).get("links_to", [])):
            rebuild.append(source)
        elif old is not None:  # unchanged and not linked to a change: it was compiled before
            state.doc_entries[source.resource] = old
    state.rebuild = rebuild
    state.report.documents_rebuilt = len(rebuild)


def new_manifest(state: CompileState) -> dict[str, Any]:
    """The manifest of the bundle being written."""
    for resource, terms in state.group_terms.items():
        if resource in state.doc_entries:
            state.doc_entries[resource]["group_terms"] = terms
    return {
        "format": FORMAT,
        "okf_version": __version__,
        "spec": "0.2",
        "options": state.options.recorded(),
        "source_root": source_root_label(state.root, state.output),
        **({"vault": state.vault_key} if state.vault_key else {}),
        "resources": state.options.sources_mode(),
        "sources": {r: state.doc_entries[r] for r in sorted(state.doc_entries)},
    }


def manifest_files(manifest: dict[str, Any] | None) -> set[str]:
    """Every file a manifest says okf wrote (concepts, index files, log.md, mirrored sources, assets)."""
    if not manifest:
        return set()
    files = set(manifest.get("indexes", [])) | {"log.md"}
    for entry in manifest.get("sources", {}).values():
        files.update(entry.get("concepts", []))
        files.update(entry.get("indexes", []))
        if entry.get("mirror"):
            files.add(entry["mirror"])
    files.update(a["path"] for a in (manifest.get("assets") or {}).values() if isinstance(a, dict) and "path" in a)
    return files


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    """Stable JSON bytes (sorted keys) so an unchanged compile reproduces the same file.

    One line per source: the C encoder does the work (``indent`` would switch to the pure-Python one, a
    noticeable share of a one-file recompile on a big corpus), and a diff still shows which sources changed.
    """
    sources = manifest.get("sources", {})
    head = {k: v for k, v in manifest.items() if k != "sources"}
    encode = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode
    lines = [encode(head)[:-1] + ("," if head else "") + '"sources":{']
    items = sorted(sources.items())
    lines += [
        f"{encode(name)}:{encode(entry)}" + ("," if i < len(items) - 1 else "") for i, (name, entry) in enumerate(items)
    ]
    lines.append("}}")
    return ("\n".join(lines) + "\n").encode("utf-8")
