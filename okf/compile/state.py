"""The one state object the compile steps read and fill, and the small records it holds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from okf.limits import FANOUT, JUDGE_WINDOW_CHARS
from okf.readers.base import Usage


class CompileOptions(BaseModel):
    """Options of one compile; recorded in the manifest (a change rebuilds every source)."""

    max_words: int = Field(
        default=1500,
        ge=10,
        description="Split sections longer than this many words, at sub-headings or paragraph boundaries.",
    )
    max_chars: int = Field(
        default=JUDGE_WINDOW_CHARS,
        ge=200,
        description="Split sections longer than this many "
        "characters: the judge's window (navigate --body-chars), so a judge reads every concept "
        "whole.",
    )
    min_words: int = Field(default=40, ge=0, description="Merge fragments shorter than this into a neighbour.")
    fanout: int = Field(
        default=FANOUT,
        ge=2,
        description="Most entries one index.md lists; a wider folder of documents is grouped by topic.",
    )
    force: bool = Field(default=False, description="Rebuild every source even when unchanged.")
    timestamp: datetime | None = Field(
        default=None, description="generated.at and log date; default SOURCE_DATE_EPOCH or now (UTC)."
    )
    title: str | None = Field(default=None, description="Title of the root index.md; default from the output name.")
    copy_sources: bool = Field(
        default=True,
        description="Mirror every source under references/sources/ and cite "
        "the mirror, so the bundle is self-contained; False cites paths outside the bundle.",
    )
    sources_url: str | None = Field(
        default=None,
        description="Cite sources as absolute URLs under this base "
        "(sources published elsewhere) instead of mirroring them.",
    )

    describer: str | None = Field(
        default=None,
        description="The model that writes descriptions, tags and group titles (model@host and "
        "prompt version); set by compile_bundle from its describer, None for the extractive compile.",
    )

    def recorded(self) -> dict[str, Any]:
        """The options that shape the output (force and timestamp do not)."""
        recorded: dict[str, Any] = {
            "max_words": self.max_words,
            "min_words": self.min_words,
            "fanout": self.fanout,
            "max_chars": self.max_chars,
        }
        if self.describer:  # only then: an extractive compile records exactly what it always did
            recorded["describer"] = self.describer
        recorded["sources"] = self.sources_mode()  # how sources are cited: a change rebuilds every concept
        if self.sources_url:
            recorded["sources_url"] = self.sources_url
        return recorded

    def sources_mode(self) -> str:
        """How concepts cite their sources: ``mirror`` (a copy in the bundle), ``url`` or ``source_root``."""
        if self.sources_url:
            return "url"
        return "mirror" if self.copy_sources else "source_root"


class SkippedFile(BaseModel):
    """A file the compile did not use, and why."""

    path: str
    reason: str


class ModelReport(BaseModel):
    """What the describer model did in one compile: signposts written, from the cache, kept extractive."""

    describer: str = Field(description="model@host and prompt version.")
    concepts: int = Field(default=0, description="Concepts of rebuilt sources described by the model.")
    concepts_cached: int = Field(default=0, description="Of those, described from the description cache.")
    concepts_failed: int = Field(default=0, description="Concepts that kept the extractive description and tags.")
    groups: int = Field(default=0, description="Groups titled by the model.")
    groups_cached: int = Field(default=0, description="Of those, titled from the cache.")
    groups_failed: int = Field(default=0, description="Groups that kept the extractive title.")
    usage: Usage = Field(default_factory=Usage)
    errors: list[str] = Field(default_factory=list, description="The first distinct errors (at most 5).")

    def error(self, message: str) -> None:
        """Record an error (distinct ones, the first five)."""
        if message not in self.errors and len(self.errors) < 5:
            self.errors.append(message)


class CompileReport(BaseModel):
    """What a compile did: concept counts, bytes written, time, and every notice."""

    output: str
    sources: int = 0
    documents_rebuilt: int = 0
    created: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    concepts: int = 0
    files_written: int = 0
    bytes: int = 0
    seconds: float = 0.0
    changed: bool = False
    warnings: list[str] = Field(default_factory=list)
    skipped: list[SkippedFile] = Field(default_factory=list)
    model: ModelReport | None = Field(default=None, description="Set when a model wrote signposts.")


@dataclass
class SourceFile:
    """A discovered source document."""

    path: Path
    resource: str  # POSIX path relative to the compile root
    kind: str
    sha256: str = ""
    mirror: str = ""  # its copy in the bundle (``references/sources/...``) when sources are mirrored


# Directories the compiler makes to bound a listing (Topic: by what members share; Group: a range), titled from
# key terms or numbering rather than from the text's own headings.
GROUP_TYPES = frozenset({"Topic", "Group"})


@dataclass
class Node:
    """A planned entry of the bundle tree: a concept (``lines`` set) or a directory (``children`` set)."""

    slug: str
    title: str
    type: str = "Section"
    lines: tuple[int, int] | None = None
    children: list[Node] = field(default_factory=list)
    number: str | None = None
    anchors: list[str] = field(default_factory=list)  # md heading anchors and section keys held
    description: str = ""
    path: str = ""  # bundle path: "a/b.md" for concepts, "a/b/" for directories
    words: int = 0
    tags: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)  # a note's frontmatter aliases (okf.compile.vault)

    @property
    def is_dir(self) -> bool:
        """True for a directory node."""
        return self.lines is None


@dataclass
class DocPlan:
    """One source document being rebuilt: its text lines, sections and planned nodes."""

    source: SourceFile
    title: str
    lines: list[str]
    node: Node  # the document directory
    headings: set[int] = field(default_factory=set)  # line numbers of heading lines
    heading_titles: dict[int, str] = field(default_factory=dict)  # heading line -> the section title it opens
    anchors: dict[str, str] = field(default_factory=dict)  # md anchor -> concept path
    keys: dict[str, list[str]] = field(default_factory=dict)  # "section:5.2" -> concept paths
    links_to: set[str] = field(default_factory=set)  # resources this document links to
    outline: list[str] = field(default_factory=list)  # the document's top-level headings
    terms: dict[str, str] = field(default_factory=dict)  # defined term -> defining concept path
    terms_by_word: dict[str, list[str]] | None = None  # first word -> terms, longest first
    term_hits: list[tuple[int, int, str]] | None = None  # defined-term uses in the whole text: start, end, term
    line_starts: list[int] = field(default_factory=list)  # offset of each line in the joined text
    note: Any = None  # a markdown source's frontmatter (okf.compile.vault.NoteMeta), None without one
    first_line: int = 1  # the first line of content (after a note's frontmatter)
    wikilinks: bool = False  # the document holds wikilinks (rebuilt when the notes they may name change)
    unresolved: list[list[Any]] = field(default_factory=list)  # [source line, "[[link]]"] left as written
    meta: Any = None  # the source's own frontmatter (okf.compile.source_meta.SourceMeta), when it has one
    cited: str = ""  # sources[].resource as written: the mirror, a URL, or the path under the compile root
    assets: dict[str, str] = field(default_factory=dict)  # non-source files its links name: resource -> bundle path
    escaped: Any = None  # plain text: its escapes, found once (okf.compile.escape.TextEscapes)


@dataclass
class CompileState:
    """Everything the steps share. Steps run in order; each reads what earlier steps left here."""

    inputs: list[Path]
    output: Path
    options: CompileOptions
    progress: Callable[[str, int, int], None] | None = None
    root: Path = Path(".")
    at: datetime | None = None
    files: list[SourceFile] = field(default_factory=list)
    previous: dict[str, Any] | None = None
    placement: dict[str, str] = field(default_factory=dict)  # resource -> document directory path
    tree: Node | None = None  # folder levels above the document directories
    rebuild: list[SourceFile] = field(default_factory=list)
    source_bytes: dict[str, bytes] = field(default_factory=dict)  # resource -> bytes read when hashing
    plans: dict[str, DocPlan] = field(default_factory=dict)
    outputs: dict[str, bytes] = field(default_factory=dict)  # new or changed file contents
    written: dict[str, int] = field(default_factory=dict)  # new or changed files already in the side tree: size
    side: Path | None = None  # the side tree being built (``<output>.okf-tmp-<pid>``), once opened
    keep: set[str] = field(default_factory=set)  # files carried over unchanged from the old output
    manifest: dict[str, Any] = field(default_factory=dict)
    doc_entries: dict[str, dict[str, Any]] = field(default_factory=dict)  # resource -> manifest record
    report: CompileReport = field(default_factory=lambda: CompileReport(output=""))
    jobs: int = 1  # processes used for per-document work
    stats: dict[str, list[Any]] = field(default_factory=dict)  # resource -> [size, mtime_ns, inode, sha256]
    stat_cache: dict[str, Any] = field(default_factory=dict)  # the previous compile's stat record
    stat_at: int = 0  # time.time_ns() when the sources were statted
    settled: bool = False  # the stat data proves nothing changed since the last compile: later steps skipped
    group_terms: dict[str, dict[str, int]] = field(default_factory=dict)  # resource -> terms it opens with
    vocabulary: dict[str, dict[str, int]] = field(default_factory=dict)  # resource -> term -> concepts holding it
    reused_side: bool = False  # the side tree is the previous compile's spare tree, reconciled on write
    # a first compile's spare tree being mirrored from the side tree by another process (okf.compile.write.start_spare):
    # (the process, the folder it makes), or None
    spare_job: Any = None
    vault: Any = None  # the wikilink targets (okf.wikilinks.Vault), set by okf.compile.vault_resolve.resolve_vault
    vault_key: str = ""  # a digest of those targets, kept in the manifest
    vault_sources: set[str] = field(default_factory=set)  # sources that became concepts (link targets)
    describer: Any = None  # okf.readers.describing.Describer writing signposts (okf.compile.model_describe)
    description_cache: Any = None  # okf.compile.model_cache.DescriptionCache, or None (--no-cache)
    described: dict[str, tuple[str, list[str]]] = field(default_factory=dict)  # concept path -> model signpost
    titled: dict[str, str] = field(default_factory=dict)  # in-document group path -> model title
    model_failing: int = 0  # describer calls failed in a row, across passes (the compile stops asking at 8)
    assets: dict[str, dict[str, str]] = field(default_factory=dict)  # linked file -> {path (in bundle), sha256}
    asset_stats: dict[str, list[Any]] = field(default_factory=dict)  # linked file -> [size, mtime_ns, inode, sha256]
    # directory -> (concept path, title) its index.md lists, for every index.md this compile rendered (written
    # or kept): the title index .okf/titles.json is built from them (okf.compile.write)
    listings: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def changed_files(self) -> set[str]:
        """Paths whose content this compile writes (queued or already in the side tree)."""
        return self.outputs.keys() | self.written.keys()

    def warn(self, message: str) -> None:
        """Record a warning for the report."""
        self.report.warnings.append(message)

    def skip(self, path: str, reason: str) -> None:
        """Record a skipped file."""
        self.report.skipped.append(SkippedFile(path=path, reason=reason))
