"""Render the planned tree into file contents and decide, file by file, what changed since the last compile."""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import datetime
from operator import itemgetter
from pathlib import Path
from typing import Any

from okf.bundle.syntheses import root_entry
from okf.compile.describe import (
    DIRECTORY_TERMS,
    GROUP_DESCRIPTION_CHARS,
    directory_description,
    label,
    shown_once,
)
from okf.compile.headings import Headings, assign, below_each, with_topics
from okf.compile.links import link_text, rewrite_markdown_links
from okf.compile.manifest import MANIFEST, manifest_bytes, manifest_files, new_manifest
from okf.compile.mirror import link_asset
from okf.compile.model_describe import TITLES_KEY, apply_signposts, model_bullets, title_folder_groups
from okf.compile.parallel import SHARED, ordered_map
from okf.compile.render import concept_file, index_file, listed_concepts, log_entry, log_file
from okf.compile.source_meta import apply_source_meta
from okf.compile.state import CompileState, DocPlan, Node
from okf.compile.survey import survey_document
from okf.compile.tree import iter_concepts, iter_dirs
from okf.compile.vault import (
    MAX_LISTED,
    apply_note,
    folder_signposts,
    link_wikilinks,
    unresolved_bullet,
    unresolved_lines,
)
from okf.compile.vocabulary import collect_vocabulary, vocabulary_outputs
from okf.compile.write import open_side_tree, write_outputs
from okf.text.keyterms import distinctive, idf_table, title_terms, wordlike

_AT = re.compile(rb"\n  at: (\S+)\n---\n")


def _old_bytes(state: CompileState, path: str) -> bytes | None:
    try:
        return (state.output / path).read_bytes()
    except OSError:
        return None


def describe_dirs(
    node: Node,
    terms_of: Callable[[Node], list[str]],
    titled: dict[str, str] | None = None,
    *,
    below_only: bool = False,
    topics: Mapping[str, list[tuple[str, str]]] | None = None,
) -> None:
    """Directory descriptions from their content, bottom-up: members by what they are about, then the key
    terms of the subtree (``terms_of``), then its topics (``topics``: path -> topics among its siblings,
    okf.compile.headings). A fan-out group's title adds its main key terms to its range, or the title a
    model gave it (``titled``: group path -> title). ``below_only``: describe the directories below
    ``node`` but not ``node`` itself (a caller that writes its description anyway)."""
    for child in node.children:
        if child.is_dir and child.type != "Document":
            describe_dirs(child, terms_of, titled, topics=topics)
    if below_only or (node.type == "Document" and node.description):
        return
    key_terms = terms_of(node)
    members = [(label(c), terms_of(c) if c.is_dir else list(c.tags)) for c in node.children if c.title]
    model_title = (titled or {}).get(node.path)
    if node.type == "Topic" and node.children:
        if model_title:
            node.title = model_title
        elif key_terms:
            heading = ", ".join(key_terms[:3])
            node.title = heading[:1].upper() + heading[1:]
        node.description = directory_description(members, key_terms, GROUP_DESCRIPTION_CHARS)
    elif node.type == "Group" and node.children:
        base = node.title.split(":", 1)[0]
        node.title = (
            f"{base}: {model_title}" if model_title else f"{base}: {', '.join(key_terms[:3])}" if key_terms else base
        )
        node.description = directory_description(members, key_terms, GROUP_DESCRIPTION_CHARS)
    else:
        node.description = directory_description(members, key_terms)
    if topics and node.children:
        node.description = with_topics(node.description, topics.get(node.path))


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


Listings = dict[str, list[tuple[str, str]]]  # directory -> (concept path, title) its index.md lists


def render_plan(resource: str) -> tuple[dict[str, int], list[str], dict[str, Any], Listings]:
    """Write one rebuilt document's new or changed concept and index files into the side tree; return their
    sizes, the unchanged ones to keep, its manifest record and the concepts its index files list. Reads its inputs from ``parallel.SHARED`` so
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
    survey = survey_document(plan, concepts)
    if SHARED.get("described"):
        apply_signposts(concepts, SHARED["described"])
    apply_note(plan, concepts)  # a note's own frontmatter wins over the model's and the extractive text
    if plan.meta is not None:
        apply_source_meta(plan.meta, concepts)
    for node, text in zip(concepts, survey.texts):
        path, content = _render_concept(output, plan, node, resolve, at, old_files, text)
        (outputs.__setitem__(path, content) if content is not None else keep.append(path))
    # The document's own description is written just below (from its outline): only its directories here.
    # Each names the topics of the headings below it among its siblings, words weighed over the document.
    heads = below_each(plan.node)
    weights = survey.weights
    unseen = max(weights.values(), default=1.0)
    topics: dict[str, list[tuple[str, str]]] = {}
    assign(plan.node, lambda n: heads[n.path], lambda t: weights.get(t, unseen), into=topics)
    describe_dirs(plan.node, survey.terms_of, SHARED.get("titled"), below_only=True, topics=topics)
    outline = [(label(c), survey.terms_of(c) if c.is_dir else list(c.tags)) for c in plan.node.children if c.title]
    plan.node.description = directory_description(
        outline if len(concepts) > 1 else [concepts[0].description], survey.terms_of(plan.node)
    )
    described = plan.meta is not None and bool(plan.meta.description)
    if described:  # the source's own summary beats the outline of its members
        plan.node.description = plan.meta.description
    indexes = []
    listings: Listings = {}
    single = (
        len(concepts) == 1
        and not plan.node.children[0].is_dir
        and concepts[0].path.endswith(".md")
        and not concepts[0].path.startswith(plan.node.path)
    )
    for directory in [] if single else iter_dirs(plan.node):
        path = directory.path + "index.md"
        indexes.append(path)
        listings[directory.path] = listed_concepts(directory)
        content = index_file(directory, directory.title, directory.description)
        if _read_old(output, path, old_files) == content:
            keep.append(path)
        else:
            outputs[path] = content
    entry: dict[str, Any] = {
        "sha256": plan.source.sha256,
        "dir": plan.node.path,
        "title": plan.title,
        "description": plan.node.description,
        "indexes": indexes,
        "concepts": [n.path for n in concepts],
        "anchors": plan.anchors,
        "links_to": sorted(plan.links_to),
        "outline": [[name, terms[:8]] for name, terms in outline][:40]
        if not single
        else [[concepts[0].description, list(concepts[0].tags[:8])]],
        "terms": survey.summary(),
        "headings": heads[plan.node.path] if not single else {},
        "acronyms": survey.expansions,
        "vocabulary": survey.table(),
    }
    if plan.note is not None and plan.note.record():
        entry["note"] = plan.note.record()
    if plan.wikilinks:
        entry["wikilinks"] = True
    if plan.unresolved:
        entry["unresolved"] = plan.unresolved
    top = next((n for n in concepts if n.path == plan.anchors.get("")), concepts[0])
    entry["lead"] = top.description
    if described:
        entry["own_description"] = True
    if plan.source.mirror:
        entry["mirror"] = plan.source.mirror
    if plan.assets:
        entry["assets"] = dict(sorted(plan.assets.items()))
    if SHARED.get("missing"):
        entry["missing"] = SHARED.pop("missing")
    # The folders this process made in this step are remembered (nothing removes folders until write_bundle).
    return write_outputs(SHARED["side"], outputs, SHARED.setdefault("made_folders", set())), keep, entry, listings


def render_documents(state: CompileState) -> None:
    """Concept files and in-document index files of every rebuilt source; their manifest records."""
    anchors = {r: e.get("anchors", {}) for r, e in state.doc_entries.items()}
    anchors.update({r: p.anchors for r, p in state.plans.items()})
    resources = [r for r, p in state.plans.items() if p.lines]  # text and PDF ones were rendered with their plan
    if not resources:
        return
    shared = {
        "plans": state.plans,
        "anchors": anchors,
        "output": state.output,
        "vault": state.vault,
        "vault_sources": state.vault_sources,
        "old_files": manifest_files(state.previous),
        "at": state.at or datetime.now(),
        "max_chars": state.options.max_chars,
        "described": state.described,
        "titled": state.titled,
        "root": state.root,
        "side": f"{open_side_tree(state)}{os.sep}",
    }
    for resource, (written, keep, entry, listings) in zip(
        resources, ordered_map(render_plan, resources, state.jobs, shared)
    ):
        state.written.update(written)
        state.keep.update(keep)
        state.doc_entries[resource] = entry
        state.listings.update(listings)
        state.plans[resource].lines = []  # release the text: rendering is done
        warn_missing(state, resource, entry)


def warn_missing(state: CompileState, resource: str, entry: dict[str, Any]) -> None:
    """A compile warning for each link of ``resource`` to a file that could not be copied into the bundle."""
    for target, why in entry.pop("missing", []):
        state.warn(
            f"{resource}: links to {target}, which is not copied into the bundle ({why}); the link is "
            "left as written and okf check reports it"
        )


def _render_concept(
    output: Path, plan: DocPlan, node: Node, resolve: Any, at: datetime, old_files: set[str], text: str | None = None
) -> tuple[str, bytes | None]:
    """A concept's path and new content, or None as content when the file on disk is already the same.
    ``text`` is the concept's lines joined (as the survey joined them), when already at hand."""
    assert node.lines is not None
    text = "\n".join(plan.lines[node.lines[0] - 1 : node.lines[1]]) if text is None else text
    body = text
    if plan.source.kind == "markdown":
        body = link_wikilinks(body, plan, SHARED.get("vault"), SHARED.get("vault_sources", set()), node.lines[0])
    if plan.source.kind in ("markdown", "html"):
        body = rewrite_markdown_links(body, plan, resolve, link_asset)
    else:  # plain text: escaped, so markdown shows exactly its text (and the links compile adds)
        known = plan.escaped.of_lines(*node.lines) if plan.escaped is not None else None
        body = link_text(
            body,
            plan,
            node.path,
            node.lines[0],
            room=max(0, SHARED["max_chars"] - len(body)),
            escape=True,
            escaped=known,
        )
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()  # okf.sources.span_sha256 of the concept's lines
    old = _read_old(output, node.path, old_files)
    if old is not None and (m := _AT.search(old)):
        # Content unchanged keeps its generated.at: it marks the last meaningful change (OKF §5.2).
        try:
            old_at = datetime.strptime(m.group(1).decode(), "%Y-%m-%dT%H:%M:%SZ")
            if concept_file(node, body, plan.cited, plan.title, sha, old_at, plan.meta) == old:
                return node.path, None
        except ValueError:
            pass
    return node.path, concept_file(node, body, plan.cited, plan.title, sha, at, plan.meta)


def render_indexes(state: CompileState) -> None:
    """Folder-level index.md files (above the documents); the root one carries ``okf_version``.

    Documents and groups of documents are described with key terms weighed across documents: frequent in
    this document (or group), found in few others.
    """
    assert state.tree is not None
    old_files = manifest_files(state.previous)
    collect_vocabulary(state)
    doc_df: Counter[str] = Counter()
    for table in state.vocabulary.values():
        doc_df.update(table.keys())
    weights = idf_table(doc_df, max(1, len(state.vocabulary)))
    unseen = max(weights.values(), default=0.0)  # once, not once per directory
    # A term of a document's summary missing from the vocabulary weighs ``unseen`` (distinctive's rule),
    # written into the table once here rather than decided again in every directory's scoring.
    for entry in state.doc_entries.values():
        missing = [t for t in entry.get("terms", {}) if t not in weights]
        weights.update((t, unseen) for t in missing if len(t) >= 3 and wordlike(t))
    summaries: dict[str, tuple[dict[str, int], dict[str, str]]] = {}

    def summary_of(node: Node) -> tuple[dict[str, int], dict[str, str]]:
        """Summed term summaries of the documents under ``node``: term -> count, and term -> word as written
        (a group's: its first member's that has the term)."""
        if node.path in summaries:
            return summaries[node.path]
        counts: dict[str, int] = {}
        words: dict[str, str] = {}
        if node.type == "Document":
            entry = state.doc_entries.get(node.anchors[0]) or {}
            terms = entry.get("terms", {})  # term -> [count, word]
            counts = dict(zip(terms, map(itemgetter(0), terms.values())))
            words = dict(zip(terms, map(itemgetter(1), terms.values())))
        else:
            parts = [summary_of(child) for child in node.children]
            summed: Counter[str] = Counter()
            for part, _ in parts:
                summed.update(part)
            counts = dict(summed)
            for _, part_words in reversed(parts):  # the first member's word wins
                words.update(part_words)
        summaries[node.path] = (counts, words)
        return counts, words

    chosen: dict[str, list[str]] = {}

    def terms_of(node: Node) -> list[str]:
        if node.path in chosen:
            return chosen[node.path]
        chosen[node.path] = found = _terms_of(node)
        return found

    def _terms_of(node: Node) -> list[str]:
        counts, words = summary_of(node)
        exclude = title_terms(node.title)
        if node.type != "Document":
            for child in node.children:
                exclude |= title_terms(child.title)
        # A group over many documents names more of what it holds: its signpost is all a selector sees of them.
        limit = DIRECTORY_TERMS + min(44, len(counts) // 40) if node.type == "Topic" else DIRECTORY_TERMS
        found = distinctive(counts, weights, limit=limit, exclude=exclude)
        return shown_once((words[t] for t in found), limit)

    def fill(node: Node) -> None:
        kept = []
        for child in node.children:
            if child.type == "Document":
                entry = state.doc_entries.get(child.anchors[0])
                if entry is None:
                    continue  # skipped (empty or unreadable)
                child.title = entry["title"]
                outline = [
                    (m[0], list(m[1])) if isinstance(m, list) else (str(m), []) for m in entry.get("outline") or []
                ]
                if len(entry["concepts"]) == 1 and not entry["indexes"]:
                    child.path, child.lines = entry["concepts"][0], (1, 1)  # a one-concept document is a file
                    child.tags = list(outline[0][1]) if outline else []
                    # Its entry repeats the concept's own description, as every concept entry does (OKF §8).
                    child.description = outline[0][0] if outline else entry["description"]
                else:
                    child.description = (
                        directory_description(outline, terms_of(child))
                        if (outline or entry.get("terms")) and not entry.get("own_description")
                        else entry["description"]
                    )
            else:
                fill(child)
                if not child.children:
                    continue
            kept.append(child)
        node.children = kept

    fill(state.tree)

    # Documents and groups name the topics of the headings below them among their siblings, words weighed
    # over the bundle's documents (okf.compile.headings).
    def recorded(node: Node) -> Headings | None:
        """A document's heading words, from its manifest record (its insides are not in this tree)."""
        if node.type != "Document":
            return None
        record = state.doc_entries.get(node.anchors[0]) if node.anchors else None
        return (record or {}).get("headings") or {}

    heads = below_each(state.tree, recorded)
    topics: dict[str, list[tuple[str, str]]] = {}
    assign(
        state.tree,
        lambda n: heads[n.path],
        lambda t: weights.get(t, unseen),
        into=topics,
        descend=lambda n: n.type != "Document",
    )
    for child in iter_dirs(state.tree):
        record = state.doc_entries.get(child.anchors[0]) if child.type == "Document" and child.anchors else None
        if record is not None and not record.get("own_description"):
            child.description = with_topics(child.description, topics.get(child.path))
    title = state.options.title or state.output.name.replace("-", " ").replace("_", " ").strip().title() or "Bundle"
    state.tree.title = title
    describe_dirs(state.tree, terms_of, title_folder_groups(state), topics=topics)
    folder_signposts(state.tree, state.doc_entries)
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
        state.listings[directory.path] = listed_concepts(directory)
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
    titles = state.manifest.pop(TITLES_KEY, None)
    files = set(indexes) | {"log.md"}
    for resource, entry in state.doc_entries.items():
        entry_files = entry["concepts"] + entry["indexes"] + ([entry["mirror"]] if entry.get("mirror") else [])
        files.update(entry_files)
        if resource not in state.plans:  # untouched source: its files carry over as they are
            state.keep.update(entry_files)
    files.update(a["path"] for a in state.assets.values())
    old_files = manifest_files(previous)
    content_changed = bool(changed) or bool(old_files - files)
    manifest = new_manifest(state)
    manifest["indexes"] = indexes
    if titles:  # folder-level group titles a model wrote (okf.compile.model_describe)
        manifest[TITLES_KEY] = titles
    if state.assets:
        manifest["assets"] = state.assets
    log_path = state.output / "log.md"
    old_log = log_path.read_text("utf-8") if log_path.is_file() else None
    unresolved = unresolved_lines(state)
    for line in unresolved[:MAX_LISTED]:
        state.warn(f"{line}: wikilink names no compiled note; kept as written (okf check: W103)")
    if len(unresolved) > MAX_LISTED:
        state.warn(f"{len(unresolved) - MAX_LISTED} more unresolved wikilinks (listed in log.md)")
    if content_changed:
        at = state.at or datetime.now()
        changed_sources = sorted(
            p.source.resource
            for p in state.plans.values()
            if any(c in changed for c in state.doc_entries[p.source.resource]["concepts"])
        )
        gone = sorted(set(old_sources) - set(state.doc_entries))
        bullets = log_entry(at.strftime("%Y-%m-%d"), created, updated, removed, changed_sources + gone)
        bullets += unresolved_bullet(unresolved)
        bullets += model_bullets(state)
        state.outputs["log.md"] = log_file(old_log, at.strftime("%Y-%m-%d"), bullets)
    elif old_log is not None:
        state.keep.add("log.md")
    data = manifest_bytes(manifest)
    for path, content in [(MANIFEST, data), *vocabulary_outputs(state).items()]:
        if content_changed or _old_bytes(state, path) != content:
            state.outputs[path] = content
        else:
            state.keep.add(path)
    state.manifest = manifest
    report.changed = bool(state.outputs) or bool(state.written)
