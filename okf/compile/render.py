"""File contents: concept documents (frontmatter + body), index.md signposts and the log.md history."""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache
from json.encoder import c_encode_basestring, py_encode_basestring  # type: ignore[attr-defined]

from okf._version import __version__
from okf.compile.describe import clip
from okf.compile.source_meta import SourceMeta
from okf.compile.state import Node
from okf.limits import MAX_TITLE_CHARS

PRODUCER = f"okf/{__version__}"
_NOT_PRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\u2028\u2029\ufeff\ufffe\uffff\x85]")
_INDEX_ESCAPE = re.compile(r"([\\`*_\[\]<>&!~|#])")
_QUOTE = c_encode_basestring or py_encode_basestring  # what JSONEncoder(ensure_ascii=False) writes for a str
_LOG_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=[A-Z0-9\"\u201c(\[])")


def yaml_str(text: str) -> str:
    """A YAML double-quoted scalar (JSON string syntax is valid YAML once non-printables are escaped)."""
    quoted = _QUOTE(text)  # json.dumps(text, ensure_ascii=False) without building an encoder per call
    return _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", quoted)


def iso(at: datetime) -> str:
    """An ISO 8601 UTC datetime with a ``Z`` suffix."""
    return _iso(at.year, at.month, at.day, at.hour, at.minute, at.second)


@lru_cache(maxsize=256)
def _iso(year: int, month: int, day: int, hour: int, minute: int, second: int) -> str:
    """``iso`` of the datetime with these fields (the only ones its format reads), remembered: a compile
    writes a few times into thousands of concepts, and ``strftime`` is not cheap."""
    return datetime(year, month, day, hour, minute, second).strftime("%Y-%m-%dT%H:%M:%SZ")


def concept_file(
    node: Node, body: str, resource: str, doc_title: str, sha: str, at: datetime, meta: SourceMeta | None = None
) -> bytes:
    """A concept document: OKF v0.2 frontmatter, a blank line, the body. ``meta`` is the source's own
    frontmatter: its resource, kept keys and sources are written too (okf.compile.source_meta)."""
    assert node.lines is not None
    head = [
        "---",
        f"type: {yaml_str(node.type)}",
        f"title: {yaml_str(clip(node.title, MAX_TITLE_CHARS))}",
        f"description: {yaml_str(node.description)}",
        *([f"resource: {yaml_str(meta.resource)}"] if meta is not None and meta.resource else []),
        *([f"tags: [{', '.join(yaml_str(t) for t in node.tags)}]"] if node.tags else []),
        *([f"aliases: [{', '.join(yaml_str(a) for a in node.aliases)}]"] if node.aliases else []),
        *(meta.kept if meta is not None else []),
        "sources:",
        "  - id: src",
        f"    resource: {yaml_str(resource)}",
        f"    title: {yaml_str(clip(doc_title, MAX_TITLE_CHARS))}",
        *([f"    author: {yaml_str(meta.author)}"] if meta is not None and meta.author else []),
        *([f"    last_modified: {yaml_str(meta.last_modified)}"] if meta is not None and meta.last_modified else []),
        f"    lines: [{node.lines[0]}, {node.lines[1]}]",
        f"    sha256: {sha}",
        *(f"  - {entry}" for entry in (meta.sources if meta is not None else [])),
        "generated:",
        f"  by: {PRODUCER}",
        f"  at: {iso(at)}",
        "---",
        "",
    ]
    return ("\n".join(head) + body.rstrip("\n") + "\n").encode("utf-8")


def index_escape(text: str) -> str:
    """Backslash-escape markdown punctuation so an index entry reads back as exactly ``text``."""
    return _INDEX_ESCAPE.sub(r"\\\1", text)


def index_file(node: Node, title: str, description: str, root_version: str | None = None) -> bytes:
    """An index.md per OKF §8: a heading, the directory description, one entry per child."""
    lines = []
    if root_version:
        lines += ["---", f"okf_version: {yaml_str(root_version)}", "---", ""]
    # A description starting "5. " or "+ " would read as a list item: escape its marker.
    prose = re.sub(r"^(\d+)([.)])", r"\1\\\2", index_escape(description))
    prose = re.sub(r"^([-+])", r"\\\1", prose)
    lines += [f"# {index_escape(clip(title, MAX_TITLE_CHARS))}", "", prose, ""]
    base = node.path
    for child in node.children:
        rel = child.path[len(base) :]
        target = f"{rel}index.md" if child.is_dir else rel
        lines.append(
            f"* [{index_escape(clip(child.title, MAX_TITLE_CHARS))}]({target}) - {index_escape(child.description)}"
        )
    return ("\n".join(lines) + "\n").encode("utf-8")


def listed_concepts(node: Node) -> list[tuple[str, str]]:
    """(path, title) of the concept entries :func:`index_file` writes for ``node``, the first of each path,
    titled as a reader of that listing reads them back (``okf.bundle.titles`` derives an empty one)."""
    listed: dict[str, str] = {}
    for child in node.children:
        if not child.is_dir and child.path not in listed:
            listed[child.path] = clip(child.title, MAX_TITLE_CHARS)
    return list(listed.items())


def log_entry(day: str, created: list[str], updated: list[str], removed: list[str], sources: list[str]) -> list[str]:
    """The bullets of one compile's log entry."""

    def sample(ids: list[str], concepts: bool = True) -> str:
        shown = ", ".join(f"`{i.removesuffix('.md') if concepts else i}`" for i in ids[:3])
        return f" ({shown}{', ...' if len(ids) > 3 else ''})" if ids else ""

    bullets = []
    if created:
        bullets.append(f"* **Creation**: {len(created)} concept{'s' * (len(created) != 1)} created{sample(created)}.")
    if updated:
        bullets.append(f"* **Update**: {len(updated)} concept{'s' * (len(updated) != 1)} updated{sample(updated)}.")
    if removed:
        bullets.append(f"* **Removal**: {len(removed)} concept{'s' * (len(removed) != 1)} removed{sample(removed)}.")
    if sources:
        bullets.append(
            f"* **Sources**: compiled from {len(sources)} changed source file"
            f"{'s' * (len(sources) != 1)}{sample(sources, False)}."
        )
    return bullets


def log_file(previous: str | None, day: str, bullets: list[str]) -> bytes:
    """log.md with this compile's bullets in the entry of ``day``: merged into it when one exists, else a new
    entry placed so the dates stay newest first (a compile dated before the last entry goes below it)."""
    body = previous or "# Update log\n"
    if not bullets:  # nothing to say: no empty date heading
        return body.encode("utf-8")
    heading = f"## {day}"
    lines = body.rstrip("\n").split("\n")
    if heading in lines:
        at = lines.index(heading) + 1
        lines[at:at] = bullets
        return ("\n".join(lines).rstrip("\n") + "\n").encode("utf-8")
    dated = [i for i, line in enumerate(lines) if line.startswith("## ")]
    # The first entry dated before this day (entries not headed by a date are passed over).
    first = next((i for i in dated if _LOG_DATE.match(lines[i][3:].strip()) and lines[i][3:].strip() < day), None)
    if first is None:  # every dated entry is newer: after the last entry
        lines = lines + ([""] if lines and lines[-1].strip() else []) + [heading, *bullets]
    else:
        lines[first:first] = [heading, *bullets, ""]
        if first > 0 and lines[first - 1].strip():
            lines.insert(first, "")
    return ("\n".join(lines).rstrip("\n") + "\n").encode("utf-8")
