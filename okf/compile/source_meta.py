"""A source's own YAML frontmatter, read once and mapped onto the concepts compiled from it (OKF §4.1).

The one place where a source's frontmatter meets okf's (extend it here: Obsidian aliases, folder notes...):

- ``title``: the document's title (it beats the first heading), and so its one concept's or directory's title;
- ``type``: the type of the concept standing for the whole document (a one-concept document, else its
  ``Overview``); sections keep their structural types;
- ``description``: that concept's description (okf.compile.vault.apply_note), and the document directory's
  (it beats the extractive one);
- ``tags``: the concepts' tags, ahead of the key terms compile finds (okf.compile.vault.apply_note);
- ``aliases``: the note's names for wikilinks (okf.compile.vault);
- ``resource``: every concept's ``resource`` (the canonical URI of the asset the document describes);
- ``generated``: okf writes its own; the source's ``by`` and ``at`` become the ``author`` and
  ``last_modified`` of the ``sources`` entry citing it (§5.1 credibility signals);
- ``sources``: appended after the entry okf writes;
- every other key (``verified``, ``status``, ``stale_after``, ``runtime``, producer keys...) is kept as written
  on every concept of the document: consumers preserve unknown keys (§4.1).

The frontmatter lines are not part of any concept's body; line numbers stay those of the whole file, so the
mirrored source and its cited lines agree.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from okf.bundle import frontmatter
from okf.errors import BundleError

MAPPED = frozenset(
    {"type", "title", "description", "tags", "tag", "aliases", "alias", "resource", "generated", "sources"}
)
_TOP_KEY = re.compile(r"^(?:\"[^\"]*\"|'[^']*'|[^\s#\-][^:]*|-[^\s:][^:]*):(?:\s|$)")


@dataclass
class SourceMeta:
    """What a source's frontmatter says, ready to be written into its concepts' frontmatter."""

    end_line: int  # the block's closing line ("---"): concepts start after it
    title: str | None = None
    type: str | None = None
    description: str | None = None
    tags: list[str] | None = None
    resource: str | None = None
    author: str | None = None
    last_modified: str | None = None
    sources: list[str] = field(default_factory=list)  # the source's own sources entries, one YAML flow mapping each
    kept: list[str] = field(default_factory=list)  # the other top-level keys, as YAML lines


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return " ".join(value.split()) or None
    if isinstance(value, bool) or value is None:
        return None if value is None else str(value).lower()
    if isinstance(value, (int, float, date)):
        return str(value)
    return None


def plain(value: Any) -> Any:
    """A YAML value as JSON-writable data: datetimes as ISO 8601 (``Z`` for UTC), dates as ``YYYY-MM-DD``."""
    if isinstance(value, datetime):
        if value.tzinfo is not None and value.utcoffset() == timedelta(0):
            return value.replace(tzinfo=None).isoformat() + "Z"
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def flow(value: Any) -> str:
    """``value`` as one line of YAML (JSON syntax, which YAML reads)."""
    return json.dumps(plain(value), ensure_ascii=False, default=str)


def _blocks(yaml_text: str) -> list[tuple[str | None, list[str]]]:
    """The frontmatter's top-level entries as (key, their lines); comments and blank lines ride along."""
    blocks: list[tuple[str | None, list[str]]] = []
    for line in yaml_text.split("\n"):
        m = _TOP_KEY.match(line)
        if m:
            key = line.split(":", 1)[0].strip().strip("\"'")
            blocks.append((key, [line]))
        elif blocks:
            blocks[-1][1].append(line)
        else:
            blocks.append((None, [line]))
    return blocks


def _kept_lines(yaml_text: str, raw: dict[str, Any]) -> list[str]:
    """The unmapped keys as written; as JSON flow values when the text cannot be cut cleanly per key."""
    keys = [k for k in raw if k not in MAPPED]
    if not keys:
        return []
    lines = [line for key, block in _blocks(yaml_text) if key is not None and key not in MAPPED for line in block]
    while lines and not lines[-1].strip():
        lines.pop()
    try:
        again = frontmatter.load("\n".join(lines)) if lines else {}
    except BundleError:
        again = None
    if isinstance(again, dict) and again == {k: raw[k] for k in keys}:
        return lines
    return [f"{json.dumps(k, ensure_ascii=False)}: {flow(raw[k])}" for k in keys]


def read_source_meta(lines: list[str], path: str) -> tuple[SourceMeta | None, list[str]]:
    """The frontmatter opening ``lines`` (a markdown source), or None; and warnings about it.

    A block that does not parse as a YAML mapping is left in the text (with a warning when it looked like
    YAML but was not valid)."""
    if not lines or lines[0].rstrip() != "---":
        return None, []
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return None, []
    yaml_text = "\n".join(lines[1:end])
    try:
        raw = frontmatter.load(yaml_text, path, 2)
    except BundleError as exc:
        where = f":{exc.line}" if exc.line else ""
        return None, [f"{path}{where}: frontmatter not read ({exc.message}); compiled as text"]
    if not isinstance(raw, dict):
        return None, []
    raw = {str(k): v for k, v in raw.items()}
    meta = SourceMeta(end_line=end + 1)
    meta.title, meta.type = _text(raw.get("title")), _text(raw.get("type"))
    meta.description, meta.resource = _text(raw.get("description")), _text(raw.get("resource"))
    tags = raw.get("tags")
    if isinstance(tags, str):
        tags = list(tags.split(","))
    if isinstance(tags, list):
        meta.tags = [t for t in (_text(t) for t in tags) if t]
    generated = raw.get("generated")
    if isinstance(generated, dict):
        meta.author = _text(generated.get("by"))
        at = plain(generated.get("at"))
        meta.last_modified = at if isinstance(at, str) else None
    own = raw.get("sources")
    for item in own if isinstance(own, list) else [own] if own is not None else []:
        if isinstance(item, str):
            item = {"resource": item}
        if isinstance(item, dict) and item:
            meta.sources.append(flow(item))
    meta.kept = _kept_lines(yaml_text, raw)
    return meta, []


def apply_source_meta(meta: SourceMeta, concepts: list[Any]) -> None:
    """Write the source's ``type`` (and, for a one-concept document, its ``title``) onto its planned concepts
    (``Node`` objects). ``description``, ``tags`` and ``aliases`` are put there by
    :func:`okf.compile.vault.apply_note`, which reads the same block: tags first on every concept, the
    description on the concept holding the document's start."""
    single = len(concepts) == 1
    for node in concepts:
        if single or node.type in ("Document", "Overview"):
            if meta.type:
                node.type = meta.type
            if meta.title and single:
                node.title = meta.title
