"""Per-document steps: read each changed source, find its sections, plan its concepts and their paths."""

from __future__ import annotations

from pathlib import PurePosixPath

from okf.compile.links import index_document
from okf.compile.split import Sizer, plan_document
from okf.compile.state import CompileState, DocPlan, Node
from okf.compile.structure import Section, build_tree, markdown_headings, text_headings
from okf.compile.tree import assign_paths
from okf.sources import read_source_text


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


def build_documents(state: CompileState) -> None:
    """Plan every source being rebuilt; unreadable or empty ones are skipped with a notice."""
    total = len(state.rebuild)
    for done, source in enumerate(state.rebuild, 1):
        try:
            read = read_source_text(source.path)
        except OSError as exc:
            state.skip(source.resource, f"not readable ({exc.strerror or exc})")
            continue
        for message in read.notices:
            state.warn(message)
        text = read.text
        if not text.strip():
            state.skip(source.resource, "empty document (no text)")
            continue
        lines = text.split("\n")
        del text, read
        title = humanize(PurePosixPath(source.resource).stem)
        if source.kind in ("markdown", "html"):
            found, starts = markdown_headings("\n".join(lines))
            top = [h for h in found if h.rank == 1] or found[:1]
            if top:
                title = top[0].title
            sizer = Sizer(lines, starts)
        else:
            found = text_headings(lines)
            sizer = Sizer(lines, None)
        root = build_tree(found, len(lines), title)
        nodes = plan_document(root, sizer, state.options.max_words, state.options.min_words)
        if not nodes:
            state.skip(source.resource, "empty document (no text)")
            continue
        doc = Node(PurePosixPath(source.resource).stem, title, "Document", children=nodes)
        assign_paths(doc, state.placement[source.resource], state.options.fanout)
        plan = DocPlan(source, title, lines, doc, headings={h.start for h in found})
        concepts = index_document(plan, _flatten(root))
        plan.anchors[""] = concepts[0].path
        tops = root.children[0].children if len(root.children) == 1 else root.children
        plan.outline = [s.title for s in tops if s.title != title][:12]
        state.plans[source.resource] = plan
        if state.progress:
            state.progress("files", done, total)
