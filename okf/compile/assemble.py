"""Render the planned tree into file contents and decide, file by file, what changed since the last compile."""

from __future__ import annotations

import hashlib
import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from okf.bundle.syntheses import root_entry
from okf.compile.links import link_text, rewrite_markdown_links
from okf.compile.parallel import SHARED, ordered_map
from okf.compile.manifest import MANIFEST, manifest_bytes, manifest_files, new_manifest
from okf.compile.render import (
    DIR_DESCRIPTION_CHARS, clip, concept_file, describe, dir_description, group_description, group_title, index_file,
    list_description, log_entry, log_file,
)
from okf.compile.state import CompileState, DocPlan, Node
from okf.compile.tree import iter_concepts, iter_dirs
from okf.compile.write import open_side_tree, write_outputs

_AT = re.compile(rb"\n  at: (\S+)\n---\n")


def _old_bytes(state: CompileState, path: str) -> bytes | None:
    try:
        return (state.output / path).read_bytes()
    except OSError:
        return None


def _span_sha256(lines: list[str], start: int, end: int) -> str:
    """Same value as okf.sources.span_sha256 on the joined text, without re-splitting it per concept."""
    return hashlib.sha256("\n".join(lines[start - 1:end]).encode("utf-8")).hexdigest()


def describe_dirs(node: Node) -> None:
    """Directory descriptions from their content, bottom-up (a group names its first and last entries)."""
    for child in node.children:
        if child.is_dir and child.type != "Document":
            describe_dirs(child)
    if node.type == "Group" and node.children:
        node.title = group_title(node)
        node.description = group_description(node)
    elif node.type != "Document" or not node.description:
        node.description = dir_description(node.title, node.children)


def _emit(state: CompileState, path: str, content: bytes, old_files: set[str]) -> None:
    """Keep the old file when identical, else queue the new content."""
    if path in old_files and _old_bytes(state, path) == content:
        state.keep.add(path)
    else:
        state.outputs[path] = content


def _read_old(output: Path, path: str, old_files: set[str]) -> bytes | None:
    if path not in old_files:
        return None
    try:
        return (output / path).read_bytes()
    except OSError:
        return None


def render_plan(resource: str) -> tuple[dict[str, int], list[str], dict[str, Any]]:
    """Write one rebuilt document's new or changed concept and index files into the side tree; return their
    sizes, the unchanged ones to keep, and its manifest record. Reads its inputs from ``parallel.SHARED`` so
    it can run in a worker (workers write their own files: creating them is kernel work both CPUs can do)."""
    plan: DocPlan = SHARED["plans"][resource]
    anchors_of: dict[str, dict[str, str]] = SHARED["anchors"]
    output: Path = SHARED["output"]
    old_files: set[str] = SHARED["old_files"]
    at: datetime = SHARED["at"]
    outputs: dict[str, bytes] = {}
    keep: list[str] = []

    def resolve(target: str, anchor: str) -> str | None:
        anchors = anchors_of.get(target)
        return None if anchors is None else anchors.get(anchor.lower()) or anchors.get("")

    concepts = list(iter_concepts(plan.node))
    for node in concepts:
        assert node.lines is not None
        node.description = describe(plan.lines, *node.lines, plan.headings, node.title)
    for node in concepts:
        path, content = _render_concept(output, plan, node, resolve, at, old_files)
        (outputs.__setitem__(path, content) if content is not None else keep.append(path))
    describe_dirs(plan.node)
    # A document is described by its own headings and defined terms (or its opening sentence without headings).
    terms = sorted(plan.terms, key=str.lower)
    if plan.outline:
        names = plan.outline + ([f"defined terms: {', '.join(terms)}"] if terms else [])
        plan.node.description = list_description(plan.title, names, DIR_DESCRIPTION_CHARS)
    else:
        plan.node.description = clip(f"{plan.title}: {concepts[0].description}", DIR_DESCRIPTION_CHARS)
    indexes = []
    for directory in iter_dirs(plan.node):
        path = directory.path + "index.md"
        indexes.append(path)
        content = index_file(directory, directory.title, directory.description)
        if _read_old(output, path, old_files) == content:
            keep.append(path)
        else:
            outputs[path] = content
    entry = {
        "sha256": plan.source.sha256, "dir": plan.node.path, "title": plan.title,
        "description": plan.node.description, "indexes": indexes,
        "concepts": [n.path for n in concepts], "anchors": plan.anchors,
        "links_to": sorted(plan.links_to),
    }
    return write_outputs(SHARED["side"], outputs), keep, entry


def render_documents(state: CompileState) -> None:
    """Concept files and in-document index files of every rebuilt source; their manifest records."""
    anchors = {r: e.get("anchors", {}) for r, e in state.doc_entries.items()}
    anchors.update({r: p.anchors for r, p in state.plans.items()})
    resources = [r for r, p in state.plans.items() if p.lines]  # text and PDF ones were rendered with their plan
    if not resources:
        return
    shared = {"plans": state.plans, "anchors": anchors, "output": state.output,
              "old_files": manifest_files(state.previous), "at": state.at or datetime.now(),
              "side": f"{open_side_tree(state)}{os.sep}"}
    for resource, (written, keep, entry) in zip(resources, ordered_map(render_plan, resources, state.jobs, shared)):
        state.written.update(written)
        state.keep.update(keep)
        state.doc_entries[resource] = entry
        state.plans[resource].lines = []  # release the text: rendering is done


def _render_concept(output: Path, plan: DocPlan, node: Node, resolve: Any, at: datetime,
                    old_files: set[str]) -> tuple[str, bytes | None]:
    """A concept's path and new content, or None as content when the file on disk is already the same."""
    assert node.lines is not None
    body = "\n".join(plan.lines[node.lines[0] - 1:node.lines[1]])
    if plan.source.kind in ("markdown", "html"):
        body = rewrite_markdown_links(body, plan, resolve)
    else:
        body = link_text(body, plan, node.path, node.lines[0])
    sha = _span_sha256(plan.lines, *node.lines)
    old = _read_old(output, node.path, old_files)
    if old is not None and (m := _AT.search(old)):
        # Content unchanged keeps its generated.at: it marks the last meaningful change (OKF §5.2).
        try:
            old_at = datetime.strptime(m.group(1).decode(), "%Y-%m-%dT%H:%M:%SZ")
            if concept_file(node, body, plan.source.resource, plan.title, sha, old_at) == old:
                return node.path, None
        except ValueError:
            pass
    return node.path, concept_file(node, body, plan.source.resource, plan.title, sha, at)


def render_indexes(state: CompileState) -> None:
    """Folder-level index.md files (above the documents); the root one carries ``okf_version``."""
    assert state.tree is not None
    old_files = manifest_files(state.previous)

    def fill(node: Node) -> None:
        kept = []
        for child in node.children:
            if child.type == "Document":
                entry = state.doc_entries.get(child.anchors[0])
                if entry is None:
                    continue  # skipped (empty or unreadable)
                child.title, child.description = entry["title"], entry["description"]
            else:
                fill(child)
                if not child.children:
                    continue
            kept.append(child)
        node.children = kept

    fill(state.tree)
    title = state.options.title or state.output.name.replace("-", " ").replace("_", " ").strip().title() or "Bundle"
    state.tree.title = title
    describe_dirs(state.tree)
    for directory in iter_dirs(state.tree):
        if directory.type == "Document":
            continue
        if directory is state.tree:
            content = index_file(directory, title, state.tree.description or title, root_version="0.2")
            kept = root_entry(state.output)  # the entry okf ask --save added for its syntheses folder
            if kept is not None:
                content += (kept + "\n").encode("utf-8")
        else:
            content = index_file(directory, directory.title, directory.description)
        _emit(state, directory.path + "index.md", content, old_files)
        state.manifest.setdefault("folder_indexes", []).append(directory.path + "index.md")


def finish(state: CompileState) -> None:
    """Counts, log.md and the manifest; ``report.changed`` says whether anything must be written."""
    previous: dict[str, Any] = state.previous or {}
    old_sources = previous.get("sources", {})
    old_concepts = {p for e in old_sources.values() for p in e.get("concepts", [])}
    new_concepts = {p for e in state.doc_entries.values() for p in e.get("concepts", [])}
    created = sorted(new_concepts - old_concepts)
    removed = sorted(old_concepts - new_concepts)
    changed = state.changed_files()
    updated = sorted(p for p in new_concepts & old_concepts if p in changed)
    report = state.report
    report.created, report.updated, report.removed = len(created), len(updated), len(removed)
    report.concepts = len(new_concepts)
    report.unchanged = len(new_concepts) - len(created) - len(updated)
    indexes = state.manifest.pop("folder_indexes", [])
    files = set(indexes) | {"log.md"}
    for resource, entry in state.doc_entries.items():
        entry_files = entry["concepts"] + entry["indexes"]
        files.update(entry_files)
        if resource not in state.plans:  # untouched source: its files carry over as they are
            state.keep.update(entry_files)
    old_files = manifest_files(previous)
    content_changed = bool(changed) or bool(old_files - files)
    manifest = new_manifest(state)
    manifest["indexes"] = indexes
    log_path = state.output / "log.md"
    old_log = log_path.read_text("utf-8") if log_path.is_file() else None
    if content_changed:
        at = state.at or datetime.now()
        changed_sources = sorted(p.source.resource for p in state.plans.values()
                                 if any(c in changed for c in state.doc_entries[p.source.resource]["concepts"]))
        gone = sorted(set(old_sources) - set(state.doc_entries))
        bullets = log_entry(at.strftime("%Y-%m-%d"), created, updated, removed, changed_sources + gone)
        state.outputs["log.md"] = log_file(old_log, at.strftime("%Y-%m-%d"), bullets)
    elif old_log is not None:
        state.keep.add("log.md")
    data = manifest_bytes(manifest)
    if content_changed or _old_bytes(state, MANIFEST) != data:
        state.outputs[MANIFEST] = data
    else:
        state.keep.add(MANIFEST)
    state.manifest = manifest
    report.changed = bool(state.outputs) or bool(state.written)
