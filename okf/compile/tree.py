"""The bundle tree: safe slugs, one directory per document along its folders, fan-out grouping."""

from __future__ import annotations

import heapq
import math
import re
import unicodedata
from collections.abc import Mapping
from pathlib import PurePosixPath

from okf.compile.state import Node
from okf.compile.topics import topical_tree, vectors
from okf.limits import TOPIC_PREFIX

_RESERVED = {
    "index",
    "log",
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(1, 10)),
    *(f"lpt{i}" for i in range(1, 10)),
}
_MAX_SLUG = 60


_NOT_SLUG = re.compile(r"[^\w]+|_+")


def slugify(text: str, fallback: str = "untitled") -> str:
    """A file-system-safe slug: lowercase, accents folded, only letters, digits and hyphens."""
    if text.isascii():  # NFKD leaves ASCII as it is and it holds no combining mark: nothing to fold
        text = text.lower()
    else:
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = _NOT_SLUG.sub("-", text).strip("-.")
    if len(text) > _MAX_SLUG:
        cut = text[:_MAX_SLUG]
        text = cut.rsplit("-", 1)[0] if "-" in cut[20:] else cut
        text = text.strip("-")
    if not text:
        text = fallback
    return f"{text}-doc" if text in _RESERVED else text


def unique(slugs: list[str]) -> list[str]:
    """Slugs made unique among siblings: repeats get -2, -3 ... by order of appearance."""
    seen: set[str] = set()
    out = []
    for slug in slugs:
        candidate, n = slug, 1
        while candidate in seen:
            n += 1
            candidate = f"{slug}-{n}"
        seen.add(candidate)
        out.append(candidate)
    return out


def _number(node: Node) -> str | None:
    m = re.match(
        r"(?:section |article |part |schedule |exhibit )?([0-9]+(?:\.[0-9]+)*|[ivxlc]+|[a-z])\b", node.title.lower()
    )
    return m.group(1) if m else None


def group(nodes: list[Node], fanout: int, noun: str = "items") -> list[Node]:
    """Contiguous runs of at most ``fanout`` entries as subdirectories while a level is too wide."""
    while len(nodes) > fanout:
        count = math.ceil(len(nodes) / fanout)
        size = math.ceil(len(nodes) / count)
        runs = [nodes[i : i + size] for i in range(0, len(nodes), size)]
        grouped = []
        position = 1
        for run in runs:
            first, last = _number(run[0]), _number(run[-1])
            if first and last and noun == "sections":
                slug = slugify(f"{noun}-{first}-{last}")
                title = (
                    f"Sections {first.upper() if first.isalpha() else first} to "
                    f"{last.upper() if last.isalpha() else last}"
                )
            else:
                slug = f"{noun}-{position}-{position + len(run) - 1}"
                title = f"{noun.capitalize()} {position} to {position + len(run) - 1}"
            position += len(run)
            grouped.append(
                Node(slug, title, "Group", children=run, description=f"From {run[0].title} to {run[-1].title}.")
            )
        nodes = grouped
    return nodes


def assign_paths(node: Node, base: str, fanout: int, noun: str = "sections") -> None:
    """Give a directory's nodes unique slugs, group wide levels, and set every ``path`` below ``base``."""
    node.path = base
    node.children = group(node.children, fanout, noun)
    slugs = unique([slugify(c.slug) if c.type != "Group" else c.slug for c in node.children])
    for child, slug in zip(node.children, slugs):
        child.slug = slug
        if child.is_dir:
            assign_paths(child, f"{base}{slug}/", fanout, noun)
        else:
            child.path = f"{base}{slug}.md"


def topical_groups(nodes: list[Node], vectors_: list[dict[str, float]], fanout: int) -> list[Node]:
    """Documents of a wide folder grouped by topic (see okf.compile.topics), level by level within ``fanout``.

    A group is named by the heaviest terms its members share (slug ``topic-...``); its title and description
    are written later from its members' key terms.
    """
    tree = topical_tree(len(nodes), vectors_, fanout)

    def make(branch: list) -> list[Node]:
        out: list[Node] = []
        for part in branch:
            if isinstance(part, int):
                out.append(nodes[part])
                continue
            members = make(part)
            leaves = _leaf_indices(part)
            terms = _shared_terms([vectors_[i] for i in leaves])
            name = "-".join(terms[:3]) or "documents"
            out.append(
                Node(
                    f"{TOPIC_PREFIX}{slugify(name, 'documents')}",
                    ", ".join(terms[:3]).capitalize() or "Documents",
                    "Topic",
                    children=members,
                )
            )
        return out

    return make(tree) if isinstance(tree[0], list) else nodes


def _leaf_indices(branch: list) -> list[int]:
    out: list[int] = []
    for part in branch:
        out.extend([part] if isinstance(part, int) else _leaf_indices(part))
    return out


def _shared_terms(members: list[dict[str, float]]) -> list[str]:
    weights: dict[str, list[float]] = {}
    for vector in members:
        for t, w in vector.items():
            weights.setdefault(t, []).append(w)
    total = {t: math.fsum(ws) for t, ws in weights.items()}  # exactly rounded: the same in any order
    return [t for _, t in heapq.nsmallest(3, [(-w, t) for t, w in total.items()])]  # heaviest, ties by term


def place_documents(
    resources: list[str], fanout: int, terms_of: Mapping[str, Mapping[str, int]] | None = None
) -> tuple[Node, dict[str, str]]:
    """The folder tree above document directories, and each resource's document directory path.

    A folder with more documents than ``fanout`` groups them by topic when ``terms_of`` gives every
    document's term counts; otherwise (or for folders mixing documents and subfolders) into contiguous runs
    named by their range, the documented last resort.
    """
    root = Node("", "", "Folder", children=[])
    folders: dict[tuple[str, ...], Node] = {(): root}
    for resource in resources:
        parts = PurePosixPath(resource).parts
        parent = root
        for depth in range(1, len(parts)):
            key = parts[:depth]
            if key not in folders:
                folder = Node(parts[depth - 1], parts[depth - 1], "Folder", children=[])
                folders[key] = folder
                parent.children.append(folder)
            parent = folders[key]
        stem = PurePosixPath(parts[-1]).stem
        parent.children.append(Node(stem, stem, "Document", children=[], anchors=[resource]))
    placement: dict[str, str] = {}

    def walk(node: Node, base: str) -> None:
        node.path = base
        docs = [c for c in node.children if c.type == "Document"]
        if (
            len(node.children) > fanout
            and terms_of is not None
            and len(docs) == len(node.children)
            and all(d.anchors[0] in terms_of for d in docs)
        ):
            node.children = topical_groups(docs, vectors([terms_of[d.anchors[0]] for d in docs]), fanout)
        else:
            node.children = group(node.children, fanout, "documents")
        slugs = unique([slugify(c.slug) if c.type not in ("Group", "Topic") else c.slug for c in node.children])
        for child, slug in zip(node.children, slugs):
            child.slug = slug
            if child.type == "Document":
                child.path = f"{base}{slug}/"
                placement[child.anchors[0]] = child.path
            else:
                walk(child, f"{base}{slug}/")

    walk(root, "")
    return root, placement


def iter_dirs(node: Node):
    """Every directory node below and including ``node``, parents first."""
    yield node
    for child in node.children:
        if child.is_dir:
            yield from iter_dirs(child)


def iter_concepts(node: Node):
    """Every concept node below ``node``, in document order."""
    for child in node.children:
        if child.is_dir:
            yield from iter_concepts(child)
        else:
            yield child
