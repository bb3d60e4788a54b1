"""What an export publishes: the bundle's concepts in signpost order, with title, description and trust state.

Signpost order is the order a reader meets them: the root's listing, each directory's own listing in place
(index entries first, then synthesized ones), depth first. A concept listed twice appears once, at its first
place. Staleness is judged against ``as_of`` (a date), so the same bundle and date give the same output.

Reading is the cost: every directory is listed and every concept parsed once (for llms.txt, only what it shows
of the frontmatter is typed, and a concept whose cache row holds is not parsed, nor read when the previous
llms-full.txt holds its body). When many concepts must be parsed, this process and one worker process per
further CPU read, each taking contiguous runs of directories (and, for llms.txt, copying its concepts' files
into the export folder): the workers from the first run on, this process from the last back, while no worker
has started it; the result does not depend on how the work was split.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import pickle
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from okf.bundle import Bundle
from okf.bundle.documents import decode_text, load_frontmatter, parse_concept, read_bytes, read_file, read_text
from okf.bundle.fastyaml import compiled_shown, shown_load, unsafe_yaml
from okf.bundle.meta import Summary, summarize
from okf.bundle.model import Diagnostic, Signpost
from okf.errors import BundleError, ConfigError
from okf.export.listings import ListingRow, Post, Stat, keep, reuse
from okf.export.names import folder_title, names_not_utf8, utf8_name
from okf.export.write import Folders, copy_into
from okf.limits import MAX_FRONTMATTER_BYTES
from okf.processes import start_method

PARALLEL_FROM = 2000  # concepts; below this, starting processes costs more than it saves
Progress = Callable[[int], None]  # concepts read so far


@dataclass(slots=True)
class Entry:
    """One concept as published (plain data: it crosses process boundaries). Slotted: an export holds one
    per concept and a worker's are rebuilt in the parent, so a dict-less object is smaller and quicker to make."""

    path: str
    id: str
    title: str
    description: str
    body: str
    body_start_line: int
    end_line: int
    sources_given: list[str]
    frontmatter: dict[str, Any]
    stale_after: datetime | None = None
    deprecated: bool = False
    stale: bool = False
    top: str = ""  # the top-level directory it sits under ("" for a concept of the root)

    @property
    def current(self) -> bool:
        """Neither deprecated nor stale."""
        return not self.deprecated and not self.stale

    def sources(self) -> list[str]:
        """``resource:a-b`` for each provenance entry; the concept's own file lines when none is recorded."""
        return self.sources_given or [f"{self.path}:{self.body_start_line}-{self.end_line}"]

    def __reduce__(self) -> tuple[type[Entry], tuple[Any, ...]]:
        # Pickled as its fields in order (a worker sends back one per concept): a dataclass's default
        # pickling (its __dict__ through copyreg) cost 3x as much to write and 5x as much to read back.
        return Entry, (
            self.path,
            self.id,
            self.title,
            self.description,
            self.body,
            self.body_start_line,
            self.end_line,
            self.sources_given,
            self.frontmatter,
            self.stale_after,
            self.deprecated,
            self.stale,
            self.top,
        )


@dataclass
class Directory:
    """A directory as published: its title, intro and signposts (in listing order)."""

    path: str
    title: str
    intro: str
    signposts: Sequence[Signpost | Post] = field(default_factory=list)


@dataclass
class Collected:
    """Everything an export needs, in signpost order."""

    title: str
    summary: str
    entries: list[Entry] = field(default_factory=list)
    directories: dict[str, Directory] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    copied: dict[str, bool] = field(default_factory=dict)  # concept file -> rewritten (False: unchanged)
    cache: dict[str, Any] = field(default_factory=dict)  # rows for the next export into the same folder
    listings: dict[str, ListingRow] = field(default_factory=dict)  # kept listings, for the next export too
    outputs: dict[str, tuple[int, int]] = field(default_factory=dict)  # concept copy -> its (size, mtime_ns)

    def sections(self) -> list[tuple[str, str]]:
        """(top-level directory path, its title) in root listing order; ``""`` first for root concepts."""
        root = self.directories[""]
        out = [("", "Top level")] if any(e.top == "" for e in self.entries) else []
        out += [(s.path, s.title) for s in root.signposts if s.is_dir]
        return out


def intro(text: str) -> tuple[str, str]:
    """The first heading and first paragraph of an ``index.md`` (a frontmatter ``description`` wins)."""
    lines = text.split("\n")
    start, description = 0, ""
    if lines and lines[0].strip() == "---":
        end = next((n for n in range(1, len(lines)) if lines[n].strip() == "---"), 0)
        for line in lines[1:end]:
            if line.startswith("description:"):
                description = line.split(":", 1)[1].strip().strip("\"'")
        start = end + 1 if end else 0
    title, paragraph = "", list[str]()
    for line in lines[start:]:
        stripped = line.strip()
        if not title and stripped.startswith("# "):
            title = stripped[2:].strip().rstrip("#").strip()
            continue
        if paragraph and not stripped:
            break
        if stripped and not paragraph and (stripped[0] in "#*-+>|`<" or stripped[:2].rstrip(".)").isdigit()):
            if title:
                break  # the listing starts: no intro paragraph
            continue
        if stripped:
            paragraph.append(stripped)
    return title, " ".join(" ".join(paragraph).split()) if not description else " ".join(description.split())


def _entry(bundle: Bundle, path: str, now: datetime, *, frontmatter: bool = True) -> tuple[Entry, str]:
    """The entry of the concept at ``path`` and its file text (read once: parsing and copying share it);
    ``frontmatter=False`` leaves the raw mapping out (llms.txt does not show it, as cached entries do not)."""
    text, diagnostics = read_text(bundle.real_path(path), path)
    concept = parse_concept(path, text, diagnostics)
    meta = concept.meta
    sources = [
        f"{ref.resource}:{ref.lines[0]}-{ref.lines[1]}" if ref.lines else ref.resource
        for ref in meta.sources
        if ref.resource
    ]
    return Entry(
        path=concept.path,
        id=concept.id,
        title=concept.title,
        description=(meta.description or "").strip(),
        body=concept.body,
        body_start_line=concept.body_start_line,
        end_line=concept.end_line,
        sources_given=sources,
        frontmatter=dict(concept.frontmatter) if frontmatter else {},
        stale_after=meta.stale_after,
        deprecated=meta.status.value == "deprecated",
        stale=meta.is_stale(now),
    ), text


def _compiled_entry(path: str, text: str) -> Entry | None:
    """:func:`_summary_entry` of a concept whose frontmatter is in okf's compiler layout and closed by a line
    ``---``: that line is the first one starting ``---`` (no line of the layout starts so), so the text is split
    as :func:`okf.bundle.frontmatter.split` splits it, and the values llms.txt shows are read from one match
    (:func:`okf.bundle.fastyaml.compiled_shown`). None for any other text (tests/test_export.py compares both)."""
    if not text.startswith("---\ntype: "):
        return None
    return _fast_entry(path, text, None)


def _fast_entry(path: str, text: str, now: datetime | None) -> Entry | None:
    """:func:`_summary_entry` the short way, or None: a frontmatter opened by a line ``---`` and closed by the
    first line starting ``---`` (that line exactly ``---``), no line before it starting ``...`` (either would
    split the text elsewhere: :func:`okf.bundle.frontmatter.split`), within the size limit and with no character
    the scanner declines. In the compiler's layout it is read by one match (:func:`_compiled_entry`); otherwise,
    with ``now`` given, by the line scanner keeping only what llms.txt shows
    (:func:`okf.bundle.fastyaml.shown_load`). tests/test_export.py compares both with the long way."""
    at = text.find("\n---", 3)
    if at < 0 or not text.startswith("---\n"):
        return None
    end = text.find("\n", at + 4)
    if (text[at + 4 : end] if end >= 0 else text[at + 4 :]) or (at - 3) * 4 > MAX_FRONTMATTER_BYTES:
        return None  # no closer, a closer that is not "---" alone, or a frontmatter the size check must see
    yaml_text = text[4 : at + 1]
    if unsafe_yaml(yaml_text):
        return None
    body = "" if end < 0 else text[end + 1 :]
    start = text.count("\n", 4, at + 1) + 3
    end_line = start + max(body.count("\n") - (1 if body.endswith("\n") else 0), 0)
    stem = path[:-3].rsplit("/", 1)[-1]
    if yaml_text.startswith('type: "'):  # the compiler's layout quotes every text
        shown = compiled_shown(yaml_text, safe=True)
        if shown is not None:
            title, description, resource, first, last = shown
            return Entry(
                path=path,
                id=path[:-3],
                title=title or _titled(stem),
                description=description.strip(),
                body=body,
                body_start_line=start,
                end_line=end_line,
                sources_given=[f"{resource}:{first}-{last}"] if resource else [],
                frontmatter={},
            )
    if now is None or text.find("\n...", 3, at + 1) >= 0:
        return None
    raw = shown_load(yaml_text)
    if raw is None:
        return None
    shown_title, shown_description = raw.get("title"), raw.get("description")
    if raw.keys() <= _TITLE_KEYS and type(shown_title) in _STR_OR_NONE and type(shown_description) in _STR_OR_NONE:
        # What summarize gives for a title and a description, each text or none, and nothing else it reads.
        return Entry(
            path=path,
            id=path[:-3],
            title=shown_title or _titled(stem),
            description=shown_description.strip() if shown_description else "",
            body=body,
            body_start_line=start,
            end_line=end_line,
            sources_given=[],
            frontmatter={},
        )
    meta = summarize(raw)
    return Entry(
        path=path,
        id=path[:-3],
        title=meta.title or _titled(stem),
        description=(meta.description or "").strip(),
        body=body,
        body_start_line=start,
        end_line=end_line,
        sources_given=[
            f"{resource}:{lines[0]}-{lines[1]}" if lines else resource for resource, lines in meta.sources if resource
        ],
        frontmatter={},
        stale_after=meta.stale_after,
        deprecated=meta.deprecated,
        stale=meta.stale_after is not None and now >= meta.stale_after,  # as Meta.is_stale (§5.5)
    )


def _titled(stem: str) -> str:
    """The title of a concept whose frontmatter gives none: its file name as words."""
    return stem.replace("-", " ").replace("_", " ").strip().capitalize() or stem


_STR_OR_NONE = (str, type(None))
_TITLE_KEYS = frozenset({"title", "description"})


def _summary_entry(path: str, text: str, now: datetime) -> Entry:
    """The entry of the concept at ``path`` from its text, as :func:`_entry` gives it without the raw
    frontmatter: the frontmatter is loaded (a concept okf cannot read is skipped either way) but only what
    llms.txt shows of it is typed (:func:`okf.bundle.meta.summarize`; the usual frontmatter the short way,
    :func:`_fast_entry`)."""
    fast = _fast_entry(path, text, now)
    if fast is not None:
        return fast
    raw, parts = load_frontmatter(text, path)
    meta = Summary() if raw is None else summarize(raw)
    body, start = parts.body, parts.body_start_line
    stem = path[:-3].rsplit("/", 1)[-1]
    return Entry(
        path=path,
        id=path[:-3],
        title=meta.title or _titled(stem),
        description=(meta.description or "").strip(),
        body=body,
        body_start_line=start,
        end_line=start + max(body.count("\n") - (1 if body.endswith("\n") else 0), 0),
        sources_given=[
            f"{resource}:{lines[0]}-{lines[1]}" if lines else resource for resource, lines in meta.sources if resource
        ],
        frontmatter={},
        stale_after=meta.stale_after,
        deprecated=meta.deprecated,
        stale=meta.stale_after is not None and now >= meta.stale_after,  # as Meta.is_stale (§5.5)
    )


# A cached concept: the source file's (size, mtime_ns), what an llms.txt export needs of it, and the exported
# copy's (size, mtime_ns). An unchanged file is then neither parsed nor compared with its copy again.
CacheRow = tuple[int, int, str, str, int, int, list[str], bool, str | None, int, int, int]
RACY_NS = 2_000_000_000  # a file changed this recently may change again within its mtime tick: never cached


def _row(entry: Entry, source: tuple[int, int], copied: os.stat_result) -> CacheRow:
    return (
        source[0],
        source[1],
        entry.title,
        entry.description,
        entry.body_start_line,
        entry.end_line,
        entry.sources_given,
        entry.deprecated,
        entry.stale_after.isoformat() if entry.stale_after else None,
        len(entry.body),
        copied.st_size,
        copied.st_mtime_ns,
    )


def _from_row(path: str, row: CacheRow, now: datetime, body: str = "") -> Entry:
    """The entry a cache row describes (its body given, or left empty: only llms-full.txt shows it)."""
    stale_after = datetime.fromisoformat(row[8]) if row[8] else None
    return Entry(
        path=path,
        id=path[:-3],
        title=row[2],
        description=row[3],
        body=body,
        body_start_line=row[4],
        end_line=row[5],
        sources_given=list(row[6]),
        frontmatter={},
        stale_after=stale_after,
        deprecated=row[7],
        stale=stale_after is not None and now >= stale_after,  # as Meta.is_stale (§5.5)
    )


def _cached(path: str, text: str, row: CacheRow, now: datetime) -> Entry | None:
    """The entry from a cache row and the file's text, or None when its body is not where the row says."""
    start = 0
    for _ in range(row[4] - 1):  # the body starts after body_start_line - 1 line breaks
        start = text.find("\n", start) + 1
        if not start:
            return None
    body = text[start:]
    if len(body) != row[9]:
        return None
    return _from_row(path, row, now, body)


@dataclass
class Known:
    """What the export knows before reading: each markdown file's stat from its walk (by bundle path), the
    time before which a change is trusted (ns), and the concepts whose body the previous ``llms-full.txt``
    holds intact (their files are then not read at all while their cache row holds)."""

    stats: dict[str, Stat] = field(default_factory=dict)
    recent: int = 0
    bodies: frozenset[str] = frozenset()


_inherited: Known | None = None  # a worker's Known: set by _share from the pool's initializer (fork: no copy)
_inherited_bundle: Bundle | None = None  # the parent's Bundle, its directories already scanned (fork only)


_inherited_regions: list[mmap.mmap] | None = None  # shared memory a forked worker leaves each run's part in


def _share(known: Known | None, bundle: Bundle | None = None, regions: list[mmap.mmap] | None = None) -> None:
    global _inherited, _inherited_bundle, _inherited_regions
    _inherited, _inherited_bundle, _inherited_regions = known, bundle, regions


class _Full(Exception):
    """A run's part does not fit its region of shared memory."""


class _RegionWriter:
    """A file for :class:`pickle.Pickler` writing into a region of shared memory (raising :class:`_Full` at its end)."""

    def __init__(self, region: mmap.mmap) -> None:
        self.region = region
        self.at = 0

    def write(self, data: bytes) -> int:
        end = self.at + len(data)
        if end > len(self.region):
            raise _Full
        self.region[self.at : end] = data
        self.at = end
        return len(data)


def _read_run(slot: int, *args: Any) -> _Part | int:
    """:func:`_read_part` in a worker: the part pickled into the run's region of shared memory (made before the
    fork) and its length returned, or, when it has no region or the part does not fit, the part itself (then
    pickled back through the pool's pipe). Through the pipe, cuad's half (24.6 MB pickled) was written by the
    worker into a buffer of its own, copied into and out of the pipe and gathered into another buffer before
    being read: here it is written once, where the exporting process reads it."""
    part = _read_part(*args)
    if slot < 0 or _inherited_regions is None:
        return part
    out = _RegionWriter(_inherited_regions[slot])
    try:
        pickle.Pickler(out, protocol=5).dump(part)
    except _Full:
        return part
    return out.at


_REGION_SLACK = 1 << 20  # bytes: what a run's region holds beyond twice its files' sizes


def _regions(work: list[list[tuple[str, list[str]]]], stats: dict[str, Stat] | None) -> list[mmap.mmap] | None:
    """One region of shared memory per run (anonymous, so only the pages written are ever allocated), for a
    worker to leave its part in: twice the run's markdown files' sizes (a part holds each body once, and titles
    and descriptions), and a MiB. None without the walk's stats."""
    if stats is None:
        return None
    regions: list[mmap.mmap] = []
    try:
        for run in work:
            size = _REGION_SLACK
            for directory, paths in run:
                size += sum(stats.get(path, (0,))[0] for path in paths) + stats.get(directory + "index.md", (0,))[0]
            regions.append(mmap.mmap(-1, 2 * size))
    except (OSError, ValueError):
        for region in regions:
            region.close()
        return None
    return regions


def _load(region: mmap.mmap, length: int) -> _Part:
    """The part a worker left in ``region`` (``length`` bytes)."""
    with memoryview(region) as view, view[:length] as data:
        part: _Part = pickle.loads(data)
    return part


@dataclass
class _Part:
    directories: dict[str, tuple[str, str, Sequence[Signpost | Post]]] = field(default_factory=dict)
    entries: dict[str, Entry] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    copied: dict[str, bool] = field(default_factory=dict)
    cache: dict[str, CacheRow] = field(default_factory=dict)
    listings: dict[str, ListingRow] = field(default_factory=dict)
    unread: list[str] = field(default_factory=list)  # cached current concepts whose body is to be filled in
    outputs: dict[str, tuple[int, int]] = field(default_factory=dict)  # copy -> (size, mtime_ns), a regular file
    error: str = ""


@dataclass(frozen=True, slots=True)
class _Reading:
    """What reading the concepts of one directory shares (one per directory: :func:`_read_concept`'s context):
    the bundle, the day staleness is judged on, the export folder's folders made so far, the previous export's
    rows, the walk's stats, the concepts whose body the previous llms-full.txt holds, the time before which a
    change is trusted (ns), the part being filled, and the copies' folder (None: each copy's own)."""

    bundle: Bundle
    now: datetime
    folders: Folders
    cache: dict[str, CacheRow] | None
    stats: dict[str, Stat] | None
    bodies: frozenset[str]
    recent: int
    part: _Part
    folder: str | None = None


def _read_part(
    root: str,
    work: list[tuple[str, list[str]]],
    now: datetime,
    copy_to: str | None,
    cache: dict[str, CacheRow] | None = None,
    progress: Progress | None = None,
    listings: dict[str, ListingRow] | None = None,
    known: Known | None = None,
    opened: Bundle | None = None,
) -> _Part:
    """List ``work``'s directories and read their concepts (copying each file into ``copy_to``, with ``cache``
    rows from the previous export into the same folder; ``listings``: its kept listings, new ones are kept only
    then; ``known``: what the walk found, else the worker's inherited one; ``opened``: the bundle at ``root``,
    else the worker's inherited one, else opened here); ``progress(done)`` after each directory."""
    inherited = _inherited_bundle if _inherited_bundle is not None and str(_inherited_bundle.root) == root else None
    bundle = opened or inherited or Bundle.open(root)
    part = _Part()
    known = known or _inherited
    stats = known.stats if known is not None else None
    bodies = known.bodies if known is not None else frozenset()
    recent = known.recent if known is not None and known.recent else time.time_ns() - RACY_NS
    folders = Folders(copy_to) if copy_to is not None else None
    done = 0
    for directory, paths in work:
        if progress is not None:
            progress(done)
        done += len(paths)
        kept = listings.get(directory) if listings is not None else None
        reused = reuse(root, directory, kept, recent, stats) if kept is not None else None
        if reused is not None:
            part.directories[directory] = reused
            part.listings[directory] = kept  # type: ignore[assignment]  # kept is a row when reused is set
        else:
            title, text = "", ""
            index = directory + "index.md"
            read: tuple[str, list[Diagnostic]] | None = None
            if bundle.exists(index) and not bundle.is_concept_path(index):
                try:
                    read = read_text(bundle.real_path(index), index)
                    title, text = intro(read[0])
                except BundleError:
                    pass
            try:
                # The listing's fields, not its models (the index.md read above is parsed, not read again).
                fields = bundle.signpost_fields(directory, index_read=read)
            except BundleError as exc:
                part.warnings.append(f"{directory or '(root)'}: skipped, could not be listed: {exc}")
                continue
            # Only what an export reads of a signpost, as a tuple: a pydantic model costs far more to pickle
            # back from a worker process.
            # A concept or folder whose name is not UTF-8 is not published (names_not_utf8 says so).
            signposts = [Post(*f) for f in fields if utf8_name(f[0])]
            part.directories[directory] = (title, text, signposts)
            if listings is not None:
                row = keep(root, directory, title, text, signposts, recent, stats)
                if row is not None:
                    part.listings[directory] = row
        # The copies' folder, named once for the directory (as os.path.dirname names each copy's), and where its
        # files are (a concept's real path, but a symlink's, is this prefix and its name).
        folder = os.path.dirname(os.path.join(copy_to, directory + "-")) if copy_to is not None else None
        plain = bundle.plain_prefix(directory)
        reading = (
            _Reading(bundle, now, folders, cache, stats, bodies, recent, part, folder) if folders is not None else None
        )
        for path in paths:
            try:
                if copy_to is None or reading is None:
                    part.entries[path] = _entry(bundle, path, now)[0]
                    continue
                name = path[len(directory) :]
                source = plain[0] + name if plain is not None and name not in plain[1] else None
                _read_concept(reading, path, os.path.join(copy_to, path), source)
            except BundleError as exc:
                part.warnings.append(f"{path}: skipped, could not be read: {exc}")
            except OSError as exc:
                part.error = f"cannot copy {path} into {copy_to}: {exc.strerror or exc}"
                return part
    return part


def _read_concept(reading: _Reading, path: str, target: str, source: str | None = None) -> None:
    """One concept of an llms-txt export, copied to ``target``: its entry from the cache row when its file and
    its copy are as the row says (the file read only when its body is needed and the previous llms-full.txt
    does not hold it), else parsed and copied; into ``reading.part``. ``source``: the file's real path (when
    the caller has it)."""
    bundle, now, cache, stats, part = reading.bundle, reading.now, reading.cache, reading.stats, reading.part
    row = cache.get(path) if cache else None
    seen = stats.get(path) if stats is not None else None
    data: bytes | None = None
    size_mtime: tuple[int, int]
    if seen is not None:
        size_mtime = seen[0], seen[1]
    else:
        data, info = read_file(source or bundle.real_path(path), path)
        size_mtime = info.st_size, info.st_mtime_ns
    copy: os.stat_result | None = None
    if row is not None:
        try:
            copy = os.lstat(target)
        except OSError:
            pass
        if (
            copy is not None
            and row[:2] == size_mtime
            and (copy.st_size, copy.st_mtime_ns) == row[10:]
            and stat.S_ISREG(copy.st_mode)
        ):
            entry: Entry | None = _from_row(path, row, now)
            if entry is not None and entry.current:
                if path in reading.bodies:
                    part.unread.append(path)
                else:
                    if data is None:
                        data = read_bytes(source or bundle.real_path(path), path)
                    entry = _cached(path, decode_text(data, path)[0], row, now)
            if entry is not None:
                part.copied[path] = False
                part.entries[path] = entry
                part.outputs[path] = row[10], row[11]
                if size_mtime[1] < reading.recent:
                    part.cache[path] = row
                return
    if data is None:
        # Its size and times are the walk's, taken before this read (so no fstat here): had the file changed
        # since, the row kept for it would not match it next time, and the file would be parsed again.
        data = read_bytes(source or bundle.real_path(path), path)
    text, problems = decode_text(data, path)
    parsed = _summary_entry(path, text, now)
    # The copy is the text as okf reads it: the file's own bytes unless decoding changed them (a byte order
    # mark dropped, bad bytes replaced, CRLF made LF).
    exact = not problems and b"\r" not in data
    part.copied[path], copy = copy_into(
        target, data if exact else text.encode("utf-8"), reading.folders, copy, reading.folder
    )
    part.entries[path] = parsed
    part.outputs[path] = copy.st_size, copy.st_mtime_ns
    if size_mtime[1] < reading.recent:
        part.cache[path] = _row(parsed, size_mtime, copy)


def _workers(concepts: int) -> int:
    if concepts < PARALLEL_FROM:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


def _read(
    bundle: Bundle,
    now: datetime,
    copy_to: str | None,
    cache: dict[str, CacheRow] | None,
    progress: Callable[[int, int], None] | None = None,
    listings: dict[str, ListingRow] | None = None,
    known: Known | None = None,
) -> _Part:
    by_dir: dict[str, list[str]] = {d: [] for d in bundle.iter_directories()}
    for path in bundle.iter_concepts():
        by_dir.setdefault(path.rpartition("/")[0] + "/" if "/" in path else "", []).append(path)
    skipped = names_not_utf8(by_dir)
    work = sorted(by_dir.items())
    total = sum(len(paths) for _, paths in work)
    if known is not None and cache:  # concepts whose cache row holds cost little: count the others
        stats, unknown = known.stats, (None, None)
        heavy = sum(1 for p, _ in _each(work) if cache.get(p, unknown)[:2] != stats.get(p, unknown)[:2])
    else:
        heavy = total
    workers = _workers(heavy)
    if workers == 1:
        part = _read_part(
            str(bundle.root),
            work,
            now,
            copy_to,
            cache,
            None if progress is None else lambda done: progress(done, total),
            listings,
            known,
            bundle,
        )
        if progress is not None:
            progress(total, total)
        part.warnings[:0] = skipped
        return part
    # Contiguous runs of directories holding about the same number of concepts, sixteen per reader: small
    # enough that the last run a worker is still reading when this process has run out of runs to take (it
    # takes only runs no worker has started) is short.
    runs: list[list[tuple[str, list[str]]]] = [[]]
    share, count = max(1, total // (workers * 16)), 0
    for item in work:
        runs[-1].append(item)
        count += len(item[1])
        if count >= share:
            runs.append([])
            count = 0
    method = start_method()
    context = multiprocessing.get_context(method)
    shares = [{p: cache[p] for _, paths in run for p in paths if p in cache} if cache else None for run in runs]
    kept = [None if listings is None else {d: listings[d] for d, _ in run if d in listings} for run in runs]
    parts: list[_Part | None] = [None] * len(runs)
    done = 0
    regions = _regions(runs, known.stats if known is not None else None) if method == "fork" else None
    # This process is one of the readers: it takes runs from the end while the workers take them from the
    # start (a run is read here only while no worker has started it), so one fewer process is forked and
    # the runs read here are not pickled back. The parts are merged in the runs' order whoever read them.
    with ProcessPoolExecutor(
        max_workers=workers - 1,
        mp_context=context,
        initializer=_share,
        initargs=(known, bundle if method == "fork" else None, regions),
    ) as pool:
        root = str(bundle.root)
        futures = [
            pool.submit(_read_run, slot if regions is not None else -1, root, run, now, copy_to, share, None, kept_run)
            for slot, (run, share, kept_run) in enumerate(zip(runs, shares, kept, strict=True))
        ]
        # A bundle whose files are not in the page cache (the first export after a boot): read ahead in a
        # thread, started once the workers are forked (a process that forks holds one thread).
        stop, ahead = threading.Event(), None
        if hasattr(os, "posix_fadvise"):
            files = _ahead(root, runs, known.stats if known is not None else None)
            if _cold(files):
                ahead = threading.Thread(target=_read_ahead, args=(files, stop), name="okf-read-ahead", daemon=True)
                ahead.start()
        try:
            for i in reversed(range(len(runs))):
                if not futures[i].cancel():
                    break
                parts[i] = _read_part(root, runs[i], now, copy_to, shares[i], None, kept[i], known, bundle)
                done += sum(len(paths) for _, paths in runs[i])
                if progress is not None:
                    progress(done, total)
            for i, future in enumerate(futures):
                if parts[i] is None:
                    got = future.result()
                    if isinstance(got, int):  # the part is in the run's region
                        assert regions is not None
                        got = _load(regions[i], got)
                    parts[i] = got
                    done += sum(len(paths) for _, paths in runs[i])
                    if progress is not None:
                        progress(done, total)
        finally:
            stop.set()
            if ahead is not None:
                ahead.join()
    for region in regions or ():
        region.close()
    merged = _Part(warnings=skipped)
    for read in parts:
        part = read if read is not None else _Part()  # (never None: every run is read here or by a worker)
        merged.directories.update(part.directories)
        merged.entries.update(part.entries)
        merged.warnings += part.warnings
        merged.copied.update(part.copied)
        merged.cache.update(part.cache)
        merged.listings.update(part.listings)
        merged.unread += part.unread
        merged.outputs.update(part.outputs)
        merged.error = merged.error or part.error
    return merged


_SAMPLED = 8  # files looked at to tell whether a bundle's files are in the page cache


def _cold(files: list[str]) -> bool:
    """Whether some of ``files`` (a few, spread over them) are not in the page cache: a read of one byte that
    must not wait for the disk (``RWF_NOWAIT``) finds its first page missing. False when this cannot be told."""
    if not files or not hasattr(os, "preadv") or not hasattr(os, "RWF_NOWAIT"):
        return False
    byte = bytearray(1)
    for path in files[:: max(1, len(files) // _SAMPLED)][:_SAMPLED]:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            os.preadv(fd, [byte], 0, os.RWF_NOWAIT)
        except BlockingIOError:
            return True
        except OSError:
            return False  # a file system that cannot say
        finally:
            os.close(fd)
    return False


def _read_ahead(files: list[str], stop: threading.Event) -> None:
    """Ask the kernel to read ``files`` ahead, in order (``posix_fadvise`` ``WILLNEED`` starts reading a file
    and does not wait), until ``stop`` is set: the readers then find their files in the page cache, or on
    their way, instead of waiting for each in turn."""
    for path in files:
        if stop.is_set():
            return
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
        except OSError:
            pass
        finally:
            os.close(fd)


def _ahead(root: str, runs: list[list[tuple[str, list[str]]]], stats: dict[str, Stat] | None) -> list[str]:
    """The markdown files the readers will read (each directory's ``index.md``, then its concepts), in the order
    they come to them: a run from the start (the workers' end), one from the end (this process's), and so on."""
    order: list[list[tuple[str, list[str]]]] = []
    low, high = 0, len(runs) - 1
    while low <= high:
        order.append(runs[low])
        if high != low:
            order.append(runs[high])
        low, high = low + 1, high - 1
    files: list[str] = []
    prefix = root.rstrip(os.sep) + os.sep
    for run in order:
        for directory, paths in run:
            if stats is None or directory + "index.md" in stats:
                files.append(prefix + directory + "index.md")
            files += [prefix + path for path in paths]
    return files


def _each(work: list[tuple[str, list[str]]]) -> Iterator[tuple[str, str]]:
    for directory, paths in work:
        for path in paths:
            yield path, directory


def collect(
    bundle: Bundle,
    *,
    as_of: date | None = None,
    title: str | None = None,
    copy_to: str | Path | None = None,
    cache: dict[str, CacheRow] | None = None,
    progress: Callable[[int, int], None] | None = None,
    listings: dict[str, ListingRow] | None = None,
    known: Known | None = None,
    bodies: Callable[[Entry], str | None] | None = None,
) -> Collected:
    """Every listing from the root, depth first, in signpost order; ``copy_to`` also copies every concept file
    (``cache``: rows of the previous export there; the new rows end up in ``Collected.cache``);
    ``listings``: the listings it kept, or ``{}`` to keep new ones; all end up in ``Collected.listings``;
    ``known``: what the walk found (``known.bodies``: the concepts ``bodies(entry)`` has the body of, from
    the previous llms-full.txt; None when it turns out not to: then the file is read after all);
    ``progress(done, total)`` as concepts are read."""
    day = as_of or datetime.now(UTC).date()
    now = datetime(day.year, day.month, day.day, tzinfo=UTC)
    target = str(copy_to) if copy_to is not None else None
    part = _read(bundle, now, target, cache, progress, listings, known)
    if part.unread and target is not None:
        again: list[str] = []
        for path in part.unread:
            entry = part.entries[path]
            body = bodies(entry) if bodies is not None else None
            if body is None:
                again.append(path)
            else:
                entry.body = body
        if again:  # read the long way: the file and its copy looked at again
            reading = _Reading(bundle, now, Folders(target), cache, None, frozenset(), time.time_ns() - RACY_NS, part)
            for path in again:
                try:
                    _read_concept(reading, path, os.path.join(target, path))
                except BundleError as exc:
                    del part.entries[path]
                    part.cache.pop(path, None)
                    part.warnings.append(f"{path}: skipped, could not be read: {exc}")
                except OSError as exc:
                    part.error = part.error or f"cannot copy {path} into {target}: {exc.strerror or exc}"
    if part.error:
        raise ConfigError(part.error, fix="pass -o a writable folder")
    root_title, summary, _ = part.directories.get("", ("", "", []))
    out = Collected(
        title=title or root_title or folder_title(bundle.root.name),
        summary=summary,
        warnings=part.warnings,
        copied=part.copied,
        cache=part.cache,
        listings=part.listings,
        outputs=part.outputs,
    )
    seen: set[str] = set()
    stack: list[tuple[str, str, str]] = [("", "", out.title)]  # (directory, top-level directory, title)
    while stack:
        directory, top, listed_title = stack.pop()
        if directory not in part.directories or directory in out.directories:
            continue
        own_title, text, signposts = part.directories[directory]
        out.directories[directory] = Directory(
            directory, (own_title if directory else out.title) or listed_title, text, signposts
        )
        children: list[tuple[str, str, str]] = []
        for signpost in signposts:
            if signpost.is_dir:
                children.append((signpost.path, top or signpost.path, signpost.title))
            elif signpost.path not in seen and signpost.path in part.entries:
                seen.add(signpost.path)
                entry = part.entries[signpost.path]
                entry.top = top
                entry.description = entry.description or (signpost.description or "").strip()
                out.entries.append(entry)
        stack.extend(reversed(children))
    return out
