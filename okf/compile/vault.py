"""Obsidian-style vaults as sources: note frontmatter, wikilinks resolved to concepts, folder notes as signposts.

- A markdown source may open with YAML frontmatter: it is not content (no concept holds it); its ``title``
  names the document, ``aliases`` and ``tags`` are kept on the concepts (``aliases`` on the note's first
  concept, ``tags`` on every one, before the key terms compile finds), ``description`` describes the note.
- Wikilinks (:mod:`okf.wikilinks`) in markdown sources are resolved over every source as Obsidian does (path,
  file name, title, alias) and become markdown links to the source they name, which compile's link rewriting
  then turns into links to concepts (a ``#Heading`` to the concept holding that heading). One that names
  nothing compiled (a missing note, an image) is kept as written, listed in log.md and the compile warnings,
  and reported by ``okf check`` (W103).
- A folder note (``topic/topic.md``, ``topic/_index.md``) gives its folder's signpost its title and
  description.
- When the notes a wikilink could name change (a note added, removed, renamed, retitled or re-aliased), every
  document holding wikilinks is rebuilt: resolution may differ.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any

from okf.bundle import frontmatter
from okf.compile.state import CompileState, DocPlan, Node
from okf.compile.structure import anchor_slug
from okf.errors import BundleError
from okf.wikilinks import Vault, WikiLink, markdown_link, rewrite_wikilinks

FOLDER_NOTE_STEMS = ("_index",)  # besides the folder's own name
# The frontmatter block is looked for in a note's first lines only: a "---" further down is a rule.
MAX_FRONTMATTER_LINES = 500
MAX_LISTED = 5


@dataclass
class NoteMeta:
    """What a note's frontmatter says about it (all optional)."""

    title: str | None = None
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    description: str | None = None

    def record(self) -> dict[str, Any]:
        """The manifest form (only what is set)."""
        out: dict[str, Any] = {}
        if self.title:
            out["title"] = self.title
        if self.aliases:
            out["aliases"] = self.aliases
        if self.tags:
            out["tags"] = self.tags
        if self.description:
            out["description"] = self.description
        return out


def note_title(resource: str, heading: str | None, note: NoteMeta | None) -> str | None:
    """A note's title when its frontmatter or role names it: the frontmatter ``title``; for a folder note
    (``_index.md``) with no heading, its folder's name. None leaves the title to compile's own rules."""
    if note is not None and note.title:
        return note.title
    stem = posixpath.splitext(posixpath.basename(resource))[0].casefold()
    folder = posixpath.basename(posixpath.dirname(resource))
    if heading is None and stem in FOLDER_NOTE_STEMS and folder:
        return folder
    return None


def _strings(value: Any) -> list[str]:
    """A YAML value as a list of one-line strings: a list, or a comma-separated string."""
    items = value if isinstance(value, list) else str(value).split(",") if isinstance(value, str) else []
    out: list[str] = []
    for item in items:
        if isinstance(item, (str, int, float)) and not isinstance(item, bool):
            text = " ".join(str(item).split())
            if text and text not in out:
                out.append(text)
    return out


def read_note_frontmatter(lines: list[str], resource: str) -> tuple[int, NoteMeta, list[str]]:
    """How many lines a note's frontmatter block takes (0 without one), what it says, and warnings."""
    if not lines or lines[0].rstrip() != "---":
        return 0, NoteMeta(), []
    end = next(
        (i for i in range(1, min(len(lines), MAX_FRONTMATTER_LINES)) if lines[i].rstrip() in ("---", "...")), None
    )
    if end is None:
        return 0, NoteMeta(), []  # never closed: a rule at the top, read as content
    try:
        value = frontmatter.load("\n".join(lines[1:end]), resource, 2)
    except BundleError as exc:
        said = f"{resource}:{exc.line or 1}: frontmatter unreadable ({exc.message}); title, aliases and tags not taken"
        return end + 1, NoteMeta(), [said]
    if not isinstance(value, dict):
        return end + 1, NoteMeta(), []
    title = value.get("title")
    description = value.get("description")
    tags = [t.lstrip("#") for t in _strings(value.get("tags", value.get("tag")))]
    return (
        end + 1,
        NoteMeta(
            title=" ".join(title.split()) or None if isinstance(title, str) else None,
            aliases=_strings(value.get("aliases", value.get("alias"))),
            tags=[t for t in tags if t],
            description=" ".join(description.split()) or None if isinstance(description, str) else None,
        ),
        [],
    )


def link_wikilinks(body: str, plan: DocPlan, vault: Vault | None, compiled: set[str], first_line: int) -> str:
    """``body`` (lines from ``first_line`` of ``plan``'s source) with its wikilinks as markdown links to the
    sources they name; the unresolved ones kept as written and recorded in ``plan.unresolved``."""
    if vault is None or "[[" not in body:
        return body
    resource = plan.source.resource
    folder = posixpath.dirname(resource)

    def replace(link: WikiLink) -> str | None:
        found = vault.resolve(link.target, resource)
        if found is None or found not in compiled:
            return None
        href = posixpath.relpath(found, folder or ".")
        heading = link.heading
        if heading and not heading.startswith("^"):  # a block reference names the note: no anchor
            href += "#" + anchor_slug(heading)
        return markdown_link(link, href)

    out, kept = rewrite_wikilinks(body, replace)
    plan.wikilinks = plan.wikilinks or out != body or bool(kept)
    plan.unresolved += [[first_line + link.line - 1, link.text] for link in kept]
    return out


def apply_note(plan: DocPlan, concepts: list[Node]) -> None:
    """The note's frontmatter on its concepts: tags first on every concept, aliases and the description on
    the concept holding the note's start."""
    note = plan.note
    if note is None:
        return
    top = plan.anchors.get("")
    for node in concepts:
        if note.tags:
            node.tags = list(dict.fromkeys(note.tags + node.tags))
        if node.path == top:
            node.aliases = list(note.aliases)
            if note.description:
                node.description = note.description


def unresolved_lines(state: CompileState) -> list[str]:
    """``resource:line [[link]]`` for every wikilink left unresolved in the documents this compile built."""
    return [
        f"{resource}:{line} {text}"
        for resource in sorted(state.plans)
        for line, text in (state.doc_entries.get(resource) or {}).get("unresolved", [])
    ]


def unresolved_bullet(found: list[str]) -> list[str]:
    """The log.md bullet listing unresolved wikilinks (none when there are none)."""
    if not found:
        return []
    shown = ", ".join(f"`{f}`" for f in found[:MAX_LISTED])
    more = f", and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
    one = len(found) == 1
    bullet = (
        f"* **Unresolved**: {len(found)} wikilink{'' if one else 's'} {'names' if one else 'name'} no "
        f"compiled note and {'stays' if one else 'stay'} as written ({shown}{more}); okf check reports "
        f"{'it' if one else 'them'} (W103)."
    )
    return [bullet]


def _documents(node: Node) -> list[Node]:
    """The documents directly in a folder, also those a wide folder grouped into topics or ranges."""
    out: list[Node] = []
    for child in node.children:
        if child.type == "Document":
            out.append(child)
        elif child.type in ("Topic", "Group"):
            out.extend(_documents(child))
    return out


def folder_note(folder: Node, entries: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The manifest entry of ``folder``'s folder note (``<folder>/<folder>.md`` or ``_index.md``), if any."""
    for child in _documents(folder):
        if not child.anchors:
            continue
        resource = child.anchors[0]
        name = posixpath.basename(posixpath.dirname(resource)).casefold()
        stem = posixpath.splitext(posixpath.basename(resource))[0].casefold()
        if name and (stem == name or stem in FOLDER_NOTE_STEMS):
            return entries.get(resource)
    return None


def folder_signposts(tree: Node, entries: dict[str, dict[str, Any]]) -> None:
    """Folders with a folder note take its title (when its frontmatter names one) and its description."""
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(c for c in node.children if c.is_dir and c.type != "Document")
        if node is tree or node.type != "Folder":
            continue
        entry = folder_note(node, entries)
        if entry is None:
            continue
        note = entry.get("note") or {}
        if note.get("title") or entry.get("title"):
            node.title = note.get("title") or entry["title"]
        lead = note.get("description") or entry.get("lead")
        if lead:
            node.description = lead


__all__ = [
    "NoteMeta",
    "apply_note",
    "folder_signposts",
    "link_wikilinks",
    "read_note_frontmatter",
    "unresolved_bullet",
    "unresolved_lines",
]
