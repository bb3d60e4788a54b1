"""Render the planned tree into file contents and decide, file by file, what changed since the last compile."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from typing import Any

from okf.compile.links import link_text, rewrite_markdown_links
from okf.compile.manifest import MANIFEST, manifest_bytes, manifest_files, new_manifest
from okf.compile.render import clip, concept_file, describe, dir_description, index_file, log_entry, log_file
from okf.compile.state import CompileState, DocPlan, Node
from okf.compile.tree import iter_concepts, iter_dirs

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
        first, last = node.children[0].title, node.children[-1].title
        node.description = clip(f"{first} to {last}: " + "; ".join(c.title for c in node.children))
    elif node.type != "Document" or not node.description:
        node.description = dir_description(node.title, node.children)


def _emit(state: CompileState, path: str, content: bytes, old_files: set[str]) -> None:
    """Keep the old file when identical, else queue the new content."""
    if path in old_files and _old_bytes(state, path) == content:
        state.keep.add(path)
    else:
        state.outputs[path] = content


def render_documents(state: CompileState) -> None:
    """Concept files and in-document index files of every rebuilt source; their manifest records."""
    old_files = manifest_files(state.previous)
    at = state.at or datetime.now()

    def resolve(resource: str, anchor: str) -> str | None:
        if resource in state.plans:
            anchors = state.plans[resource].anchors
        elif resource in state.doc_entries:
            anchors = state.doc_entries[resource].get("anchors", {})
        else:
            return None
        return anchors.get(anchor.lower()) or anchors.get("")

    for resource, plan in state.plans.items():
        concepts = list(iter_concepts(plan.node))
        for node in concepts:
            assert node.lines is not None
            node.description = describe(plan.lines, *node.lines, plan.headings, node.title)
        for node in concepts:
            _render_concept(state, plan, node, resolve, at, old_files)
        describe_dirs(plan.node)
        # A document is described by its own headings (or its opening sentence when it has none).
        summary = "; ".join(plan.outline) if plan.outline else concepts[0].description
        plan.node.description = clip(f"{plan.title}: {summary}")
        indexes = []
        for directory in iter_dirs(plan.node):
            path = directory.path + "index.md"
            indexes.append(path)
            _emit(state, path, index_file(directory, directory.title, directory.description), old_files)
        state.doc_entries[resource] = {
            "sha256": plan.source.sha256, "dir": plan.node.path, "title": plan.title,
            "description": plan.node.description, "indexes": indexes,
            "concepts": [n.path for n in concepts], "anchors": plan.anchors,
            "links_to": sorted(plan.links_to),
        }
        plan.lines = []  # release the text: rendering is done


def _render_concept(state: CompileState, plan: DocPlan, node: Node, resolve: Any, at: datetime,
                    old_files: set[str]) -> None:
    assert node.lines is not None
    body = "\n".join(plan.lines[node.lines[0] - 1:node.lines[1]])
    if plan.source.kind in ("markdown", "html"):
        body = rewrite_markdown_links(body, plan, resolve)
    else:
        body = link_text(body, plan, node.path)
    sha = _span_sha256(plan.lines, *node.lines)
    old = _old_bytes(state, node.path) if node.path in old_files else None
    if old is not None and (m := _AT.search(old)):
        # Content unchanged keeps its generated.at: it marks the last meaningful change (OKF §5.2).
        try:
            old_at = datetime.strptime(m.group(1).decode(), "%Y-%m-%dT%H:%M:%SZ")
            if concept_file(node, body, plan.source.resource, plan.title, sha, old_at) == old:
                state.keep.add(node.path)
                return
        except ValueError:
            pass
    state.outputs[node.path] = concept_file(node, body, plan.source.resource, plan.title, sha, at)


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
    updated = sorted(p for p in new_concepts & old_concepts if p in state.outputs)
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
    content_changed = bool(state.outputs) or bool(old_files - files)
    manifest = new_manifest(state)
    manifest["indexes"] = indexes
    log_path = state.output / "log.md"
    old_log = log_path.read_text("utf-8") if log_path.is_file() else None
    if content_changed:
        at = state.at or datetime.now()
        changed_sources = sorted(p.source.resource for p in state.plans.values()
                                 if any(c in state.outputs for c in state.doc_entries[p.source.resource]["concepts"]))
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
    report.changed = bool(state.outputs)
