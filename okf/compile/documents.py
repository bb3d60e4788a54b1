"""Per-document steps: read each changed source, find its sections, plan its concepts and their paths."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from okf.compile.assemble import render_plan
from okf.compile.escape import TextEscapes
from okf.compile.links import index_document
from okf.compile.manifest import manifest_files
from okf.compile.mirror import cited_resource, write_mirror
from okf.compile.parallel import SHARED, ordered_map, workers
from okf.compile.source_meta import read_source_meta
from okf.compile.split import Sizer, plan_document
from okf.compile.state import CompileState, DocPlan, Node, SourceFile
from okf.compile.structure import Section, build_tree, markdown_headings, text_headings
from okf.compile.tree import assign_paths
from okf.compile.vault import note_title, read_note_frontmatter
from okf.compile.write import open_side_tree
from okf.sources import SourceRefused, read_source_text

LINK_ROOM = 0.1


def humanize(stem: str) -> str:
    """A readable title from a file name."""
    return " ".join(stem.replace("_", " ").split()) or stem


def _flatten(section: Section) -> list[Section]:
    out = []
    stack = list(reversed(section.children))
    while stack:
        s = stack.pop()
        out.append(s)
        stack.extend(reversed(s.children))
    return out


def plan_source(source: SourceFile) -> tuple[DocPlan | None, list[str], str | None]:
    """Read one source and plan its concepts: (plan or None, warnings, reason it was skipped). A mirrored
    source is copied into the side tree from the bytes read here (``SHARED["mirrored"]`` collects it)."""
    placement: dict[str, str] = SHARED["placement"]
    options = SHARED["options"]
    try:
        read = read_source_text(
            source.path, keep_bytes=bool(source.mirror), data=SHARED["source_bytes"].get(source.resource)
        )
    except SourceRefused as exc:
        return None, [], exc.reason
    except OSError as exc:
        return None, [], f"not readable ({exc.strerror or exc})"
    warnings = list(read.notices)
    text = read.text
    if not text.strip():
        # One notice per skipped file: the reader's own reason (a broken or encrypted PDF) when it gave one.
        said = [n.removeprefix(f"{source.path}: ") for n in warnings]
        return None, [], "; ".join(said) if said else "empty document (no text)"
    lines = text.split("\n")
    data = read.data
    del text, read
    title = humanize(PurePosixPath(source.resource).stem)
    skip, note, meta = 0, None, None
    escaped: TextEscapes | None = None
    if source.kind == "markdown":
        skip, note, said = read_note_frontmatter(lines, source.resource)
        warnings += said
        if skip:  # the same block, mapped onto the concepts (okf.compile.source_meta)
            meta = read_source_meta(lines[:skip], source.resource)[0]
        if skip and not any(line.strip() for line in lines[skip:]):
            return None, warnings, "empty document (only frontmatter)"
    heading: str | None = None
    if source.kind in ("markdown", "html"):
        # Frontmatter is not content: blanked for the heading scan (its "---" would read as a rule, and
        # "key: value" above it as a heading), and no concept's lines start before it ends.
        found, starts = markdown_headings("\n".join([""] * skip + lines[skip:]), lines)
        top = [h for h in found if h.rank == 1] or found[:1]
        if top:
            title = heading = top[0].title
        sizer = Sizer(lines, starts)
    else:
        found = text_headings(lines)
        escaped = TextEscapes(lines)  # found once: for sizing here, and for each concept's body when rendered
        sizer = Sizer(lines, None, escaped.per_line())
    named = note_title(source.resource, heading, note) if source.kind == "markdown" else None
    title = named or title
    root = build_tree(found, len(lines), title, first=skip + 1)
    # Cross-links compile writes into a body ("[Section 5](/a/b.md)") lengthen it: leave them a share of the
    # window, so the concept as written still fits the judge's window.
    nodes = plan_document(
        root, sizer, options.max_words, options.min_words, int(options.max_chars * (1 - LINK_ROOM)), first=skip + 1
    )
    if not nodes:
        return None, warnings, "empty document (no text)"
    if named and len(nodes) == 1 and not nodes[0].is_dir:
        nodes[0].title = named  # the note is one concept: it is named as the note is
    doc = Node(PurePosixPath(source.resource).stem, title, "Document", children=nodes)
    assign_paths(doc, placement[source.resource], options.fanout)
    if len(doc.children) == 1 and not doc.children[0].is_dir:
        doc.children[0].path = placement[source.resource].rstrip("/") + ".md"  # one concept: a file, no folder
    plan = DocPlan(
        source,
        title,
        lines,
        doc,
        headings={h.start for h in found} | {h.title_line for h in found if h.title_line},
        heading_titles={h.start: h.title for h in found},
        note=note,
        first_line=skip + 1,
        meta=meta,
        cited=cited_resource(options, source),
        escaped=escaped,
    )
    if data is not None:
        SHARED.setdefault("mirrored", {}).update(write_mirror(source, data))
    concepts = index_document(plan, _flatten(root))
    plan.anchors[""] = concepts[0].path
    tops = root.children[0].children if len(root.children) == 1 else root.children
    plan.outline = [s.title for s in tops if s.title != title][:40]
    return plan, warnings, None


def plan_and_render(source: SourceFile) -> tuple[DocPlan | None, list[str], str | None, Any, dict[str, int]]:
    """Plan one source; a text or PDF source (whose links never leave it) is rendered at once, in the same
    worker, so its text never travels back to the parent process (unless a model describes its concepts
    first: then it is rendered with the others). Last: its mirror, when written
    here."""
    SHARED["mirrored"] = {}
    plan, warnings, skipped = plan_source(source)
    rendered = None
    if plan is not None and source.kind in ("text", "pdf") and not SHARED.get("defer_render"):
        SHARED["plans"] = {source.resource: plan}
        rendered = render_plan(source.resource)
        plan = rendered_plan(plan)
    return plan, warnings, skipped, rendered, SHARED.pop("mirrored", {})


def rendered_plan(plan: DocPlan) -> DocPlan:
    """What the later steps read of a plan already rendered: its source, title, note, anchors and links, and
    its document node without the concepts below it. The text, the concept tree and the planning tables stay
    behind: a worker pickles the plan back to the parent, and with them CUAD's results were 18.6 MB instead
    of 10.5 MB, pickled by the workers and unpickled by the parent while both CPUs are busy with the workers
    (about 0.25 s of CPU per compile; docs/benchmarks.md, "Compile speed, twelfth round").
    """
    return replace(
        plan,
        lines=[],
        node=replace(plan.node, children=[]),
        headings=set(),
        heading_titles={},
        keys={},
        outline=[],
        terms={},
        terms_by_word=None,
        term_hits=None,
        line_starts=[],
        escaped=None,
    )


def _size(path: Path) -> int:
    """The size of a source file in bytes (0 when it is not a regular file or cannot be read)."""
    try:
        found = path.stat()
    except OSError:
        return 0
    return found.st_size if stat.S_ISREG(found.st_mode) else 0


def build_documents(state: CompileState) -> None:
    """Plan every source being rebuilt (across processes for large jobs); unreadable or empty ones are
    skipped with a notice."""
    total = len(state.rebuild)
    sizes = [_size(s.path) for s in state.rebuild]
    state.jobs = workers(sum(sizes))
    if not state.rebuild:
        return
    old_files = manifest_files(state.previous)
    old_sources = (state.previous or {}).get("sources", {})
    # A rebuilt source whose bytes and mirror path are those of the last compile keeps its mirror file.
    kept_mirrors = {
        s.resource
        for s in state.rebuild
        if s.mirror
        and s.mirror in old_files
        and (old_sources.get(s.resource) or {}).get("sha256") == s.sha256
        and (old_sources.get(s.resource) or {}).get("mirror") == s.mirror
    }
    shared = {
        "placement": state.placement,
        "options": state.options,
        "anchors": {},
        "output": state.output,
        "old_files": old_files,
        "at": state.at or datetime.now(),
        "max_chars": state.options.max_chars,
        "defer_render": state.describer is not None,
        "kept_mirrors": kept_mirrors,
        "root": state.root,
        "side": f"{open_side_tree(state)}{os.sep}",
        "source_bytes": state.source_bytes,  # forked workers inherit them: read once, when hashing
    }
    # Largest first: a long contract planned last would keep one worker busy after the other is done.
    results = ordered_map(plan_and_render, state.rebuild, state.jobs, shared, weights=sizes)
    for done, (source, (plan, warnings, skipped, rendered, mirrored)) in enumerate(zip(state.rebuild, results), 1):
        for message in warnings:
            state.warn(message)
        if plan is None:
            state.skip(source.resource, skipped or "empty document (no text)")
        else:
            state.plans[source.resource] = plan
            state.written.update(mirrored)
            if source.mirror and not mirrored:
                state.keep.add(source.mirror)
        if rendered is not None:
            written, keep, entry, listings = rendered
            state.written.update(written)
            state.keep.update(keep)
            state.doc_entries[source.resource] = entry
            state.listings.update(listings)
        if state.progress:
            state.progress("files", done, total)
    state.source_bytes.clear()  # every source is read: free the bytes kept from hashing
