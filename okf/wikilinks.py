"""Obsidian-style wikilinks: find them in markdown (outside code), resolve them as Obsidian does, rewrite them.

Forms: ``[[Page]]``, ``[[Page|label]]``, ``[[Page#Heading]]``, ``[[Page#Heading|label]]``, ``[[#Heading]]``
(a heading of the same note), ``[[Page#^block]]``, ``[[folder/Page]]``, ``[[../Page]]``, ``[[Page.md]]`` and
embeds ``![[Page]]``, ``![[diagram.png]]``. A pipe written ``\\|`` (inside a table) separates the label too.

Resolution (:class:`Vault`), case-insensitive, first rule that matches:

1. the path from the vault root (``.md`` optional), or relative to the linking note for ``./`` and ``../``;
2. a path suffix (``[[folder/Page]]`` names ``notes/folder/Page.md``);
3. the file name (``Page`` for ``Page.md``; other files by full name, ``diagram.png``);
4. a note's frontmatter ``title``, then its ``aliases``.

Several notes matching one rule: the one in the linking note's folder, else the one nearest the vault root,
else the first by path (Obsidian prefers the same shortest-path match). Nothing here reads files.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import quote

from okf.markdown import FENCE

_LINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_TICKS = re.compile(r"`+")
_LABEL_ESCAPE = re.compile(r"([\[\]\\])")


@dataclass(frozen=True)
class WikiLink:
    """One wikilink as written: what it names, its heading and label, and where it is in the text."""

    text: str
    target: str
    heading: str
    label: str
    embed: bool
    start: int
    end: int
    line: int

    @property
    def shown(self) -> str:
        """The text Obsidian shows for it: the label, else ``Page > Heading``, ``Heading`` or ``Page``."""
        if self.label:
            return self.label
        name = self.target.rsplit("/", 1)[-1]
        name = name[:-3] if name.lower().endswith(".md") else name
        heading = self.heading.lstrip("^")
        if heading and name:
            return f"{name} > {heading}"
        return heading or name


def _code_ranges(text: str) -> list[tuple[int, int]]:
    """Offsets of fenced code blocks and inline code spans (wikilinks there are code, not links)."""
    ranges: list[tuple[int, int]] = []
    offset = 0
    fence: str | None = None
    fence_start = 0
    for line in text.split("\n"):
        end = offset + len(line)
        opened = FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                ranges.append((fence_start, end))
                fence = None
        elif opened:
            fence, fence_start = opened.group(1), offset
        elif "`" in line:
            ticks = list(_TICKS.finditer(line))
            i = 0
            while i < len(ticks):
                match = next((t for t in ticks[i + 1 :] if len(t.group()) == len(ticks[i].group())), None)
                if match is None:
                    i += 1
                    continue
                ranges.append((offset + ticks[i].start(), offset + match.end()))
                i = ticks.index(match) + 1
        offset = end + 1
    if fence is not None:
        ranges.append((fence_start, len(text)))
    return ranges


def _parse(inner: str) -> tuple[str, str, str]:
    """``Page#Heading|label`` -> (target, heading, label); ``\\|`` counts as the pipe."""
    inner = inner.replace("\\|", "|")
    target, _, label = inner.partition("|")
    target, _, heading = target.partition("#")
    return target.strip(), heading.strip(), label.strip()


def find_wikilinks(text: str) -> list[WikiLink]:
    """Every wikilink of ``text`` outside code, in order, with 1-based line numbers."""
    if "[[" not in text:
        return []
    code = _code_ranges(text) if "`" in text or "~~~" in text else []
    out: list[WikiLink] = []
    for match in _LINK.finditer(text):
        start = match.start()
        if start > 0 and text[start - 1] == "\\":
            continue  # \[[escaped]]
        if any(a <= start < b for a, b in code):
            continue
        target, heading, label = _parse(match.group(2))
        if not target and not heading:
            continue  # [[ ]] or [[|x]]: names nothing
        out.append(
            WikiLink(
                text=match.group(0),
                target=target,
                heading=heading,
                label=label,
                embed=bool(match.group(1)),
                start=start,
                end=match.end(),
                line=text.count("\n", 0, start) + 1,
            )
        )
    return out


@dataclass(frozen=True)
class Note:
    """A file of the vault: its path from the vault root (POSIX) and, for notes, its title and aliases."""

    path: str
    title: str | None = None
    aliases: tuple[str, ...] = ()


def _key(path: str) -> str:
    key = path.casefold()
    return key.removesuffix(".md")


@dataclass
class Vault:
    """The notes and files wikilinks can name, indexed the ways Obsidian matches them."""

    notes: Iterable[Note]
    _paths: dict[str, str] = field(default_factory=dict, init=False)
    _names: dict[str, list[str]] = field(default_factory=dict, init=False)
    _titles: dict[str, list[str]] = field(default_factory=dict, init=False)
    _aliases: dict[str, list[str]] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        for note in self.notes:
            key = _key(note.path)
            self._paths.setdefault(key, note.path)
            self._names.setdefault(key.rsplit("/", 1)[-1], []).append(note.path)
            if note.title and note.title.strip():
                self._titles.setdefault(" ".join(note.title.split()).casefold(), []).append(note.path)
            for alias in note.aliases:
                if alias.strip():
                    self._aliases.setdefault(" ".join(alias.split()).casefold(), []).append(note.path)

    def _best(self, paths: list[str], source: str) -> str:
        folder = posixpath.dirname(source)
        return min(paths, key=lambda p: (posixpath.dirname(p) != folder, p.count("/"), p))

    def resolve(self, target: str, source: str = "") -> str | None:
        """The path of the file ``target`` names, linked from the note at ``source``; None when nothing fits."""
        written = target.strip().replace("\\", "/")
        if not written:
            return source or None
        if written.startswith(("./", "../")):
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), written))
            return None if joined.startswith("../") else self._paths.get(_key(joined))
        key = _key(written.lstrip("/"))
        if key in self._paths:
            return self._paths[key]
        if "/" in key:
            tails = [p for k, p in self._paths.items() if k.endswith("/" + key)]
            return self._best(tails, source) if tails else None
        for table in (self._names, self._titles, self._aliases):
            found = table.get(key) if table is self._names else table.get(" ".join(written.split()).casefold())
            if found:
                return self._best(sorted(set(found)), source)
        return None


def markdown_link(link: WikiLink, href: str) -> str:
    """``link`` as a markdown link to ``href`` (spaces and parentheses escaped; an embed stays an image only
    when ``href`` names a non-markdown file)."""
    label = _LABEL_ESCAPE.sub(r"\\\1", link.shown)
    url = quote(href, safe="/#.-_~!$&'*+,;=:@")
    image = link.embed and not href.partition("#")[0].lower().endswith(".md")
    return f"{'!' if image else ''}[{label}]({url})"


def rewrite_wikilinks(text: str, replace: Callable[[WikiLink], str | None]) -> tuple[str, list[WikiLink]]:
    """``text`` with each wikilink ``replace`` returns text for replaced by it; the others stay as written and
    are returned (unresolved: never dropped)."""
    links = find_wikilinks(text)
    if not links:
        return text, []
    parts: list[str] = []
    kept: list[WikiLink] = []
    at = 0
    for link in links:
        new = replace(link)
        if new is None:
            kept.append(link)
            continue
        parts += [text[at : link.start], new]
        at = link.end
    parts.append(text[at:])
    return "".join(parts), kept


__all__ = ["Note", "Vault", "WikiLink", "find_wikilinks", "markdown_link", "rewrite_wikilinks"]
