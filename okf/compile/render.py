"""File contents: concept documents (frontmatter + body), index.md signposts and the log.md history."""

from __future__ import annotations

import json
import re
from datetime import datetime

from okf import __version__
from okf.compile.state import Node
from okf.limits import MAX_TITLE_CHARS

PRODUCER = f"okf/{__version__}"
DESCRIPTION_CHARS = 200
_NOT_PRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\u2028\u2029\ufeff\ufffe\uffff\x85]")
_INDEX_ESCAPE = re.compile(r"([\\`*_\[\]<>&!~|#])")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=[A-Z0-9\"\u201c(\[])")


def yaml_str(text: str) -> str:
    """A YAML double-quoted scalar (JSON string syntax is valid YAML once non-printables are escaped)."""
    quoted = json.dumps(text, ensure_ascii=False)
    return _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", quoted)


def iso(at: datetime) -> str:
    """An ISO 8601 UTC datetime with a ``Z`` suffix."""
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def clip(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    if " " in cut[limit // 2:]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-") + "\u2026"


_MARKER = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+|\|)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"[`*_]{1,3}|<[^>]+>|\|")
_RULE = re.compile(r"\s*\|?[\s:|-]*")


def plain(line: str) -> str:
    """A line of markdown as plain prose: markers, link syntax, emphasis and code ticks dropped."""
    line = _MARKER.sub("", line[:2000])
    # Most lines hold no markup: a substring test is far cheaper than a regex scan that finds nothing.
    if "[" in line:
        line = _LINK.sub(r"\1", line)
    if "`" in line or "*" in line or "_" in line or "<" in line or "|" in line:
        line = _EMPHASIS.sub(" ", line)
    return " ".join(line.split())


def describe(lines: list[str], start: int, end: int, skip: set[int], title: str) -> str:
    """The first meaningful sentence of lines ``start..end`` (heading lines skipped), else the title."""
    collected: list[str] = []
    size = 0
    in_fence = False
    for number in range(start, min(end, start + 200) + 1):
        raw = lines[number - 1]
        if raw.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence or (number in skip and len(raw.split()) <= 15) or _RULE.fullmatch(raw):
            if collected and not raw.strip():
                break  # the first paragraph ended
            continue
        text = plain(raw)
        if not text:
            if collected:
                break
            continue
        collected.append(text)
        size += len(text)
        if size > 600:
            break
    for sentence in _SENTENCE_END.split(" ".join(collected)):
        if len(sentence.split()) >= 4 and sum(map(str.isalpha, sentence[:200])) >= 12:
            return clip(sentence.strip().lstrip("-\u2013\u2014:|# ").strip()) or clip(title)
    return clip(title) or "Untitled."


def concept_file(node: Node, body: str, resource: str, doc_title: str, sha: str, at: datetime) -> bytes:
    """A concept document: OKF v0.2 frontmatter, a blank line, the body."""
    assert node.lines is not None
    head = [
        "---",
        f"type: {yaml_str(node.type)}",
        f"title: {yaml_str(clip(node.title, MAX_TITLE_CHARS))}",
        f"description: {yaml_str(node.description)}",
        "sources:",
        "  - id: src",
        f"    resource: {yaml_str(resource)}",
        f"    title: {yaml_str(clip(doc_title, MAX_TITLE_CHARS))}",
        f"    lines: [{node.lines[0]}, {node.lines[1]}]",
        f"    sha256: {sha}",
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


DIR_DESCRIPTION_CHARS = 1000
GROUP_DESCRIPTION_CHARS = 1500
# File-name noise in document titles (SEC filing names: dates, exhibit and form numbers, long ids).
_NOISE = re.compile(r"(?<![\w.])(?:\d{1,2}[ _]\d{1,2}[ _](?:19|20)\d\d|(?:19|20)\d{6}|\d{5,}|EX-[\w.()]+|"
                    r"\d{1,2}-\d{1,2}[A-Z]?|[A-Z]{1,2}-\d{1,2}[A-Z]?|\d{1,2}-[A-Z])(?![\w])")


def short_name(title: str) -> str:
    """A document title without file-name noise, for listing many documents compactly:
    "ADAPTIMMUNETHERAPEUTICSPLC 04 06 2017-EX-10.11-STRATEGIC ALLIANCE AGREEMENT" becomes
    "Adaptimmunetherapeuticsplc Strategic Alliance Agreement"."""
    text = _NOISE.sub(" ", title)
    text = re.sub(r"\s*-(?:\s*-)+\s*|\s+-\s+|(?<=\s)-|-(?=\s)|^-|-$", " ", text)
    words = [w.capitalize() if w.isupper() and w.isalpha() and len(w) > 4 else w for w in text.split()]
    name = " ".join(words).strip(" -,") or title
    return clip(name, 80)


def list_description(lead: str, names: list[str], limit: int = DIR_DESCRIPTION_CHARS) -> str:
    """``lead: a; b; c`` cut at a whole name, saying how many were left out."""
    text = f"{lead}: " if names else lead
    for i, name in enumerate(names):
        rest = len(names) - i
        piece = name + ("; " if rest > 1 else "")
        if len(text) + len(piece) > limit - 20 and rest > 1:
            return text.rstrip("; ") + f"; and {rest} more"
        text += piece
    return clip(text, limit)


def dir_description(title: str, children: list[Node], extra: list[str] | None = None) -> str:
    """A directory's description from its content: its title and the headings beneath (one level down
    for sections, so a chapter's description names its sections' own sections too)."""
    names = [c.title for c in children if c.title and c.title != title]
    if not names:
        return clip(f"{title}.")
    return list_description(title, names + (extra or []))


def group_title(node: Node) -> str:
    """A fan-out group's title: its range and the first and last names in it."""
    first, last = short_name(node.children[0].title), short_name(node.children[-1].title)
    base = node.title.split(":", 1)[0]
    if not node.slug.startswith("documents-"):
        return base
    if first.split()[0] != last.split()[0]:  # the leading word (a company, a code) tells runs apart
        first, last = first.split()[0], last.split()[0]
    return f"{base}: {clip(first, 40)} to {clip(last, 40)}"


def group_description(node: Node) -> str:
    """A fan-out group's description: every member, named compactly."""
    docs = node.slug.startswith("documents-")
    names = [short_name(c.title) if docs else c.title for c in node.children]
    lead = f"{len(names)} documents" if docs else f"{len(names)} entries"
    return list_description(lead, names, GROUP_DESCRIPTION_CHARS)


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
        rel = child.path[len(base):]
        target = f"{rel}index.md" if child.is_dir else rel
        lines.append(f"* [{index_escape(clip(child.title, MAX_TITLE_CHARS))}]({target}) - "
                     f"{index_escape(child.description)}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def log_entry(day: str, created: list[str], updated: list[str], removed: list[str],
              sources: list[str]) -> list[str]:
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
        bullets.append(f"* **Sources**: compiled from {len(sources)} changed source file"
                       f"{'s' * (len(sources) != 1)}{sample(sources, False)}.")
    return bullets


def log_file(previous: str | None, day: str, bullets: list[str]) -> bytes:
    """log.md with today's bullets first (merged into today's entry when one exists), newest first."""
    body = previous or "# Update log\n"
    if not bullets:  # nothing to say: no empty date heading
        return body.encode("utf-8")
    heading = f"## {day}"
    lines = body.rstrip("\n").split("\n")
    if heading in lines:
        at = lines.index(heading) + 1
        lines[at:at] = bullets
    else:
        first = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
        lines[first:first] = [heading, *bullets, ""]
        if first > 0 and lines[first - 1].strip():
            lines.insert(first, "")
    return ("\n".join(lines).rstrip("\n") + "\n").encode("utf-8")
